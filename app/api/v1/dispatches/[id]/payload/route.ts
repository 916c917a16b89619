import { apiRoute } from "@/lib/api/route";
import { getDispatchPayload } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ scope: "projects:read", project: "entity" }, async ({ db, principal, params }) =>
  getDispatchPayload(db, params.id, principal),
);

import { apiRoute } from "@/lib/api/route";
import { getDispatch } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ scope: "projects:read", project: "entity" }, async ({ db, principal, params }) =>
  getDispatch(db, params.id, principal),
);

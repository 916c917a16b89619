import { apiRoute } from "@/lib/api/route";
import { cancelDispatch } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>({ scope: "dispatch:create", project: "entity" }, async ({ db, principal, params }) =>
  cancelDispatch(db, params.id, principal),
);

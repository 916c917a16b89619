import { apiRoute, readJsonBody } from "@/lib/api/route";
import { reportProgress } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>({ scope: "rollouts:write", project: "entity" }, async ({ req, db, principal, params }) =>
  reportProgress(db, params.id, await readJsonBody(req), principal),
);

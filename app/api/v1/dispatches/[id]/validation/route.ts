import { apiRoute, readJsonBody } from "@/lib/api/route";
import { reportValidation } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>({ scope: "generations:write", project: "entity" }, async ({ req, db, principal, params }) =>
  reportValidation(db, params.id, await readJsonBody(req), principal),
);

import { apiRoute, readJsonBody } from "@/lib/api/route";
import { reportProgress } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>(async ({ req, db, principal, params }) => reportProgress(db, params.id, await readJsonBody(req), principal));

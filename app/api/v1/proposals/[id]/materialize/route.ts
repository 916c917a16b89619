import { apiRoute, readJsonBody } from "@/lib/api/route";
import { materializeProposal } from "@/lib/review/decisions";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>({ scope: "proposals:review", project: "entity" }, async ({ req, db, principal, params }) => {
  // the body is optional: no body means no schedule
  const hasBody = Number(req.headers.get("content-length") ?? "0") > 0 || req.headers.get("transfer-encoding") !== null;
  const body = hasBody ? await readJsonBody(req) : {};
  return Response.json(await materializeProposal(db, params.id, body, principal), { status: 201 });
});

import { apiRoute, readJsonBody } from "@/lib/api/route";
import { reviewProposal } from "@/lib/review/decisions";
import { getProposal } from "@/lib/proposals";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>({ scope: "proposals:review", project: "entity" }, async ({ req, db, principal, params }) => {
  await reviewProposal(db, params.id, await readJsonBody(req), principal);
  return getProposal(db, params.id, principal);
});

import { apiRoute, readJsonBody } from "@/lib/api/route";
import { reviewProposal } from "@/lib/review/decisions";
import { changedItemsView as viewOf, getProposalView, proposalChangeQuerySchema, type ProposalChangeQuery } from "@/lib/proposals";

export const dynamic = "force-dynamic";

/**
 * The decisions applied, then the proposal; with `?items=changed` only the items decided on (a key press need not carry
 * 15,000 items back), with `?items=index` every item as an index entry.
 */
export const POST = apiRoute<{ id: string }, undefined, ProposalChangeQuery>(
  { scope: "proposals:review", project: "entity", query: proposalChangeQuerySchema },
  async ({ req, db, principal, params, query }) => {
    const { itemIds } = await reviewProposal(db, params.id, await readJsonBody(req), principal);
    return getProposalView(db, params.id, principal, viewOf(query, itemIds));
  },
);

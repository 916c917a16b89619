import { apiRoute } from "@/lib/api/route";
import { getProposalView, proposalReadQuerySchema, type ProposalReadQuery } from "@/lib/proposals";

export const dynamic = "force-dynamic";

/**
 * GET /api/v1/proposals/{id}: every item in full (API.md); `?items=index` every item as an index entry, `?ids=a,b,...`
 * only those items in full (what the proposal page reads for a large proposal: the index, then a page of items at a time).
 */
export const GET = apiRoute<{ id: string }, undefined, ProposalReadQuery>(
  { scope: "projects:read", project: "entity", query: proposalReadQuerySchema },
  async ({ db, principal, params, query }) =>
    getProposalView(db, params.id, principal, query.ids ? { only: query.ids } : query.items === "index" ? { index: true } : {}),
);

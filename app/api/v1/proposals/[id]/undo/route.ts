import { apiRoute } from "@/lib/api/route";
import type { z } from "zod";
import { undoItemChange, undoSchema } from "@/lib/review/history";
import { changedItemsView as viewOf, getProposalView, proposalChangeQuerySchema, type ProposalChangeQuery } from "@/lib/proposals";

export const dynamic = "force-dynamic";

/**
 * POST /api/v1/proposals/{id}/undo {"itemId"?}: the item's last change, or the caller's last change on the proposal, taken
 * back; with `?items=changed` the proposal in the answer carries only the items undone, with `?items=index` every item as an index entry.
 */
export const POST = apiRoute<{ id: string }, z.infer<typeof undoSchema>, ProposalChangeQuery>(
  { scope: "proposals:review", project: "entity", body: undoSchema, query: proposalChangeQuerySchema },
  async ({ db, principal, params, body, query }) => {
    const undone = await undoItemChange(db, params.id, body, principal);
    const proposal = await getProposalView(db, params.id, principal, viewOf(query, undone.itemIds));
    return { undone, proposal };
  },
);

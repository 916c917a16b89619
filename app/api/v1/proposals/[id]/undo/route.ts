import type { z } from "zod";
import { apiRoute } from "@/lib/api/route";
import { undoItemChange, undoSchema } from "@/lib/review/history";
import { getProposal } from "@/lib/proposals";

export const dynamic = "force-dynamic";

/** POST /api/v1/proposals/{id}/undo {"itemId"?}: the item's last change, or the caller's last change on the proposal, taken back. */
export const POST = apiRoute<{ id: string }, z.infer<typeof undoSchema>>(
  { scope: "proposals:review", project: "entity", body: undoSchema },
  async ({ db, principal, params, body }) => {
    const undone = await undoItemChange(db, params.id, body, principal);
    return { undone, proposal: await getProposal(db, params.id, principal) };
  },
);

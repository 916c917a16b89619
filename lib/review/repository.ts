/**
 * Review's queries: a proposal's review state, its items' decisions and edits, and comments. SQL
 * only, each selecting the columns its caller reads. No rules, no scopes: lib/review/decisions decides.
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Queryable } from "@/lib/db/client";
import { comments, proposalItems, proposals } from "@/lib/db/schema";

/** What review needs of a proposal; `lock` takes a row lock (FOR UPDATE) until the transaction ends. */
export async function proposalForReview(db: Queryable, id: string, lock = false) {
  const q = db
    .select({
      id: proposals.id,
      projectId: proposals.projectId,
      status: proposals.status,
      baseGeneration: proposals.baseGeneration,
      materializedGeneration: proposals.materializedGeneration,
    })
    .from(proposals)
    .where(eq(proposals.id, id));
  const [p] = lock ? await q.for("update") : await q;
  return p;
}

/** The columns a decision reads, records in the item's history and audits. */
const decisionColumns = {
  id: proposalItems.id,
  op: proposalItems.op,
  decision: proposalItems.decision,
  decidedBy: proposalItems.decidedBy,
  decidedAt: proposalItems.decidedAt,
  editedConfig: proposalItems.editedConfig,
  environmentKey: proposalItems.environmentKey,
};

/** Items of the proposal among `itemIds` (ids of other proposals are left out). */
export async function itemsForDecision(db: Queryable, proposalId: string, itemIds: string[]) {
  if (itemIds.length === 0) return [];
  return db
    .select(decisionColumns)
    .from(proposalItems)
    .where(and(eq(proposalItems.proposalId, proposalId), inArray(proposalItems.id, itemIds)));
}

/** Whether `itemId` is an item of the proposal. */
export async function isItemOf(db: Queryable, proposalId: string, itemId: string): Promise<boolean> {
  const [item] = await db
    .select({ id: proposalItems.id })
    .from(proposalItems)
    .where(and(eq(proposalItems.id, itemId), eq(proposalItems.proposalId, proposalId)));
  return item !== undefined;
}

/** Records an item's decision (its decider and time; both cleared when it goes back to pending) and an edited config. */
export async function setItemDecision(
  db: Queryable,
  itemId: string,
  set: { decision: string; decidedBy: string | null; decidedAt: Date | null; editedConfig?: Record<string, unknown> },
): Promise<void> {
  await db.update(proposalItems).set(set).where(eq(proposalItems.id, itemId));
}

/** Every item's decision of a proposal. */
export async function itemDecisions(db: Queryable, proposalId: string): Promise<string[]> {
  const rows = await db.select({ decision: proposalItems.decision }).from(proposalItems).where(eq(proposalItems.proposalId, proposalId));
  return rows.map((r) => r.decision);
}

/** What materializing reads of every item of a proposal, in proposal order. */
export async function itemsForMaterialize(db: Queryable, proposalId: string) {
  return db
    .select({
      id: proposalItems.id,
      op: proposalItems.op,
      decision: proposalItems.decision,
      decidedBy: proposalItems.decidedBy,
      decidedAt: proposalItems.decidedAt,
      environmentKey: proposalItems.environmentKey,
      parentKey: proposalItems.parentKey,
      config: proposalItems.config,
      editedConfig: proposalItems.editedConfig,
      direction: proposalItems.direction,
      rationale: proposalItems.rationale,
      flags: proposalItems.flags,
      taskEdits: proposalItems.taskEdits,
      editedTaskEdits: proposalItems.editedTaskEdits,
    })
    .from(proposalItems)
    .where(eq(proposalItems.proposalId, proposalId))
    .orderBy(asc(proposalItems.position));
}

/** Rejects every item of the proposal still pending; returns the rejected ones. */
export async function rejectPendingItems(db: Queryable, proposalId: string, actor: string, at: Date) {
  return db
    .update(proposalItems)
    .set({ decision: "rejected", decidedBy: actor, decidedAt: at })
    .where(and(eq(proposalItems.proposalId, proposalId), eq(proposalItems.decision, "pending")))
    .returning({ id: proposalItems.id, op: proposalItems.op, environmentKey: proposalItems.environmentKey });
}

/** Sets a proposal's status (and materialized generation) with its updatedAt. */
export async function setProposalStatus(
  db: Queryable,
  id: string,
  set: { status: string; materializedGeneration?: number },
  at = new Date(),
): Promise<void> {
  await db
    .update(proposals)
    .set({ ...set, updatedAt: at })
    .where(eq(proposals.id, id));
}

/** Inserts a comment on a proposal or one of its items; returns it. */
export async function insertComment(db: Queryable, values: { proposalId: string; itemId?: string | null; author: string; body: string }) {
  const [c] = await db
    .insert(comments)
    .values({ itemId: null, ...values })
    .returning({ id: comments.id, itemId: comments.itemId, author: comments.author, body: comments.body, createdAt: comments.createdAt });
  return c;
}

/** Comments of a proposal, oldest first. */
export async function commentsOf(db: Queryable, proposalId: string) {
  return db
    .select({ id: comments.id, itemId: comments.itemId, author: comments.author, body: comments.body, createdAt: comments.createdAt })
    .from(comments)
    .where(eq(comments.proposalId, proposalId))
    .orderBy(asc(comments.createdAt), asc(comments.id));
}

/**
 * Review's queries: a proposal's review state, its items' decisions and edits, their history
 * (proposal_item_events), task-file edits and comments. SQL only, each selecting the columns its
 * caller reads. No rules, no scopes: lib/review/decisions, history and task-files decide.
 */
import { and, asc, desc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Queryable } from "@/lib/db/client";
import { comments, projects, proposalItemEvents, proposalItems, proposals } from "@/lib/db/schema";

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
    .where(and(eq(proposalItems.proposalId, proposalId), sql`${proposalItems.id} = any(${sql.param(itemIds)}::uuid[])`));
}

/** Whether `itemId` is an item of the proposal. */
export async function isItemOf(db: Queryable, proposalId: string, itemId: string): Promise<boolean> {
  const [item] = await db
    .select({ id: proposalItems.id })
    .from(proposalItems)
    .where(and(eq(proposalItems.id, itemId), eq(proposalItems.proposalId, proposalId)));
  return item !== undefined;
}

/** An item's decision state to write; `editedConfig` only when it changes (undefined leaves the stored one). */
export interface ItemDecisionRow {
  id: string;
  decision: string;
  decidedBy: string | null;
  decidedAt: Date | null;
  editedConfig?: unknown;
}

/**
 * Records many items' decisions in one UPDATE (the rows as one jsonb parameter): a bulk decision on 15,000 items was
 * 15,000 UPDATEs (issue 19). Each id at most once: the caller passes an item's final state.
 */
export async function setItemDecisions(db: Queryable, rows: readonly ItemDecisionRow[]): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((r) => ({
    id: r.id,
    decision: r.decision,
    decided_by: r.decidedBy,
    decided_at: r.decidedAt?.toISOString() ?? null,
    set_edit: r.editedConfig !== undefined,
    edited_config: r.editedConfig ?? null,
  }));
  await db.execute(sql`
    update ${proposalItems} p set decision = v.decision, decided_by = v.decided_by, decided_at = v.decided_at,
      edited_config = case when v.set_edit then v.edited_config else p.edited_config end
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
      as v(id uuid, decision text, decided_by text, decided_at timestamptz, set_edit boolean, edited_config jsonb)
    where p.id = v.id`);
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

/** What a reviewer's file edits read of an item, its proposal and its project; undefined when it is not an item of the proposal. */
export async function itemForTaskFiles(db: Queryable, proposalId: string, itemId: string) {
  const [row] = await db
    .select({
      item: {
        op: proposalItems.op,
        parentKey: proposalItems.parentKey,
        config: proposalItems.config,
        editedConfig: proposalItems.editedConfig,
        taskEdits: proposalItems.taskEdits,
        editedTaskEdits: proposalItems.editedTaskEdits,
      },
      proposal: { materializedGeneration: proposals.materializedGeneration },
      project: { id: projects.id, familyId: projects.familyId },
    })
    .from(proposalItems)
    .innerJoin(proposals, eq(proposals.id, proposalItems.proposalId))
    .innerJoin(projects, eq(projects.id, proposals.projectId))
    .where(and(eq(proposalItems.id, itemId), eq(proposalItems.proposalId, proposalId)));
  return row;
}

/** Sets (or, with nulls, clears) the reviewer's task-file edits of an item and the config they give. */
export async function setItemTaskEdits(
  db: Queryable,
  itemId: string,
  set: { editedTaskEdits: unknown; editedConfig: Record<string, unknown> | null },
): Promise<void> {
  await db.update(proposalItems).set(set).where(eq(proposalItems.id, itemId));
}

// --- item history (proposal_item_events) ------------------------------------------------

type ItemEventInsert = typeof proposalItemEvents.$inferInsert;

/** Appends item events, a few thousand rows a statement (within Postgres' parameter limit for a 100,000-item bulk decision). */
export async function insertItemEvents(db: Queryable, events: ItemEventInsert[]): Promise<void> {
  if (events.length === 0) return;
  // the rows as one jsonb parameter, in order (serial ids follow it): Drizzle's builder for 15,000 rows of a bulk
  // decision took seconds of CPU (issue 19)
  const rows = events.map((e) => ({
    proposal_id: e.proposalId,
    item_id: e.itemId,
    batch_id: e.batchId,
    action: e.action,
    actor: e.actor,
    before: e.before,
    after: e.after,
    reverts_event_id: e.revertsEventId ?? null,
  }));
  await db.execute(sql`
    insert into ${proposalItemEvents} (proposal_id, item_id, batch_id, action, actor, before, after, reverts_event_id)
    select (j->>'proposal_id')::uuid, (j->>'item_id')::uuid, (j->>'batch_id')::uuid, j->>'action', j->>'actor',
           j->'before', j->'after', (j->>'reverts_event_id')::int
    from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) with ordinality as e(j, n)
    order by n`);
}

/** How many events each item of a proposal has. */
export async function itemEventCounts(db: Queryable, proposalId: string) {
  return db
    .select({ itemId: proposalItemEvents.itemId, n: sql<number>`count(*)::int` })
    .from(proposalItemEvents)
    .where(eq(proposalItemEvents.proposalId, proposalId))
    .groupBy(proposalItemEvents.itemId);
}

/** An item of the proposal with its proposed config, or undefined. */
export async function itemConfig(db: Queryable, proposalId: string, itemId: string) {
  const [item] = await db
    .select({ config: proposalItems.config })
    .from(proposalItems)
    .where(and(eq(proposalItems.id, itemId), eq(proposalItems.proposalId, proposalId)));
  return item;
}

/** An item's events, oldest first. */
export async function itemEvents(db: Queryable, itemId: string) {
  return db
    .select({
      id: proposalItemEvents.id,
      action: proposalItemEvents.action,
      actor: proposalItemEvents.actor,
      at: proposalItemEvents.at,
      before: proposalItemEvents.before,
      after: proposalItemEvents.after,
      revertsEventId: proposalItemEvents.revertsEventId,
      undoneAt: proposalItemEvents.undoneAt,
      undoneBy: proposalItemEvents.undoneBy,
    })
    .from(proposalItemEvents)
    .where(eq(proposalItemEvents.itemId, itemId))
    .orderBy(asc(proposalItemEvents.id));
}

/** Events undo may take back: not undos themselves, not undone yet. */
const undoable = and(ne(proposalItemEvents.action, "undo"), isNull(proposalItemEvents.undoneAt));

/** The columns undo reads of an event. */
const undoColumns = {
  id: proposalItemEvents.id,
  itemId: proposalItemEvents.itemId,
  batchId: proposalItemEvents.batchId,
  action: proposalItemEvents.action,
  actor: proposalItemEvents.actor,
  before: proposalItemEvents.before,
};

/** The newest undoable event of a proposal: of one item, or (without `itemId`) of one actor. */
export async function lastUndoableEvent(db: Queryable, proposalId: string, by: { itemId?: string; actor: string }) {
  const [last] = await db
    .select(undoColumns)
    .from(proposalItemEvents)
    .where(
      and(
        eq(proposalItemEvents.proposalId, proposalId),
        undoable,
        by.itemId ? eq(proposalItemEvents.itemId, by.itemId) : eq(proposalItemEvents.actor, by.actor),
      ),
    )
    .orderBy(desc(proposalItemEvents.id))
    .limit(1);
  return last;
}

/** The undoable events of a batch (one request's changes), oldest first. */
export async function undoableEventsOfBatch(db: Queryable, batchId: string) {
  return db
    .select(undoColumns)
    .from(proposalItemEvents)
    .where(and(eq(proposalItemEvents.batchId, batchId), undoable))
    .orderBy(asc(proposalItemEvents.id));
}

/** Undoable events of `itemIds` newer than the event `afterId`. */
export async function undoableEventsAfter(db: Queryable, itemIds: string[], afterId: number) {
  return db
    .select({ itemId: proposalItemEvents.itemId, actor: proposalItemEvents.actor, id: proposalItemEvents.id })
    .from(proposalItemEvents)
    .where(
      and(sql`${proposalItemEvents.itemId} = any(${sql.param(itemIds)}::uuid[])`, undoable, sql`${proposalItemEvents.id} > ${afterId}`),
    );
}

/** The decision state of items, locked (FOR UPDATE) until the transaction ends. */
export async function lockItemStates(db: Queryable, itemIds: string[]) {
  return db
    .select({
      id: proposalItems.id,
      decision: proposalItems.decision,
      decidedBy: proposalItems.decidedBy,
      decidedAt: proposalItems.decidedAt,
      editedConfig: proposalItems.editedConfig,
    })
    .from(proposalItems)
    .where(sql`${proposalItems.id} = any(${sql.param(itemIds)}::uuid[])`)
    .for("update");
}

/** Marks events as taken back by `actor` at `at`. */
export async function markEventsUndone(db: Queryable, eventIds: number[], actor: string, at: Date): Promise<void> {
  await db
    .update(proposalItemEvents)
    .set({ undoneAt: at, undoneBy: actor })
    .where(sql`${proposalItemEvents.id} = any(${sql.param(eventIds)}::int[])`);
}

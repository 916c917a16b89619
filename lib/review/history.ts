/**
 * Each proposal item's history on the server: every decision, edit and undo is a row of
 * proposal_item_events with the item's state before and after, so undo works across reloads and
 * by anyone with the right to review, and undoing an edit restores the config it replaced.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db, DbTx, Queryable } from "@/lib/db/client";
import { Conflict, Invalid, NotFound, parseOrThrow } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import { recordAudit, recordAudits, type AuditInput } from "@/lib/audit";
import {
  insertItemEvents,
  isItemOf,
  itemConfig,
  itemDecisions,
  itemEventCounts,
  itemEvents,
  lastUndoableEvent,
  lockItemStates,
  markEventsUndone,
  proposalForReview,
  setItemDecisions,
  setProposalStatus,
  undoableEventsAfter,
  undoableEventsOfBatch,
} from "./repository";

/** What a change of an item changes: its decision (with who made it and when) and its edited config. */
export interface ItemState {
  decision: string;
  decidedBy: string | null;
  decidedAt: string | null;
  editedConfig: Record<string, unknown> | null;
}

/** One change of one item, as recorded. */
export interface ItemChange {
  itemId: string;
  action: "approve" | "reject" | "pending" | "edit" | "undo";
  before: ItemState;
  after: ItemState;
  revertsEventId?: number;
}

export const undoSchema = z.strictObject({
  /** undo this item's last change; without it, the caller's last change on the proposal (a bulk action as a whole) */
  itemId: z.uuid("must be an item id").optional(),
});

/** The state of an item row as history records it. */
export function itemStateOf(row: { decision: string; decidedBy: string | null; decidedAt: Date | null; editedConfig: unknown }): ItemState {
  return {
    decision: row.decision,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt ? row.decidedAt.toISOString() : null,
    editedConfig: (row.editedConfig as Record<string, unknown> | null) ?? null,
  };
}

/** Append the changes of one request as one batch (undo takes a batch back as a whole). */
export async function recordItemChanges(db: Queryable, proposalId: string, actor: string, changes: ItemChange[]): Promise<void> {
  if (changes.length === 0) return;
  const batchId = randomUUID();
  await insertItemEvents(
    db,
    changes.map((c) => ({
      proposalId,
      itemId: c.itemId,
      batchId,
      action: c.action,
      actor,
      before: c.before,
      after: c.after,
      revertsEventId: c.revertsEventId ?? null,
    })),
  );
}

/** How many changes each item of a proposal has had (for "history (n)" on the item). */
export async function historyCounts(db: Queryable, proposalId: string): Promise<Map<string, number>> {
  const rows = await itemEventCounts(db, proposalId);
  return new Map(rows.map((r) => [r.itemId, r.n]));
}

async function loadProposal(db: Db | DbTx, id: string, lock = false) {
  if (!z.uuid().safeParse(id).success) throw new NotFound(`Proposal ${id} does not exist.`);
  const p = await proposalForReview(db, id, lock);
  if (!p) throw new NotFound(`Proposal ${id} does not exist.`);
  return p;
}

/** GET /proposals/{id}/items/{itemId}/history: the item's changes, oldest first. */
export async function itemHistory(db: Db, proposalId: string, itemId: string, principal: Principal) {
  const p = await loadProposal(db, proposalId);
  requireScope(principal, "projects:read", p.projectId);
  if (!z.uuid().safeParse(itemId).success) throw new NotFound(`Item ${itemId} is not an item of proposal ${proposalId}.`);
  const item = await itemConfig(db, proposalId, itemId);
  if (!item) throw new NotFound(`Item ${itemId} is not an item of proposal ${proposalId}.`);
  const rows = await itemEvents(db, itemId);
  return {
    itemId,
    proposedConfig: item.config,
    events: rows.map((r) => ({
      id: r.id,
      action: r.action,
      actor: r.actor,
      at: r.at.toISOString(),
      before: r.before as ItemState,
      after: r.after as ItemState,
      revertsEventId: r.revertsEventId ?? undefined,
      undoneAt: r.undoneAt?.toISOString(),
      undoneBy: r.undoneBy ?? undefined,
    })),
  };
}

/** The proposal's status from its items: approved, rejected, partially_approved, or ready while any is pending. */
export function proposalStatusFrom(decisions: string[]): string {
  if (decisions.length === 0 || decisions.some((d) => d === "pending")) return "ready";
  if (decisions.every((d) => d === "approved")) return "approved";
  if (decisions.every((d) => d === "rejected")) return "rejected";
  return "partially_approved";
}

/** Recompute a proposal's status from its items after decisions changed; audited when it moves. */
export async function syncProposalStatus(tx: DbTx, projectId: number, proposalId: string, previous: string, actor: string): Promise<void> {
  const status = proposalStatusFrom(await itemDecisions(tx, proposalId));
  if (status === previous) return;
  await setProposalStatus(tx, proposalId, { status });
  await recordAudit(tx, {
    projectId,
    actor,
    action: "proposal.status",
    entity: "proposal",
    entityId: proposalId,
    before: { status: previous },
    after: { status },
  });
}

/**
 * POST /proposals/{id}/undo: take back the last change of an item (`itemId`), or the caller's last
 * change on the proposal (every item of that request). The item returns to its state before the
 * change, edited config included. Refused (409) once materialized, or when someone changed the
 * item since.
 */
export async function undoItemChange(db: Db, proposalId: string, body: unknown, principal: Principal) {
  const input = parseOrThrow(undoSchema, body ?? {});
  const p = await loadProposal(db, proposalId);
  requireScope(principal, "proposals:review", p.projectId);
  if (input.itemId && !(await isItemOf(db, proposalId, input.itemId)))
    throw new Invalid("itemId is not an item of this proposal.", [{ path: "itemId", message: "is not an item of this proposal" }]);
  return db.transaction(async (tx) => {
    const locked = await loadProposal(tx, proposalId, true);
    if (locked.materializedGeneration !== null)
      throw new Conflict(
        `Proposal ${proposalId} was materialized into generation ${locked.materializedGeneration}; its decisions are final.`,
      );
    const last = await lastUndoableEvent(tx, proposalId, { itemId: input.itemId, actor: principal.actor });
    if (!last)
      throw new Conflict(input.itemId ? "This item has no change left to undo." : "You have no change left to undo on this proposal.");
    const events = input.itemId ? [last] : await undoableEventsOfBatch(tx, last.batchId);
    const itemIds = events.map((e) => e.itemId);
    // an item changed by someone after this event is theirs now: undo their change first
    const later = await undoableEventsAfter(tx, itemIds, last.id);
    const newer = later.filter((l) => !events.some((e) => e.id === l.id));
    if (newer.length)
      throw new Conflict(
        `${newer[0].actor} changed this item after the change being undone; undo their change first (item ${newer[0].itemId}).`,
      );
    const rows = await lockItemStates(tx, itemIds);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const now = new Date();
    // each item back to its state before the request: the `before` of its first event in it (events are in id order;
    // a request that decided an item twice has two, and undoing it restores what the item was before both)
    const first = new Map<string, ItemState>();
    for (const e of events) if (!first.has(e.itemId)) first.set(e.itemId, e.before as ItemState);
    const changes: ItemChange[] = [];
    const audits: AuditInput[] = [];
    for (const e of events) {
      const row = byId.get(e.itemId)!;
      const restored = first.get(e.itemId)!;
      const current = itemStateOf(row);
      changes.push({ itemId: e.itemId, action: "undo", before: current, after: restored, revertsEventId: e.id });
      audits.push({
        projectId: p.projectId,
        actor: principal.actor,
        action: "proposal_item.undo",
        entity: "proposal_item",
        entityId: e.itemId,
        before: current,
        after: { ...restored, proposalId, reverts: { event: e.id, action: e.action, by: e.actor } },
      });
    }
    await setItemDecisions(
      tx,
      [...first].map(([id, restored]) => ({
        id,
        decision: restored.decision,
        decidedBy: restored.decidedBy,
        decidedAt: restored.decidedAt ? new Date(restored.decidedAt) : null,
        editedConfig: restored.editedConfig,
      })),
    );
    await recordAudits(tx, audits);
    await markEventsUndone(
      tx,
      events.map((e) => e.id),
      principal.actor,
      now,
    );
    await recordItemChanges(tx, proposalId, principal.actor, changes);
    await syncProposalStatus(tx, p.projectId, proposalId, locked.status, principal.actor);
    return { undone: events.length, action: last.action, itemIds };
  });
}

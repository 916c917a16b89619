/**
 * Review of proposals: per-item decisions (with edited configs), comments, and materializing the
 * approved items into the next generation. Every change is written to the audit log with its actor.
 */
import { z } from "zod";
import type { Db, Queryable } from "@/lib/db/client";
import { Conflict, Invalid, NotFound, parseOrThrow, type ErrorDetail } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import { configHash } from "@/lib/families/hash";
import { parseConfig } from "@/lib/families/parse";
import type { FamilyDefinition } from "@/lib/families/types";
import { getFamily } from "@/lib/family-store";
import type { ProjectRow } from "@/lib/projects/service";
import { upsertEnvironments } from "@/lib/generations/service";
import {
  environmentsByConfigHash,
  environmentsWithWeightIn,
  generationIdAt,
  insertGeneration,
  insertMembership,
  lockProjectGenerations,
  maxGenerationIndex,
} from "@/lib/generations/repository";
import { projectById } from "@/lib/projects/repository";
import { recordAudit, recordAudits, type AuditInput } from "@/lib/audit";
import {
  commentsOf,
  insertComment,
  isItemOf,
  itemsForDecision,
  itemsForMaterialize,
  proposalForReview,
  rejectPendingItems,
  setItemDecisions,
  type ItemDecisionRow,
  setProposalStatus,
} from "./repository";
import { itemStateOf, recordItemChanges, syncProposalStatus, type ItemChange, type ItemState } from "./history";

export { proposalStatusFrom } from "./history";
import type { TaskEdits } from "@/lib/tasks/edits";
import { materializeTaskChildren } from "@/lib/tasks/evolve";

/** The weight an engineer gave an item (terminal tasks scheduled from the pool), if any. */
function itemWeight(flags: unknown): number | undefined {
  const w = (flags as { weight?: unknown } | null)?.weight;
  return typeof w === "number" && w > 0 ? w : undefined;
}

export const reviewSchema = z.strictObject({
  decisions: z
    .array(
      z.strictObject({
        itemId: z.uuid("must be an item id"),
        /** "pending" takes a decision back (undo) */
        decision: z.enum(["approve", "reject", "pending"]),
        config: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .max(100_000),
  comment: z.string().trim().min(1).max(10_000).optional(),
});

export const commentSchema = z.strictObject({
  body: z.string().trim().min(1, "is empty").max(10_000, "is longer than 10,000 characters"),
  itemId: z.uuid().optional(),
});

export const materializeSchema = z.strictObject({
  trainingSteps: z.number().int().min(0).optional(),
  mixWeight: z.number().min(0).optional(),
  /** reject every item still pending and materialize the approved ones (the UI asks first, naming the counts) */
  rejectPending: z.boolean().optional(),
});

const DECISION: Record<string, string> = { approve: "approved", reject: "rejected", pending: "pending" };
const REVIEWABLE = new Set(["ready", "approved", "rejected", "partially_approved"]);

async function loadProposal(db: Queryable, id: string, lock = false) {
  if (!z.uuid().safeParse(id).success) throw new NotFound(`Proposal ${id} does not exist.`);
  const p = await proposalForReview(db, id, lock);
  if (!p) throw new NotFound(`Proposal ${id} does not exist.`);
  const project = await projectById(db, p.projectId);
  return { proposal: p, project: project as ProjectRow };
}

/** Check an edited config against the family; field paths are reported under `prefix`. */
export function checkEditedConfig(
  family: FamilyDefinition,
  config: unknown,
  prefix: string,
): { config: Record<string, unknown> | null; details: ErrorDetail[] } {
  const parsed = parseConfig(family, config);
  if (!parsed.ok) {
    return {
      config: null,
      details: parsed.errors.map((e) => ({ path: `${prefix}${e.path && e.path !== "(root)" ? "." + e.path : ""}`, message: e.message })),
    };
  }
  const v = family.validate(parsed.config);
  if (v.state !== "valid") {
    const errs = v.errors.length ? v.errors : [{ path: "", message: `is ${v.state}` }];
    return { config: null, details: errs.map((e) => ({ path: `${prefix}${e.path ? "." + e.path : ""}`, message: e.message })) };
  }
  return { config: parsed.config as Record<string, unknown>, details: [] };
}

/** POST /proposals/{id}/review: decisions (and edits) on items, one transaction, each audited; the ids of the items decided on. */
export async function reviewProposal(db: Db, id: string, body: unknown, principal: Principal): Promise<{ itemIds: string[] }> {
  const input = parseOrThrow(reviewSchema, body);
  const { proposal, project } = await loadProposal(db, id);
  requireScope(principal, "proposals:review", project.id);
  if (!REVIEWABLE.has(proposal.status)) throw new Conflict(`Proposal ${id} is ${proposal.status}; only a ready proposal can be reviewed.`);
  if (proposal.materializedGeneration !== null)
    throw new Conflict(`Proposal ${id} was materialized into generation ${proposal.materializedGeneration}; its decisions are final.`);
  const family = await getFamily(db, project.familyId);

  const itemIds = [...new Set(input.decisions.map((d) => d.itemId))];
  const items = await itemsForDecision(db, id, itemIds);
  const byId = new Map(items.map((i) => [i.id, i]));
  const details: ErrorDetail[] = [];
  const edits = new Map<number, Record<string, unknown>>();
  input.decisions.forEach((d, i) => {
    const item = byId.get(d.itemId);
    if (!item) return void details.push({ path: `decisions.${i}.itemId`, message: "is not an item of this proposal" });
    if (d.config === undefined) return;
    if (item.op !== "mutate" && item.op !== "add")
      return void details.push({
        path: `decisions.${i}.config`,
        message: `a ${item.op} item keeps its environment's config; only mutate and add items can be edited`,
      });
    const checked = checkEditedConfig(family, d.config, `decisions.${i}.config`);
    if (checked.config) edits.set(i, checked.config);
    else details.push(...checked.details);
  });
  if (details.length) throw new Invalid(`The review cannot be applied: ${details[0].path} ${details[0].message}.`, details);
  // an edit must not duplicate an environment the project already has
  const editHashes = [...edits.entries()].map(([i, c]) => ({ i, hash: configHash(c) }));
  if (editHashes.length) {
    const dupes = await environmentsByConfigHash(
      db,
      project.id,
      editHashes.map((e) => e.hash),
    );
    const known = new Map(dupes.map((d) => [d.hash, d.key]));
    const clash = editHashes.filter((e) => known.has(e.hash));
    if (clash.length) {
      throw new Invalid(
        `decisions.${clash[0].i}.config is the config of environment '${known.get(clash[0].hash)}' already; duplicates never enter twice.`,
        clash.map((c) => ({ path: `decisions.${c.i}.config`, message: `duplicates '${known.get(c.hash)}'` })),
      );
    }
  }

  await db.transaction(async (tx) => {
    const { proposal: locked } = await loadProposal(tx, id, true);
    if (locked.materializedGeneration !== null) throw new Conflict(`Proposal ${id} was materialized meanwhile; its decisions are final.`);
    const now = new Date();
    const changes: ItemChange[] = [];
    const audits: AuditInput[] = [];
    // each item's final state, written in one UPDATE after the loop (a body may decide an item twice: the last holds)
    const finalState = new Map<string, ItemDecisionRow>();
    for (const [i, d] of input.decisions.entries()) {
      const item = byId.get(d.itemId)!;
      const decision = DECISION[d.decision];
      const edited = edits.get(i);
      const before = itemStateOf(item);
      const after: ItemState = {
        decision,
        decidedBy: decision === "pending" ? null : principal.actor,
        decidedAt: decision === "pending" ? null : now.toISOString(),
        editedConfig: edited ?? before.editedConfig,
      };
      // an edit earlier in this body still holds; without one, the stored config is left as it is
      const editedConfig = edited ?? finalState.get(item.id)?.editedConfig;
      finalState.set(item.id, {
        id: item.id,
        decision,
        decidedBy: after.decidedBy,
        decidedAt: decision === "pending" ? null : now,
        ...(editedConfig !== undefined ? { editedConfig } : {}),
      });
      // later requests in the same body see this one's result
      item.decision = decision;
      item.decidedBy = after.decidedBy;
      item.decidedAt = decision === "pending" ? null : now;
      item.editedConfig = after.editedConfig;
      changes.push({ itemId: item.id, action: edited ? "edit" : d.decision, before, after });
      audits.push({
        projectId: project.id,
        actor: principal.actor,
        action: edited
          ? "proposal_item.edit"
          : d.decision === "pending"
            ? "proposal_item.undo"
            : d.decision === "approve"
              ? "proposal_item.approve"
              : "proposal_item.reject",
        entity: "proposal_item",
        entityId: item.id,
        before: { decision: before.decision, editedConfig: before.editedConfig ?? undefined },
        after: {
          decision,
          editedConfig: after.editedConfig ?? undefined,
          proposalId: id,
          op: item.op,
          environmentKey: item.environmentKey,
        },
      });
    }
    await setItemDecisions(tx, [...finalState.values()]);
    await recordAudits(tx, audits);
    await recordItemChanges(tx, id, principal.actor, changes);
    if (input.comment) {
      const c = await insertComment(tx, { proposalId: id, author: principal.actor, body: input.comment });
      await recordAudit(tx, {
        projectId: project.id,
        actor: principal.actor,
        action: "comment.create",
        entity: "comment",
        entityId: c.id,
        after: { proposalId: id, body: input.comment },
      });
    }
    await syncProposalStatus(tx, project.id, id, locked.status, principal.actor);
  });
  return { itemIds };
}

/** POST /proposals/{id}/comments: a comment on the proposal or one of its items. */
export async function addComment(db: Db, id: string, body: unknown, principal: Principal) {
  const input = parseOrThrow(commentSchema, body);
  const { project } = await loadProposal(db, id);
  requireScope(principal, "proposals:review", project.id);
  if (input.itemId && !(await isItemOf(db, id, input.itemId))) {
    throw new Invalid("itemId is not an item of this proposal.", [{ path: "itemId", message: "is not an item of this proposal" }]);
  }
  return db.transaction(async (tx) => {
    const c = await insertComment(tx, { proposalId: id, itemId: input.itemId ?? null, author: principal.actor, body: input.body });
    await recordAudit(tx, {
      projectId: project.id,
      actor: principal.actor,
      action: "comment.create",
      entity: "comment",
      entityId: c.id,
      after: { proposalId: id, itemId: input.itemId, body: input.body },
    });
    return { id: c.id, itemId: c.itemId, author: c.author, body: c.body, createdAt: c.createdAt.toISOString() };
  });
}

/** Comments of a proposal, oldest first. */
export async function listComments(db: Db, id: string) {
  const rows = await commentsOf(db, id);
  return rows.map((c) => ({ id: c.id, itemId: c.itemId, author: c.author, body: c.body, createdAt: c.createdAt.toISOString() }));
}

/**
 * POST /proposals/{id}/materialize: the approved items become the next generation. Kept
 * environments are the same rows; mutated and added ones are new environments with their parent,
 * op and direction; retired ones are left out.
 */
export async function materializeProposal(db: Db, id: string, body: unknown, principal: Principal) {
  const input = parseOrThrow(materializeSchema, body ?? {});
  const { proposal, project } = await loadProposal(db, id);
  requireScope(principal, "proposals:review", project.id);
  if (proposal.materializedGeneration !== null)
    throw new Conflict(`Proposal ${id} is materialized already, as generation ${proposal.materializedGeneration}.`);
  if (!REVIEWABLE.has(proposal.status))
    throw new Conflict(`Proposal ${id} is ${proposal.status}; only a reviewed proposal can be materialized.`);
  const items = await itemsForMaterialize(db, id);
  const pendingItems = items.filter((i) => i.decision === "pending");
  const pending = pendingItems.length;
  if (pending && !input.rejectPending) {
    throw new Conflict(
      `${pending} item${pending === 1 ? " is" : "s are"} still pending; approve or reject every item first, or ` +
        `materialize the approved ones and reject the rest (rejectPending).`,
    );
  }
  const approved = items.filter((i) => i.decision === "approved" && i.op !== "retire");
  if (approved.length === 0)
    throw new Conflict("No item that keeps, mutates or adds an environment is approved; there is nothing to materialize.");

  return db.transaction(async (tx) => {
    await lockProjectGenerations(tx, project.id);
    const { proposal: locked } = await loadProposal(tx, id, true);
    if (locked.materializedGeneration !== null)
      throw new Conflict(`Proposal ${id} is materialized already, as generation ${locked.materializedGeneration}.`);
    if (pending) {
      // the reviewer asked for it: the pending items are rejected, each audited like a rejection by hand
      const now = new Date();
      const rejected = await rejectPendingItems(tx, id, principal.actor, now);
      const edits = new Map(pendingItems.map((i) => [i.id, itemStateOf(i)]));
      await recordItemChanges(
        tx,
        id,
        principal.actor,
        rejected.map((r) => ({
          itemId: r.id,
          action: "reject",
          before: edits.get(r.id) ?? { decision: "pending", decidedBy: null, decidedAt: null, editedConfig: null },
          after: {
            ...(edits.get(r.id) ?? { editedConfig: null }),
            decision: "rejected",
            decidedBy: principal.actor,
            decidedAt: now.toISOString(),
          },
        })),
      );
      for (const item of rejected) {
        await recordAudit(tx, {
          projectId: project.id,
          actor: principal.actor,
          action: "proposal_item.reject",
          entity: "proposal_item",
          entityId: item.id,
          before: { decision: "pending" },
          after: {
            decision: "rejected",
            proposalId: id,
            op: item.op,
            environmentKey: item.environmentKey,
            reason: "rejected as pending when materializing the approved items",
          },
        });
      }
    }
    const index = ((await maxGenerationIndex(tx, project.id)) ?? -1) + 1;
    const baseId = await generationIdAt(tx, project.id, proposal.baseGeneration);

    const fresh = approved.filter((i) => i.op === "mutate" || i.op === "add");
    const envIds = await upsertEnvironments(
      tx,
      project,
      fresh.map((i) => {
        const config = (i.editedConfig ?? i.config) as Record<string, unknown>;
        return {
          key: i.environmentKey!,
          config,
          hash: configHash(config),
          parentKey: i.parentKey ?? undefined,
          op: i.op,
          direction: i.direction,
        };
      }),
    );
    if (project.familyId === "terminal-task") {
      // evolved tasks are written as files now (content-addressed), so the generation exports as Harbor task folders
      await materializeTaskChildren(
        tx,
        project.id,
        fresh.map((i) => ({
          environmentId: envIds.get(i.environmentKey!)!,
          key: i.environmentKey!,
          parentKey: i.parentKey,
          edits: (i.editedTaskEdits ?? i.taskEdits) as TaskEdits | null,
        })),
      );
    }
    const keptKeys = approved.filter((i) => i.op === "keep").map((i) => i.environmentKey!);
    const kept = await environmentsWithWeightIn(tx, project.id, keptKeys, baseId);
    const keptByKey = new Map(kept.map((k) => [k.key, k]));
    const missing = keptKeys.filter((k) => !keptByKey.has(k));
    if (missing.length) throw new Conflict(`Kept environment '${missing[0]}' no longer exists in '${project.slug}'.`);

    const gen = await insertGeneration(tx, {
      projectId: project.id,
      index,
      status: "materialized",
      source: "proposal",
      parentIndex: proposal.baseGeneration,
      proposalId: id,
      trainingSteps: input.trainingSteps,
      mixWeight: input.mixWeight,
    });
    await insertMembership(
      tx,
      gen.id,
      approved.map((i) =>
        i.op === "keep"
          ? {
              environmentId: keptByKey.get(i.environmentKey!)!.id,
              weight: itemWeight(i.flags) ?? keptByKey.get(i.environmentKey!)!.weight ?? 1,
              op: "keep",
              direction: null,
              rationale: i.rationale,
            }
          : {
              environmentId: envIds.get(i.environmentKey!)!,
              weight: itemWeight(i.flags) ?? 1,
              op: i.op,
              direction: i.direction,
              rationale: i.rationale,
            },
      ),
    );
    // a materialized proposal says so (its review is final), whatever its decisions were
    await setProposalStatus(tx, id, { status: "materialized", materializedGeneration: index });
    const counts = {
      keep: keptKeys.length,
      mutate: fresh.filter((i) => i.op === "mutate").length,
      add: fresh.filter((i) => i.op === "add").length,
      retired: items.filter((i) => i.op === "retire" && i.decision === "approved").length,
      rejected: items.filter((i) => i.decision === "rejected").length + pending,
    };
    await recordAudit(tx, {
      projectId: project.id,
      actor: principal.actor,
      action: "proposal.materialize",
      entity: "proposal",
      entityId: id,
      before: { status: locked.status },
      after: {
        status: "materialized",
        generation: index,
        ...counts,
        trainingSteps: input.trainingSteps ?? null,
        mixWeight: input.mixWeight ?? null,
      },
    });
    return { generation: index, environments: approved.length, ...counts };
  });
}

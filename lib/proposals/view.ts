/**
 * GET /proposals/{id}: a proposal with its items and the configs they replace, the population
 * before and after, the engineer run, what the engineer saw, and the review comments. A large proposal's page reads its
 * items as an index (what filters, counts and bulk decisions need) and the items it shows in full, a page at a time.
 */
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import { difficultyTier, type DifficultyTier } from "@/lib/analytics/metrics";
import { listComments } from "@/lib/review/decisions";
import { historyCounts } from "@/lib/review/history";
import { configHash } from "@/lib/families/hash";
import type { EvidenceRef } from "@/lib/engineer/types";
import {
  configsByKey,
  latestEngineerRun,
  projectSlug,
  proposalItemIndexRows,
  proposalItemRows,
  proposalRow,
  storedSummary,
  type ProposalItemRow,
} from "./repository";
import { MAX_ITEM_IDS } from "./contracts";

/** Environments per tier of a set of success estimates. */
function tiersOf(rates: (number | null | undefined)[]): Record<DifficultyTier, number> {
  const out: Record<DifficultyTier, number> = { frontier: 0, advanced: 0, core: 0, solved: 0 };
  for (const r of rates) if (typeof r === "number") out[difficultyTier(r)] += 1;
  return out;
}

/**
 * Which items a proposal is read with:
 * - `{}`: every item in full (API.md's GET; a 15,000-item proposal is 13 MB of JSON);
 * - `only`: these items in full and no others (a review's answer with `?items=changed`, a page's `?ids=`);
 * - `index`: every item as an index entry, and in full those the function names (the proposal page's first page).
 */
export interface ProposalItemsView {
  only?: readonly string[];
  index?: true | ((entries: readonly ProposalItemIndex[]) => Iterable<string>);
}

/**
 * An item without its configs, rationale and evidence (`detail: false`): what the review filters, counts and bulk
 * decisions read. `changes` counts the item's review events and only grows, so it versions the item's mutable part.
 */
export interface ProposalItemIndex {
  id: string;
  op: string;
  direction?: string;
  decision: string;
  decidedBy?: string;
  changes: number;
  commentCount: number;
  detail: false;
}

function fullItem(
  i: ProposalItemRow,
  parentConfig: Map<string, unknown>,
  changes: Map<string, number>,
  commentCounts: Map<string, number>,
) {
  return {
    id: i.id,
    op: i.op,
    environmentKey: i.environmentKey ?? undefined,
    parentKey: i.parentKey ?? undefined,
    parentConfig: i.parentKey ? (parentConfig.get(i.parentKey) ?? null) : null,
    config: i.config,
    direction: i.direction ?? undefined,
    rationale: i.rationale,
    evidence: i.evidence as EvidenceRef[],
    predictedSuccess: i.predictedSuccess ?? undefined,
    proposer: i.proposer,
    flags: ((i.flags as { flags?: string[] } | null)?.flags ?? []) as string[],
    decision: i.decision,
    decidedBy: i.decidedBy ?? undefined,
    editedConfig: i.editedConfig ?? undefined,
    // the rationale argues for the proposed config: once an edit changed it, it may no longer hold
    rationaleStale:
      i.editedConfig != null && configHash(i.editedConfig as Record<string, unknown>) !== configHash(i.config as Record<string, unknown>),
    changes: changes.get(i.id) ?? 0,
    commentCount: commentCounts.get(i.id) ?? 0,
  };
}

/** The view a review or undo answers with (`?items=`): every item in full, the changed ones only, or the index. */
export function changedItemsView(query: { items?: "all" | "changed" | "index" }, changed: readonly string[]): ProposalItemsView {
  return query.items === "changed" ? { only: changed } : query.items === "index" ? { index: true } : {};
}

/** An item in full: its configs (the proposed one, the edited one, the parent's), rationale, evidence and review state. */
export type ProposalItemFull = ReturnType<typeof fullItem>;
export type ProposalItem = ProposalItemFull | ProposalItemIndex;

/** GET /proposals/{id}: the proposal, its items with the configs they replace, the population before/after, the run, the summary. */
export async function getProposal(db: Db, id: string, principal: Principal) {
  const p = await getProposalView(db, id, principal, {});
  return p as Omit<typeof p, "items"> & { items: ProposalItemFull[] };
}

/** The proposal with its items as `view` asks (see ProposalItemsView). */
export async function getProposalView(db: Db, id: string, principal: Principal, view: ProposalItemsView) {
  if (!z.uuid().safeParse(id).success) throw new NotFound(`Proposal ${id} does not exist.`);
  const p = await proposalRow(db, id);
  if (!p) throw new NotFound(`Proposal ${id} does not exist.`);
  requireScope(principal, "projects:read", p.projectId);
  const whole = !view.only && !view.index;
  const [slug, index, rows, run, summary, changes, comments] = await Promise.all([
    projectSlug(db, p.projectId),
    // the population counts every item: read without the large columns unless every item is read in full anyway
    whole ? null : proposalItemIndexRows(db, id),
    whole ? proposalItemRows(db, id) : view.only ? proposalItemRows(db, id, view.only) : null,
    latestEngineerRun(db, id),
    storedSummary(db, p.summaryId),
    historyCounts(db, id),
    listComments(db, id),
  ]);
  const commentCounts = new Map<string, number>();
  for (const c of comments) if (c.itemId) commentCounts.set(c.itemId, (commentCounts.get(c.itemId) ?? 0) + 1);
  const all = index ?? rows!;
  const entries: ProposalItemIndex[] | null = index
    ? index.map((i) => ({
        id: i.id,
        op: i.op,
        direction: i.direction ?? undefined,
        decision: i.decision,
        decidedBy: i.decidedBy ?? undefined,
        changes: changes.get(i.id) ?? 0,
        commentCount: commentCounts.get(i.id) ?? 0,
        detail: false as const,
      }))
    : null;
  // the items sent in full: all, the ones asked for by id, or the ones the index's function names
  let full = rows;
  if (view.index && typeof view.index === "function") {
    const wanted = [...new Set(view.index(entries!))].slice(0, MAX_ITEM_IDS);
    full = wanted.length > 0 ? await proposalItemRows(db, id, wanted) : [];
  }
  const parentKeys = [...new Set((full ?? []).map((i) => i.parentKey).filter((k): k is string => !!k))];
  const parentConfig = await configsByKey(db, p.projectId, parentKeys);
  const byOp = { keep: 0, mutate: 0, add: 0, retire: 0 } as Record<string, number>;
  const byDirection: Record<string, number> = {};
  for (const it of all) {
    byOp[it.op] = (byOp[it.op] ?? 0) + 1;
    if ((it.op === "mutate" || it.op === "add") && it.direction) byDirection[it.direction] = (byDirection[it.direction] ?? 0) + 1;
  }
  const after = all.filter((i) => i.op !== "retire");
  const fullById = new Map((full ?? []).map((i) => [i.id, fullItem(i, parentConfig, changes, commentCounts)]));
  const items: ProposalItem[] = view.index ? entries!.map((e) => fullById.get(e.id) ?? e) : [...fullById.values()];
  return {
    id: p.id,
    project: slug ?? null,
    // rows materialized before the status was written say so too
    status: p.materializedGeneration !== null ? "materialized" : p.status,
    engineer: p.engineer,
    baseGeneration: p.baseGeneration,
    options: p.options,
    error: p.error ?? undefined,
    progress: p.progress,
    materializedGeneration: p.materializedGeneration,
    createdBy: p.createdBy,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    run: run
      ? {
          engineer: run.engineer,
          model: run.model,
          status: run.status,
          promptTokens: run.promptTokens,
          completionTokens: run.completionTokens,
          latencyMs: run.latencyMs,
          costUsd: run.costUsd,
          attempts: run.attempts,
          error: run.error,
          rawOutput: run.rawOutput,
        }
      : null,
    population: {
      before: { size: summary?.behaviour.environments ?? null, tiers: summary?.behaviour.tiers ?? null },
      after: { size: after.length, tiers: tiersOf(after.map((i) => i.predictedSuccess)) },
      byOp,
      byDirection,
    },
    /** how many items the proposal has (`items` may hold only some of them) */
    itemCount: all.length,
    items,
    comments,
    summary,
  };
}

/**
 * GET /proposals/{id}: a proposal with its items and the configs they replace, the population
 * before and after, the engineer run, what the engineer saw, and the review comments.
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
import { configsByKey, latestEngineerRun, projectSlug, proposalItemRows, proposalRow, storedSummary } from "./repository";

/** Environments per tier of a set of success estimates. */
function tiersOf(rates: (number | null | undefined)[]): Record<DifficultyTier, number> {
  const out: Record<DifficultyTier, number> = { frontier: 0, advanced: 0, core: 0, solved: 0 };
  for (const r of rates) if (typeof r === "number") out[difficultyTier(r)] += 1;
  return out;
}

/** GET /proposals/{id}: the proposal, its items with the configs they replace, the population before/after, the run, the summary. */
export async function getProposal(db: Db, id: string, principal: Principal) {
  if (!z.uuid().safeParse(id).success) throw new NotFound(`Proposal ${id} does not exist.`);
  const p = await proposalRow(db, id);
  if (!p) throw new NotFound(`Proposal ${id} does not exist.`);
  requireScope(principal, "projects:read", p.projectId);
  const [slug, items, run, summary, changes, comments] = await Promise.all([
    projectSlug(db, p.projectId),
    proposalItemRows(db, id),
    latestEngineerRun(db, id),
    storedSummary(db, p.summaryId),
    historyCounts(db, id),
    listComments(db, id),
  ]);
  const commentCounts = new Map<string, number>();
  for (const c of comments) if (c.itemId) commentCounts.set(c.itemId, (commentCounts.get(c.itemId) ?? 0) + 1);
  const parentConfig = await configsByKey(db, p.projectId, [...new Set(items.map((i) => i.parentKey).filter((k): k is string => !!k))]);
  const byOp = { keep: 0, mutate: 0, add: 0, retire: 0 } as Record<string, number>;
  const byDirection: Record<string, number> = {};
  for (const it of items) {
    byOp[it.op] = (byOp[it.op] ?? 0) + 1;
    if ((it.op === "mutate" || it.op === "add") && it.direction) byDirection[it.direction] = (byDirection[it.direction] ?? 0) + 1;
  }
  const after = items.filter((i) => i.op !== "retire");
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
    items: items.map((i) => ({
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
    })),
    comments,
    summary,
  };
}

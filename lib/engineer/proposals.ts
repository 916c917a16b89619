/**
 * Proposals: POST queues an engineer run (202), the worker runs it (summary -> engineer -> items),
 * GET returns it with its items, the population before and after, and what the engineer saw.
 */
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { engineerRuns, environments, failureSummaries, policies, projects, proposalItems, proposals } from "@/lib/db/schema";
import { Invalid, NotFound, parseOrThrow } from "@/lib/api/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import { difficultyTier, type DifficultyTier } from "@/lib/analytics/metrics";
import { getFamily } from "@/lib/projects/families";
import { withValidationCache } from "@/lib/families/validation-cache";
import type { ProjectRow } from "@/lib/projects/service";
import { getGeneration, type GenerationRow } from "@/lib/generations/service";
import { recordAudit } from "@/lib/review/audit";
import { listComments } from "@/lib/review/decisions";
import { enqueue } from "@/lib/queue/boss";
import { buildEngineerContext, SUMMARY_TOKEN_BUDGET } from "./summary";
import { heuristicEngineer } from "./heuristic";
import { llmEngineer, llmEngineerConfigFromEnv, LlmEngineerError, type LlmRunRecord } from "./llm";
import { validateItems } from "./validate-items";
import type { EngineerInput, EngineerOutput, EvidenceRef, ProposedItem, StructuredSummary } from "./types";

export const proposalOptionsSchema = z.strictObject({
  seed: z.number().int().optional(),
  populationSize: z.number().int().min(1).max(100_000).optional(),
  keepShare: z.number().min(0, "is a share between 0 and 1").max(1, "is a share between 0 and 1").optional(),
  addShare: z.number().min(0, "is a share between 0 and 1").max(1, "is a share between 0 and 1").optional(),
  groupSize: z.number().int().min(2).max(1024).optional(),
  /** the policy whose results the engineer reads; all policies when absent */
  policy: z.string().min(1).optional(),
  /** token budget of the structured summary */
  summaryTokens: z.number().int().min(500).max(100_000).optional(),
});

export const createProposalSchema = z.strictObject({
  engineer: z.enum(["heuristic", "llm"]),
  options: proposalOptionsSchema.optional(),
});

export const proposalJobSchema = z.object({ proposalId: z.uuid() });

/** Progress of a run as the proposal page shows it. */
export interface ProposalProgress {
  stage: "queued" | "summary" | "engineer" | "validating" | "ready" | "failed";
  message: string;
  at: string;
  /** once ready: children the engineer dropped (invalid, duplicate…) and its notes */
  dropped?: { reason: string; count: number }[];
  notes?: string[];
}

const progress = (stage: ProposalProgress["stage"], message: string): ProposalProgress => ({ stage, message, at: new Date().toISOString() });

/** Whether the LLM engineer can run here (an endpoint and a model configured). */
export function llmEngineerAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  return llmEngineerConfigFromEnv(env) !== null;
}

/** POST .../generations/{index}/proposals: validate, record, queue; the worker does the run. */
export async function createProposal(db: Db, project: ProjectRow, g: GenerationRow, body: unknown, principal: Principal) {
  requireScope(principal, "proposals:create", project.id);
  const input = parseOrThrow(createProposalSchema, body);
  if (input.engineer === "llm" && !llmEngineerAvailable()) {
    throw new Invalid("The LLM engineer is not configured: set OPENAI_BASE_URL, OPENAI_API_KEY and ENVFORGE_ENGINEER_MODEL where the worker runs, or use the heuristic engineer.", [
      { path: "engineer", message: "llm is not configured" },
    ]);
  }
  if (input.options?.policy) {
    const [p] = await db.select({ id: policies.id }).from(policies).where(and(eq(policies.projectId, project.id), eq(policies.name, input.options.policy)));
    if (!p) throw new Invalid(`Policy '${input.options.policy}' has no rollouts in this project.`, [{ path: "options.policy", message: "unknown policy" }]);
  }
  const row = await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(proposals)
      .values({ projectId: project.id, baseGeneration: g.index, engineer: input.engineer, status: "queued", options: input.options ?? {}, createdBy: principal.actor, progress: progress("queued", "Waiting for a worker") })
      .returning();
    await recordAudit(tx, { projectId: project.id, actor: principal.actor, action: "proposal.create", entity: "proposal", entityId: created.id, after: { engineer: input.engineer, baseGeneration: g.index, options: input.options ?? {} } });
    return created;
  });
  try {
    await enqueue("envforge.proposal", proposalJobSchema, { proposalId: row.id }, { retryLimit: 1, retryDelay: 5 });
  } catch (err) {
    await db.update(proposals).set({ status: "failed", error: `Could not queue the run: ${(err as Error).message}` }).where(eq(proposals.id, row.id));
    throw err;
  }
  return { proposalId: row.id, status: "queued" as const };
}

async function setProgress(db: Db, id: string, p: ProposalProgress, extra: Partial<typeof proposals.$inferInsert> = {}) {
  await db.update(proposals).set({ progress: p, updatedAt: new Date(), ...extra }).where(eq(proposals.id, id));
}

/** The worker's job: build the summary, run the engineer, validate and store the items. */
export async function runProposal(db: Db, data: unknown, opts: { llmConfig?: ReturnType<typeof llmEngineerConfigFromEnv> } = {}): Promise<void> {
  const { proposalId } = proposalJobSchema.parse(data);
  const [p] = await db.select().from(proposals).where(eq(proposals.id, proposalId));
  if (!p || (p.status !== "queued" && p.status !== "running")) return; // done already, or gone
  const [project] = await db.select().from(projects).where(eq(projects.id, p.projectId));
  const options = proposalOptionsSchema.parse(p.options ?? {});
  const [run] = await db.insert(engineerRuns).values({ proposalId, engineer: p.engineer, status: "running" }).returning();
  const started = performance.now();
  let llmRun: LlmRunRecord | undefined;
  try {
    await db.delete(proposalItems).where(eq(proposalItems.proposalId, proposalId)); // a retried job starts clean
    await setProgress(db, proposalId, progress("summary", "Summarising rollouts and failures"), { status: "running", error: null });
    // the engineer validates every child; the check after it reuses those answers
    const family = withValidationCache(await getFamily(db, project.familyId));
    const g = await getGeneration(db, project, p.baseGeneration);
    const ctx = await buildEngineerContext(db, project, family, g, options.policy, options.summaryTokens ?? SUMMARY_TOKEN_BUDGET);
    const policyId = options.policy ? (await db.select({ id: policies.id }).from(policies).where(and(eq(policies.projectId, project.id), eq(policies.name, options.policy))))[0]?.id : null;
    const [stored] = await db
      .insert(failureSummaries)
      .values({ projectId: project.id, generationId: g.id, policyId: policyId ?? null, summary: ctx.summary, tokenEstimate: ctx.summary.tokenEstimate })
      .returning({ id: failureSummaries.id });
    await setProgress(db, proposalId, progress("engineer", `${p.engineer === "llm" ? "Asking the LLM engineer" : "Running the heuristic engineer"} on ${ctx.population.length} environments`), { summaryId: stored.id });

    const input: EngineerInput = {
      family,
      summary: ctx.summary,
      population: ctx.population,
      options: { seed: options.seed, populationSize: options.populationSize, keepShare: options.keepShare, addShare: options.addShare, groupSize: options.groupSize },
      knownHashes: ctx.knownHashes,
      keyPrefix: `g${g.index + 1}-${proposalId.slice(0, 4)}-`,
    };
    let output: EngineerOutput;
    if (p.engineer === "llm") {
      const config = opts.llmConfig ?? llmEngineerConfigFromEnv();
      if (!config) throw new Error("The LLM engineer is not configured in the worker (OPENAI_BASE_URL, ENVFORGE_ENGINEER_MODEL).");
      const result = await llmEngineer(input, config, { onProgress: (message) => void setProgress(db, proposalId, progress("engineer", message)) });
      output = result.output;
      llmRun = result.run;
    } else {
      output = heuristicEngineer(input);
    }

    await setProgress(db, proposalId, progress("validating", `Checking ${output.items.length} items against the family`));
    // validateItems returns the items that passed; the rest are counted as dropped
    const checked = validateItems(input, output.items);
    const invalid = new Set(checked.errors.map((e) => e.item));
    const items = checked.items;
    const dropped = [...output.dropped, ...(invalid.size ? [{ reason: "failed validation after the run", count: invalid.size }] : [])];
    await db.transaction(async (tx) => {
      if (items.length) {
        for (let i = 0; i < items.length; i += 500) {
          await tx.insert(proposalItems).values(items.slice(i, i + 500).map((it, j) => itemRow(proposalId, i + j, it)));
        }
      }
      await tx
        .update(engineerRuns)
        .set({
          status: "succeeded",
          model: llmRun?.model ?? null,
          promptTokens: llmRun?.promptTokens ?? null,
          completionTokens: llmRun?.completionTokens ?? null,
          latencyMs: Math.round(llmRun?.latencyMs ?? performance.now() - started),
          costUsd: llmRun?.costUsd ?? null,
          attempts: llmRun?.attempts ?? 1,
          rawOutput: null,
          finishedAt: new Date(),
        })
        .where(eq(engineerRuns.id, run.id));
      await tx
        .update(proposals)
        .set({
          status: "ready",
          updatedAt: new Date(),
          progress: { ...progress("ready", `${items.length} items`), dropped, notes: output.notes } satisfies ProposalProgress,
        })
        .where(eq(proposals.id, proposalId));
    });
  } catch (err) {
    const message = (err as Error).message || String(err);
    const failedRun = err instanceof LlmEngineerError ? err.run : llmRun;
    await db
      .update(engineerRuns)
      .set({
        status: "failed",
        error: message,
        rawOutput: failedRun?.rawOutput ?? null,
        model: failedRun?.model ?? null,
        promptTokens: failedRun?.promptTokens ?? null,
        completionTokens: failedRun?.completionTokens ?? null,
        attempts: failedRun?.attempts ?? 1,
        costUsd: failedRun?.costUsd ?? null,
        latencyMs: Math.round(failedRun?.latencyMs ?? performance.now() - started),
        finishedAt: new Date(),
      })
      .where(eq(engineerRuns.id, run.id));
    await db.update(proposals).set({ status: "failed", error: message, updatedAt: new Date(), progress: progress("failed", message) }).where(eq(proposals.id, proposalId));
  }
}

function itemRow(proposalId: string, position: number, it: ProposedItem): typeof proposalItems.$inferInsert {
  return {
    proposalId,
    position,
    op: it.op,
    environmentKey: it.environmentKey,
    parentKey: it.parentKey ?? null,
    config: it.config,
    direction: it.direction ?? null,
    rationale: it.rationale,
    evidence: it.evidence,
    predictedSuccess: it.predictedSuccess ?? null,
    proposer: it.proposer,
    flags: { flags: it.flags ?? [], ...(it.secondParentKey ? { secondParentKey: it.secondParentKey } : {}) },
  };
}

/** Environments per tier of a set of success estimates. */
function tiersOf(rates: (number | null | undefined)[]): Record<DifficultyTier, number> {
  const out: Record<DifficultyTier, number> = { frontier: 0, advanced: 0, core: 0, solved: 0 };
  for (const r of rates) if (typeof r === "number") out[difficultyTier(r)] += 1;
  return out;
}

/** GET /proposals/{id}: the proposal, its items with the configs they replace, the population before/after, the run, the summary. */
export async function getProposal(db: Db, id: string, principal: Principal) {
  if (!z.uuid().safeParse(id).success) throw new NotFound(`Proposal ${id} does not exist.`);
  const [p] = await db.select().from(proposals).where(eq(proposals.id, id));
  if (!p) throw new NotFound(`Proposal ${id} does not exist.`);
  requireScope(principal, "projects:read", p.projectId);
  const [project] = await db.select({ slug: projects.slug }).from(projects).where(eq(projects.id, p.projectId));
  const [items, runs, summaryRow] = await Promise.all([
    db.select().from(proposalItems).where(eq(proposalItems.proposalId, id)).orderBy(asc(proposalItems.position)),
    db.select().from(engineerRuns).where(eq(engineerRuns.proposalId, id)).orderBy(desc(engineerRuns.id)).limit(1),
    p.summaryId ? db.select().from(failureSummaries).where(eq(failureSummaries.id, p.summaryId)) : Promise.resolve([]),
  ]);
  const refKeys = [...new Set(items.map((i) => i.parentKey).filter((k): k is string => !!k))];
  const parents = refKeys.length
    ? await db.select({ key: environments.key, config: environments.config }).from(environments).where(and(eq(environments.projectId, p.projectId), inArray(environments.key, refKeys)))
    : [];
  const parentConfig = new Map(parents.map((r) => [r.key, r.config]));
  const summary = (summaryRow[0]?.summary ?? null) as StructuredSummary | null;
  const run = runs[0];
  const byOp = { keep: 0, mutate: 0, add: 0, retire: 0 } as Record<string, number>;
  const byDirection: Record<string, number> = {};
  for (const it of items) {
    byOp[it.op] = (byOp[it.op] ?? 0) + 1;
    if ((it.op === "mutate" || it.op === "add") && it.direction) byDirection[it.direction] = (byDirection[it.direction] ?? 0) + 1;
  }
  const after = items.filter((i) => i.op !== "retire");
  return {
    id: p.id,
    project: project?.slug ?? null,
    status: p.status,
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
      ? { engineer: run.engineer, model: run.model, status: run.status, promptTokens: run.promptTokens, completionTokens: run.completionTokens, latencyMs: run.latencyMs, costUsd: run.costUsd, attempts: run.attempts, error: run.error, rawOutput: run.rawOutput }
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
    })),
    comments: await listComments(db, id),
    summary,
  };
}

/** GET /projects/{slug}/proposals: newest first. */
export async function listProposals(db: Db, project: ProjectRow) {
  const rows = await db.select().from(proposals).where(eq(proposals.projectId, project.id)).orderBy(desc(proposals.createdAt)).limit(100);
  return {
    proposals: rows.map((p) => ({ id: p.id, status: p.status, engineer: p.engineer, baseGeneration: p.baseGeneration, createdBy: p.createdBy, createdAt: p.createdAt.toISOString(), error: p.error ?? undefined })),
  };
}

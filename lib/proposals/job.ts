/**
 * The `envforge.proposal` job: build the structured summary, run the heuristic or LLM engineer,
 * check its items against the family once more and store them with the run record.
 */
import { transactionOnConnection, type Db } from "@/lib/db/client";
import { getFamily } from "@/lib/family-store";
import { getBuiltinFamily } from "@/lib/families/registry";
import { withValidationCache } from "@/lib/families/validation-cache";
import type { HelperSession, helperSession } from "@/lib/families/validation-helper";
import { getGeneration } from "@/lib/generations/service";
import { buildEngineerContext, SUMMARY_TOKEN_BUDGET } from "@/lib/engineer/summary";
import { heuristicEngineer } from "@/lib/engineer/heuristic";
import { llmEngineer, llmEngineerConfigFromEnv, LlmEngineerError, type LlmRunRecord } from "@/lib/engineer/llm";
import { validateItems } from "@/lib/engineer/validate-items";
import type { EngineerInput, EngineerOutput, ProposedItem } from "@/lib/engineer/types";
import { taskFilesByKey } from "@/lib/tasks/evolve";
import { loadTaskPool } from "@/lib/engineer/task-pool";
import { progress, proposalJobSchema, proposalOptionsSchema, type ProposalProgress } from "./contracts";
import {
  deleteProposalItems,
  findPolicyId,
  finishEngineerRun,
  insertEngineerRun,
  insertFailureSummary,
  insertProposalItems,
  type NewProposalItem,
  projectOf,
  proposalForRun,
  updateProposal,
} from "./repository";

/** The worker's job: build the summary, run the engineer, validate and store the items. */
export async function runProposal(
  db: Db,
  data: unknown,
  opts: {
    llmConfig?: ReturnType<typeof llmEngineerConfigFromEnv>;
    /**
     * the validation helper thread for the heuristic (lib/families/validation-helper.ts), given by the worker's handlers:
     * imported here it would pull worker_threads and tsx's loader into the web app's bundle
     */
    helperSession?: typeof helperSession;
  } = {},
): Promise<void> {
  const { proposalId } = proposalJobSchema.parse(data);
  const p = await proposalForRun(db, proposalId);
  if (!p || (p.status !== "queued" && p.status !== "running")) return; // done already, or gone
  const project = await projectOf(db, p.projectId);
  const options = proposalOptionsSchema.parse(p.options ?? {});
  const run = await insertEngineerRun(db, proposalId, p.engineer);
  const started = performance.now();
  let llmRun: LlmRunRecord | undefined;
  let helper: HelperSession | undefined;
  const stageMs = { summary: 0, engineer: 0, validating: 0, storing: 0 };
  let stageStart = performance.now();
  /** the time since the last stage ended, recorded as `stage`'s */
  const endStage = (stage: keyof typeof stageMs) => {
    const now = performance.now();
    stageMs[stage] = Math.round(now - stageStart);
    stageStart = now;
  };
  try {
    await deleteProposalItems(db, proposalId); // a retried job starts clean
    await updateProposal(db, proposalId, {
      progress: progress("summary", "Summarising rollouts and failures"),
      status: "running",
      error: null,
    });
    // the engineer validates every child; the check after it reuses those answers. The heuristic on a built-in family
    // gets a validation helper (a second thread; its proposal is the same without one)
    const baseFamily = await getFamily(db, project.familyId);
    helper = p.engineer === "llm" ? undefined : opts.helperSession?.(baseFamily, getBuiltinFamily(project.familyId) === baseFamily);
    const family = withValidationCache(helper?.family ?? baseFamily);
    const g = await getGeneration(db, project, p.baseGeneration);
    const ctx = await buildEngineerContext(db, project, family, g, options.policy, options.summaryTokens ?? SUMMARY_TOKEN_BUDGET);
    endStage("summary");
    const policyId = options.policy ? await findPolicyId(db, project.id, options.policy) : null;
    const stored = await insertFailureSummary(db, {
      projectId: project.id,
      generationId: g.id,
      policyId: policyId ?? null,
      summary: ctx.summary,
      tokenEstimate: ctx.summary.tokenEstimate,
    });
    await updateProposal(db, proposalId, {
      progress: progress(
        "engineer",
        `${p.engineer === "llm" ? "Asking the LLM engineer" : "Running the heuristic engineer"} on ${ctx.population.length} environments`,
      ),
      summaryId: stored.id,
    });

    const input: EngineerInput = {
      family,
      summary: ctx.summary,
      population: ctx.population,
      options: {
        seed: options.seed,
        populationSize: options.populationSize,
        keepShare: options.keepShare,
        addShare: options.addShare,
        groupSize: options.groupSize,
      },
      knownHashes: ctx.knownHashes,
      keyPrefix: `g${g.index + 1}-${proposalId.slice(0, 4)}-`,
      ...(helper ? { helper } : {}),
      // terminal tasks with files are evolved by their files (the LLM engineer edits them)
      ...(project.familyId === "terminal-task"
        ? {
            tasks: await taskFilesByKey(
              db,
              project.id,
              ctx.population.map((m) => m.key),
            ),
            taskPool: await loadTaskPool(
              db,
              project.id,
              ctx.population.map((m) => m.key),
              g.index,
            ),
          }
        : {}),
    };
    let output: EngineerOutput;
    if (p.engineer === "llm") {
      const config = opts.llmConfig ?? llmEngineerConfigFromEnv();
      if (!config) throw new Error("The LLM engineer is not configured in the worker (OPENAI_BASE_URL, ENVFORGE_ENGINEER_MODEL).");
      const result = await llmEngineer(input, config, {
        onProgress: (message) => void updateProposal(db, proposalId, { progress: progress("engineer", message) }),
      });
      output = result.output;
      llmRun = result.run;
    } else {
      output = heuristicEngineer(input);
      helper?.close();
    }
    endStage("engineer");

    await updateProposal(db, proposalId, { progress: progress("validating", `Checking ${output.items.length} items against the family`) });
    // validateItems returns the items that passed; the rest are counted as dropped
    const checked = validateItems(input, output.items);
    const invalid = new Set(checked.errors.map((e) => e.item));
    const items = checked.items;
    const dropped = [...output.dropped, ...(invalid.size ? [{ reason: "failed validation after the run", count: invalid.size }] : [])];
    endStage("validating");
    // one connection, so the items go in with one COPY inside the transaction that marks the proposal ready
    await transactionOnConnection(db, async (tx, connection) => {
      await insertProposalItems(
        connection,
        proposalId,
        items.map((it, i) => itemRow(i, it)),
      );
      await finishEngineerRun(tx, run.id, {
        status: "succeeded",
        model: llmRun?.model ?? null,
        promptTokens: llmRun?.promptTokens ?? null,
        completionTokens: llmRun?.completionTokens ?? null,
        latencyMs: Math.round(llmRun?.latencyMs ?? performance.now() - started),
        costUsd: llmRun?.costUsd ?? null,
        attempts: llmRun?.attempts ?? 1,
        rawOutput: null,
        finishedAt: new Date(),
      });
      // the storing stage ends before its last write, which records it
      endStage("storing");
      await updateProposal(tx, proposalId, {
        status: "ready",
        progress: { ...progress("ready", `${items.length} items`), dropped, notes: output.notes, stageMs } satisfies ProposalProgress,
      });
    });
  } catch (err) {
    helper?.close();
    const message = (err as Error).message || String(err);
    const failedRun = err instanceof LlmEngineerError ? err.run : llmRun;
    await finishEngineerRun(db, run.id, {
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
    });
    await updateProposal(db, proposalId, { status: "failed", error: message, progress: progress("failed", message) });
  }
}

function itemRow(position: number, it: ProposedItem): NewProposalItem {
  return {
    position,
    op: it.op,
    environment_key: it.environmentKey,
    parent_key: it.parentKey ?? null,
    config: it.config,
    direction: it.direction ?? null,
    rationale: it.rationale,
    evidence: it.evidence,
    predicted_success: it.predictedSuccess ?? null,
    proposer: it.proposer,
    task_edits: it.taskEdits ?? null,
    flags: {
      flags: it.flags ?? [],
      ...(it.secondParentKey ? { secondParentKey: it.secondParentKey } : {}),
      ...(it.weight !== undefined ? { weight: it.weight } : {}),
    },
  };
}

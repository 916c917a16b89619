/**
 * Proposals service: POST queues an engineer run (202; the worker runs it, see job.ts) and the
 * project's list of proposals. GET of one proposal is view.ts.
 */
import type { Db } from "@/lib/db/client";
import { Invalid, parseOrThrow } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import type { ProjectRow } from "@/lib/projects/service";
import type { GenerationRow } from "@/lib/generations/service";
import { recordAudit } from "@/lib/audit";
import { enqueue } from "@/lib/queue/boss";
import { llmEngineerConfigFromEnv } from "@/lib/engineer/llm";
import { createProposalSchema, progress, proposalJobSchema } from "./contracts";
import { findPolicyId, insertProposal, markQueueFailed, recentProposals } from "./repository";
import { processEnvironment } from "@/lib/config/env";

/** Whether the LLM engineer can run here (an endpoint and a model configured). */
export function llmEngineerAvailable(env: NodeJS.ProcessEnv = processEnvironment()): boolean {
  return llmEngineerConfigFromEnv(env) !== null;
}

/** POST .../generations/{index}/proposals: validate, record, queue; the worker does the run. */
export async function createProposal(db: Db, project: ProjectRow, g: GenerationRow, body: unknown, principal: Principal) {
  const input = parseOrThrow(createProposalSchema, body);
  if (input.engineer === "llm" && !llmEngineerAvailable()) {
    throw new Invalid(
      "The LLM engineer is not configured: set OPENAI_BASE_URL, OPENAI_API_KEY and ENVFORGE_ENGINEER_MODEL where the " +
        "worker runs, or use the heuristic engineer.",
      [{ path: "engineer", message: "llm is not configured" }],
    );
  }
  if (input.options?.policy && (await findPolicyId(db, project.id, input.options.policy)) === undefined) {
    throw new Invalid(`Policy '${input.options.policy}' has no rollouts in this project.`, [
      { path: "options.policy", message: "unknown policy" },
    ]);
  }
  const row = await db.transaction(async (tx) => {
    const created = await insertProposal(tx, {
      projectId: project.id,
      baseGeneration: g.index,
      engineer: input.engineer,
      status: "queued",
      options: input.options ?? {},
      createdBy: principal.actor,
      progress: progress("queued", "Waiting for a worker"),
    });
    await recordAudit(tx, {
      projectId: project.id,
      actor: principal.actor,
      action: "proposal.create",
      entity: "proposal",
      entityId: created.id,
      after: { engineer: input.engineer, baseGeneration: g.index, options: input.options ?? {} },
    });
    return created;
  });
  try {
    await enqueue("envforge.proposal", proposalJobSchema, { proposalId: row.id }, { retryLimit: 1, retryDelay: 5 });
  } catch (err) {
    await markQueueFailed(db, row.id, `Could not queue the run: ${(err as Error).message}`);
    throw err;
  }
  return { proposalId: row.id, status: "queued" as const };
}

/** GET /projects/{slug}/proposals: newest first. */
export async function listProposals(db: Db, project: ProjectRow) {
  const rows = await recentProposals(db, project.id);
  return {
    proposals: rows.map((p) => ({
      id: p.id,
      status: p.materializedGeneration !== null ? "materialized" : p.status,
      engineer: p.engineer,
      baseGeneration: p.baseGeneration,
      materializedGeneration: p.materializedGeneration,
      createdBy: p.createdBy,
      createdAt: p.createdAt.toISOString(),
      error: p.error ?? undefined,
    })),
  };
}

/**
 * Validation by Harbor's oracle: a Harbor trial whose agent is `oracle` runs the task's own
 * solution, so its verdict says whether the task can be solved as written. Importing such trials
 * marks each environment valid (the oracle passed) or invalid (with the verifier output).
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { environments } from "@/lib/db/schema";
import type { NormalizedRollout } from "@/lib/ingest/normalized";

const VERIFIER_EXCERPT = 4000;

/** True for a rollout of a Harbor trial run by the oracle agent. */
export function isOracleRollout(r: NormalizedRollout): boolean {
  const meta = (r.metadata ?? {}) as { source?: unknown; agent?: { name?: unknown } };
  return meta.source === "harbor" && (meta.agent?.name === "oracle" || r.policy === "oracle");
}

/** Mark the environments of oracle rollouts valid or invalid (the latest finished trial of each wins). */
export async function recordOracleValidation(
  db: Db,
  projectId: number,
  rows: { rollout: NormalizedRollout; environmentId: number }[],
  successThreshold: number,
): Promise<number> {
  const latest = new Map<number, NormalizedRollout>();
  for (const { rollout, environmentId } of rows) {
    if (!isOracleRollout(rollout)) continue;
    const cur = latest.get(environmentId);
    if (!cur || (rollout.finishedAt ?? "") >= (cur.finishedAt ?? "")) latest.set(environmentId, rollout);
  }
  for (const [environmentId, r] of latest) {
    const passed = r.status !== "errored" && typeof r.reward === "number" && r.reward >= successThreshold;
    const meta = (r.metadata ?? {}) as { trialName?: string; jobId?: string };
    const details = {
      by: "harbor-oracle",
      trial: meta.trialName ?? r.externalId,
      job: meta.jobId ?? null,
      reward: r.reward ?? null,
      error: r.error ?? null,
      verifierOutput: r.verifierOutput ? r.verifierOutput.slice(-VERIFIER_EXCERPT) : null,
      at: r.finishedAt ?? new Date().toISOString(),
    };
    await db
      .update(environments)
      .set({ validationState: passed ? "valid" : "invalid", pMax: passed ? 1 : 0, validationDetails: details })
      .where(and(eq(environments.id, environmentId), eq(environments.projectId, projectId)));
  }
  return latest.size;
}

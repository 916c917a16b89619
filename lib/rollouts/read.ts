/** Rollout reads for the API and the pages: one rollout with its payload, the page header (the filtered list is list.ts). */
import { eq, sql } from "drizzle-orm";
import type { SelectedFields } from "drizzle-orm/pg-core";
import type { Db } from "@/lib/db/client";
import { environments, generations, policies, rolloutPayloads, rollouts } from "@/lib/db/schema";
import { NotFound } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";

/** The columns of a rollout row as the API returns them. */
export const rolloutColumns = {
  id: rollouts.id,
  externalId: rollouts.externalId,
  environmentKey: environments.key,
  generation: generations.index,
  policy: policies.name,
  reward: rollouts.reward,
  success: rollouts.success,
  status: rollouts.status,
  failureCategory: rollouts.failureCategory,
  failureSignature: rollouts.failureSignature,
  errorType: rollouts.errorType,
  errorMessage: rollouts.errorMessage,
  inputTokens: rollouts.inputTokens,
  outputTokens: rollouts.outputTokens,
  turns: rollouts.turns,
  flags: rollouts.flags,
  testsPassed: rollouts.testsPassed,
  testsFailed: rollouts.testsFailed,
  behaviours: rollouts.behaviours,
  trialName: rollouts.trialName,
  startedAt: rollouts.startedAt,
  finishedAt: rollouts.finishedAt,
  durationSeconds: sql<number | null>`extract(epoch from (${rollouts.finishedAt} - ${rollouts.startedAt}))::float8`,
};

/** One rollout with its payload columns, checked against the principal's project access. */
async function readRollout<C extends SelectedFields>(db: Db, id: number, principal: Principal, payloadColumns: C) {
  const [row] = await db
    .select({
      ...rolloutColumns,
      projectId: rollouts.projectId,
      verifierOutput: rolloutPayloads.verifierOutput,
      metadata: rolloutPayloads.metadata,
      ...payloadColumns,
    })
    .from(rollouts)
    .innerJoin(environments, eq(environments.id, rollouts.environmentId))
    .innerJoin(generations, eq(generations.id, rollouts.generationId))
    .innerJoin(policies, eq(policies.id, rollouts.policyId))
    .leftJoin(rolloutPayloads, eq(rolloutPayloads.rolloutId, rollouts.id))
    .where(eq(rollouts.id, id));
  if (!row) throw new NotFound(`Rollout ${id} does not exist.`);
  requireScope(principal, "projects:read", (row as { projectId: number }).projectId);
  return row;
}

/** GET /rollouts/{id}: one rollout with its trajectory, verifier output and metadata. */
export async function getRollout(db: Db, id: number, principal: Principal) {
  const { projectId: _p, ...rest } = await readRollout(db, id, principal, { trajectory: rolloutPayloads.trajectory });
  return { ...rest, rewards: rewardsOf(rest.metadata, rest.reward) };
}

/** Every reward key the source gave (`metadata.rewards`); else the one reward under "reward". */
export function rewardsOf(metadata: unknown, reward: number | null): Record<string, number | null> | null {
  const rewards = (metadata as { rewards?: unknown } | null)?.rewards;
  if (rewards && typeof rewards === "object" && !Array.isArray(rewards)) {
    const out: Record<string, number | null> = {};
    for (const [k, v] of Object.entries(rewards)) out[k] = typeof v === "number" && Number.isFinite(v) ? v : null;
    return out;
  }
  return reward === null ? null : { reward };
}

/** One rollout without its trajectory (pages load the trajectory in pages): verifier output, metadata, project. */
export async function getRolloutHeader(db: Db, id: number, principal: Principal) {
  return readRollout(db, id, principal, { trajectoryBytes: sql<number | null>`pg_column_size(${rolloutPayloads.trajectory})` });
}

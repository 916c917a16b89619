/** Rollout reads for the API and the pages: the filtered list with cursors, one rollout with its payload, the page header. */
import { and, desc, eq, ilike, lt, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { SelectedFields } from "drizzle-orm/pg-core";
import type { Db } from "@/lib/db/client";
import { environments, generations, policies, rolloutPayloads, rollouts } from "@/lib/db/schema";
import { NotFound, parseOrThrow } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import type { ProjectRow } from "@/lib/projects/service";
import { hasLabel } from "@/lib/annotations/service";
export const listRolloutsQuery = z.object({
  generation: z.coerce.number().int().min(0).optional(),
  policy: z.string().optional(),
  environmentKey: z.string().optional(),
  success: z.enum(["true", "false"]).optional(),
  category: z.string().optional(),
  /** matches the external id, the trial name or the environment key (substring, case-insensitive) */
  q: z.string().trim().min(1).max(200).optional(),
  /** rollouts with at least one annotation carrying this label */
  label: z.string().trim().min(1).max(60).optional(),
  cursor: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** csv: every matching rollout as a streamed CSV download (lib/csv/exports.ts) */
  format: z.enum(["json", "csv"]).optional(),
});

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
};

/** GET .../rollouts: filtered, newest first, with a cursor. */
export async function listRollouts(db: Db, project: ProjectRow, query: unknown) {
  const q = parseOrThrow(listRolloutsQuery, query, "query", 400);
  const where: (SQL | undefined)[] = [eq(rollouts.projectId, project.id)];
  if (q.generation !== undefined) where.push(eq(generations.index, q.generation));
  if (q.policy) where.push(eq(policies.name, q.policy));
  if (q.environmentKey) where.push(eq(environments.key, q.environmentKey));
  if (q.success) where.push(eq(rollouts.success, q.success === "true"));
  if (q.category) where.push(eq(rollouts.failureCategory, q.category));
  if (q.q) {
    const pattern = `%${q.q.replace(/[\\%_]/g, "\\$&")}%`;
    where.push(or(ilike(rollouts.externalId, pattern), ilike(rollouts.trialName, pattern), ilike(environments.key, pattern)));
  }
  if (q.label) where.push(hasLabel(project.id, q.label));
  if (q.cursor) where.push(lt(rollouts.id, q.cursor));
  const rows = await db
    .select(rolloutColumns)
    .from(rollouts)
    .innerJoin(environments, eq(environments.id, rollouts.environmentId))
    .innerJoin(generations, eq(generations.id, rollouts.generationId))
    .innerJoin(policies, eq(policies.id, rollouts.policyId))
    .where(and(...where))
    .orderBy(desc(rollouts.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  return { items: page, nextCursor: rows.length > q.limit ? String(page[page.length - 1].id) : null };
}

/** One rollout with its payload columns, checked against the principal's project access. */
async function readRollout<C extends SelectedFields>(db: Db, id: number, principal: Principal, payloadColumns: C) {
  const [row] = await db
    .select({ ...rolloutColumns, projectId: rollouts.projectId, verifierOutput: rolloutPayloads.verifierOutput, metadata: rolloutPayloads.metadata, ...payloadColumns })
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

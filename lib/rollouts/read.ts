/** Rollout reads for the API and the pages: the filtered list with cursors, one rollout with its payload, the page header. */
import { and, asc, desc, eq, gte, ilike, lte, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { SelectedFields } from "drizzle-orm/pg-core";
import type { Db } from "@/lib/db/client";
import { environments, generations, policies, rolloutPayloads, rollouts } from "@/lib/db/schema";
import { BadRequest, NotFound, parseOrThrow } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import type { ProjectRow } from "@/lib/projects/service";
import { hasLabel } from "@/lib/annotations/service";
/** Orders of the rollouts list; the value sorts ascending, "-" descending, ties broken by id the same way. */
export const ROLLOUT_SORTS = ["newest", "oldest", "reward", "-reward", "turns", "-turns"] as const;
type RolloutSort = (typeof ROLLOUT_SORTS)[number];

/** The sort key of an order: unrewarded rollouts sort as -Infinity and turnless ones as -1, so keyset pages stay total. */
function sortKey(sort: RolloutSort): { key: SQL | null; descending: boolean } {
  const descending = sort === "newest" || sort.startsWith("-");
  if (sort.endsWith("reward")) return { key: sql`coalesce(${rollouts.reward}, '-Infinity'::float8)`, descending };
  if (sort.endsWith("turns")) return { key: sql`coalesce(${rollouts.turns}, -1)`, descending };
  return { key: null, descending };
}

/** A keyset cursor: the id alone for id orders, else "<key>~<id>"; 400 naming `cursor` when it is not one of ours. */
function parseCursor(cursor: string, withKey: boolean): { key: number | null; id: number } {
  const bad = () =>
    new BadRequest("cursor is not a cursor this list gave (pass nextCursor back unchanged, with the same sort).", [
      { path: "query.cursor", message: "invalid cursor" },
    ]);
  const at = cursor.lastIndexOf("~");
  if (withKey !== at >= 0) throw bad();
  const id = Number(withKey ? cursor.slice(at + 1) : cursor);
  const key = withKey ? Number(cursor.slice(0, at)) : null;
  if (!Number.isSafeInteger(id) || id <= 0 || (key !== null && Number.isNaN(key))) throw bad();
  return { key, id };
}

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
  minTurns: z.coerce.number().int().min(0).optional(),
  maxTurns: z.coerce.number().int().min(0).optional(),
  minReward: z.coerce.number().finite().optional(),
  maxReward: z.coerce.number().finite().optional(),
  /** newest (default) | oldest | reward | -reward | turns | -turns ("-" for descending); ties by id */
  sort: z.enum(ROLLOUT_SORTS).optional(),
  /** opaque: the nextCursor of the previous page (same filters and sort) */
  cursor: z.string().min(1).max(100).optional(),
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
  if (q.minTurns !== undefined) where.push(gte(rollouts.turns, q.minTurns));
  if (q.maxTurns !== undefined) where.push(lte(rollouts.turns, q.maxTurns));
  if (q.minReward !== undefined) where.push(gte(rollouts.reward, q.minReward));
  if (q.maxReward !== undefined) where.push(lte(rollouts.reward, q.maxReward));
  const { key, descending } = sortKey(q.sort ?? "newest");
  if (q.cursor) {
    const c = parseCursor(q.cursor, key !== null);
    const op = sql.raw(descending ? "<" : ">");
    where.push(key === null ? sql`${rollouts.id} ${op} ${c.id}` : sql`(${key}, ${rollouts.id}) ${op} (${c.key}::float8, ${c.id})`);
  }
  const dir = descending ? desc : asc;
  const rows = await db
    .select(rolloutColumns)
    .from(rollouts)
    .innerJoin(environments, eq(environments.id, rollouts.environmentId))
    .innerJoin(generations, eq(generations.id, rollouts.generationId))
    .innerJoin(policies, eq(policies.id, rollouts.policyId))
    .where(and(...where))
    .orderBy(...(key === null ? [dir(rollouts.id)] : [dir(key), dir(rollouts.id)]))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  const cursorOf = (r: typeof last) =>
    key === null ? String(r.id) : `${(q.sort ?? "").endsWith("reward") ? (r.reward ?? "-Infinity") : (r.turns ?? -1)}~${r.id}`;
  return { items: page, nextCursor: rows.length > q.limit ? cursorOf(last) : null };
}

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

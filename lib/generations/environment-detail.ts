/** One environment of a project: config, validation, lineage (ancestors and children), generations, results by policy. */
import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { environments, generationEnvironments, generations, policies, rollouts, rolloutAggregates } from "@/lib/db/schema";
import { NotFound } from "@/lib/errors";
import { environmentLearnability, passAtKCurve } from "@/lib/analytics/metrics";
import type { ProjectRow } from "@/lib/projects/service";
import { storedAggregateColumns } from "./overview";

/** How far up the lineage is followed (a guard against a cycle written by hand). */
const MAX_DEPTH = 100;

/** GET /projects/{slug}/environments/{key}. */
export async function environmentDetail(db: Db, project: ProjectRow, key: string) {
  const [env] = await db
    .select()
    .from(environments)
    .where(and(eq(environments.projectId, project.id), eq(environments.key, key)));
  if (!env) throw new NotFound(`Environment '${key}' does not exist in '${project.slug}'.`);

  const [ancestors, children, memberships, stats, latest] = await Promise.all([
    db.execute<{ key: string; op: string; direction: string | null; depth: number; config: unknown }>(sql`
      with recursive up as (
        select id, parent_id, key, op, direction, config, 0 as depth from ${environments} where id = ${env.id}
        union all
        select e.id, e.parent_id, e.key, e.op, e.direction, e.config, up.depth + 1
        from ${environments} e join up on e.id = up.parent_id where up.depth < ${MAX_DEPTH}
      )
      select key, op, direction, depth, config from up where depth > 0 order by depth`),
    db
      .select({ key: environments.key, op: environments.op, direction: environments.direction })
      .from(environments)
      .where(eq(environments.parentId, env.id))
      .orderBy(asc(environments.key)),
    db
      .select({
        index: generations.index,
        status: generations.status,
        op: generationEnvironments.op,
        direction: generationEnvironments.direction,
        weight: generationEnvironments.weight,
        rationale: generationEnvironments.rationale,
      })
      .from(generationEnvironments)
      .innerJoin(generations, eq(generations.id, generationEnvironments.generationId))
      .where(eq(generationEnvironments.environmentId, env.id))
      .orderBy(asc(generations.index)),
    db
      .select({
        generation: generations.index,
        policy: policies.name,
        ...storedAggregateColumns,
      })
      .from(rolloutAggregates)
      .innerJoin(generations, eq(generations.id, rolloutAggregates.generationId))
      .innerJoin(policies, eq(policies.id, rolloutAggregates.policyId))
      .where(eq(rolloutAggregates.environmentId, env.id))
      .orderBy(asc(generations.index), asc(policies.name)),
    // the pair the compare view opens by default: the latest passing and the latest failing attempt
    db
      .select({ success: rollouts.success, id: sql<number>`max(${rollouts.id})::int` })
      .from(rollouts)
      .where(eq(rollouts.environmentId, env.id))
      .groupBy(rollouts.success),
  ]);

  return {
    key: env.key,
    config: env.config,
    configHash: env.configHash,
    op: env.op,
    direction: env.direction,
    validation: { state: env.validationState, pMax: env.pMax, details: env.validationDetails },
    createdAt: env.createdAt.toISOString(),
    lineage: ancestors.rows.map((a) => ({ key: a.key, op: a.op, direction: a.direction, depth: a.depth, config: a.config })),
    children,
    generations: memberships,
    results: stats.map((r) => {
      const agg = { ...r, pMax: env.pMax };
      return {
        generation: r.generation,
        policy: r.policy,
        rollouts: r.n,
        successes: r.s,
        successRate: r.n > 0 ? r.s / r.n : null,
        meanReward: r.n > 0 ? r.rewardSum / r.n : null,
        learnability: environmentLearnability(agg),
        passAtK: passAtKCurve([agg]),
        infraErrors: r.infraErrors,
      };
    }),
    compareDefault: {
      passing: latest.find((r) => r.success)?.id ?? null,
      failing: latest.find((r) => !r.success)?.id ?? null,
    },
  };
}

/** Rollouts of one environment, newest first, for its attempts list. */
export async function environmentAttempts(db: Db, project: ProjectRow, key: string, limit = 200) {
  return db
    .select({
      id: rollouts.id,
      generation: generations.index,
      policy: policies.name,
      reward: rollouts.reward,
      success: rollouts.success,
      status: rollouts.status,
      failureCategory: rollouts.failureCategory,
      errorType: rollouts.errorType,
      turns: rollouts.turns,
      outputTokens: rollouts.outputTokens,
    })
    .from(rollouts)
    .innerJoin(environments, eq(environments.id, rollouts.environmentId))
    .innerJoin(generations, eq(generations.id, rollouts.generationId))
    .innerJoin(policies, eq(policies.id, rollouts.policyId))
    .where(and(eq(rollouts.projectId, project.id), eq(environments.key, key)))
    .orderBy(asc(policies.name), desc(rollouts.id))
    .limit(limit);
}

/** The newest attempt of an environment that passed (or failed), or null when it has none. */
export async function newestAttemptWithOutcome(db: Db, project: ProjectRow, key: string, success: boolean): Promise<number | null> {
  const [row] = await db
    .select({ id: rollouts.id })
    .from(rollouts)
    .innerJoin(environments, eq(environments.id, rollouts.environmentId))
    .where(and(eq(rollouts.projectId, project.id), eq(environments.key, key), eq(rollouts.success, success)))
    .orderBy(desc(rollouts.id))
    .limit(1);
  return row?.id ?? null;
}

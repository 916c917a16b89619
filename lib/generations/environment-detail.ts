/** One environment of a project: config, validation, lineage (ancestors and children), generations, results by policy. */
import type { Db } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";
import { environmentLearnability, passAtKSeries, seriesChartPoints } from "@/lib/analytics/metrics";
import type { ProjectRow } from "@/lib/projects/service";
import {
  attemptsOfEnvironment,
  environmentAggregatesByGenerationAndPolicy,
  environmentAncestors,
  environmentChildren,
  environmentForPage,
  environmentMemberships,
  newestAttemptIdWithOutcome,
  newestRolloutPerOutcome,
} from "./repository";

/**
 * A result's pass@k points: the chart's (every k to 100, then about 5% apart, and the largest k) and every k of 1, 2, 5
 * times a power of ten, which the page prints (pass@200, pass@500, ... of a hard environment).
 */
function resultCurve(series: Float64Array): Record<string, number> {
  const out = seriesChartPoints(series);
  for (let decade = 100; decade <= series.length; decade *= 10)
    for (const k of [decade, 2 * decade, 5 * decade]) if (k <= series.length) out[String(k)] = series[k - 1];
  return out;
}

/** How far up the lineage is followed (a guard against a cycle written by hand). */
const MAX_DEPTH = 100;

/** GET /projects/{slug}/environments/{key}: each result's passAtK holds some points of its curve (resultCurve), not every k. */
export async function environmentDetail(db: Db, project: ProjectRow, key: string) {
  const env = await environmentForPage(db, project.id, key);
  if (!env) throw new NotFound(`Environment '${key}' does not exist in '${project.slug}'.`);

  const [ancestors, children, memberships, stats, latest] = await Promise.all([
    environmentAncestors(db, env.id, MAX_DEPTH),
    environmentChildren(db, env.id),
    environmentMemberships(db, env.id),
    environmentAggregatesByGenerationAndPolicy(db, env.id),
    // the pair the compare view opens by default: the latest passing and the latest failing attempt
    newestRolloutPerOutcome(db, env.id),
  ]);

  return {
    key: env.key,
    config: env.config,
    configHash: env.configHash,
    op: env.op,
    direction: env.direction,
    validation: { state: env.validationState, pMax: env.pMax, details: env.validationDetails },
    createdAt: env.createdAt.toISOString(),
    lineage: ancestors.map((a) => ({ key: a.key, op: a.op, direction: a.direction, depth: a.depth, config: a.config })),
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
        // the chart's points (every k to 100, then about 5% apart, and the largest): a row of 14,651 attempts was 14,651
        // values at every k, and the head environment's page 14.7 MB (issue 19)
        passAtK: resultCurve(passAtKSeries([agg])),
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
  return attemptsOfEnvironment(db, project.id, key, limit);
}

/** The newest attempt of an environment that passed (or failed), or null when it has none. */
export async function newestAttemptWithOutcome(db: Db, project: ProjectRow, key: string, success: boolean): Promise<number | null> {
  return (await newestAttemptIdWithOutcome(db, project.id, key, success)) ?? null;
}

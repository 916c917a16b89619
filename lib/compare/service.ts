/**
 * Run comparison, task by task: two (generation, policy) sides of one project, per environment the
 * attempts, successes and mean reward of each side, Fisher's exact test on the successes, Newcombe's
 * interval on the difference of success rates, and the aggregate mean-reward difference over the
 * shared environments with a bootstrap interval.
 */
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { environments, generations, policies, rolloutAggregates, rollouts } from "@/lib/db/schema";
import type { ProjectRow } from "@/lib/projects/service";
import { NotFound } from "@/lib/errors";
import {
  bootstrapMeanInterval,
  falseDiscoveryControl,
  fisherMinimumP,
  newcombeDifference,
  verdictOf,
  type CompareVerdict,
} from "@/lib/analytics/compare-stats";

/** The significance level of the per-environment test (stated in every response). */
export const COMPARE_ALPHA = 0.05;

const side = z
  .string()
  .max(300)
  .regex(/^\d+:.+$/, "must be <generation>:<policy>, e.g. 0:swerl-step200")
  .transform((v) => {
    const at = v.indexOf(":");
    return { generation: Number(v.slice(0, at)), policy: v.slice(at + 1) };
  });

/** The query of GET .../compare: both sides are required. */
export const compareQuery = z.object({ a: side, b: side, format: z.enum(["json", "csv", "parquet"]).optional() });
export type CompareQuery = z.infer<typeof compareQuery>;
export type CompareSide = CompareQuery["a"];

export interface SideFigures {
  n: number;
  successes: number;
  meanReward: number | null;
}

export interface EnvironmentComparison {
  key: string;
  a: SideFigures;
  b: SideFigures;
  /** b's mean reward minus a's */
  delta: number;
  /** b's success rate minus a's, with Newcombe's 95% interval */
  successDelta: number;
  successDeltaInterval: [number, number];
  pValue: number;
  /**
   * Benjamini-Hochberg q-value over the environments whose test could reach alpha (1 for those that never could):
   * with dozens of tasks compared, a few reach p < alpha by chance alone
   */
  qValue: number;
  verdict: CompareVerdict;
  /** a passing and a failing rollout of this environment across both sides (for the pair view), when both exist */
  pair: { passing: number; failing: number } | null;
}

export interface RunComparison {
  a: { generation: number; policy: string };
  b: { generation: number; policy: string };
  test: "fisher";
  alpha: number;
  interval: "newcombe";
  environments: EnvironmentComparison[];
  improved: number;
  regressed: number;
  unchanged: number;
  /**
   * The verdicts above are per task, at p < alpha each. Of them, the changes that survive false discovery control at
   * alpha (q <= alpha), over the `testable` environments whose attempts could reach alpha at all.
   */
  falseDiscovery: { method: "bh-tarone"; testable: number; improved: number; regressed: number };
  /** environments only one side attempted (left out of the figures) */
  onlyA: string[];
  onlyB: string[];
  aggregate: { environments: number; meanDelta: number | null; interval: [number, number] | null; method: "bootstrap" };
}

interface SideRow {
  key: string;
  n: number;
  successes: number;
  rewardSum: number;
  passing: number | null;
  failing: number | null;
}

/** Per environment figures of one side; 404 naming the side when its generation or policy is unknown. */
async function sideFigures(db: Db, project: ProjectRow, s: CompareSide, name: "a" | "b"): Promise<Map<string, SideRow>> {
  const [gen] = await db
    .select({ id: generations.id })
    .from(generations)
    .where(and(eq(generations.projectId, project.id), eq(generations.index, s.generation)));
  if (!gen) throw new NotFound(`Side ${name}: generation ${s.generation} does not exist in ${project.slug}.`);
  const [pol] = await db
    .select({ id: policies.id })
    .from(policies)
    .where(and(eq(policies.projectId, project.id), eq(policies.name, s.policy)));
  if (!pol) throw new NotFound(`Side ${name}: policy ${JSON.stringify(s.policy)} does not exist in ${project.slug}.`);
  const rows = await db
    .select({
      key: environments.key,
      n: sql<number>`count(*)::int`,
      successes: sql<number>`count(*) filter (where ${rollouts.success})::int`,
      // errored and unrewarded rollouts count 0, as the generation metrics do
      rewardSum: sql<number>`coalesce(sum(coalesce(${rollouts.reward}, 0)), 0)::float8`,
      passing: sql<number | null>`min(${rollouts.id}) filter (where ${rollouts.success})`,
      failing: sql<number | null>`min(${rollouts.id}) filter (where not ${rollouts.success})`,
    })
    .from(rollouts)
    .innerJoin(environments, eq(environments.id, rollouts.environmentId))
    .where(and(eq(rollouts.projectId, project.id), eq(rollouts.generationId, gen.id), eq(rollouts.policyId, pol.id)))
    .groupBy(environments.key);
  return new Map(
    rows.map((r) => [
      r.key,
      { ...r, passing: r.passing === null ? null : Number(r.passing), failing: r.failing === null ? null : Number(r.failing) },
    ]),
  );
}

const ORDER: Record<CompareVerdict, number> = { regressed: 0, improved: 1, unchanged: 2 };

/** GET .../compare: the two sides environment by environment, regressions then improvements first. */
export async function compareRuns(db: Db, project: ProjectRow, q: CompareQuery, alpha = COMPARE_ALPHA): Promise<RunComparison> {
  const [left, right] = await Promise.all([sideFigures(db, project, q.a, "a"), sideFigures(db, project, q.b, "b")]);
  const out: EnvironmentComparison[] = [];
  for (const [key, ra] of left) {
    const rb = right.get(key);
    if (!rb) continue;
    const a = { n: ra.n, successes: ra.successes, meanReward: ra.rewardSum / ra.n };
    const b = { n: rb.n, successes: rb.successes, meanReward: rb.rewardSum / rb.n };
    const { verdict, pValue } = verdictOf(a, b, alpha);
    // a pair that shows the change: the side that did better passes, the other fails
    const better = b.successes / b.n >= a.successes / a.n ? rb : ra;
    const worse = better === rb ? ra : rb;
    const passing = better.passing ?? worse.passing;
    const failing = worse.failing ?? better.failing;
    out.push({
      key,
      a,
      b,
      delta: b.meanReward - a.meanReward,
      successDelta: b.successes / b.n - a.successes / a.n,
      successDeltaInterval: newcombeDifference(a.successes, a.n, b.successes, b.n),
      pValue,
      qValue: 1,
      verdict,
      pair: passing !== null && failing !== null ? { passing, failing } : null,
    });
  }
  const fdr = falseDiscoveryControl(
    out.map((e) => ({ pValue: e.pValue, minimumP: fisherMinimumP(e.a.n, e.b.n, e.a.successes + e.b.successes) })),
    alpha,
  );
  out.forEach((e, i) => (e.qValue = fdr.qValues[i]));
  const discovered = (v: CompareVerdict) => out.filter((e) => e.verdict === v && e.qValue <= alpha).length;
  out.sort(
    (x, y) =>
      ORDER[x.verdict] - ORDER[y.verdict] || x.pValue - y.pValue || Math.abs(y.delta) - Math.abs(x.delta) || x.key.localeCompare(y.key),
  );
  const agg = bootstrapMeanInterval(out.map((e) => e.delta));
  const count = (v: CompareVerdict) => out.filter((e) => e.verdict === v).length;
  return {
    a: q.a,
    b: q.b,
    test: "fisher",
    alpha,
    interval: "newcombe",
    environments: out,
    improved: count("improved"),
    regressed: count("regressed"),
    unchanged: count("unchanged"),
    falseDiscovery: { method: "bh-tarone", testable: fdr.testable, improved: discovered("improved"), regressed: discovered("regressed") },
    onlyA: [...left.keys()].filter((k) => !right.has(k)).sort(),
    onlyB: [...right.keys()].filter((k) => !left.has(k)).sort(),
    aggregate: { environments: out.length, meanDelta: agg?.mean ?? null, interval: agg?.interval ?? null, method: "bootstrap" },
  };
}

/**
 * The (generation, policy) pairs of a project that have rollouts: the choices of the compare page. Summed from the
 * incremental aggregates (ADR 0005): counting the rollouts themselves took 3.0-3.2 s at 10,000,000 (issue 19).
 */
export async function comparableSides(db: Db, project: ProjectRow): Promise<{ generation: number; policy: string; rollouts: number }[]> {
  return db
    .select({ generation: generations.index, policy: policies.name, rollouts: sql<number>`sum(${rolloutAggregates.n})::int` })
    .from(rolloutAggregates)
    .innerJoin(generations, eq(generations.id, rolloutAggregates.generationId))
    .innerJoin(policies, eq(policies.id, rolloutAggregates.policyId))
    .where(eq(generations.projectId, project.id))
    .groupBy(generations.index, policies.name)
    .having(sql`sum(${rolloutAggregates.n}) > 0`)
    .orderBy(generations.index, policies.name);
}

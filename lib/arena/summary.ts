/**
 * The structured summary of an arena generation (ENGINEER.md, "Inputs"), built from the rollouts a
 * strategy observed instead of the database: behaviour, success by field value and the solved /
 * frontier / hopeless / unsolvable lists. The arena has no trajectories, so there are no failure
 * clusters; policy failures and invalid runs are counted by category.
 */
import { difficultyTier, learnability, populationMetrics, tierHistogram, type EnvironmentAggregate } from "@/lib/analytics/metrics";
import type { FamilyDefinition } from "@/lib/families/types";
import { classifyPopulation } from "@/lib/engineer/classification";
import { summaryFields } from "@/lib/engineer/summary-fields";
import type { PopulationMember, StructuredSummary } from "@/lib/engineer/types";

const MAX_KEYS = 40;

/** learnability(n, s, p_max) with p_max rounded to 1e-3, remembered: with p_max it integrates numerically, and an arena run asks thousands of times. */
const learnabilityMemo = new Map<string, number>();
function memoLearnability(n: number, s: number, pMax: number | null | undefined): number {
  const rounded = typeof pMax === "number" && pMax > 0 && pMax < 1 ? Math.round(pMax * 1000) / 1000 : null;
  const key = `${n}/${s}/${rounded}`;
  let value = learnabilityMemo.get(key);
  if (value === undefined) {
    value = learnability(n, s, rounded);
    if (learnabilityMemo.size > 100_000) learnabilityMemo.clear();
    learnabilityMemo.set(key, value);
  }
  return value;
}

function aggregate(member: PopulationMember): EnvironmentAggregate {
  const invalid = member.validation.state === "invalid";
  return {
    n: member.n,
    s: member.s,
    rewardSum: member.s,
    pMax: member.validation.pMax,
    infraErrors: invalid ? member.n : 0,
    errored: invalid ? member.n : 0,
    unrewarded: 0,
  };
}

/** A deterministic StructuredSummary of one arena generation (keys listed in population order, at most 40 a list). */
export function arenaSummary(args: {
  family: FamilyDefinition;
  project: string;
  generation: number;
  population: readonly PopulationMember[];
}): StructuredSummary {
  const { family, population } = args;
  const aggregates = population.map(aggregate);
  // Everything but the learnability from the closed forms (p_max left out); the learnability with p_max, memoised.
  const metrics = populationMetrics(aggregates.map((a) => ({ ...a, pMax: null })));
  metrics.learnability =
    population.length === 0
      ? null
      : population.reduce(
          (acc, m) =>
            acc + (m.validation.state === "unsolvable" || m.validation.pMax === 0 ? 0 : memoLearnability(m.n, m.s, m.validation.pMax)),
          0,
        ) / population.length;
  const measured = population.map((m, i) => ({ m, a: aggregates[i] })).filter((x) => x.a.n > 0);
  const fields = summaryFields(
    family.fields.filter((f) => !(f.kind === "nominal" && !f.levels)),
    measured.map((x) => ({ config: x.m.config, env: x.a })),
  );
  const policyFailures = population.filter((m) => m.validation.state !== "invalid").reduce((a, m) => a + (m.n - m.s), 0);
  const infra = population.filter((m) => m.validation.state === "invalid").reduce((a, m) => a + m.n, 0);
  const categories = [
    ...(policyFailures > 0 ? [{ category: "verifier_failed" as const, count: policyFailures, infra: false }] : []),
    ...(infra > 0 ? [{ category: "infra_error" as const, count: infra, infra: true }] : []),
  ];
  const summary: StructuredSummary = {
    project: args.project,
    family: family.id,
    generation: args.generation,
    policy: null,
    successThreshold: 1,
    behaviour: {
      rollouts: metrics.rollouts,
      environments: metrics.environments,
      successRate: metrics.successRate,
      meanReward: metrics.meanReward,
      passAtK: metrics.passAtK,
      turns: { median: null, p90: null },
      outputTokens: { median: null, p90: null },
      infraErrorRate: metrics.infraErrorRate,
      zeroSignalFraction: metrics.zeroSignalFraction,
      learnability: metrics.learnability,
      tiers: tierHistogram(aggregates.map((a) => (a.n > 0 ? difficultyTier(a.s / a.n) : null))),
    },
    failures: { categories, clusters: [] },
    environments: {
      fields,
      ...classifyPopulation(population, MAX_KEYS),
    },
    history: { proposals: [], predictions: [] },
    tokenEstimate: 0,
    truncated: [],
  };
  summary.tokenEstimate = Math.ceil(JSON.stringify(summary).length / 4);
  return summary;
}

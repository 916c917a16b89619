/**
 * Response shapes of the analytics endpoints (generation analytics, failures, policy comparison).
 * Pure types shared by the services, the route handlers and the charts.
 */
import type { FailureCategory } from "./failures";
import type { DifficultyTier, FieldBreakdown, PopulationMetrics } from "./metrics";

/** One bin of the distribution of per-environment success rates. */
export interface SuccessBin {
  /** [lo, hi) in 0..1, the last bin closed */
  lo: number;
  hi: number;
  environments: number;
}

/** Success by value of one config field, with what the family says about the field. */
export interface FieldBreakdownView extends FieldBreakdown {
  path: string;
  direction: "horizon" | "uncertainty" | "precision" | "diversify" | null;
  difficulty: "up" | "down" | null;
}

/** Headline metrics of one policy on the generation (passAtK: the chart's points, passAtKChartPoints). */
export interface PolicyMetricsView {
  policy: string;
  metrics: PopulationMetrics;
  tiers: Record<DifficultyTier, number>;
}

/** GET .../generations/{index}/analytics[?policy=]: everything the generation dashboard draws. */
export interface GenerationAnalytics {
  index: number;
  policy: string | null;
  policies: string[];
  /** passAtK holds the chart's points (every k to 100, then about 5% apart, and the largest k: passAtKChartPoints) */
  metrics: PopulationMetrics;
  /** environments per tier (best policy decides, or the chosen policy) */
  tiers: Record<DifficultyTier, number>;
  /** ten bins of per-environment success rate */
  distribution: SuccessBin[];
  perPolicy: PolicyMetricsView[];
  categories: { category: FailureCategory; count: number; infra: boolean }[];
  fields: FieldBreakdownView[];
  /** the two policies with the most rollouts, environment by environment (all policies only) */
  comparison: PolicyComparison | null;
  /** what the rollouts cost where their source reported it (lib/generations/cost.ts) */
  cost: { rollouts: number; totalUsd: number | null; meanUsd: number | null };
}

/** One failure cluster (API: failures.clusters). */
export interface FailureClusterView {
  id: string;
  category: FailureCategory;
  signature: string;
  count: number;
  environments: number;
  exemplarRolloutIds: string[];
  /** true for infra_error (the sandbox or harness failed on its own): outside the policy's failure figures */
  infra: boolean;
}

/** One behaviour across a generation's failures (API: failures.behaviours). */
export interface BehaviourView {
  id: string;
  label: string;
  count: number;
  environments: number;
  /** the environments involved (up to 50, by key) */
  environmentKeys: string[];
  exemplarRolloutIds: string[];
  /** policy name -> failed rollouts showing it */
  perPolicy: Record<string, number>;
}

/** GET .../generations/{index}/failures[?policy=] */
export interface FailuresView {
  policy: string | null;
  rollouts: number;
  failures: number;
  /** failures the policy is answerable for (infra errors left out) */
  policyFailures: number;
  infraFailures: number;
  categories: { category: FailureCategory; count: number; infra: boolean }[];
  clusters: FailureClusterView[];
  /** agent behaviours across tasks among the failures, largest first */
  behaviours: BehaviourView[];
  /** error types over all rollouts, passing ones included (rewarded despite the exception) */
  exceptions: { type: string; count: number; rewarded: number }[];
}

/** One environment in a two-policy comparison. */
export interface ComparisonPoint {
  key: string;
  a: { n: number; s: number; rate: number | null };
  b: { n: number; s: number; rate: number | null };
  /** b.rate - a.rate where both ran */
  delta: number | null;
}

/** GET .../generations/{index}/compare?a=&b= */
export interface PolicyComparison {
  a: string;
  b: string;
  points: ComparisonPoint[];
  /** environments where b beats a / a beats b by at least `margin`, and the rest with both */
  improved: number;
  regressed: number;
  unchanged: number;
  margin: number;
}

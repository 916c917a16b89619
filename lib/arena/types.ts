/** Public types of the curriculum arena (ENGINEER.md, "The curriculum arena"). Pure: no database, no Next.js. */

/** Strategy keys of the report (API.md, `envforge arena`). */
export const STRATEGY_IDS = ["uniform", "threshold", "rlve", "sfl", "plr", "accel", "heuristic", "llm", "oracle"] as const;
export type StrategyId = (typeof STRATEGY_IDS)[number];

/** The two settings every strategy runs in. */
export const ARENA_SETTINGS = ["clean", "traps"] as const;
export type ArenaSetting = (typeof ARENA_SETTINGS)[number];

/** What a trap does to the configs of its region (ENGINEER.md: unsolvable, noisy TV, invalid). */
export type TrapKind = "unsolvable" | "noisy_tv" | "invalid";

/** IQMs over seeds of one strategy in one setting; a seed that never reaches a level counts as the budget. */
export interface StrategyResult {
  /** rollouts (probes included) until target success >= 0.5; null when no seed got there */
  rolloutsTo50: number | null;
  /** 95% bootstrap interval of that IQM (over seeds) */
  rolloutsTo50CI: [number, number];
  rolloutsTo80: number | null;
  rolloutsTo80CI: [number, number];
  /** area under target success over [0, budget] rollouts, divided by the budget (0..1) */
  auc: number;
  aucCI: [number, number];
  /** target success when the budget is spent */
  finalSuccess: number;
  /** mean final success over the worst 10% of target configs */
  cvar10: number;
  /** share of trained groups (G attempts of one config) that all passed or all failed, per batch */
  zeroSignal: number;
  /** share of proposed configs (trained or probed) that were invalid */
  invalidRate: number;
  /** mean pairwise config distance within a training batch (0..1) */
  diversity: number;
  /** seeds (of `seeds`) that reached 50% / 80% target success within the budget */
  reached50: number;
  reached80: number;
}

/** A learning curve: target success after each recorded rollout count (IQM over seeds on a common grid). */
export interface ArenaCurve {
  rollouts: number[];
  success: number[];
}

/** The arena's JSON report (`envforge arena --json`). */
export interface ArenaReport {
  version: 1;
  createdAt: string;
  seeds: number;
  quick: boolean;
  family: string;
  budget: { rollouts: number };
  settings: Record<ArenaSetting, Partial<Record<StrategyId, StrategyResult>>>;
  curves: Record<ArenaSetting, Partial<Record<StrategyId, ArenaCurve>>>;
  goal: {
    /** heuristic / uniform rollouts to 50% target success (IQMs); the goal is <= 0.6 */
    heuristicVsUniform50: Record<ArenaSetting, number | null>;
    /** heuristic / PLR-rank rollouts to 50% target success (IQMs); the goal is <= 1 */
    heuristicVsPlr50: Record<ArenaSetting, number | null>;
    met: boolean;
  };
  /** how the figures were made (learner, budget, accounting), for the reader of the JSON */
  notes: string[];
  durationMs: number;
}

/** Options of `runArena`. */
export interface ArenaOptions {
  /** seeds per strategy and setting (ENGINEER.md asks for at least 10) */
  seeds: number;
  /** a smaller budget and target set, for a fast look */
  quick?: boolean;
  /** a built-in family id (default: search-agent, see DEFAULT_ARENA_FAMILY) */
  family?: string;
  /** strategy ids to run (default: all, `llm` only when an endpoint is configured) */
  strategies?: string[];
  /** worker threads across runs; 0 or 1 runs in this thread (default 0) */
  workers?: number;
  /** called after every finished run (strategy x setting x seed) */
  onProgress?(done: number, total: number, label: string): void;
}

/** The outcome of one strategy on one seed in one setting. */
export interface SeedRun {
  strategy: StrategyId;
  setting: ArenaSetting;
  seed: number;
  budget: number;
  /** rollouts spent after each training batch, and the target success then (starting at 0 rollouts) */
  curve: ArenaCurve;
  rolloutsTo50: number | null;
  rolloutsTo80: number | null;
  auc: number;
  finalSuccess: number;
  cvar10: number;
  zeroSignal: number;
  invalidRate: number;
  diversity: number;
  /** rollouts spent on probes (evaluation rollouts of the strategy's own), included in the budget */
  probeRollouts: number;
  /** rollouts spent on trap configs (traps setting) */
  trapRollouts: number;
}

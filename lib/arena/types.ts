/** Public types of the curriculum arena (ENGINEER.md, "The curriculum arena"). Pure: no database, no Next.js. */

/** Strategy keys of the report (API.md, `envforge arena`). */
export const STRATEGY_IDS = ["uniform", "threshold", "rlve", "sfl", "plr", "accel", "heuristic", "llm", "oracle"] as const;
export type StrategyId = (typeof STRATEGY_IDS)[number];

/** The two settings every strategy runs in. */
export const ARENA_SETTINGS = ["clean", "traps"] as const;
export type ArenaSetting = (typeof ARENA_SETTINGS)[number];

/**
 * What a trap does to the configs of its region. ENGINEER.md's three (unsolvable, noisy TV,
 * invalid), which the heuristic's rules were written against, and three held out from them:
 * a drifting TV (its success rises with play to mimic progress, teaching nothing), an unsolvable
 * config the validator passes as valid, and a deceptive config (looks learnable, unlearns).
 */
export const TRAP_KINDS = ["unsolvable", "noisy_tv", "invalid", "drifting_tv", "hidden_unsolvable", "deceptive"] as const;
export type TrapKind = (typeof TRAP_KINDS)[number];

/** Largest trap share the arena accepts (`--traps`); the target set avoids the trap regions of this share on every seed. */
export const MAX_TRAP_SHARE = 0.3;

/** Validator modes: given to every strategy, each call charged in rollouts, or given to none. */
export const VALIDATOR_MODES = ["shared-charged", "none"] as const;
export type ValidatorMode = (typeof VALIDATOR_MODES)[number];

/** Simulated learners: the default one (the heuristic was tuned on it) and two held out from tuning. */
export const LEARNER_IDS = ["default", "drift", "tangled"] as const;
export type LearnerId = (typeof LEARNER_IDS)[number];

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
  /** the first seed; seeds seedBase .. seedBase + seeds - 1 */
  seedBase: number;
  quick: boolean;
  family: string;
  learner: LearnerId;
  /** share of the generator's mass in trap regions in the traps setting */
  trapShare: number;
  validator: { mode: ValidatorMode; cost: number };
  budget: { rollouts: number };
  settings: Record<ArenaSetting, Partial<Record<StrategyId, StrategyResult>>>;
  curves: Record<ArenaSetting, Partial<Record<StrategyId, ArenaCurve>>>;
  goal: ArenaGoal;
  /** how the figures were made (learner, budget, accounting), for the reader of the JSON */
  notes: string[];
  durationMs: number;
}

/** One comparison of the goal: heuristic vs a baseline, in one setting, to one target level. */
export interface GoalCheck {
  setting: ArenaSetting;
  level: 50 | 80;
  baseline: StrategyId;
  /** IQM rollouts (a seed that never got there counts as the budget) */
  heuristic: number;
  other: number;
  ratio: number;
  /** the ratio may be at most this (0.6 for uniform, 1 for the others) */
  limit: number;
  won: boolean;
  /**
   * the oracle's IQM rollouts at the same level and setting, and whether it would meet the same check
   * (oracle <= limit x other); absent when the oracle did not run (and in reports made before it was
   * added). A check the oracle loses too asks for more than the arena's upper bound gives.
   */
  oracle?: number;
  oracleWon?: boolean;
}

/** The goal of a report: every check won (see lib/arena/goal.ts). */
export interface ArenaGoal {
  /** heuristic / uniform rollouts to 50% target success (IQMs); the goal is <= 0.6 */
  heuristicVsUniform50: Record<ArenaSetting, number | null>;
  /** heuristic / PLR rollouts to 50% target success (IQMs); the goal is <= 1 */
  heuristicVsPlr50: Record<ArenaSetting, number | null>;
  checks: GoalCheck[];
  won: number;
  lost: number;
  met: boolean;
}

/** Several cells (family x learner x trap share) of one run: `envforge arena` with lists, `npm run bench:arena`. */
export interface ArenaMatrixReport {
  version: 1;
  kind: "matrix";
  createdAt: string;
  seeds: number;
  seedBase: number;
  quick: boolean;
  validator: { mode: ValidatorMode; cost: number };
  budget: { rollouts: number };
  cells: ArenaReport[];
  /** goal checks won and lost over all cells */
  goal: { won: number; lost: number; met: boolean };
  durationMs: number;
}

/** Options of `runArena`. */
export interface ArenaOptions {
  /** the first seed (default DEFAULT_SEED_BASE: evaluation seeds; the tuning seeds are 0-99) */
  seedBase?: number;
  /** simulated learner (default "default") */
  learner?: LearnerId;
  /** trap share of the traps setting, up to MAX_TRAP_SHARE (default 0.15) */
  traps?: number;
  /** validator mode (default shared-charged) and rollouts a first call costs (default 1) */
  validator?: ValidatorMode;
  validatorCost?: number;
  /** seeds per strategy and setting (ENGINEER.md asks for at least 10) */
  seeds: number;
  /** a smaller budget and target set, for a fast look */
  quick?: boolean;
  /** a built-in family id (default: search-agent, see DEFAULT_ARENA_FAMILY) */
  family?: string;
  /** strategy ids to run (default: all, `llm` only when an endpoint is configured) */
  strategies?: string[];
  /** knob overrides per baseline (tuning, bench/arena-tune.ts) */
  knobs?: Partial<Record<StrategyId, Partial<Record<string, number>>>>;
  /**
   * the engineers' proposal seeds (heuristic and LLM), XORed with this (default 0: the seeds every recorded figure
   * used): the same arena, baselines and seeds under another draw of the engineer's own randomness, to measure how
   * much a figure depends on it (bench/arena-engineer-seeds.ts); the baselines and the oracle ignore it
   */
  engineerSeed?: number;
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
  /** rollouts charged for validator calls, included in the budget */
  validatorRollouts: number;
}

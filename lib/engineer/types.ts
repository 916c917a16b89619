/**
 * What an environment engineer (heuristic or LLM) is given and what it returns. Pure types: the
 * engineers themselves import nothing from the database or Next.js.
 */
import type { Direction, FamilyConfig, FamilyDefinition } from "@/lib/families/types";
import type { DifficultyTier } from "@/lib/analytics/metrics";
import type { FailureCategory } from "@/lib/analytics/failures";
import type { ParentTaskFile, TaskEdits } from "@/lib/tasks/edits";

/** One environment of the base generation with its measured results. */
export interface PopulationMember {
  key: string;
  config: FamilyConfig;
  configHash: string;
  parentKey: string | null;
  op: string;
  direction: string | null;
  validation: { state: string; pMax: number | null };
  /** rollouts and successes of the policy (or all policies) on it in the base generation */
  n: number;
  s: number;
  /** generations this environment has been a member of so far (1 = new in the base generation) */
  age: number;
  /** success rates in earlier generations, oldest first (for learning progress and "hopeless after two generations") */
  history: number[];
  /** failure clusters (ids) its failed rollouts fall in, largest first */
  clusterIds: string[];
}

/** A failure cluster as the summary reports it. */
export interface SummaryCluster {
  id: string;
  category: FailureCategory;
  signature: string;
  count: number;
  environments: number;
  /** environment keys most affected (up to 10) */
  environmentKeys: string[];
  exemplarRolloutIds: string[];
  /** a short excerpt of the decisive turn or the verifier output */
  excerpt: string;
  infra: boolean;
}

/** Success by value of one field, as the summary reports it. */
export interface SummaryField {
  path: string;
  kind: string;
  direction: string | null;
  difficulty: "up" | "down" | null;
  buckets: { label: string; environments: number; rollouts: number; successRate: number | null }[];
}

/** The structured summary of (generation, policy): deterministic, token-budgeted (ENGINEER.md). */
export interface StructuredSummary {
  project: string;
  family: string;
  generation: number;
  policy: string | null;
  successThreshold: number;
  behaviour: {
    rollouts: number;
    environments: number;
    successRate: number | null;
    meanReward: number | null;
    passAtK: Record<string, number>;
    turns: { median: number | null; p90: number | null };
    outputTokens: { median: number | null; p90: number | null };
    infraErrorRate: number | null;
    zeroSignalFraction: number | null;
    learnability: number | null;
    tiers: Record<DifficultyTier, number>;
  };
  failures: {
    categories: { category: FailureCategory; count: number; infra: boolean }[];
    clusters: SummaryCluster[];
  };
  environments: {
    fields: SummaryField[];
    solved: string[];
    frontier: string[];
    hopeless: string[];
    unvalidated: string[];
    unsolvable: string[];
  };
  history: {
    proposals: {
      id: string;
      baseGeneration: number;
      engineer: string;
      status: string;
      approved: number;
      rejected: number;
      materializedGeneration: number | null;
    }[];
    /** environments proposed earlier: predicted vs measured success */
    predictions: { key: string; predicted: number; measured: number | null; n: number }[];
  };
  /** estimated tokens of the JSON text of this summary (characters / 4) */
  tokenEstimate: number;
  /** what the budget cut, so a reader knows the summary is partial */
  truncated: string[];
}

/** An evidence reference of a proposal item (API: evidence). */
export interface EvidenceRef {
  kind: "cluster" | "rollout" | "stat";
  ref: string;
  note?: string;
}

/** One proposed change (API: proposal items). */
export interface ProposedItem {
  op: "keep" | "mutate" | "add" | "retire";
  /** the environment kept or retired; for mutate/add a new key the engineer made up */
  environmentKey: string;
  /** the parent of a mutated (or crossed-over) child */
  parentKey?: string;
  /** second parent of a crossover */
  secondParentKey?: string;
  config: FamilyConfig;
  direction?: Direction;
  rationale: string;
  evidence: EvidenceRef[];
  predictedSuccess?: number;
  /** which engineer proposed it */
  proposer: "heuristic" | "llm";
  /** e.g. "no_evidence" (LLM item citing nothing), "crossover" */
  flags?: string[];
  /** a task evolved by its files (terminal tasks with imported files): the edits that make it from its parent; they applied when validated */
  taskEdits?: TaskEdits;
  /** share of attempts relative to the other items (terminal tasks scheduled from the pool); default: the member's weight, or 1 */
  weight?: number;
}

/** Options of an engineer run (API: options), all optional. */
export interface EngineerOptions {
  seed?: number;
  /** size of the next population; default: the base generation's size */
  populationSize?: number;
  /** share of the population kept at most (default 0.5) */
  keepShare?: number;
  /** share of fresh samples and crossovers (default HEURISTIC_DEFAULTS.addShare, 0.03, at least one add while above 0) */
  addShare?: number;
  /** GRPO group size: use the group learnability E[1 - q^G - (1-q)^G] */
  groupSize?: number;
  /** generations of training without a rise after which a member retires as plateaued; 0 turns it off (default 3) */
  plateauGenerations?: number;
  /**
   * heuristic: draw two of every three fresh samples from the family sampler's hardness window
   * around the competence frontier (lib/engineer/heuristic/frontier.ts) instead of the whole
   * generator; true always, false never, unset (the default) while the frontier is rising (the fit on
   * the re-measured members' current success lies harder than on their previous rates): always on, it
   * sped search-agent up and slowed frozenlake-mapf on the arena's tuning seeds
   */
  freshAtFrontier?: boolean;
}

/** Everything an engineer needs. */
export interface EngineerInput {
  family: FamilyDefinition;
  summary: StructuredSummary;
  population: PopulationMember[];
  options: EngineerOptions;
  /** config hashes of every environment the project has ever had (duplicates never enter) */
  knownHashes: ReadonlySet<string>;
  /** prefix for new keys, e.g. "g4-"; keys must be unique in the project */
  keyPrefix: string;
  /** terminal tasks with files, by environment key: the files (text where readable) that file edits apply to */
  tasks?: Record<string, ParentTaskFile[]>;
  /**
   * imported tasks of the project outside the population (the pool the heuristic adds from instead
   * of inventing tasks), with their measured results across earlier generations
   */
  taskPool?: PopulationMember[];
  /**
   * a thread that validates ahead of the engineer (lib/families/validation-helper.ts, whose session also answers through
   * `family`): the heuristic names the configs it will ask about later and the fresh samples it will draw; its proposal
   * is the same with or without one
   */
  helper?: EngineerHelper;
}

/** What the heuristic asks of a validation helper (lib/families/validation-helper.ts, HelperSession). */
export interface EngineerHelper {
  /** validate `configs` in this order, then draw `samples.count` samples from createRng(seed).fork(label); once per run */
  ask(configs: readonly FamilyConfig[], samples?: { seed: number | string; label: string; count: number }): void;
  /** the i-th of those samples (waiting for it if need be), or undefined if not asked or not to be had */
  sample(i: number): FamilyConfig | undefined;
}

/** What an engineer returns. */
export interface EngineerOutput {
  items: ProposedItem[];
  /** children that failed the family validator or were duplicates, and were dropped */
  dropped: { reason: string; count: number }[];
  /** free-form notes for the UI (e.g. which directions the evidence pointed at) */
  notes: string[];
}

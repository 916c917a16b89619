/** The heuristic engineer's working types: scored members, direction evidence, child candidates. */
import type { FailureCategory } from "@/lib/analytics/failures";
import type { FieldEdit } from "@/lib/families/operators";
import type { Direction, FamilyConfig, FieldSpec, SkillDirection } from "@/lib/families/types";
import type { PopulationMember, SummaryCluster } from "../types";

export type RetireReason = "invalid" | "unsolvable" | "solved" | "hopeless" | "plateaued" | "outranked" | "infra";

/** What a failure says about an environment: infrastructure, a budget ran out, the policy's output, failed tests, other errors. */
export type FailureKind = "infra" | "timeout" | "output" | "verifier" | "other";

/** The kind of failure that holds most of a member's failed attempts. */
export interface Dominant {
  kind: FailureKind;
  /** the kind's largest category for this member */
  category: FailureCategory;
  /** estimated failed attempts of this kind (exact when every cluster of the member is of this kind) */
  count: number;
  exact: boolean;
  /** the member's largest cluster of this kind, cited as evidence */
  cluster: SummaryCluster;
}

export interface FailureProfile {
  /** failed attempts, n - s */
  failures: number;
  /** the kind holding more than half of the failures (see failureProfile), or null */
  dominant: Dominant | null;
  /** the member's largest policy (non-infra) cluster the summary lists, with its estimated failures */
  top: { cluster: SummaryCluster; count: number } | null;
}

export interface Scored {
  member: PopulationMember;
  index: number;
  q: number | null;
  mean: number;
  learnability: number;
  /**
   * what the keep order, the keep cut and the parents' rank weights go by: learnability times
   * hardnessWeight (select.ts, weighByHardness) times frontierWeight (weighByFrontier); the
   * learnability itself until then
   */
  priority: number;
  /** 1, or the hardness bias's factor (select.ts, weighByHardness) */
  hardnessWeight: number;
  /** the member's hardness on its family's easy -> hard scale, when weighed and the family has difficulty-signed fields */
  hardness?: number;
  /**
   * the frontier discount's factor (select.ts, weighByFrontier), below 1 when the population's fit of
   * success on hardness says the policy passes most configs as hard as this one; unset: 1
   */
  frontierWeight?: number;
  /** the population's fitted success at this member's hardness, when the frontier discount was weighed */
  fittedSuccess?: number;
  progress: number;
  retire: RetireReason | null;
  /** retired as "plateaued" with its parent, this key, which plateaued this generation (score.ts, retirePlateauedLineage) */
  plateauedParent?: string;
  failure: FailureProfile;
  /** infra-dominated: no parent, not in the difficulty logic */
  infra: boolean;
}

/** A direction as a harder step of one parent ranks it (harderDirections). */
export interface HarderDirection {
  evidence: DirectionEvidence;
  /** the parent's mean hardness along the direction (0.5 when none of its fields is set) */
  hardness: number;
  /** at harderSaturatedAt or more of the way to the hard end: tried after the others */
  saturated: boolean;
  /** one of HEURISTIC_DEFAULTS.harderLast (uncertainty: noise caps what a policy can reach): tried after every other */
  last: boolean;
}

export interface DirectionEvidence {
  direction: SkillDirection;
  /** mutable difficulty-signed fields of this direction */
  fields: FieldSpec[];
  /** mean fitted success drop from the easy to the hard end of the fields' buckets */
  drop: number | null;
  /** count-weighted hardness of failure-cluster environments along this direction minus the population's */
  lift: number | null;
  score: number;
  /** the field with the largest drop, cited as evidence */
  top: { path: string; easy: number; hard: number; drop: number } | null;
}

export type ChildKind = "harder" | "easier" | "replay" | "crossover" | "fresh";

/** Where an unset field's directed edit started: a harness default or the midpoint of its bounds. */
export interface UnsetStart {
  value: number;
  from: "default" | "midpoint";
}

export interface Candidate {
  kind: ChildKind;
  config: FamilyConfig;
  direction: Direction;
  edits: FieldEdit[];
  /** starts assumed for unset numeric fields a directed edit moved, by path */
  starts?: Map<string, UnsetStart>;
  /** the dominant failure that decided a directed edit (timeouts, failed tests) */
  driver?: Dominant;
  parent?: Scored;
  second?: Scored;
  evidence?: DirectionEvidence;
  novelty?: number;
  nearest?: { key: string; distance: number };
  /** single-field steps of a directed edit (more than its edits when fields moved several steps) */
  steps?: number;
  /** whether a directed edit moved along the direction its order ranks first (else a later one that could move) */
  firstChoice?: boolean;
  /** a harder step's directions as it ranked them (harderDirections) */
  ranking?: HarderDirection[];
}

/**
 * One arena world: a family's config space seen through a simulated learner for one seed and
 * setting. It owns the hidden per-config parameters (difficulty, skill loadings, p_max, traps), the
 * held-out target, the rollout budget and the accounting every strategy is measured by.
 *
 * Accounting (decided here, the same for every strategy):
 * - every attempt a strategy asks for is a rollout and counts against the budget, whether the
 *   strategy calls it training or a probe (its own evaluation, e.g. SFL scoring candidates);
 * - every rollout trains the learner: in this simulation extra gradient never hurts, so the
 *   probe-only designs of PLR-robust, ACCEL and SFL would only make those baselines weaker;
 * - the target is evaluated after every batch by its exact expectation, free of charge (it is the
 *   benchmark's measurement, not a strategy's);
 * - the validator is the same for every strategy: in mode "shared-charged" any strategy may call
 *   it and the first call on a config costs `validatorCost` rollouts (counted in the budget, not
 *   trained on; a repeat call on the same config is free, as a strategy could remember the answer);
 *   in mode "none" nobody has one. It answers valid, unsolvable or invalid, never p_max, and it
 *   cannot see noisy or drifting TVs, deceptive configs or the hidden-unsolvable trap;
 * - the level generator is a fixed catalogue per family and hardness window (GENERATOR_CATALOGUE
 *   configs drawn once, in a fixed order, shared by every seed and strategy): frozenlake-mapf and
 *   persuasion-game take milliseconds a sample, which a run of thousands of draws cannot afford.
 */
import { canonicalJson } from "@/lib/families/hash";
import { fieldPosition, numericPosition } from "@/lib/families/hardness";
import { getFieldValue } from "@/lib/families/field-path";
import { distance } from "@/lib/families/operators";
import { createRng, hashSeed, type Rng } from "@/lib/families/rng";
import type { DifficultyEstimate, FamilyConfig, FamilyDefinition, SampleOptions, ValidationResult } from "@/lib/families/types";
import { expectedGroupGain, Learner, relativeSuccess, type GroupOutcome, type HiddenTask, type LearnerParams } from "./learner";
import { MAX_TRAP_SHARE, TRAP_KINDS, type ArenaSetting, type TrapKind, type ValidatorMode } from "./types";

/** Below this p_max a config counts as unsolvable (the families use 1e-6 to 1e-9). */
export const UNSOLVABLE_PMAX = 1e-6;

export interface WorldParams {
  family: FamilyDefinition;
  seed: number;
  setting: ArenaSetting;
  /** rollouts a strategy may spend */
  budget: number;
  /** configs per synchronous training step */
  batchSize: number;
  learner: LearnerParams;
  /** noise on the hidden difficulty (standard deviation) */
  difficultyNoise: number;
  /** log-normal noise on each skill loading before renormalising */
  skillNoise: number;
  /** share of the generator's mass in trap regions (traps setting) */
  trapShare: number;
  /** size of the held-out target set */
  targetSize: number;
  /** hardness window of the target (the hard end) */
  targetHardness: { min: number; max: number };
  /** a label that separates the random streams of strategies sharing a seed */
  stream: string;
  /** who gets a validator and what a call costs (rollouts, first call per config) */
  validator: ValidatorMode;
  validatorCost: number;
  /** amplitude of the seeded warp of the hidden difficulty (held-out learner "tangled"); 0 for none */
  difficultyWarp: number;
}

/** Configs in the generator's catalogue, and per hardness window (strategies ask for a few dozen windows at most). */
export const GENERATOR_CATALOGUE = 4096;
export const WINDOW_CATALOGUE = 256;
/** Target configs at least, on every family and seed. */
export const MIN_TARGET_SIZE = 64;
/** Groups a drifting TV needs to drift halfway from its start to its end. */
export const DRIFT_HALF_LIFE = 6;

/** What a strategy learns from one group of attempts. */
export interface GroupResult {
  config: FamilyConfig;
  key: string;
  n: number;
  s: number;
  /** the config could not run (the rollouts were spent, nothing was learned) */
  invalid: boolean;
}

// --- caches shared by every world of a family in this thread ---------------------------------

const CACHE_LIMIT = 200_000;
const validationCache = new Map<string, Map<string, ValidationResult>>();
const difficultyCache = new Map<string, Map<string, DifficultyEstimate>>();
const trapMassCache = new Map<string, { cell: string; mass: number }[]>();
const catalogueCache = new Map<string, { rng: Rng; configs: FamilyConfig[] }>();
const targetCache = new Map<string, FamilyConfig[]>();

/** A hardness window's bounds rounded to 4 decimals: the windows a catalogue stands for. */
function catalogueWindow(hardness: { min: number; max: number }): { min: number; max: number } {
  return { min: Number(hardness.min.toFixed(4)), max: Number(hardness.max.toFixed(4)) };
}

/**
 * Config `index` of the generator's catalogue for a hardness window: the catalogue is drawn in a
 * fixed order from its own seeded stream, up to the highest index asked for, so what a world sees
 * never depends on which worlds ran before it in this process. A window is rounded to 4 decimals,
 * and its catalogue drawn from the rounded window: every window of one rounding gets the same
 * configs. (It was drawn from the window of whichever caller came first, so a heuristic's frontier
 * window, which moves continuously, made the figures depend on the order of the runs in a thread:
 * `--jobs 2` and `--jobs 1` disagreed on the traps setting.)
 */
export function catalogueConfig(family: FamilyDefinition, index: number, opts?: SampleOptions): FamilyConfig {
  const window = opts?.hardness ? catalogueWindow(opts.hardness) : undefined;
  const key = `${family.id}:${window ? `${window.min.toFixed(4)}-${window.max.toFixed(4)}` : "all"}`;
  let entry = catalogueCache.get(key);
  if (!entry) {
    entry = { rng: createRng(`arena:catalogue:${key}`), configs: [] };
    catalogueCache.set(key, entry);
  }
  const sampleOpts = window ? { ...opts, hardness: window } : opts;
  while (entry.configs.length <= index) entry.configs.push(family.sample(entry.rng, sampleOpts) as FamilyConfig);
  return entry.configs[index];
}

function cacheFor<V>(caches: Map<string, Map<string, V>>, familyId: string): Map<string, V> {
  let cache = caches.get(familyId);
  if (!cache) {
    cache = new Map();
    caches.set(familyId, cache);
  }
  if (cache.size > CACHE_LIMIT) cache.clear();
  return cache;
}

/** The family's own validation of a config, remembered per canonical JSON. */
export function familyValidation(family: FamilyDefinition, config: unknown, key = canonicalJson(config)): ValidationResult {
  const cache = cacheFor(validationCache, family.id);
  let result = cache.get(key);
  if (!result) {
    result = family.validate(config);
    cache.set(key, result);
  }
  return result;
}

function familyDifficulty(family: FamilyDefinition, config: FamilyConfig, key: string): DifficultyEstimate {
  const cache = cacheFor(difficultyCache, family.id);
  let result = cache.get(key);
  if (!result) {
    if (!family.difficulty) throw new Error(`Family ${family.id} has no difficulty(): the arena needs one.`);
    result = family.difficulty(config);
    cache.set(key, result);
  }
  return result;
}

/**
 * The trap region of a config: mutable, non-diversify fields binned into quarters of their range
 * (nominal fields by value). Mutating a trap a small step usually stays in its region, as with a
 * real broken corner of a config space.
 */
export function trapCell(family: FamilyDefinition, config: unknown): string {
  const parts: string[] = [];
  for (const field of family.fields) {
    if (field.mutable === false || field.direction === "diversify") continue;
    const value = getFieldValue(config, field.path);
    if (field.kind === "nominal") {
      parts.push(field.levels ? String(value) : "");
      continue;
    }
    const position =
      field.kind === "integer" || field.kind === "number"
        ? typeof value === "number"
          ? numericPosition(field, value)
          : undefined
        : fieldPosition(field, value);
    parts.push(position === undefined ? "-" : String(Math.min(3, Math.floor(position * 4))));
  }
  return parts.join("|");
}

/** Mass of each trap cell under the family's generator (one fixed sample per family, shared by all seeds). */
function trapCellMass(family: FamilyDefinition): { cell: string; mass: number }[] {
  const cached = trapMassCache.get(family.id);
  if (cached) return cached;
  const rng = createRng(`arena:trap-mass:${family.id}`);
  const draws = 1024;
  const counts = new Map<string, number>();
  for (let i = 0; i < draws; i++) {
    const cell = trapCell(family, family.sample(rng));
    counts.set(cell, (counts.get(cell) ?? 0) + 1);
  }
  const out = [...counts]
    .map(([cell, count]) => ({ cell, mass: count / draws }))
    .sort((a, b) => (a.cell < b.cell ? -1 : a.cell > b.cell ? 1 : 0));
  trapMassCache.set(family.id, out);
  return out;
}

/**
 * Trap regions of a seed: cells in a seeded random order until they hold `share` of the generator's
 * mass, split into six equal parts of that mass, one per TRAP_KINDS entry. Cells the generator
 * never hit in the mass sample are trapped with probability `share`, split the same way. The
 * regions of a smaller share are a subset of those of a larger one (same order, shorter prefix).
 */
export function trapMap(family: FamilyDefinition, seed: number, share: number): (cell: string) => TrapKind | null {
  const kinds = TRAP_KINDS;
  const last = kinds.length - 1;
  const ordered = trapCellMass(family)
    .map((c) => ({ ...c, order: hashSeed(`arena:trap:${seed}:${c.cell}`) }))
    .sort((a, b) => a.order - b.order);
  const assigned = new Map<string, TrapKind>();
  let cumulative = 0;
  for (const c of ordered) {
    if (cumulative >= share) break;
    assigned.set(c.cell, kinds[Math.min(last, Math.floor((kinds.length * cumulative) / share))]);
    cumulative += c.mass;
  }
  const known = new Set(ordered.map((c) => c.cell));
  return (cell) => {
    const kind = assigned.get(cell);
    if (kind) return kind;
    if (known.has(cell)) return null;
    const u = hashSeed(`arena:trap:${seed}:${cell}`) / 2 ** 32;
    return u < share ? kinds[Math.min(last, Math.floor((kinds.length * u) / share))] : null;
  };
}

/** The arena world of one (strategy, seed, setting) run. */
export class ArenaWorld {
  readonly family: FamilyDefinition;
  readonly learner: Learner;
  readonly budget: number;
  readonly batchSize: number;
  readonly groupSize: number;
  rollouts = 0;
  probeRollouts = 0;
  trapRollouts = 0;
  /** rollouts charged for validator calls (mode shared-charged), included in `rollouts` */
  validatorRollouts = 0;
  validatorCalls = 0;
  /** (rollouts, target success) after every batch, starting at (0, initial) */
  readonly curve: { rollouts: number[]; success: number[] } = { rollouts: [], success: [] };
  private readonly tasks = new Map<string, HiddenTask>();
  private readonly trapOf: ((cell: string) => TrapKind | null) | null;
  private readonly target: HiddenTask[];
  private readonly attemptRng: Rng;
  private readonly validated = new Map<string, ValidationResult>();
  /** groups played per drifting-TV config */
  private readonly plays = new Map<string, number>();
  private readonly warp: number[];
  private readonly diversityRng: Rng;
  private groups = 0;
  private invalidGroups = 0;
  private zeroSignalSum = 0;
  private batches = 0;
  private diversitySum = 0;
  private diversityBatches = 0;

  constructor(readonly params: WorldParams) {
    this.family = params.family;
    this.budget = params.budget;
    this.batchSize = params.batchSize;
    this.groupSize = params.learner.groupSize;
    this.learner = new Learner(params.learner);
    this.trapOf = params.setting === "traps" ? trapMap(params.family, params.seed, Math.min(MAX_TRAP_SHARE, params.trapShare)) : null;
    const warpRng = createRng(`arena:warp:${params.family.id}:${params.seed}`);
    this.warp = params.family.fields.map(() => params.difficultyWarp * warpRng.normal());
    this.target = targetConfigs(params.family, params.seed, params.targetSize, params.targetHardness).map((config) => {
      const key = canonicalJson(config);
      return this.hidden(config, key, familyValidation(this.family, config, key), null);
    });
    this.attemptRng = createRng(`arena:attempts:${params.seed}:${params.setting}:${params.stream}`);
    this.diversityRng = createRng(`arena:diversity:${params.seed}:${params.setting}:${params.stream}`);
    this.record();
  }

  /** True when no further group fits in the budget. */
  get exhausted(): boolean {
    return this.rollouts + this.groupSize > this.budget;
  }

  /** Rollouts left. */
  get remaining(): number {
    return Math.max(0, this.budget - this.rollouts);
  }

  /** The level generator: a config from the family's catalogue for the hardness window (traps included, as the generator cannot see them). */
  generate(rng: Rng, opts?: SampleOptions): FamilyConfig {
    return catalogueConfig(this.params.family, rng.int(0, (opts?.hardness ? WINDOW_CATALOGUE : GENERATOR_CATALOGUE) - 1), opts);
  }

  /** Whether strategies have a validator (mode shared-charged). */
  get hasValidator(): boolean {
    return this.params.validator === "shared-charged";
  }

  /**
   * The validator every strategy may call (mode shared-charged; throws in mode "none"): the family's
   * own validation plus the unsolvable and invalid trap regions, flagged as a real validator would
   * (solvability check, schema and semantic checks). It never returns p_max. The first call on a
   * config costs validatorCost rollouts. TVs, deceptive configs and hidden-unsolvable traps pass.
   */
  validate(config: unknown): ValidationResult {
    if (!this.hasValidator) throw new Error("This arena run gives no strategy a validator (validator mode none).");
    const key = canonicalJson(config);
    const known = this.validated.get(key);
    if (known) return known;
    this.validatorCalls += 1;
    this.validatorRollouts += this.params.validatorCost;
    this.rollouts += this.params.validatorCost;
    const result = this.judge(config, key);
    this.validated.set(key, result);
    return result;
  }

  /** Whether a config passes the validator; true for every config when there is none (nothing is charged then). */
  screen(config: FamilyConfig): boolean {
    return !this.hasValidator || this.validate(config).state === "valid";
  }

  private judge(config: unknown, key: string): ValidationResult {
    const base = familyValidation(this.family, config, key);
    if (base.state === "invalid") return { state: "invalid", errors: base.errors };
    const task = this.taskFor(config as FamilyConfig, key);
    if (task.trap === "invalid") {
      return {
        state: "invalid",
        errors: [{ path: "", message: "This region of the config space cannot run in the arena (an invalid trap)." }],
      };
    }
    if (task.trap === "unsolvable" || task.pMax < UNSOLVABLE_PMAX) {
      return {
        state: "unsolvable",
        pMax: 0,
        errors: base.errors.length > 0 ? base.errors : [{ path: "", message: "No policy can succeed here." }],
      };
    }
    return { state: "valid", errors: [] };
  }

  /** The hidden parameters of a config for this seed (cached). */
  task(config: FamilyConfig): HiddenTask {
    return this.taskFor(config, canonicalJson(config));
  }

  private taskFor(config: FamilyConfig, key: string): HiddenTask {
    let task = this.tasks.get(key);
    if (task) return task;
    const validation = familyValidation(this.family, config, key);
    const trap = this.trapOf ? this.trapOf(trapCell(this.family, config)) : null;
    if (validation.state === "invalid") {
      task = {
        difficulty: 0,
        skills: new Array(this.params.learner.skills).fill(1 / this.params.learner.skills),
        pMax: 0,
        trap: "invalid",
      };
    } else {
      task = this.hidden(config, key, validation, trap);
    }
    this.tasks.set(key, task);
    return task;
  }

  /** Difficulty and loadings from the family (plus this seed's noise), p_max 0 where the family's validator says unsolvable. */
  private hidden(config: FamilyConfig, key: string, validation: ValidationResult, trap: TrapKind | null): HiddenTask {
    const estimate = familyDifficulty(this.family, config, key);
    const noise = createRng(`arena:noise:${this.params.seed}:${key}`);
    let difficulty = estimate.difficulty + this.params.difficultyNoise * noise.normal();
    if (this.params.difficultyWarp > 0) difficulty += this.warpOf(config);
    const raw = estimate.skills.map((a) => a * Math.exp(this.params.skillNoise * noise.normal()));
    const sum = raw.reduce((a, b) => a + b, 0);
    const skills = sum > 0 ? raw.map((a) => a / sum) : raw.map(() => 1 / raw.length);
    const pMax = validation.state === "unsolvable" ? 0 : Math.min(1, Math.max(0, estimate.pMax));
    return { difficulty, skills, pMax, trap };
  }

  /**
   * The warp of the held-out "tangled" learner: per difficulty-signed field, a seeded weight (of
   * either sign) times its centred position plus a bend (the position squared), so the family's
   * difficulty signs only approximate the hidden difficulty.
   */
  private warpOf(config: FamilyConfig): number {
    let sum = 0;
    this.family.fields.forEach((field, i) => {
      if (!field.difficulty) return;
      const position = fieldPosition(field, getFieldValue(config, field.path));
      if (position === undefined) return;
      const x = position - 0.5;
      sum += this.warp[i] * x + 0.5 * Math.abs(this.warp[i]) * (x * x - 1 / 12);
    });
    return sum;
  }

  /** Mean relative success sigmoid(k (a.theta - b)) over the target set: success as a share of the best achievable. */
  targetSuccess(): number {
    let sum = 0;
    for (const task of this.target) sum += relativeSuccess(this.learner.theta, task, this.params.learner.slope);
    return sum / this.target.length;
  }

  /** Mean relative success of the worst `share` of target configs (CVaR). */
  targetCvar(share = 0.1): number {
    const values = this.target.map((task) => relativeSuccess(this.learner.theta, task, this.params.learner.slope)).sort((a, b) => a - b);
    const count = Math.max(1, Math.ceil(share * values.length));
    return values.slice(0, count).reduce((a, b) => a + b, 0) / count;
  }

  /** Size of the target set. */
  get targetSize(): number {
    return this.target.length;
  }

  /** What one group on this config would teach now, in expectation (the oracle's view; negative for a deceptive trap). */
  expectedGain(config: FamilyConfig): number {
    const task = this.task(config);
    if (task.trap !== null && task.trap !== "deceptive") return 0;
    const p = this.learner.successProbability(task);
    return expectedGroupGain(p, this.learner.skillShare(task), this.params.learner.gainShape, this.groupSize);
  }

  /**
   * How much one group on `config` would raise the target success now, to first order (the oracle's
   * view): expected gain x (the target's gradient in theta . the config's update direction).
   */
  expectedTargetGain(config: FamilyConfig, gradient: ArrayLike<number>): number {
    const gain = this.expectedGain(config);
    if (gain === 0) return 0;
    const { skills, transfer } = this.params.learner;
    const a = this.task(config).skills;
    let dot = 0;
    for (let j = 0; j < skills; j++) dot += gradient[j] * ((1 - transfer) * a[j] + transfer / skills);
    return gain * dot;
  }

  /** The gradient of the target success in theta (the oracle's view). */
  targetGradient(): Float64Array {
    const { skills, slope } = this.params.learner;
    const out = new Float64Array(skills);
    for (const task of this.target) {
      const q = relativeSuccess(this.learner.theta, task, slope);
      for (let j = 0; j < skills; j++) out[j] += (slope * q * (1 - q) * task.skills[j]) / this.target.length;
    }
    return out;
  }

  /**
   * Run G attempts on each config (in synchronous batches of batchSize, truncated at the budget),
   * train the learner on them and record the target curve. `probe` marks the strategy's own
   * evaluation rollouts for the report; they count and train the same way.
   */
  run(configs: readonly FamilyConfig[], opts: { probe?: boolean } = {}): GroupResult[] {
    const results: GroupResult[] = [];
    for (let start = 0; start < configs.length && !this.exhausted; start += this.batchSize) {
      const fit = Math.floor(this.remaining / this.groupSize);
      const chunk = configs.slice(start, Math.min(configs.length, start + this.batchSize, start + fit));
      results.push(...this.step(chunk, opts.probe === true));
    }
    return results;
  }

  private step(configs: readonly FamilyConfig[], probe: boolean): GroupResult[] {
    const G = this.groupSize;
    const outcomes: GroupOutcome[] = [];
    const results: GroupResult[] = [];
    let zero = 0;
    for (const config of configs) {
      const key = canonicalJson(config);
      const task = this.taskFor(config, key);
      let p = this.learner.successProbability(task);
      if (task.trap === "drifting_tv") {
        // Its success drifts from 0.2 toward 0.8 as it is played, mimicking progress; it teaches nothing.
        const played = this.plays.get(key) ?? 0;
        this.plays.set(key, played + 1);
        p = 0.2 + (0.6 * played) / (played + DRIFT_HALF_LIFE);
      }
      let s = 0;
      for (let i = 0; i < G; i++) if (this.attemptRng.next() < p) s += 1;
      const invalid = task.trap === "invalid";
      if (invalid) this.invalidGroups += 1;
      if (task.trap !== null) this.trapRollouts += G;
      if (s === 0 || s === G) zero += 1;
      outcomes.push({ task, successes: s, attempts: G, share: this.learner.skillShare(task) });
      results.push({ config, key, n: G, s, invalid });
    }
    this.learner.update(outcomes);
    this.rollouts += G * configs.length;
    if (probe) this.probeRollouts += G * configs.length;
    this.groups += configs.length;
    this.batches += 1;
    this.zeroSignalSum += configs.length > 0 ? zero / configs.length : 0;
    this.measureDiversity(configs);
    this.record();
    return results;
  }

  private measureDiversity(configs: readonly FamilyConfig[]): void {
    if (configs.length < 2) return;
    const pairs = Math.min(24, (configs.length * (configs.length - 1)) / 2);
    let sum = 0;
    for (let k = 0; k < pairs; k++) {
      const i = this.diversityRng.int(0, configs.length - 1);
      let j = this.diversityRng.int(0, configs.length - 2);
      if (j >= i) j += 1;
      sum += distance(this.family, configs[i], configs[j]);
    }
    this.diversitySum += sum / pairs;
    this.diversityBatches += 1;
  }

  private record(): void {
    this.curve.rollouts.push(this.rollouts);
    this.curve.success.push(this.targetSuccess());
  }

  /** Per-run aggregates: zero-signal fraction per batch, invalid share of groups, diversity. */
  stats(): { zeroSignal: number; invalidRate: number; diversity: number } {
    return {
      zeroSignal: this.batches > 0 ? this.zeroSignalSum / this.batches : 0,
      invalidRate: this.groups > 0 ? this.invalidGroups / this.groups : 0,
      diversity: this.diversityBatches > 0 ? this.diversitySum / this.diversityBatches : 0,
    };
  }
}

/**
 * The target configs of a family and seed (cached): the hard end of the generator (hardness window
 * `hardness`), valid, outside the trap regions of the largest trap share (so the target is the same
 * in every setting) and with p_max >= 0.02. Where the hard end has too few such configs (frozenlake-mapf's
 * sampler backs off hard draws, persuasion-game's hard end is mostly p_max ~ 0), the window widens
 * toward the middle in steps of 0.1 until `size` configs (at least MIN_TARGET_SIZE) are found.
 */
export function targetConfigs(
  family: FamilyDefinition,
  seed: number,
  size: number,
  hardness: { min: number; max: number },
): FamilyConfig[] {
  const want = Math.max(MIN_TARGET_SIZE, size);
  const cacheKey = `${family.id}:${seed}:${want}:${hardness.min}:${hardness.max}`;
  const cached = targetCache.get(cacheKey);
  if (cached) return cached;
  const traps = trapMap(family, seed, MAX_TRAP_SHARE);
  const rng = createRng(`arena:target:${family.id}:${seed}`);
  const out: FamilyConfig[] = [];
  const seen = new Set<string>();
  for (let min = hardness.min; out.length < want && min >= 0; min = Math.round((min - 0.1) * 1000) / 1000) {
    for (let attempt = 0; out.length < want && attempt < 4 * want; attempt++) {
      const config = family.sample(rng, { hardness: { min, max: hardness.max } }) as FamilyConfig;
      const key = canonicalJson(config);
      if (seen.has(key) || traps(trapCell(family, config)) !== null) continue;
      seen.add(key);
      if (familyValidation(family, config, key).state !== "valid") continue;
      if (familyDifficulty(family, config, key).pMax < 0.02) continue;
      out.push(config);
    }
  }
  if (out.length < MIN_TARGET_SIZE)
    throw new Error(`Could not draw ${MIN_TARGET_SIZE} target configs for ${family.id} (seed ${seed}): ${out.length}.`);
  targetCache.set(cacheKey, out);
  return out;
}

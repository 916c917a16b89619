/**
 * The curriculum strategies of the arena's baselines, each at its paper's strength (counts of
 * levels scaled to the arena's budget of 6,144 groups), its source named beside its knobs. A
 * strategy spends the world's budget by asking it to run configs and reads back successes per group.
 *
 * Same information for everyone: no strategy is handed p_max or trap flags. When the run shares the
 * validator (mode shared-charged), every baseline screens each new level through it before playing
 * it, as the product validates every environment, and pays for each first call in rollouts, like the
 * engineers; in mode "none" nobody validates. The oracle alone reads the learner (it is the bound).
 *
 * Each baseline's main knob (KNOB_GRID) was tuned as the heuristic's knobs were: on the tuning seeds
 * 0-9 (seed base 0), full budget, search-agent and frozenlake-mapf, default learner, clean and traps
 * 0.15 and 0.3 (`node --import tsx bench/arena-tune.ts`): per family the mean of the IQM rollouts to
 * 50% and to 80% over the three settings (a seed that never gets there counts as the budget), the
 * value with the lowest geometric mean over the two families is the default below, and every chosen
 * value lies inside its grid (a best value at the grid's edge got the grid extended). The evaluation
 * seeds start at 1000 (`--seed-base`, DEFAULT_SEED_BASE) and were never used to tune. Tuned
 * (docs/BENCHMARKS.md, "Arena baseline tuning", 2026-12-06): threshold step 0.1 (of 0.05-0.15), RLVE
 * accuracy 0.4 (of 0.3-0.9; the paper's 0.9 was the slowest), SFL 32 candidates (of 16-1,024: a scan
 * is paid in rollouts, so larger scans cost more than they find), PLR temperature 0.1 (of 0.03-1),
 * ACCEL 5 edits (of 1-8, JaxUED's value). The first tuning (seeds 0-4, quick budget, search-agent and
 * traps 0.15 only) had chosen RLVE 0.5, SFL 128 and ACCEL 3, each at the edge of its grid then.
 */
import { mutateConfig } from "@/lib/families/operators";
import type { Rng } from "@/lib/families/rng";
import type { FamilyConfig, SampleOptions } from "@/lib/families/types";
import { plrRankWeights } from "@/lib/engineer/scoring";
import type { ArenaWorld, GroupResult } from "./world";

/** A strategy spends the world's budget (async for the LLM engineer). */
export type StrategyRun = (world: ArenaWorld, rng: Rng) => void | Promise<void>;

/** Knob values of the baselines (the tuned knob of each: KNOB_GRID). */
export const BASELINE_DEFAULTS = {
  /** threshold stepping (ENGINEER.md's toy benchmark): one hardness level, raised above 0.7 batch success, lowered below 0.3; knob: step */
  threshold: { raiseAbove: 0.7, lowerBelow: 0.3, step: 0.1, halfWidth: 0.05, start: 0 },
  /**
   * RLVE (Zeng et al. 2025, "RLVE: Scaling up RL for language models with adaptive verifiable
   * environments"): levels sampled uniformly from a sliding window of 4 ending at the current level;
   * after 8 prompts x G attempts at the current level, move up when their accuracy is >= `accuracy`
   * (paper 0.9; counters reset either way). The paper's 0.9 never fires where p_max < 0.9, so the
   * raise threshold is its tuned knob; 20 levels over the hardness scale.
   */
  rlve: { levels: 20, window: 4, accuracy: 0.4, minPrompts: 8 },
  /**
   * SFL (Rutherford et al. 2024, "No regrets"): every `every` training batches score `candidates`
   * fresh levels by p(1-p) from one group each (probes, counted), keep the top 2% (at least 8;
   * paper: 5,000 scanned, top 100 kept, refreshed every 50 updates), each training batch half from
   * that set, half fresh. Knob: candidates (scaled to the budget; at the tuned 32 the kept set is its
   * minimum of 8).
   */
  sfl: { candidates: 32, keepShare: 0.02, minKeep: 8, every: 8, bufferShare: 0.5 },
  /**
   * Robust PLR, PLR-perp (Jiang et al. 2021, "Replay-guided adversarial environment design", as in
   * JaxUED's maze_plr.py): each step is either a replay batch (probability 0.8 once the buffer is
   * half full; levels drawn by rank prioritisation, temperature 0.3, staleness 0.3) or a batch of new
   * levels that are only scored and inserted (probes here: every rollout trains in this arena);
   * score = positive value loss, p(1-p) for 0/1 rewards with a group-mean baseline. Capacity scaled
   * from 4,000. Knob: temperature.
   */
  plr: { capacity: 512, temperature: 0.1, stalenessWeight: 0.3, replayProb: 0.8, minFill: 0.5 },
  /**
   * ACCEL (Parker-Holder et al. 2022; JaxUED num_edits 5): robust PLR whose replay batches are followed by a batch of the replayed
   * levels with `edits` edits each, scored and inserted. Knob: edits.
   */
  accel: { edits: 5 },
  /**
   * oracle: reads the learner; `candidates` x batch levels (half the generator's, half from random hardness windows), the batch with
   * the highest first-order gain in target success
   */
  oracle: { candidates: 8 },
} as const;

/** The knob each baseline was tuned on and the values tried (bench/arena-tune.ts). */
export const KNOB_GRID = {
  threshold: { knob: "step", values: [0.05, 0.1, 0.15] },
  rlve: { knob: "accuracy", values: [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] },
  sfl: { knob: "candidates", values: [16, 32, 64, 128, 256, 512, 1024] },
  plr: { knob: "temperature", values: [0.03, 0.1, 0.3, 1] },
  accel: { knob: "edits", values: [1, 2, 3, 5, 8] },
} as const;

export type TunedBaseline = keyof typeof KNOB_GRID;
/** Knob overrides of one run (tuning). */
export type KnobOverrides = Partial<Record<string, number>>;

/** Mean positive advantage of a group with a group-mean baseline, for 0/1 rewards: p(1-p). */
export function groupScore(result: Pick<GroupResult, "n" | "s">): number {
  if (result.n <= 0) return 0;
  const p = result.s / result.n;
  return p * (1 - p);
}

// one weighted sampler for the engineer and the arena's baselines
export { weightedOrder } from "@/lib/families/rng";

/**
 * `count` new levels from the generator (within `opts`), each screened through the validator when
 * the run shares one (invalid and unsolvable ones skipped, every first call charged); at most 4x
 * `count` + 8 draws, so a region of traps cannot stall a strategy.
 */
export function freshLevels(world: ArenaWorld, rng: Rng, count: number, opts?: SampleOptions): FamilyConfig[] {
  const out: FamilyConfig[] = [];
  for (let attempt = 0; out.length < count && attempt < 4 * count + 8 && !world.exhausted; attempt++) {
    const config = world.generate(rng, opts);
    if (world.screen(config)) out.push(config);
  }
  return out;
}

/** Runs the batch unless it is empty (the budget went on validator calls); false when nothing could run. */
function play(world: ArenaWorld, batch: FamilyConfig[], probe = false): GroupResult[] | null {
  if (batch.length === 0 || world.exhausted) return null;
  return world.run(batch, { probe });
}

const knob = (overrides: KnobOverrides | undefined, name: string, fallback: number) => overrides?.[name] ?? fallback;

/** Domain randomisation: every batch fresh from the generator. */
export const uniformStrategy = (): StrategyRun => (world, rng) => {
  while (!world.exhausted) if (!play(world, freshLevels(world, rng, world.batchSize))) break;
};

function hardnessWindow(centre: number, halfWidth: number): { min: number; max: number } {
  const min = Math.max(0, Math.min(1 - 2 * halfWidth, centre - halfWidth));
  return { min, max: Math.min(1, min + 2 * halfWidth) };
}

/** Threshold stepping: one difficulty level; raise it when a batch succeeds > 70%, lower it below 30%. */
export const thresholdStrategy =
  (overrides?: KnobOverrides): StrategyRun =>
  (world, rng) => {
    const D = BASELINE_DEFAULTS.threshold;
    // Levels stay on a 0.05 grid: the generator keeps one catalogue per hardness window.
    const step = Math.max(0.05, Math.round(knob(overrides, "step", D.step) / 0.05) * 0.05);
    let level: number = D.start;
    while (!world.exhausted) {
      const window = hardnessWindow(level, D.halfWidth);
      const results = play(world, freshLevels(world, rng, world.batchSize, { hardness: window }));
      if (!results) break;
      const n = results.reduce((a, r) => a + r.n, 0);
      const rate = n > 0 ? results.reduce((a, r) => a + r.s, 0) / n : 0;
      if (rate > D.raiseAbove) level = Math.min(1, Math.round((level + step) * 20) / 20);
      else if (rate < D.lowerBelow) level = Math.max(0, Math.round((level - step) * 20) / 20);
    }
  };

/** RLVE-style adaptive difficulty with a sliding window (see BASELINE_DEFAULTS.rlve). */
export const rlveStrategy =
  (overrides?: KnobOverrides): StrategyRun =>
  (world, rng) => {
    const D = BASELINE_DEFAULTS.rlve;
    const accuracy = knob(overrides, "accuracy", D.accuracy);
    let top = 0;
    let attempts = 0;
    let successes = 0;
    let prompts = 0;
    while (!world.exhausted) {
      const low = Math.max(0, top - D.window + 1);
      const levels: number[] = [];
      const configs: FamilyConfig[] = [];
      for (let i = 0; i < world.batchSize && !world.exhausted; i++) {
        const l = rng.int(low, top);
        const [config] = freshLevels(world, rng, 1, { hardness: { min: l / D.levels, max: (l + 1) / D.levels } });
        if (!config) continue;
        levels.push(l);
        configs.push(config);
      }
      const results = play(world, configs);
      if (!results) break;
      results.forEach((r, i) => {
        if (levels[i] !== top) return;
        attempts += r.n;
        successes += r.s;
        prompts += 1;
      });
      if (prompts >= D.minPrompts) {
        if (attempts > 0 && successes / attempts >= accuracy && top < D.levels - 1) top += 1;
        attempts = 0;
        successes = 0;
        prompts = 0;
      }
    }
  };

/** Sampling For Learnability (see BASELINE_DEFAULTS.sfl). */
export const sflStrategy =
  (overrides?: KnobOverrides): StrategyRun =>
  (world, rng) => {
    const D = BASELINE_DEFAULTS.sfl;
    const candidates = Math.round(knob(overrides, "candidates", D.candidates));
    const keep = Math.max(D.minKeep, Math.ceil(D.keepShare * candidates));
    let buffer: FamilyConfig[] = [];
    let step = 0;
    while (!world.exhausted) {
      if (step % D.every === 0) {
        const scored = play(world, freshLevels(world, rng, candidates), true) ?? [];
        const ranked = scored.map((r, i) => ({ r, i, score: groupScore(r) })).sort((a, b) => b.score - a.score || a.i - b.i);
        const kept = ranked.slice(0, keep).map((x) => x.r.config);
        if (kept.length > 0) buffer = kept;
        if (world.exhausted) break;
      }
      const fromBuffer = buffer.length > 0 ? Math.round(D.bufferShare * world.batchSize) : 0;
      const batch: FamilyConfig[] = [];
      for (let i = 0; i < fromBuffer; i++) batch.push(buffer[rng.int(0, buffer.length - 1)]);
      batch.push(...freshLevels(world, rng, world.batchSize - batch.length));
      if (!play(world, batch)) break;
      step += 1;
    }
  };

interface BufferLevel {
  config: FamilyConfig;
  key: string;
  score: number;
  /** episode count when last played */
  last: number;
}

/** The PLR level buffer: rank-prioritised replay with staleness, lowest score evicted. */
export class LevelBuffer {
  readonly levels: BufferLevel[] = [];
  private readonly index = new Map<string, BufferLevel>();
  episodes = 0;

  constructor(
    private readonly capacity: number,
    private readonly temperature: number,
    private readonly stalenessWeight: number,
  ) {}

  get halfFull(): boolean {
    return this.levels.length >= BASELINE_DEFAULTS.plr.minFill * this.capacity;
  }

  /** `count` levels drawn by PLR's replay distribution, with replacement (as JaxUED samples a replay batch). */
  sample(rng: Rng, count: number): BufferLevel[] {
    const weights = plrRankWeights(
      this.levels.map((l) => l.score),
      this.temperature,
      this.levels.map((l) => this.episodes - l.last),
      this.stalenessWeight,
    );
    const total = weights.reduce((a, b) => a + b, 0);
    const out: BufferLevel[] = [];
    for (let k = 0; k < count && this.levels.length > 0; k++) {
      let u = rng.next() * total;
      let i = 0;
      while (i < weights.length - 1 && u >= weights[i]) u -= weights[i++];
      out.push(this.levels[i]);
    }
    return out;
  }

  /** Record a played level: update a buffered one, or insert a new one if there is room or it beats the lowest score. */
  observe(result: GroupResult): void {
    this.episodes += 1;
    const score = groupScore(result);
    const known = this.index.get(result.key);
    if (known) {
      known.score = score;
      known.last = this.episodes;
      return;
    }
    const level: BufferLevel = { config: result.config, key: result.key, score, last: this.episodes };
    if (this.levels.length < this.capacity) {
      this.levels.push(level);
      this.index.set(level.key, level);
      return;
    }
    let worst = 0;
    for (let i = 1; i < this.levels.length; i++) if (this.levels[i].score < this.levels[worst].score) worst = i;
    if (score <= this.levels[worst].score) return;
    this.index.delete(this.levels[worst].key);
    this.levels[worst] = level;
    this.index.set(level.key, level);
  }
}

function newBuffer(overrides?: KnobOverrides): LevelBuffer {
  const D = BASELINE_DEFAULTS.plr;
  return new LevelBuffer(D.capacity, knob(overrides, "temperature", D.temperature), D.stalenessWeight);
}

/** Robust PLR: a replay batch with probability 0.8 once the buffer is half full, else a batch of new levels scored and inserted. */
export const plrStrategy =
  (overrides?: KnobOverrides): StrategyRun =>
  (world, rng) => {
    const buffer = newBuffer(overrides);
    while (!world.exhausted) {
      const replay = buffer.halfFull && rng.next() < BASELINE_DEFAULTS.plr.replayProb;
      const batch = replay ? buffer.sample(rng, world.batchSize).map((l) => l.config) : freshLevels(world, rng, world.batchSize);
      const results = play(world, batch, !replay);
      if (!results) break;
      for (const result of results) buffer.observe(result);
    }
  };

/** ACCEL: robust PLR whose replay batches are followed by a batch of edited copies of the replayed levels (screened, scored, inserted). */
export const accelStrategy =
  (overrides?: KnobOverrides): StrategyRun =>
  (world, rng) => {
    const buffer = newBuffer();
    const edits = Math.round(knob(overrides, "edits", BASELINE_DEFAULTS.accel.edits));
    let toEdit: FamilyConfig[] = [];
    while (!world.exhausted) {
      let batch: FamilyConfig[];
      let probe = true;
      if (toEdit.length > 0) {
        batch = toEdit.map((config) => mutateConfig(rng, world.family.fields, config, { edits }).config).filter((c) => world.screen(c));
        toEdit = [];
        // every edited copy rejected: fall back to one replay or fresh step (toEdit is empty now, so this retries once)
        if (batch.length === 0) continue;
      } else if (buffer.halfFull && rng.next() < BASELINE_DEFAULTS.plr.replayProb) {
        batch = buffer.sample(rng, world.batchSize).map((l) => l.config);
        toEdit = batch;
        probe = false;
      } else {
        batch = freshLevels(world, rng, world.batchSize);
      }
      // a fresh batch that found no valid level in freshLevels' bounded draws ends the run, as it ends PLR's and
      // uniform's (retrying it looped forever when the validator rejected everything and its calls were free)
      const results = play(world, batch, probe);
      if (!results) break;
      for (const result of results) buffer.observe(result);
    }
  };

/**
 * Oracle (an upper bound: it reads the learner and the traps): from candidates drawn half from the
 * generator and half from random hardness windows (width 0.2), the batch whose groups would raise
 * the target success most to first order (expected gain x target gradient . update direction).
 * It needs no validator.
 */
export const oracleStrategy = (): StrategyRun => (world, rng) => {
  const D = BASELINE_DEFAULTS.oracle;
  while (!world.exhausted) {
    const count = D.candidates * world.batchSize;
    const candidates: FamilyConfig[] = [];
    for (let i = 0; i < count; i++) {
      if (i % 2 === 0) candidates.push(world.generate(rng));
      else {
        const min = rng.int(0, 8) / 10;
        candidates.push(world.generate(rng, { hardness: { min, max: min + 0.2 } }));
      }
    }
    const gradient = world.targetGradient();
    const scored = candidates.map((config, i) => ({ config, i, score: world.expectedTargetGain(config, gradient) }));
    scored.sort((a, b) => b.score - a.score || a.i - b.i);
    world.run(scored.slice(0, world.batchSize).map((x) => x.config));
  }
};

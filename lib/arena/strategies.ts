/**
 * The curriculum strategies of the arena's baselines, each with its paper's defaults (scaled to the
 * arena's budget where a default is a count of levels or updates; see BASELINE_DEFAULTS). A strategy
 * spends the world's budget by asking it to run configs and reads back successes per group.
 *
 * Every strategy sees rewards only (s of n per group, and whether a config could not run); none of
 * the baselines uses a validator or p_max, as in their papers. The engineers (./engineer-strategy)
 * see the family validator, as the product's engineers do.
 */
import { mutateConfig } from "@/lib/families/operators";
import type { Rng } from "@/lib/families/rng";
import type { FamilyConfig } from "@/lib/families/types";
import { plrRankWeights } from "@/lib/engineer/scoring";
import type { ArenaWorld, GroupResult } from "./world";

/** A strategy spends the world's budget (async for the LLM engineer). */
export type StrategyRun = (world: ArenaWorld, rng: Rng) => void | Promise<void>;

/** Defaults of the baselines. */
export const BASELINE_DEFAULTS = {
  /** threshold stepping: one hardness level, raised above 0.7 batch success, lowered below 0.3 */
  threshold: { raiseAbove: 0.7, lowerBelow: 0.3, step: 0.05, halfWidth: 0.05, start: 0 },
  /**
   * RLVE (Zeng et al. 2025): difficulty levels sampled uniformly from a sliding window of 4 ending
   * at the current level; after 8 prompts x G attempts at the current level, move up when their
   * accuracy is >= 0.9 (counters reset either way). The hardness scale is cut into 20 levels.
   */
  rlve: { levels: 20, window: 4, accuracy: 0.9, minPrompts: 8 },
  /**
   * SFL (Rutherford et al. 2024): every `every` training steps score `candidates` fresh levels by
   * p(1-p) from `attempts` rollouts each (probes), keep the top `keep`; each training batch takes
   * `bufferShare` from that set (uniformly) and the rest fresh. Paper: 5,000 scanned, top 100 kept
   * (2%), refreshed every 50 updates, half of each batch from the buffer; scaled to our budget.
   */
  sfl: { candidates: 128, attempts: 8, keep: 8, every: 8, bufferShare: 0.5 },
  /**
   * PLR-rank (Jiang et al. 2021): rank prioritisation temperature 0.3, staleness weight 0.3, replay
   * probability 0.8 once the level buffer is half full; score = mean positive advantage of the
   * group, which for 0/1 rewards and a group-mean baseline is p(1-p). Capacity scaled from 4,000.
   */
  plr: { capacity: 256, temperature: 0.3, stalenessWeight: 0.3, replayProb: 0.8, minFill: 0.5 },
  /** ACCEL (Parker-Holder et al. 2022): PLR-rank plus, after every replay step, a batch of the replayed levels edited (1-3 edits each) */
  accel: { minEdits: 1, maxEdits: 3 },
  /** oracle: `candidates` x batch fresh levels, drawn in proportion to their true expected gain */
  oracle: { candidates: 8 },
} as const;

/** Mean positive advantage of a group with a group-mean baseline, for 0/1 rewards: p(1-p). */
export function groupScore(result: Pick<GroupResult, "n" | "s">): number {
  if (result.n <= 0) return 0;
  const p = result.s / result.n;
  return p * (1 - p);
}

/** Indices of `weights` in a weighted random order without replacement (Efraimidis-Spirakis keys). */
export function weightedOrder(rng: Rng, weights: readonly number[]): number[] {
  const keyed = weights.map((w, i) => {
    const u = rng.next() || Number.MIN_VALUE;
    return { i, k: w > 0 ? Math.log(u) / w : Number.NEGATIVE_INFINITY };
  });
  keyed.sort((a, b) => (a.k === b.k ? a.i - b.i : b.k - a.k));
  return keyed.map((x) => x.i);
}

/** Domain randomisation: every batch fresh from the generator. */
export const uniformStrategy: StrategyRun = (world, rng) => {
  while (!world.exhausted) {
    world.run(Array.from({ length: world.batchSize }, () => world.generate(rng)));
  }
};

function hardnessWindow(centre: number, halfWidth: number): { min: number; max: number } {
  const min = Math.max(0, Math.min(1 - 2 * halfWidth, centre - halfWidth));
  return { min, max: Math.min(1, min + 2 * halfWidth) };
}

/** Threshold stepping: one difficulty level; raise it when a batch succeeds > 70%, lower it below 30%. */
export const thresholdStrategy: StrategyRun = (world, rng) => {
  const D = BASELINE_DEFAULTS.threshold;
  let level: number = D.start;
  while (!world.exhausted) {
    const window = hardnessWindow(level, D.halfWidth);
    const results = world.run(Array.from({ length: world.batchSize }, () => world.generate(rng, { hardness: window })));
    const n = results.reduce((a, r) => a + r.n, 0);
    const rate = n > 0 ? results.reduce((a, r) => a + r.s, 0) / n : 0;
    if (rate > D.raiseAbove) level = Math.min(1, level + D.step);
    else if (rate < D.lowerBelow) level = Math.max(0, level - D.step);
  }
};

/** RLVE-style adaptive difficulty with a sliding window (see BASELINE_DEFAULTS.rlve). */
export const rlveStrategy: StrategyRun = (world, rng) => {
  const D = BASELINE_DEFAULTS.rlve;
  let top = 0;
  let attempts = 0;
  let successes = 0;
  let prompts = 0;
  while (!world.exhausted) {
    const low = Math.max(0, top - D.window + 1);
    const levels = Array.from({ length: world.batchSize }, () => rng.int(low, top));
    const configs = levels.map((l) => world.generate(rng, { hardness: { min: l / D.levels, max: (l + 1) / D.levels } }));
    const results = world.run(configs);
    results.forEach((r, i) => {
      if (levels[i] !== top) return;
      attempts += r.n;
      successes += r.s;
      prompts += 1;
    });
    if (prompts >= D.minPrompts) {
      if (attempts > 0 && successes / attempts >= D.accuracy && top < D.levels - 1) top += 1;
      attempts = 0;
      successes = 0;
      prompts = 0;
    }
  }
};

/** Sampling For Learnability (see BASELINE_DEFAULTS.sfl). */
export const sflStrategy: StrategyRun = (world, rng) => {
  const D = BASELINE_DEFAULTS.sfl;
  let buffer: FamilyConfig[] = [];
  let step = 0;
  while (!world.exhausted) {
    if (step % D.every === 0) {
      const candidates = Array.from({ length: D.candidates }, () => world.generate(rng));
      const scored = world.run(candidates, { probe: true });
      const ranked = scored.map((r, i) => ({ r, i, score: groupScore(r) })).sort((a, b) => b.score - a.score || a.i - b.i);
      const kept = ranked.slice(0, D.keep).map((x) => x.r.config);
      if (kept.length > 0) buffer = kept;
      if (world.exhausted) break;
    }
    const fromBuffer = buffer.length > 0 ? Math.round(D.bufferShare * world.batchSize) : 0;
    const batch: FamilyConfig[] = [];
    for (let i = 0; i < fromBuffer; i++) batch.push(buffer[rng.int(0, buffer.length - 1)]);
    while (batch.length < world.batchSize) batch.push(world.generate(rng));
    world.run(batch);
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
class LevelBuffer {
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

  /** Up to `count` distinct levels drawn by PLR's replay distribution. */
  sample(rng: Rng, count: number): BufferLevel[] {
    const weights = plrRankWeights(
      this.levels.map((l) => l.score),
      this.temperature,
      this.levels.map((l) => this.episodes - l.last),
      this.stalenessWeight,
    );
    return weightedOrder(rng, weights)
      .slice(0, count)
      .map((i) => this.levels[i]);
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

function newBuffer(): LevelBuffer {
  const D = BASELINE_DEFAULTS.plr;
  return new LevelBuffer(D.capacity, D.temperature, D.stalenessWeight);
}

/** PLR-rank: each slot of a batch replays a buffered level with probability 0.8 once the buffer is half full, else plays a fresh one. */
export const plrStrategy: StrategyRun = (world, rng) => {
  const buffer = newBuffer();
  while (!world.exhausted) {
    const replays = buffer.halfFull
      ? Array.from({ length: world.batchSize }, () => rng.next() < BASELINE_DEFAULTS.plr.replayProb).filter(Boolean).length
      : 0;
    const batch = buffer.sample(rng, replays).map((l) => l.config);
    while (batch.length < world.batchSize) batch.push(world.generate(rng));
    for (const result of world.run(batch)) buffer.observe(result);
  }
};

/** ACCEL: PLR-rank whose replay steps are followed by a step on edited copies of the replayed levels. */
export const accelStrategy: StrategyRun = (world, rng) => {
  const buffer = newBuffer();
  const D = BASELINE_DEFAULTS.accel;
  let toEdit: FamilyConfig[] = [];
  while (!world.exhausted) {
    let batch: FamilyConfig[];
    if (toEdit.length > 0) {
      batch = toEdit.map((config) => mutateConfig(rng, world.family.fields, config, { edits: rng.int(D.minEdits, D.maxEdits) }).config);
      toEdit = [];
    } else if (buffer.halfFull && rng.next() < BASELINE_DEFAULTS.plr.replayProb) {
      batch = buffer.sample(rng, world.batchSize).map((l) => l.config);
      toEdit = batch;
    } else {
      batch = Array.from({ length: world.batchSize }, () => world.generate(rng));
    }
    for (const result of world.run(batch)) buffer.observe(result);
  }
};

/** Oracle: fresh candidates drawn in proportion to the true expected gain of a group on them (0 for traps). */
export const oracleStrategy: StrategyRun = (world, rng) => {
  const D = BASELINE_DEFAULTS.oracle;
  while (!world.exhausted) {
    const candidates = Array.from({ length: D.candidates * world.batchSize }, () => world.generate(rng));
    const weights = candidates.map((c) => world.expectedGain(c));
    const order = weights.some((w) => w > 0) ? weightedOrder(rng, weights) : candidates.map((_, i) => i);
    world.run(order.slice(0, world.batchSize).map((i) => candidates[i]));
  }
};

/**
 * The arena's baseline strategies against a scripted world (a fake at the ArenaWorld boundary):
 * the learnability score they rank by, the weighted draw, threshold stepping's direction and the
 * oracle's preference for gain, the validator's screen. Fails when a score's sign or a step's direction is inverted.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "@/lib/families/rng";
import type { FamilyConfig } from "@/lib/families/types";
import { BASELINE_DEFAULTS, groupScore, oracleStrategy, thresholdStrategy, uniformStrategy, weightedOrder } from "./strategies";
import type { ArenaWorld, GroupResult } from "./world";

interface Script {
  /** successes of a group of `n` on a config */
  successes: (config: FamilyConfig, n: number) => number;
  gain?: (config: FamilyConfig) => number;
  batches: number;
  /** the validator's verdict when the run shares one (default: every level passes) */
  screen?: (config: FamilyConfig) => boolean;
}

/** A world that runs `batches` batches (probes included), groups of 10, configs carrying the hardness window they were drawn from. */
function scriptedWorld(script: Script) {
  const windows: { min: number; max: number }[] = [];
  const played: FamilyConfig[][] = [];
  let runs = 0;
  let drawn = 0;
  const world = {
    batchSize: 4,
    get exhausted() {
      return runs >= script.batches;
    },
    screen: (config: FamilyConfig) => script.screen?.(config) ?? true,
    generate(_rng: unknown, opts?: { hardness?: { min: number; max: number } }) {
      const window = opts?.hardness ?? { min: 0, max: 1 };
      windows.push(window);
      drawn += 1;
      return { id: drawn, h: (window.min + window.max) / 2 };
    },
    targetGradient: () => [1],
    expectedTargetGain: (config: FamilyConfig) => script.gain?.(config) ?? 0,
    run(configs: readonly FamilyConfig[], opts: { probe?: boolean } = {}): GroupResult[] {
      runs += 1;
      if (!opts.probe) played.push([...configs]);
      return configs.map((config) => ({ config, key: String(config.id), n: 10, s: script.successes(config, 10), invalid: false }));
    },
  };
  return { world: world as unknown as ArenaWorld, windows, played };
}

describe("groupScore", () => {
  // catches: the learnability score's sign inverted (ranking solved and hopeless levels first)
  it("is p(1-p) of the group: 1/4 at half success, 0 when all pass or all fail or nothing ran", () => {
    expect(groupScore({ n: 8, s: 4 })).toBe(0.25);
    expect(groupScore({ n: 8, s: 2 })).toBeCloseTo(0.1875, 12);
    expect(groupScore({ n: 8, s: 0 })).toBe(0);
    expect(groupScore({ n: 8, s: 8 })).toBe(0);
    expect(groupScore({ n: 0, s: 0 })).toBe(0);
    expect(groupScore({ n: 8, s: 4 })).toBeGreaterThan(groupScore({ n: 8, s: 7 }));
  });
});

describe("weightedOrder", () => {
  it("is a permutation that puts zero weights last and is deterministic for a seed", () => {
    const order = weightedOrder(createRng(1), [0, 1, 0, 2, 3]);
    expect([...order].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(order.slice(3).sort()).toEqual([0, 2]);
    expect(weightedOrder(createRng(1), [0, 1, 0, 2, 3])).toEqual(order);
  });

  it("draws heavier weights first more often", () => {
    let heavyFirst = 0;
    const rng = createRng(2);
    for (let i = 0; i < 400; i++) if (weightedOrder(rng, [1, 9])[0] === 1) heavyFirst += 1;
    expect(heavyFirst).toBeGreaterThan(300);
    expect(heavyFirst).toBeLessThan(400);
  });
});

describe("thresholdStrategy", () => {
  const D = BASELINE_DEFAULTS.threshold;
  const centres = (windows: { min: number; max: number }[]) => windows.map((w) => (w.min + w.max) / 2);

  // catches: the raise and lower rules swapped or their comparisons inverted
  it("raises the hardness level after batches above the raise threshold", () => {
    const { world, windows } = scriptedWorld({ successes: (_, n) => n, batches: 6 });
    thresholdStrategy()(world, createRng(1));
    const c = centres(windows);
    expect(c[0]).toBeCloseTo(D.start + D.halfWidth, 12);
    expect(c[c.length - 1]).toBeGreaterThan(c[0]);
    for (let i = 1; i < c.length; i++) expect(c[i]).toBeGreaterThanOrEqual(c[i - 1] - 1e-12);
  });

  it("lowers the level after failing batches and holds it in between", () => {
    // succeed until the level passes 0.2, then fail: it comes back down
    const { world, windows } = scriptedWorld({ successes: (config, n) => ((config.h as number) < 0.2 ? n : 0), batches: 12 });
    thresholdStrategy()(world, createRng(1));
    const c = centres(windows);
    expect(Math.max(...c)).toBeCloseTo(0.2, 9);
    expect(c.some((x, i) => i > 0 && x < c[i - 1] - 1e-9)).toBe(true);
    // rate exactly at the thresholds (0.7 and 0.3 are not beyond them): the level never moves
    for (const s of [Math.round(D.raiseAbove * 10), Math.round(D.lowerBelow * 10)]) {
      const held = scriptedWorld({ successes: () => s, batches: 5 });
      thresholdStrategy()(held.world, createRng(1));
      expect(new Set(centres(held.windows).map((x) => x.toFixed(9))).size).toBe(1);
    }
  });
});

describe("uniformStrategy, freshLevels and oracleStrategy", () => {
  it("uniform plays full batches from the whole generator until the budget is spent", () => {
    const { world, windows, played } = scriptedWorld({ successes: () => 5, batches: 3 });
    uniformStrategy()(world, createRng(1));
    expect(played).toHaveLength(3);
    for (const batch of played) expect(batch).toHaveLength(4);
    for (const w of windows) expect(w).toEqual({ min: 0, max: 1 });
  });

  it("plays only levels the shared validator lets through", () => {
    const { world, played } = scriptedWorld({ successes: () => 5, screen: (config) => (config.id as number) % 3 !== 0, batches: 4 });
    uniformStrategy()(world, createRng(1));
    expect(played.flat().length).toBeGreaterThan(0);
    for (const config of played.flat()) expect((config.id as number) % 3).not.toBe(0);
  });

  // catches: the oracle drawing against its gain
  it("the oracle plays the configs with the highest expected gain", () => {
    const { world, played } = scriptedWorld({
      successes: () => 5,
      gain: (config) => ((config.id as number) % 2 === 0 ? 1 : 0),
      batches: 5,
    });
    oracleStrategy()(world, createRng(3));
    expect(played).toHaveLength(5);
    for (const batch of played) {
      expect(batch).toHaveLength(4);
      for (const config of batch) expect((config.id as number) % 2).toBe(0);
    }
  });

  it("the oracle still plays a batch when no candidate has a gain", () => {
    const { world, played } = scriptedWorld({ successes: () => 0, batches: 2 });
    oracleStrategy()(world, createRng(3));
    expect(played.map((b) => b.length)).toEqual([4, 4]);
  });
});

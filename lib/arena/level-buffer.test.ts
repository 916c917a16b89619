/**
 * PLR's level buffer (strategies.ts, LevelBuffer) on its own: half-full rule, capacity, updates of a
 * level it holds, eviction of the lowest score, and the replay draw with staleness. Written against
 * the survivors of a mutation run (docs/BENCHMARKS.md, "Mutation testing").
 */
import { describe, expect, it } from "vitest";
import { plrRankWeights } from "@/lib/engineer/scoring";
import { createRng } from "@/lib/families/rng";
import { LevelBuffer } from "./strategies";
import type { GroupResult } from "./world";

/** A group of 10 attempts with `s` successes on the level `key` (score p(1-p)). */
const group = (key: string, s: number): GroupResult => ({ config: { key }, key, n: 10, s, invalid: false });
const keys = (buffer: LevelBuffer) => buffer.levels.map((l) => l.key);

describe("LevelBuffer", () => {
  it("is half full from half its capacity on and never holds more than its capacity", () => {
    const buffer = new LevelBuffer(4, 0.1, 0.3);
    buffer.observe(group("a", 5));
    expect(buffer.halfFull).toBe(false);
    buffer.observe(group("b", 5));
    expect(buffer.halfFull).toBe(true);
    for (const k of ["c", "d", "e", "f"]) buffer.observe(group(k, 5));
    expect(buffer.levels).toHaveLength(4);
    expect(buffer.episodes).toBe(6);
  });

  it("updates a level it holds (score and last play) instead of adding it again", () => {
    const buffer = new LevelBuffer(4, 0.1, 0.3);
    buffer.observe(group("a", 5));
    buffer.observe(group("b", 5));
    buffer.observe(group("a", 1));
    expect(keys(buffer)).toEqual(["a", "b"]);
    expect(buffer.levels[0].score).toBeCloseTo(0.09, 12);
    expect(buffer.levels[0].last).toBe(3);
  });

  it("evicts the lowest score for a better level, keeps the buffer for one no better than the lowest", () => {
    const buffer = new LevelBuffer(3, 0.1, 0.3);
    buffer.observe(group("good", 3)); // 0.21
    buffer.observe(group("worst", 1)); // 0.09
    buffer.observe(group("best", 5)); // 0.25
    buffer.observe(group("tie", 9)); // 0.09: not better than the lowest
    expect(keys(buffer)).toEqual(["good", "worst", "best"]);
    buffer.observe(group("better", 2)); // 0.16
    expect(keys(buffer)).toEqual(["good", "better", "best"]);
    // the evicted level counts as new when it comes back
    buffer.observe(group("worst", 4)); // 0.24 evicts "better"
    expect(keys(buffer)).toEqual(["good", "worst", "best"]);
  });

  // catches: a level that only ties the lowest score let in (PLR inserts a new level only when it scores strictly higher,
  // as JaxUED's sampler does), and the tie among the lowest broken towards the last slot instead of the first (argmin)
  it("keeps the buffer for a level that exactly ties the lowest score, and evicts the first of several tied lowest", () => {
    const tie = new LevelBuffer(2, 0.1, 0.3);
    tie.observe(group("low", 1)); // 0.09
    tie.observe(group("high", 5)); // 0.25
    tie.observe(group("same", 1)); // 0.09 exactly: not better
    expect(keys(tie)).toEqual(["low", "high"]);

    const first = new LevelBuffer(3, 0.1, 0.3);
    first.observe(group("a", 1)); // 0.09
    first.observe(group("b", 5)); // 0.25
    first.observe(group("c", 1)); // 0.09, tied with a
    first.observe(group("d", 3)); // 0.21 replaces the first tied lowest, a
    expect(keys(first)).toEqual(["d", "b", "c"]);
    first.observe(group("e", 3)); // 0.21 replaces c, now the only lowest
    expect(keys(first)).toEqual(["d", "b", "e"]);
  });

  it("draws `count` levels in proportion to PLR's rank and staleness weights", () => {
    const buffer = new LevelBuffer(8, 1, 0.3);
    for (const [k, s] of [
      ["a", 5],
      ["b", 2],
      ["c", 1],
      ["d", 0],
    ] as const)
      buffer.observe(group(k, s));
    const weights = plrRankWeights(
      buffer.levels.map((l) => l.score),
      1,
      buffer.levels.map((l) => buffer.episodes - l.last),
      0.3,
    );
    const draws = buffer.sample(createRng(1), 20_000);
    expect(draws).toHaveLength(20_000);
    buffer.levels.forEach((level, i) => {
      const share = draws.filter((d) => d === level).length / draws.length;
      expect(share).toBeGreaterThan(weights[i] - 0.02);
      expect(share).toBeLessThan(weights[i] + 0.02);
    });
    expect(new LevelBuffer(4, 1, 0.3).sample(createRng(1), 3)).toEqual([]);
  });

  it("with staleness alone, draws the level played longest ago most and the one just played never", () => {
    const buffer = new LevelBuffer(4, 1, 1);
    for (const k of ["old", "mid", "new"]) buffer.observe(group(k, 5));
    const draws = buffer.sample(createRng(2), 3000).map((l) => l.key);
    const count = (k: string) => draws.filter((d) => d === k).length;
    expect(count("new")).toBe(0);
    expect(count("old")).toBeGreaterThan(1.5 * count("mid"));
  });
});

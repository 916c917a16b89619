import { describe, expect, it } from "vitest";
import { bootstrapInterval, firstCrossing, iqm, normalizedArea, quantile, valueAt } from "./stats";

describe("iqm", () => {
  it("is the mean of the middle half (floor(n/4) cut from each end, as scipy's trim_mean(x, 0.25))", () => {
    expect(iqm([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toBeCloseTo((3 + 4 + 5 + 6 + 7 + 8) / 6, 12);
    expect(iqm([10, 1, 9, 2, 8, 3, 7, 4, 6, 5])).toBeCloseTo(5.5, 12);
    expect(iqm([4, 1, 3, 2])).toBeCloseTo(2.5, 12);
    expect(iqm([1, 2, 3])).toBeCloseTo(2, 12);
    expect(iqm([7])).toBe(7);
    expect(iqm([1, 1, 1, 1, 1000, -1000, 1, 1])).toBe(1);
    expect(Number.isNaN(iqm([]))).toBe(true);
  });
});

describe("bootstrapInterval", () => {
  it("is a point for constant data and brackets the statistic otherwise", () => {
    expect(bootstrapInterval([3, 3, 3, 3])).toEqual([3, 3]);
    const data = [12, 15, 9, 14, 11, 30, 13, 10, 16, 12];
    const [lo, hi] = bootstrapInterval(data);
    expect(lo).toBeLessThanOrEqual(iqm(data));
    expect(hi).toBeGreaterThanOrEqual(iqm(data));
    expect(lo).toBeGreaterThanOrEqual(Math.min(...data));
    expect(hi).toBeLessThanOrEqual(Math.max(...data));
  });

  it("is deterministic for a seed and equals the percentiles of the resampled statistic", () => {
    const data = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(bootstrapInterval(data)).toEqual(bootstrapInterval(data));
    // the mean of a two-point sample {0, 1} over many resamples: the 2.5% and 97.5% quantiles of Binomial(n, 1/2)/n
    const coin = Array.from({ length: 100 }, (_, i) => i % 2);
    const [lo, hi] = bootstrapInterval(coin, (s) => s.reduce((a, b) => a + b, 0) / s.length, { resamples: 4000 });
    expect(lo).toBeGreaterThan(0.38);
    expect(lo).toBeLessThan(0.42);
    expect(hi).toBeGreaterThan(0.58);
    expect(hi).toBeLessThan(0.62);
  });

  it("narrows with more seeds", () => {
    const few = [10, 20, 30, 40, 50];
    const many = Array.from({ length: 40 }, (_, i) => few[i % 5]);
    const width = (x: [number, number]) => x[1] - x[0];
    expect(width(bootstrapInterval(many))).toBeLessThan(width(bootstrapInterval(few)));
  });
});

describe("curves", () => {
  it("finds the first crossing of a level by linear interpolation", () => {
    const xs = [0, 100, 200, 300];
    const ys = [0.1, 0.3, 0.7, 0.9];
    expect(firstCrossing(xs, ys, 0.5)).toBeCloseTo(150, 12);
    expect(firstCrossing(xs, ys, 0.7)).toBeCloseTo(200, 12);
    expect(firstCrossing(xs, ys, 0.05)).toBe(0);
    expect(firstCrossing(xs, ys, 0.95)).toBeNull();
    // a dip after the crossing does not matter
    expect(firstCrossing([0, 10, 20], [0.6, 0.4, 0.8], 0.5)).toBe(0);
  });

  it("normalises the area under the curve by the budget, the last value held", () => {
    expect(normalizedArea([0, 100], [0.5, 0.5], 100)).toBeCloseTo(0.5, 12);
    expect(normalizedArea([0, 100], [0, 1], 100)).toBeCloseTo(0.5, 12);
    expect(normalizedArea([0, 50], [0, 1], 100)).toBeCloseTo(0.75, 12);
    expect(valueAt([0, 100], [0, 1], 25)).toBeCloseTo(0.25, 12);
    expect(valueAt([0, 100], [0, 1], 500)).toBe(1);
    expect(quantile([1, 2, 3, 4], 0.5)).toBeCloseTo(2.5, 12);
  });
});

// written against the survivors of a mutation run of stats.ts (docs/BENCHMARKS.md, "Mutation testing")
describe("edges of the statistics", () => {
  it("bootstraps resamples of exactly n values, `resamples` times, seeded by default with arena:bootstrap", () => {
    const data = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(bootstrapInterval(data, (s) => s.length)).toEqual([10, 10]);
    const mean = (s: number[]) => s.reduce((a, b) => a + b, 0) / s.length;
    // one resample: the interval is that one statistic
    const [lo, hi] = bootstrapInterval(data, mean, { resamples: 1 });
    expect(lo).toBe(hi);
    expect(bootstrapInterval(data, mean, { seed: "arena:bootstrap" })).toEqual(bootstrapInterval(data, mean));
    expect(bootstrapInterval(data, mean, { seed: 7 })).not.toEqual(bootstrapInterval(data, mean));
    // no seeds: no interval, whatever the statistic makes of an empty sample
    expect(bootstrapInterval([], () => 0)).toEqual([Number.NaN, Number.NaN]);
  });

  it("takes the first point at or above the level, even when the curve dips below it afterwards", () => {
    expect(firstCrossing([0, 10, 20], [0.2, 0.5, 0.3], 0.5)).toBe(10);
  });

  it("integrates segments that do not start at 0 and is 0 for no curve or no budget", () => {
    expect(normalizedArea([0, 50, 100], [0, 1, 1], 100)).toBeCloseTo(0.75, 12);
    expect(normalizedArea([0, 50, 200], [0, 1, 1], 100)).toBeCloseTo(0.75, 12);
    expect(normalizedArea([], [], 100)).toBe(0);
    expect(normalizedArea([0, 100], [1, 1], 0)).toBe(0);
  });

  it("interpolates between points that do not start at 0, holds the first value before them, NaN for no curve", () => {
    expect(valueAt([10, 20], [0.2, 0.6], 15)).toBeCloseTo(0.4, 12);
    expect(valueAt([10, 20], [0.2, 0.6], 0)).toBe(0.2);
    expect(Number.isNaN(valueAt([], [], 5))).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import {
  benjaminiHochberg,
  bootstrapMeanInterval,
  falseDiscoveryControl,
  fisherExactTwoSided,
  fisherMinimumP,
  newcombeDifference,
  verdictOf,
  wilsonInterval,
} from "./compare-stats";

describe("Fisher's exact test (two-sided)", () => {
  // reference values from scipy.stats.fisher_exact 1.17.1
  it.each([
    [5, 5, 0, 5, 0.007936507936507938],
    [8, 10, 1, 6, 0.034965034965034975],
    [3, 5, 0, 5, 0.16666666666666666],
    [1, 5, 4, 5, 0.2063492063492064],
    [0, 5, 0, 5, 1],
  ])("%i/%i vs %i/%i -> p = %f", (s1, n1, s2, n2, p) => {
    expect(fisherExactTwoSided(s1, n1, s2, n2)).toBeCloseTo(p, 12);
    // symmetric in the two rows
    expect(fisherExactTwoSided(s2, n2, s1, n1)).toBeCloseTo(p, 12);
  });

  it("refuses impossible tables", () => {
    expect(() => fisherExactTwoSided(6, 5, 0, 5)).toThrow(RangeError);
    expect(() => fisherExactTwoSided(-1, 5, 0, 5)).toThrow(RangeError);
    expect(() => fisherExactTwoSided(1.5, 5, 0, 5)).toThrow(RangeError);
  });
});

describe("intervals", () => {
  it("Wilson's interval matches the textbook value", () => {
    // 81/263 (Agresti & Coull's example): 0.2553 .. 0.3662
    const [lo, hi] = wilsonInterval(81, 263);
    expect(lo).toBeCloseTo(0.2553, 4);
    expect(hi).toBeCloseTo(0.3662, 4);
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
  });

  it("Newcombe's hybrid score interval matches his 1998 example (b minus a)", () => {
    // Newcombe (1998), example (a): 56/70 − 48/80, method 10: 0.0524 .. 0.3339
    const [lo, hi] = newcombeDifference(48, 80, 56, 70);
    expect(lo).toBeCloseTo(0.0524, 4);
    expect(hi).toBeCloseTo(0.3339, 4);
    // swapping the sides mirrors the interval
    const [lo2, hi2] = newcombeDifference(56, 70, 48, 80);
    expect(lo2).toBeCloseTo(-0.3339, 4);
    expect(hi2).toBeCloseTo(-0.0524, 4);
  });

  it("the bootstrap interval holds the mean, is reproducible and shrinks with data", () => {
    expect(bootstrapMeanInterval([])).toBeNull();
    expect(bootstrapMeanInterval([0.4])).toEqual({ mean: 0.4, interval: [0.4, 0.4] });
    expect(bootstrapMeanInterval([1, 1, 1])!.interval).toEqual([1, 1]);
    const spread = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? -1 : 1));
    const wide = bootstrapMeanInterval(spread)!;
    expect(wide.mean).toBe(0);
    expect(wide.interval[0]).toBeLessThan(-0.2);
    expect(wide.interval[1]).toBeGreaterThan(0.2);
    expect(bootstrapMeanInterval(spread)).toEqual(wide);
    const narrow = bootstrapMeanInterval(Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? 0.2 : 0.4)))!;
    expect(narrow.mean).toBeCloseTo(0.3, 12);
    // standard error 0.1/sqrt(400) = 0.005: the 95% interval is about ±0.0098
    expect(narrow.interval[0]).toBeGreaterThan(0.285);
    expect(narrow.interval[0]).toBeLessThan(0.295);
    expect(narrow.interval[1]).toBeGreaterThan(0.305);
    expect(narrow.interval[1]).toBeLessThan(0.315);
  });
});

describe("verdicts", () => {
  it("improved and regressed only when Fisher's test rejects at alpha, in the direction of b", () => {
    expect(verdictOf({ n: 5, successes: 0 }, { n: 5, successes: 5 }, 0.05)).toMatchObject({ verdict: "improved" });
    expect(verdictOf({ n: 5, successes: 5 }, { n: 5, successes: 0 }, 0.05)).toMatchObject({ verdict: "regressed" });
    // 3/5 vs 0/5 is p = 0.167: not enough evidence
    expect(verdictOf({ n: 5, successes: 3 }, { n: 5, successes: 0 }, 0.05)).toMatchObject({ verdict: "unchanged" });
    expect(verdictOf({ n: 5, successes: 5 }, { n: 5, successes: 0 }, 0.005)).toMatchObject({ verdict: "unchanged" });
    expect(verdictOf({ n: 0, successes: 0 }, { n: 5, successes: 5 }, 0.05)).toMatchObject({ verdict: "unchanged" });
  });
});

describe("false discovery control", () => {
  it("gives Fisher's smallest attainable p from the extreme tables of the margins", () => {
    // 5 attempts a side, 5 passes in all: 5/5 against 0/5 is the most extreme, p = 2/252
    expect(fisherMinimumP(5, 5, 5)).toBeCloseTo(2 / 252, 12);
    expect(fisherMinimumP(5, 5, 5)).toBe(Math.min(...[0, 1, 2, 3, 4, 5].map((x) => fisherExactTwoSided(x, 5, 5 - x, 5))));
    // one attempt a side, or all passed or all failed: never below 1
    expect(fisherMinimumP(1, 1, 1)).toBe(1);
    expect(fisherMinimumP(5, 5, 0)).toBe(1);
    expect(fisherMinimumP(5, 5, 10)).toBe(1);
    // uneven margins: the smaller tail decides
    expect(fisherMinimumP(10, 3, 3)).toBe(Math.min(...[0, 1, 2, 3].map((x) => fisherExactTwoSided(x, 10, 3 - x, 3))));
  });

  it("adjusts p-values as Benjamini and Hochberg: p * m / rank, made monotone from the largest down, in the order given", () => {
    // R: p.adjust(c(0.01, 0.04, 0.03, 0.005, 0.5), "BH") = 0.025 0.05 0.05 0.025 0.5
    const q = benjaminiHochberg([0.01, 0.04, 0.03, 0.005, 0.5]);
    expect(q.map((x) => Number(x.toFixed(6)))).toEqual([0.025, 0.05, 0.05, 0.025, 0.5]);
    expect(benjaminiHochberg([])).toEqual([]);
    expect(benjaminiHochberg([0.9, 0.95])).toEqual([0.95, 0.95]);
    // never above 1
    expect(benjaminiHochberg([0.6, 0.7, 0.8]).map((x) => Number(x.toFixed(12)))).toEqual([0.8, 0.8, 0.8]);
    expect(Math.max(...benjaminiHochberg([0.6, 0.99, 0.98]))).toBeLessThanOrEqual(1);
  });

  it("corrects only over the tasks that could reach alpha, and counts the discoveries at q <= alpha", () => {
    const strong = { pValue: 0.004, minimumP: 0.004 };
    const weak = { pValue: 0.048, minimumP: 0.008 };
    const never = { pValue: 1, minimumP: 1 };
    // two testable tasks among 40: m = 2, not 40
    const out = falseDiscoveryControl([strong, weak, ...Array.from({ length: 38 }, () => never)], 0.05);
    expect(out.testable).toBe(2);
    expect(out.qValues[0]).toBeCloseTo(0.008, 12);
    expect(out.qValues[1]).toBeCloseTo(0.048, 12);
    expect(out.qValues.slice(2).every((q) => q === 1)).toBe(true);
    expect(out.discoveries).toBe(2);
    // the same two among 40 that each could reach alpha: m = 40 and neither survives
    const all = falseDiscoveryControl([strong, weak, ...Array.from({ length: 38 }, () => ({ pValue: 0.9, minimumP: 0.01 }))], 0.05);
    expect(all.testable).toBe(40);
    expect(all.qValues[0]).toBeCloseTo(0.16, 12);
    expect(all.discoveries).toBe(0);
  });
});

import { describe, expect, it } from "vitest";
import { builtinFamilies } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import {
  isDuplicate,
  isUnsolvable,
  learnabilityScore,
  learningProgress,
  normalizedRate,
  noveltyScore,
  plrRankWeights,
  posteriorMean,
  progressReweight,
} from "./scoring";

const member = (s: number, n: number, pMax: number | null = null, state = "valid") => ({ s, n, validation: { state, pMax } });

describe("normalizedRate", () => {
  it("is s/n without a usable p_max", () => {
    expect(normalizedRate(3, 4)).toBe(0.75);
    expect(normalizedRate(3, 4, null)).toBe(0.75);
    expect(normalizedRate(3, 4, 1)).toBe(0.75);
    expect(normalizedRate(3, 4, Number.NaN)).toBe(0.75);
  });

  it("divides by p_max and clips at 1", () => {
    expect(normalizedRate(2, 8, 0.5)).toBeCloseTo(0.5);
    expect(normalizedRate(6, 8, 0.5)).toBe(1);
    expect(normalizedRate(0, 8, 0.5)).toBe(0);
  });

  it("returns null for an unsolvable environment (p_max 0) and without attempts", () => {
    expect(normalizedRate(0, 8, 0)).toBeNull();
    expect(normalizedRate(0, 0)).toBeNull();
    expect(isUnsolvable({ state: "valid", pMax: 0 })).toBe(true);
    expect(isUnsolvable({ state: "unsolvable", pMax: null })).toBe(true);
    expect(isUnsolvable({ state: "valid", pMax: 0.3 })).toBe(false);
  });

  it("rejects impossible counts", () => {
    expect(() => normalizedRate(5, 4)).toThrow(RangeError);
    expect(() => normalizedRate(-1, 4)).toThrow(RangeError);
  });
});

describe("posteriorMean", () => {
  it("shrinks the measured rate toward 1/2", () => {
    expect(posteriorMean(0, 0)).toBe(0.5);
    expect(posteriorMean(8, 8)).toBe(0.9);
    expect(posteriorMean(0, 8)).toBe(0.1);
  });
});

describe("learnabilityScore", () => {
  it("stays in [0, 1/4] and peaks at half success", () => {
    for (let n = 0; n <= 16; n++) {
      for (let s = 0; s <= n; s++) {
        for (const pMax of [null, 0.9, 0.4]) {
          const l = learnabilityScore(member(s, n, pMax));
          expect(l).toBeGreaterThanOrEqual(0);
          expect(l).toBeLessThanOrEqual(0.25);
        }
      }
    }
    const at = (s: number) => learnabilityScore(member(s, 16));
    expect(at(8)).toBeGreaterThan(at(4));
    expect(at(4)).toBeGreaterThan(at(0));
    expect(at(8)).toBeGreaterThan(at(12));
    expect(at(12)).toBeGreaterThan(at(16));
  });

  it("grows toward the point value with more attempts at the same rate (less shrinkage)", () => {
    expect(learnabilityScore(member(32, 64))).toBeGreaterThan(learnabilityScore(member(2, 4)));
    expect(learnabilityScore(member(32, 64))).toBeLessThan(0.25);
  });

  it("normalises by p_max: 4/8 on a p_max 0.5 environment counts as solved", () => {
    const raw = learnabilityScore(member(4, 8));
    const normalised = learnabilityScore(member(4, 8, 0.5));
    expect(normalised).toBeLessThan(raw);
    // 2/8 at p_max 0.5 is q 0.5: about as learnable as 4/8 without a cap
    expect(learnabilityScore(member(2, 8, 0.5))).toBeGreaterThan(normalised);
  });

  it("is 0 for unsolvable environments", () => {
    expect(learnabilityScore(member(0, 8, 0))).toBe(0);
    expect(learnabilityScore(member(0, 8, null, "unsolvable"))).toBe(0);
    expect(learnabilityScore(member(0, 8, 0), 8)).toBe(0);
  });

  it("offers the GRPO group variant in [0, 1], larger for larger groups", () => {
    for (let s = 0; s <= 8; s++) {
      const g = learnabilityScore(member(s, 8), 8);
      expect(g).toBeGreaterThanOrEqual(0);
      expect(g).toBeLessThanOrEqual(1);
    }
    expect(learnabilityScore(member(4, 8), 16)).toBeGreaterThan(learnabilityScore(member(4, 8), 4));
    expect(learnabilityScore(member(4, 8), 8)).toBeGreaterThan(learnabilityScore(member(0, 8), 8));
  });
});

describe("learningProgress", () => {
  it("is 0 for a flat or too short history", () => {
    expect(learningProgress([])).toBe(0);
    expect(learningProgress([0.4])).toBe(0);
    expect(learningProgress([0.4, 0.4, 0.4, 0.4])).toBe(0);
  });

  it("is positive for a rising and for a falling history", () => {
    expect(learningProgress([0.1, 0.3, 0.5, 0.7])).toBeGreaterThan(0);
    expect(learningProgress([0.7, 0.5, 0.3, 0.1])).toBeGreaterThan(0);
  });

  it("is larger for a steeper rise", () => {
    expect(learningProgress([0.1, 0.5, 0.9])).toBeGreaterThan(learningProgress([0.1, 0.2, 0.3]));
  });

  it("uses an EMA of p for the fast average and an EMA of the fast one for the slow average", () => {
    // [0, 1]: p_fast = 0.1, p_slow = 0.1 * 0.1 = 0.01; f(0.1) = 0.5, f(0.01) = 0.009 / 0.108
    expect(learningProgress([0, 1])).toBeCloseTo(0.5 - 0.009 / 0.108, 12);
  });

  it("reweights low success rates up: the same absolute change counts more near 0", () => {
    expect(learningProgress([0.0, 0.1, 0.2])).toBeGreaterThan(learningProgress([0.5, 0.6, 0.7]));
    expect(progressReweight(0)).toBe(0);
    expect(progressReweight(1)).toBeCloseTo(1);
    expect(progressReweight(0.1)).toBeCloseTo(0.5);
  });

  it("rejects an alpha outside (0, 1]", () => {
    expect(() => learningProgress([0.1, 0.2], 0)).toThrow(RangeError);
    expect(() => learningProgress([0.1, 0.2], 1.5)).toThrow(RangeError);
  });
});

describe("noveltyScore and isDuplicate", () => {
  const family = builtinFamilies["frozenlake-mapf"];
  const rng = createRng("novelty");
  const population = Array.from({ length: 20 }, () => family.sample(rng, { hardness: { min: 0, max: 0.4 } }));

  it("is 0 for a member of the population, 1 for an empty one, in [0, 1] otherwise", () => {
    expect(noveltyScore(family, population[3], population)).toBe(0);
    expect(noveltyScore(family, population[3], [])).toBe(1);
    const fresh = family.sample(rng);
    const v = noveltyScore(family, fresh, population);
    expect(v).toBeGreaterThan(0);
    expect(v).toBeLessThanOrEqual(1);
  });

  it("never reports less novelty against a thinned reference set", () => {
    const fresh = family.sample(rng);
    expect(noveltyScore(family, fresh, population, 5)).toBeGreaterThanOrEqual(noveltyScore(family, fresh, population));
  });

  it("finds hashes in a set or a list", () => {
    expect(isDuplicate("a", new Set(["a", "b"]))).toBe(true);
    expect(isDuplicate("c", new Set(["a", "b"]))).toBe(false);
    expect(isDuplicate("b", ["a", "b"])).toBe(true);
  });
});

describe("plrRankWeights", () => {
  it("sums to 1 and favours rank 1", () => {
    const scores = [0.05, 0.2, 0.1, 0.15, 0.01];
    const w = plrRankWeights(scores);
    expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(Math.max(...w)).toBe(w[1]);
    // rank order is weight order
    expect(w[1]).toBeGreaterThan(w[3]);
    expect(w[3]).toBeGreaterThan(w[2]);
    expect(w[2]).toBeGreaterThan(w[0]);
    expect(w[0]).toBeGreaterThan(w[4]);
    // h = 1/rank with temperature 0.3: rank 2 gets 2^(-1/0.3) of rank 1
    expect(w[3] / w[1]).toBeCloseTo(2 ** (-1 / 0.3), 10);
  });

  it("flattens with a higher temperature", () => {
    const scores = [3, 2, 1];
    expect(plrRankWeights(scores, 10)[0]).toBeLessThan(plrRankWeights(scores, 0.3)[0]);
  });

  it("gives tied scores equal weight and ranks NaN last", () => {
    const w = plrRankWeights([0.2, 0.2, Number.NaN, 0.1]);
    expect(w[0]).toBe(w[1]);
    expect(w[2]).toBeLessThan(w[3]);
  });

  it("mixes in staleness with its weight, still summing to 1", () => {
    const scores = [0.2, 0.1, 0.05];
    const w = plrRankWeights(scores, 0.3, [0, 0, 10], 0.3);
    expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(w[2]).toBeGreaterThanOrEqual(0.3);
    const uniform = plrRankWeights(scores, 0.3, [0, 0, 0], 0.3);
    expect(uniform[2]).toBeCloseTo(0.7 * plrRankWeights(scores)[2] + 0.1, 12);
  });

  it("handles empty input and rejects bad parameters", () => {
    expect(plrRankWeights([])).toEqual([]);
    expect(() => plrRankWeights([1], 0)).toThrow(RangeError);
    expect(() => plrRankWeights([1, 2], 0.3, [1])).toThrow(RangeError);
  });
});

describe("the scores' formulas and signs (ENGINEER.md, Scores)", () => {
  // catches: the learnability formula inverted (1/4 - L) or negated
  it("learnability is a*b / ((a+b)(a+b+1)) with a = s+1, b = n-s+1", () => {
    expect(learnabilityScore(member(0, 0))).toBeCloseTo(1 / 6, 12);
    expect(learnabilityScore(member(2, 8))).toBeCloseTo((3 * 7) / (10 * 11), 12);
    expect(learnabilityScore(member(8, 8))).toBeCloseTo((9 * 1) / (10 * 11), 12);
    expect(learnabilityScore(member(4, 8))).toBeGreaterThan(learnabilityScore(member(8, 8)));
  });

  it("q is the rate over p_max, clipped at 1; p_max >= 1 or not finite leaves q = p", () => {
    expect(normalizedRate(4, 8, 0.8)).toBeCloseTo(0.625, 12);
    expect(normalizedRate(6, 8, 0.5)).toBe(1);
    expect(normalizedRate(2, 8, 1)).toBe(0.25);
    expect(normalizedRate(2, 8, Number.NaN)).toBe(0.25);
    expect(normalizedRate(2, 8, 2)).toBe(0.25);
    expect(isUnsolvable({ pMax: 0 })).toBe(true);
    expect(isUnsolvable({ pMax: 0.1 })).toBe(false);
    expect(isUnsolvable({ state: "valid", pMax: null })).toBe(false);
  });

  // catches: learning progress negated, or its reweighting inverted (1 - f)
  it("learning progress is |f(p_fast) - f(p_slow)| >= 0 with f(p) = 0.9p / (p + 0.1(1-2p))", () => {
    const f = (p: number) => (0.9 * p) / (p + 0.1 * (1 - 2 * p));
    const fast = 0.1 * 0.8 + 0.9 * 0.2;
    const slow = 0.1 * fast + 0.9 * 0.2;
    expect(learningProgress([0.2, 0.8])).toBeCloseTo(f(fast) - f(slow), 12);
    expect(learningProgress([0.8, 0.2])).toBeGreaterThan(0);
    expect(progressReweight(0.5)).toBeCloseTo(0.9, 12);
    expect(progressReweight(0.01)).toBeLessThan(0.1);
    // clipped to [0, 1], non-finite values skipped
    expect(learningProgress([-1, 2])).toBeCloseTo(learningProgress([0, 1]), 12);
    expect(learningProgress([0, Number.NaN, 1])).toBeCloseTo(learningProgress([0, 1]), 12);
    expect(() => learningProgress([0.1, 0.2], 0.1, 0.5)).toThrow(RangeError);
    expect(() => learningProgress([0.1, 0.2], 0.1, 0)).toThrow(RangeError);
    // alpha 0.5: p_fast = 0.5, p_slow = 0.3
    expect(learningProgress([0.1, 0.9], 0.5)).toBeCloseTo(f(0.5) - f(0.3), 12);
  });

  // catches: novelty inverted (1 - distance) or measured to the farthest member
  it("novelty is the distance to the nearest member: L1 on numbers over the range, Hamming on nominals", () => {
    const family = {
      fields: [
        { path: "x", kind: "number" as const, min: 0, max: 10 },
        { path: "c", kind: "nominal" as const, levels: ["a", "b"] },
      ],
    };
    const population = [
      { x: 4, c: "a" },
      { x: 2, c: "b" },
    ];
    expect(noveltyScore(family, { x: 2, c: "a" }, population)).toBeCloseTo(0.1, 12);
    expect(noveltyScore(family, { x: 10, c: "b" }, population)).toBeCloseTo(0.4, 12);
    expect(noveltyScore(family, { x: 10, c: "b" }, population)).toBeGreaterThan(noveltyScore(family, { x: 2, c: "a" }, population));
    // thinned to every second member ({ x: 4, c: "a" } and { x: 9, c: "b" }), so the exact match is not in the reference
    expect(noveltyScore(family, { x: 2, c: "b" }, [...population, { x: 9, c: "b" }, { x: 2, c: "b" }], 2)).toBeCloseTo(0.35, 12);
    expect(noveltyScore(family, { x: 2, c: "b" }, [...population, { x: 9, c: "b" }], 3)).toBe(0);
  });

  it("the posterior mean is (s+1)/(n+2) and counts must be integers 0 <= s <= n", () => {
    expect(posteriorMean(0, 0)).toBe(0.5);
    expect(posteriorMean(8, 8)).toBe(0.9);
    expect(() => posteriorMean(1.5, 3)).toThrow(RangeError);
    expect(() => posteriorMean(-1, 3)).toThrow(RangeError);
    expect(() => normalizedRate(2, 1)).toThrow(RangeError);
    expect(() => normalizedRate(1, 2.5)).toThrow(RangeError);
  });
});

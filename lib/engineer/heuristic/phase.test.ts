/**
 * phase.ts: the run of measurements above the frontier behind the ratchet of harder steps, and the
 * fresh samples' pooled success behind the fresh-sample cut. These fail when a comparison is
 * inverted, the run does not stop at the first measurement not above, or members other than fresh
 * samples measured this generation are counted.
 */
import { describe, expect, it } from "vitest";
import type { PopulationMember } from "../types";
import type { Scored } from "./model";
import { HEURISTIC_DEFAULTS } from "./defaults";
import { freshSuccess, freshTooEasy, frontierFreshCount, meanSuccess, streakAbove } from "./phase";

function scored(s: number, n: number, extra: Partial<PopulationMember> = {}, retire: Scored["retire"] = null): Scored {
  return {
    member: {
      key: "m",
      parentKey: null,
      op: "add",
      age: 1,
      history: [],
      n,
      s,
      validation: { state: "valid", pMax: null },
      ...extra,
    } as PopulationMember,
    index: 0,
    q: n > 0 ? s / n : null,
    mean: (s + 1) / (n + 2),
    learnability: 0,
    priority: 0,
    hardnessWeight: 1,
    progress: 0,
    retire,
    failure: { failures: n - s, dominant: null, top: null },
    infra: false,
  };
}

describe("streakAbove", () => {
  it("counts the current measurement and the history backwards while above 0.6", () => {
    expect(streakAbove(scored(8, 8))).toBe(1);
    expect(streakAbove(scored(8, 8, { history: [0.75] }))).toBe(2);
    expect(streakAbove(scored(7, 8, { history: [0.9, 0.5, 0.7, 0.8] }))).toBe(3);
    expect(streakAbove(scored(4, 8, { history: [0.9, 0.9] }))).toBe(0);
    expect(streakAbove(scored(5, 8, { history: [0.6] }))).toBe(1); // 0.625 is above, 0.6 is not
    expect(streakAbove(scored(7, 8, { history: [0.9, Number.NaN] }))).toBe(2); // non-finite history left out
    expect(streakAbove(scored(0, 0, { history: [0.9] }))).toBe(0);
    expect(streakAbove(scored(3, 8, { history: [0.5] }), 0.3)).toBe(2);
  });
});

describe("freshSuccess and freshTooEasy", () => {
  it("pools the fresh samples measured this generation only", () => {
    const fresh = [scored(8, 8), scored(7, 8)];
    const others = [
      scored(0, 8, { age: 2 }), // kept from an earlier generation
      scored(0, 8, { parentKey: "p" }), // a crossover
      scored(0, 8, { op: "mutate", parentKey: "p" }),
      scored(0, 8, { op: "seed" }),
      scored(0, 8, {}, "unsolvable"),
      scored(0, 8, {}, "invalid"),
    ];
    expect(freshSuccess([...fresh, ...others])).toEqual({ s: 15, n: 16 });
    expect(freshSuccess(others)).toBeNull();
    expect(freshTooEasy([...fresh, ...others])).toBe(true);
    expect(freshTooEasy(others)).toBe(false);
  });

  it("is too easy above a posterior of 0.8 and not at it or below", () => {
    expect(freshTooEasy([scored(8, 8)])).toBe(true); // 9/10
    expect(freshTooEasy([scored(7, 8)])).toBe(false); // 8/10 = 0.8
    expect(freshTooEasy([scored(7, 8), scored(8, 8)])).toBe(true); // 16/18
    expect(freshTooEasy([scored(4, 8), scored(8, 8)])).toBe(false); // 13/18
    expect(freshTooEasy([scored(0, 8), scored(8, 8)])).toBe(false);
  });
});

describe("meanSuccess and frontierFreshCount", () => {
  // catches: the gate inverted (extra fresh samples while the policy fails most of its population), its edge moved,
  // unmeasured members counted as 0, or the share not scaled by the population's size
  it("adds a tenth of the population from the frontier only when the members passed at least 0.55 on average", () => {
    const at = (rates: number[]) => rates.map((q) => scored(Math.round(q * 20), 20));
    const above = at([0.5, 0.6]); // mean 0.55, the edge
    const below = at([0.5, 0.55]); // mean 0.525
    expect(meanSuccess(above)).toBeCloseTo(0.55, 9);
    expect(HEURISTIC_DEFAULTS.frontierFreshAbove).toBe(0.55);
    expect(frontierFreshCount(above, 32)).toBe(3);
    expect(frontierFreshCount(above, 10)).toBe(1);
    expect(frontierFreshCount(above, 0)).toBe(0);
    expect(frontierFreshCount(below, 32)).toBe(0);
    expect(frontierFreshCount(at([0.9, 1]), 32)).toBe(3);
    expect(frontierFreshCount(at([0, 0.2]), 32)).toBe(0);
    // an unmeasured member (no rate yet) is left out, not counted as a failure
    expect(meanSuccess([...above, scored(0, 0)])).toBeCloseTo(0.55, 9);
    expect(frontierFreshCount([...above, scored(0, 0)], 32)).toBe(3);
    expect(meanSuccess([scored(0, 0)])).toBeNull();
    expect(frontierFreshCount([scored(0, 0)], 32)).toBe(0);
  });
});

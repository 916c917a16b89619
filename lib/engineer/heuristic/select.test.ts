/** The keep decision on equal learnability: ties go to evidence, never to population order alone. */
import { describe, expect, it } from "vitest";
import { learnability } from "@/lib/analytics/metrics";
import type { PopulationMember } from "../types";
import type { Scored } from "./model";
import { createRng } from "@/lib/families/rng";
import { compareForKeep, learnabilityTies, LEARNABILITY_TIE, selectKept, weightedOrder } from "./select";

function scored(key: string, index: number, n: number, s: number, extra: Partial<Scored> = {}): Scored {
  const member = { key, n, s, history: [], validation: { state: "valid", pMax: null } } as unknown as PopulationMember;
  return {
    member,
    index,
    q: n > 0 ? s / n : null,
    mean: (s + 1) / (n + 2),
    learnability: learnability(n, s),
    progress: 0,
    retire: null,
    failure: { failures: n - s, dominant: null, top: null },
    infra: false,
    ...extra,
  };
}

describe("compareForKeep", () => {
  it("0/5 and 5/5 tie on learnability (the figure the issue saw: 0.107)", () => {
    expect(learnability(5, 0)).toBeCloseTo(0.107, 3);
    expect(learnability(5, 5)).toBeCloseTo(learnability(5, 0), 12);
  });

  it("keeps the member with a pass over a 0/5 at the same learnability, whichever comes first", () => {
    const never = scored("never", 0, 5, 0);
    const always = scored("always", 1, 5, 5);
    const sel = selectKept([never, always], 1, 1);
    expect(sel.kept.map((s) => s.member.key)).toEqual(["always"]);
    expect(never.retire).toBe("outranked");
    expect(compareForKeep(always, never)).toBeLessThan(0);
    expect(compareForKeep(never, always)).toBeGreaterThan(0);
  });

  it("among members with equal learnability and no pass, more attempts win, then fewer infra failures", () => {
    const few = scored("few", 0, 3, 0);
    // more attempts at the same learnability (set equal by hand: the rule, not the formula, is tested)
    const many = scored("many", 1, 9, 0, { learnability: few.learnability });
    expect(compareForKeep(many, few)).toBeLessThan(0);
    const clean = scored("clean", 2, 5, 0);
    const noisy = scored("noisy", 0, 5, 0, { infra: true });
    expect(selectKept([noisy, clean], 1, 1).kept[0].member.key).toBe("clean");
  });

  it("learning progress comes before the evidence counts, and higher learnability before any tie rule", () => {
    const stalled = scored("stalled", 0, 5, 5);
    const rising = scored("rising", 1, 5, 0, { progress: 0.2 });
    expect(selectKept([stalled, rising], 1, 1).kept[0].member.key).toBe("rising");
    const coin = scored("coin", 1, 4, 2); // learnability above 0.107
    expect(selectKept([scored("always", 0, 5, 5), coin], 1, 1).kept[0].member.key).toBe("coin");
  });

  it("gives the same keep set whatever order the population comes in", () => {
    const members = () => [scored("a", 0, 5, 0), scored("b", 1, 5, 5), scored("c", 2, 5, 0), scored("d", 3, 5, 5)];
    const forward = selectKept(members(), 0.5, 4)
      .kept.map((s) => s.member.key)
      .sort();
    const backward = selectKept(members().reverse(), 0.5, 4)
      .kept.map((s) => s.member.key)
      .sort();
    expect(forward).toEqual(["b", "d"]);
    expect(backward).toEqual(["b", "d"]);
  });
});

describe("selectKept's cut and ranks, learnabilityTies and weightedOrder", () => {
  it("reports the learnability of the last kept member as the cut, none without keeps, and ranks from 1", () => {
    const members = [scored("a", 0, 8, 1), scored("b", 1, 8, 4), scored("c", 2, 8, 3, { retire: "solved" }), scored("d", 3, 8, 2)];
    const sel = selectKept(members, 0.5, 4);
    expect(sel.ranked.map((s) => s.member.key)).toEqual(["b", "d", "a"]);
    expect(sel.kept.map((s) => s.member.key)).toEqual(["b", "d"]);
    expect(sel.keepCut).toBeCloseTo(learnability(8, 2), 12);
    expect([...sel.rankOf.values()]).toEqual([1, 2, 3]);
    expect(sel.rankOf.get(members[0])).toBe(3);
    expect(members[2].retire).toBe("solved");
    expect(members[0].retire).toBe("outranked");
    const none = selectKept([scored("x", 0, 8, 4)], 0, 4);
    expect(none.kept).toEqual([]);
    expect(none.keepCut).toBeNull();
  });

  it("ties learnability values closer than LEARNABILITY_TIE only, and falls back to population order", () => {
    expect(learnabilityTies(0.1, 0.1 + LEARNABILITY_TIE / 10)).toBe(true);
    expect(learnabilityTies(0, LEARNABILITY_TIE)).toBe(false);
    const first = scored("first", 0, 8, 4);
    const second = scored("second", 1, 8, 4);
    expect(compareForKeep(first, second)).toBeLessThan(0);
    expect(compareForKeep(second, first)).toBeGreaterThan(0);
  });

  it("weightedOrder is a seeded permutation, heavier weights first more often, zero weights last in index order", () => {
    const order = weightedOrder(createRng(1), [0, 2, 0, 1, 3]);
    expect([...order].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(order.slice(3)).toEqual([0, 2]);
    expect(weightedOrder(createRng(1), [0, 2, 0, 1, 3])).toEqual(order);
    const rng = createRng(2);
    let heavyFirst = 0;
    for (let i = 0; i < 400; i++) if (weightedOrder(rng, [1, 9])[0] === 1) heavyFirst += 1;
    expect(heavyFirst).toBeGreaterThan(320);
    expect(heavyFirst).toBeLessThan(400);
  });
});

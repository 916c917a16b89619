/** The keep decision on equal learnability: ties go to evidence, never to population order alone. */
import { describe, expect, it } from "vitest";
import { learnability } from "@/lib/analytics/metrics";
import type { PopulationMember } from "../types";
import type { Scored } from "./model";
import { createRng } from "@/lib/families/rng";
import type { FamilyDefinition, FieldSpec } from "@/lib/families/types";
import { HEURISTIC_DEFAULTS } from "./defaults";
import { priorityText } from "./rationale";
import { fitSuccessOnHardness, fittedSuccess, memberHardness } from "./frontier";
import { compareForKeep, learnabilityTies, LEARNABILITY_TIE, selectKept, weighByFrontier, weighByHardness, weightedOrder } from "./select";

function scored(key: string, index: number, n: number, s: number, extra: Partial<Scored> = {}): Scored {
  const member = { key, n, s, history: [], validation: { state: "valid", pMax: null } } as unknown as PopulationMember;
  return {
    member,
    index,
    q: n > 0 ? s / n : null,
    mean: (s + 1) / (n + 2),
    learnability: learnability(n, s),
    hardnessWeight: 1,
    progress: 0,
    retire: null,
    failure: { failures: n - s, dominant: null, top: null },
    infra: false,
    ...extra,
    priority: extra.priority ?? extra.learnability ?? learnability(n, s),
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

describe("weighByHardness: the keep order's hardness bias", () => {
  // One difficulty-signed field on 0..100: a config's hardness is its value / 100 (as in frontier.test.ts).
  const field: FieldSpec = { path: "size", kind: "integer", min: 0, max: 100, difficulty: "up", direction: "horizon" };
  const family = { id: "toy", fields: [field] } as unknown as FamilyDefinition;
  /** No tilt: every weight 1 and every priority the member's learnability. */
  const expectUntilted = (members: Scored[]) => {
    expect(members.map((m) => m.hardnessWeight)).toEqual(members.map(() => 1));
    expect(members.map((m) => m.priority)).toEqual(members.map((m) => m.learnability));
  };
  const at = (key: string, index: number, size: number, n: number, s: number) => {
    const sc = scored(key, index, n, s);
    (sc.member as { config: unknown }).config = { size };
    return sc;
  };

  it("weighs learnability by 1 + bias x the population's mean success x (hardness - the mean hardness)", () => {
    // success 6/8, 4/8, 2/8: mean 0.5; hardness 0.2, 0.5, 0.8: mean 0.5
    const members = [at("easy", 0, 20, 8, 6), at("mid", 1, 50, 8, 4), at("hard", 2, 80, 8, 2)];
    weighByHardness(family, members, 1);
    expect(members.map((m) => m.hardness)).toEqual([0.2, 0.5, 0.8]);
    expect(members[0].hardnessWeight).toBeCloseTo(0.85, 12);
    expect(members[1].hardnessWeight).toBeCloseTo(1, 12);
    expect(members[2].hardnessWeight).toBeCloseTo(1.15, 12);
    for (const m of members) expect(m.priority).toBeCloseTo(m.learnability * m.hardnessWeight, 12);
    // twice the bias, twice the tilt
    const again = [at("easy", 0, 20, 8, 6), at("mid", 1, 50, 8, 4), at("hard", 2, 80, 8, 2)];
    weighByHardness(family, again, 2);
    expect(again[2].hardnessWeight).toBeCloseTo(1.3, 12);
    expect(again[0].hardnessWeight).toBeCloseTo(0.7, 12);
  });

  it("the more the policy passes, the stronger the tilt; none while it passes nothing", () => {
    const passing = [at("a", 0, 20, 8, 8), at("b", 1, 80, 8, 8)];
    weighByHardness(family, passing, 1);
    expect(passing[1].hardnessWeight).toBeCloseTo(1.3, 12);
    expect(passing[0].hardnessWeight).toBeCloseTo(0.7, 12);
    const failing = [at("a", 0, 20, 8, 0), at("b", 1, 80, 8, 0)];
    weighByHardness(family, failing, 1);
    expectUntilted(failing);
  });

  it("leaves unmeasured members out of the success rate but not out of the mean hardness, and never goes below 0", () => {
    // measured: 8/8 at hardness 0.8; the unmeasured member at 0.2 pulls the mean hardness to 0.5, not the rate to 0.5
    const members = [at("new", 0, 20, 0, 0), at("b", 1, 80, 8, 8)];
    weighByHardness(family, members, 1);
    expect(members[0].q).toBeNull();
    expect(members[1].hardnessWeight).toBeCloseTo(1.3, 12);
    expect(members[0].hardnessWeight).toBeCloseTo(0.7, 12);
    // nothing measured yet: no success rate to scale by, so no tilt (and no NaN)
    const unmeasured = [at("x", 0, 20, 0, 0), at("y", 1, 80, 0, 0)];
    weighByHardness(family, unmeasured, 1);
    expectUntilted(unmeasured);
    weighByHardness(family, members, 10);
    expect(members[0].hardnessWeight).toBe(0);
    expect(members[0].priority).toBe(0);
    expect(members[1].hardnessWeight).toBeCloseTo(4, 12);
  });

  it("leaves a member whose values give no hardness (NaN) unweighed, and the others' weights finite", () => {
    // on a log-scaled field (1..100 here) a negative value has no position: its hardness is NaN
    const logged = { id: "toy-log", fields: [{ ...field, min: 1, scale: true }] } as unknown as FamilyDefinition;
    const members = [at("easy", 0, 10, 8, 6), at("broken", 1, -5, 8, 4), at("hard", 2, 100, 8, 2)];
    weighByHardness(logged, members, 1);
    expect(members[1].hardness).toBeUndefined();
    expect(members[1].hardnessWeight).toBe(1);
    expect(members[1].priority).toBe(members[1].learnability);
    // hardness 0.5 (10 on log 1..100) and 1: mean 0.75; mean success 0.5 over all three
    expect(members[0].hardness).toBeCloseTo(0.5, 12);
    expect(members[0].hardnessWeight).toBeCloseTo(0.875, 12);
    expect(members[2].hardnessWeight).toBeCloseTo(1.125, 12);
    expect(selectKept(members, 1, 3).ranked.every((m) => Number.isFinite(m.priority))).toBe(true);
  });

  it("gives the bonus at a member's first measurement only; the penalty stands at any age", () => {
    const aged = (sc: ReturnType<typeof at>, age: number) => {
      (sc.member as { age: number }).age = age;
      return sc;
    };
    // success 6/8, 4/8, 2/8 (mean 0.5), hardness 0.2, 0.5, 0.8 (mean 0.5), as above
    const members = [aged(at("easy", 0, 20, 8, 6), 3), aged(at("mid", 1, 50, 8, 4), 1), aged(at("hard", 2, 80, 8, 2), 2)];
    weighByHardness(family, members, 1);
    expect(members[2].hardnessWeight).toBe(1);
    expect(members[2].priority).toBe(members[2].learnability);
    expect(members[0].hardnessWeight).toBeCloseTo(0.85, 12);
    const fresh = [aged(at("easy", 0, 20, 8, 6), 1), aged(at("mid", 1, 50, 8, 4), 1), aged(at("hard", 2, 80, 8, 2), 1)];
    weighByHardness(family, fresh, 1);
    expect(fresh[2].hardnessWeight).toBeCloseTo(1.15, 12);
    expect(fresh[0].hardnessWeight).toBeCloseTo(0.85, 12);
  });

  it("leaves every priority at its learnability for a family without difficulty-signed fields or a bias of 0", () => {
    const plain = { id: "plain", fields: [{ ...field, difficulty: undefined }] } as unknown as FamilyDefinition;
    const members = [at("a", 0, 20, 8, 6), at("b", 1, 80, 8, 2)];
    weighByHardness(plain, members, 1);
    expect(members.map((m) => m.hardness)).toEqual([undefined, undefined]);
    expectUntilted(members);
    weighByHardness(family, members, 0);
    expectUntilted(members);
    expect(priorityText(members[0])).toBe(`learnability ${members[0].learnability.toFixed(3)}`);
  });

  it("keeps the harder of two equally learnable members, whichever comes first, and cuts at its priority", () => {
    // 3/8 and 5/8 have equal learnability; the population passes half its attempts
    for (const order of [0, 1]) {
      const easy = at("easy", order, 30, 8, 5);
      const hard = at("hard", 1 - order, 70, 8, 3);
      expect(learnabilityTies(easy.learnability, hard.learnability)).toBe(true);
      const members = order === 0 ? [easy, hard] : [hard, easy];
      weighByHardness(family, members, HEURISTIC_DEFAULTS.hardnessBias);
      const sel = selectKept(members, 0.5, 2);
      expect(sel.kept.map((m) => m.member.key)).toEqual(["hard"]);
      expect(sel.keepCut).toBeCloseTo(hard.priority, 12);
      expect(easy.retire).toBe("outranked");
      expect(priorityText(hard)).toBe(
        `learnability ${hard.learnability.toFixed(3)} x hardness weight 1.10 (hardness 0.70) = ${hard.priority.toFixed(3)}`,
      );
    }
  });

  it("still keeps a clearly more learnable member over a harder one", () => {
    // 4/8 (learnability 0.227) at hardness 0.3 against 1/8 (0.136) at 0.7 (mean success 0.31): the weights 0.94 and 1.06 do not reverse that
    const members = [at("learnable", 0, 30, 8, 4), at("hard", 1, 70, 8, 1)];
    weighByHardness(family, members, HEURISTIC_DEFAULTS.hardnessBias);
    expect(selectKept(members, 0.5, 2).kept.map((m) => m.member.key)).toEqual(["learnable"]);
  });
});

describe("weighByFrontier: the keep order's frontier discount", () => {
  // One difficulty-signed field on 0..100: a config's hardness is its value / 100.
  const field: FieldSpec = { path: "size", kind: "integer", min: 0, max: 100, difficulty: "up", direction: "horizon" };
  const family = { id: "toy", fields: [field] } as unknown as FamilyDefinition;
  const at = (key: string, index: number, size: number, n: number, s: number) => {
    const sc = scored(key, index, n, s, { hardness: size / 100 });
    (sc.member as { config: unknown }).config = { size };
    return sc;
  };
  /**
   * Ten members whose success falls with hardness (the policy passes 7-8 of 8 below hardness 0.4 and 0-1 of 8
   * above 0.6), plus two members passed 4 of 8: "capped" at hardness 0.15, where the policy passes nearly
   * everything, and "frontier" at 0.5, where it passes about half.
   */
  const ROWS: [key: string, size: number, passes: number][] = [
    ["e1", 5, 8],
    ["e2", 10, 8],
    ["e3", 20, 7],
    ["e4", 30, 8],
    ["e5", 35, 7],
    ["h1", 65, 1],
    ["h2", 70, 0],
    ["h3", 80, 1],
    ["h4", 90, 0],
    ["h5", 95, 0],
    ["capped", 15, 4],
    ["frontier", 50, 4],
  ];
  const population = () => ROWS.map(([key, size, passes], i) => at(key, i, size, 8, passes));

  it("multiplies the priority by 1 - discount x (2 f - 1) where the fitted success f is above 1/2, and leaves the rest", () => {
    const members = population();
    const fit = fitSuccessOnHardness(family, members);
    expect(fit).not.toBeNull();
    weighByFrontier(family, members, 0.5);
    for (const m of members) {
      const f = fittedSuccess(fit!, m.hardness!);
      expect(m.fittedSuccess).toBeCloseTo(f, 12);
      expect(m.frontierWeight).toBeCloseTo(f > 0.5 ? 1 - 0.5 * (2 * f - 1) : 1, 12);
      expect(m.priority).toBeCloseTo(m.learnability * m.frontierWeight!, 12);
    }
    const capped = members[10];
    const frontier = members[11];
    expect(capped.fittedSuccess!).toBeGreaterThan(0.85);
    expect(capped.frontierWeight!).toBeLessThan(0.62);
    expect(members[7].frontierWeight).toBe(1); // h3, far past the frontier: f < 1/2, no discount
    // twice the discount, twice the cut below 1
    const twice = population();
    weighByFrontier(family, twice, 1);
    expect(1 - twice[10].frontierWeight!).toBeCloseTo(2 * (1 - capped.frontierWeight!), 12);
    // equally learnable (4 of 8 each), the one the policy should pass by its hardness ranks below the one at the frontier
    expect(learnabilityTies(capped.learnability, frontier.learnability)).toBe(true);
    expect(frontier.frontierWeight!).toBeGreaterThan(capped.frontierWeight!);
    const sel = selectKept([capped, frontier], 0.5, 2);
    expect(sel.kept.map((m) => m.member.key)).toEqual(["frontier"]);
    expect(capped.retire).toBe("outranked");
    expect(priorityText(capped)).toBe(
      `learnability ${capped.learnability.toFixed(3)} x frontier weight ${capped.frontierWeight!.toFixed(2)} ` +
        `(fitted success ${capped.fittedSuccess!.toFixed(2)} at hardness 0.15) = ${capped.priority.toFixed(3)}`,
    );
  });

  it("names both weights when the hardness bias moved the priority too", () => {
    const members = population();
    weighByHardness(family, members, 1);
    weighByFrontier(family, members, 0.5);
    const capped = members[10];
    expect(capped.priority).toBeCloseTo(capped.learnability * capped.hardnessWeight * capped.frontierWeight!, 12);
    expect(priorityText(capped)).toBe(
      `learnability ${capped.learnability.toFixed(3)} x hardness weight ${capped.hardnessWeight.toFixed(2)} (hardness 0.15) ` +
        `x frontier weight ${capped.frontierWeight!.toFixed(2)} (fitted success ${capped.fittedSuccess!.toFixed(2)} at hardness 0.15) = ` +
        `${capped.priority.toFixed(3)}`,
    );
  });

  it("changes nothing with a discount of 0, without a fit (fewer than 8 members, success rising with hardness) or without hardness", () => {
    const untouched = (members: Scored[]) => {
      expect(members.map((m) => m.frontierWeight)).toEqual(members.map(() => undefined));
      expect(members.map((m) => m.priority)).toEqual(members.map((m) => m.learnability));
    };
    const none = population();
    weighByFrontier(family, none, 0);
    untouched(none);
    const few = population().slice(5, 12); // 7 members
    weighByFrontier(family, few, 0.5);
    untouched(few);
    // the same successes, hardness mirrored: success rises with hardness, the signs say nothing here
    const rising = population().map((m) =>
      at(m.member.key, m.index, 100 - (m.member.config as { size: number }).size, m.member.n, m.member.s),
    );
    expect(fitSuccessOnHardness(family, rising)).toBeNull();
    weighByFrontier(family, rising, 0.5);
    untouched(rising);
    const plain = { id: "plain", fields: [{ ...field, difficulty: undefined }] } as unknown as FamilyDefinition;
    const unsigned = population().map((m) => ({ ...m, hardness: undefined }));
    weighByFrontier(plain, unsigned, 0.5);
    untouched(unsigned);
  });

  it("leaves a member without a hardness (a value that gives none) unweighed, and out of the fit, while the rest are weighed", () => {
    const members = population();
    const fit = fitSuccessOnHardness(family, members);
    // on a log scale a negative value gives no hardness (memberHardness); weighByHardness then leaves `hardness` unset
    // (the others carry theirs, size / 100, so the log scale changes nothing for them)
    const logFamily = { id: "toy", fields: [{ ...field, min: 1, scale: true }] } as unknown as FamilyDefinition;
    const odd = scored("odd", members.length, 8, 4);
    (odd.member as { config: unknown }).config = { size: -5 };
    expect(memberHardness(logFamily, odd.member.config)).toBeUndefined();
    const withOdd = [...members, odd];
    const fitWithOdd = fitSuccessOnHardness(logFamily, withOdd);
    expect(fitWithOdd!.a).toBeCloseTo(fit!.a, 12);
    expect(fitWithOdd!.b).toBeCloseTo(fit!.b, 12);
    weighByFrontier(logFamily, withOdd, 0.5);
    expect(odd.frontierWeight).toBeUndefined();
    expect(odd.priority).toBe(odd.learnability);
    expect(withOdd.find((m) => m.member.key === "capped")!.frontierWeight).toBeLessThan(0.8);
  });

  it("never goes below 0", () => {
    const members = population();
    weighByFrontier(family, members, 10);
    expect(members[10].frontierWeight).toBe(0);
    expect(members[10].priority).toBe(0);
  });
});

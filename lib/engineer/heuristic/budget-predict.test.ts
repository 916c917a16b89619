/**
 * Budgets and parent pools (solved parents go harder, failing ones easier, the rest replay) and
 * the predicted success of children (harder lowers it, easier raises it).
 */
import { describe, expect, it } from "vitest";
import { createRng } from "@/lib/families/rng";
import type { FamilyDefinition, FieldSpec } from "@/lib/families/types";
import type { PopulationMember, StructuredSummary } from "../types";
import { childBudget, clampShare, plateauedHarderParents } from "./budget";
import { HEURISTIC_DEFAULTS } from "./defaults";
import type { Candidate, DirectionEvidence, Scored } from "./model";
import { baseSuccessRate, logit, predictChild, round4 } from "./predict";
import { meanRate } from "./score";

const size: FieldSpec = { path: "size", kind: "integer", min: 2, max: 12, difficulty: "up", direction: "horizon" };
const family = { id: "t", fields: [size] } as unknown as FamilyDefinition;
const horizon: DirectionEvidence = { direction: "horizon", fields: [size], drop: null, lift: null, score: 0, top: null };

function scoredAt(key: string, q: number | null, extra: Partial<Scored> = {}, size = 6, history: number[] = []): Scored {
  const n = q === null ? 0 : 8;
  return {
    member: { key, config: { size }, n, s: Math.round((q ?? 0) * n), history } as unknown as PopulationMember,
    index: 0,
    q,
    mean: q ?? 0.5,
    learnability: 0.1,
    hardnessWeight: 1,
    progress: 0,
    retire: null,
    failure: { failures: 0, dominant: null, top: null },
    infra: false,
    ...extra,
    priority: extra.priority ?? extra.learnability ?? 0.1,
  };
}

describe("clampShare", () => {
  it("clamps to [0, 1] and falls back when unset or not finite", () => {
    expect(clampShare(undefined, 0.5)).toBe(0.5);
    expect(clampShare(Number.NaN, 0.5)).toBe(0.5);
    expect(clampShare(1.5, 0.5)).toBe(1);
    expect(clampShare(-1, 0.5)).toBe(0);
    expect(clampShare(0.2, 0.5)).toBe(0.2);
  });
});

describe("childBudget", () => {
  const budgetOf = (scored: Scored[], kept: Scored[], target: number, addShare = 0.25) =>
    childBudget({ rng: createRng(1), scored, kept, target, addShare, evidence: [horizon], familyId: "t" });

  // catches: the harder pool taking the failing members (the direction of solved parents inverted at its source)
  it("puts solved parents (q > 0.8) in the harder pool and the rest in the replay pool", () => {
    const solved = scoredAt("solved", 0.9);
    const edge = scoredAt("edge", 0.8);
    const mid = scoredAt("mid", 0.5);
    const low = scoredAt("low", 0.1);
    const unmeasured = scoredAt("new", null);
    const b = budgetOf([solved, edge, mid, low, unmeasured], [mid], 8);
    expect(b.harderPool).toEqual([solved]);
    expect(b.replayPool).toEqual([edge, mid, low, unmeasured]);
    expect(b.crossPool).toEqual([edge, mid, unmeasured]);
  });

  // catches: the frontier's fresh samples not taken from the mutations, counted into the crossovers, or the harder
  // children keeping their share of the larger mutation budget
  it("takes the frontier's extra fresh samples from the mutations, leaving the crossovers and capping the harder children", () => {
    const solved = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].map((k) => scoredAt(`solved-${k}`, 0.95));
    const kept = [scoredAt("k1", 0.5), scoredAt("k2", 0.45), scoredAt("k3", 0.6), scoredAt("k4", 0.4)];
    const at = (frontierFresh: number | undefined) =>
      childBudget({
        rng: createRng(1),
        scored: [...solved, ...kept],
        kept,
        target: 20,
        addShare: 0.25,
        evidence: [horizon],
        familyId: "t",
        frontierFresh,
      });
    const plain = at(undefined);
    expect(at(0)).toEqual(plain);
    expect(plain).toMatchObject({ frontierFresh: 0, childrenTarget: 16, addTarget: 5, crossTarget: 2, mutateTarget: 11, harderTarget: 6 });
    expect(at(3)).toMatchObject({ frontierFresh: 3, childrenTarget: 16, addTarget: 8, crossTarget: 2, mutateTarget: 8, harderTarget: 4 });
    // never more than the children left after the adds
    expect(at(40)).toMatchObject({ frontierFresh: 11, addTarget: 16, mutateTarget: 0, harderTarget: 0 });
  });

  // catches: the fresh-sample cut inverted (cutting when the generator is at the policy's level) or gone
  it("when the fresh samples came back too easy, adds half the adds plus one and mutates the rest", () => {
    const scored = [scoredAt("s1", 0.95), scoredAt("m", 0.5), scoredAt("m2", 0.4)];
    const at = (freshTooEasy: boolean | undefined) =>
      childBudget({
        rng: createRng(1),
        scored,
        kept: scored.slice(1),
        target: 32,
        addShare: 0.15,
        evidence: [horizon],
        familyId: "t",
        freshTooEasy,
      });
    for (const b of [at(undefined), at(false)]) {
      expect(b.addTarget).toBe(5);
      expect(b.mutateTarget).toBe(25);
      expect(b.crossTarget).toBe(2);
    }
    const cut = at(true);
    expect(cut.addTarget).toBe(3);
    expect(cut.mutateTarget).toBe(27);
    expect(cut.crossTarget).toBe(1);
  });

  // catches: the floor of one add gone (a small population would never measure the generator again) or applied at addShare 0
  it("adds at least one while addShare is above 0, none at 0, never more than the children", () => {
    const scored = [scoredAt("m", 0.5), scoredAt("m2", 0.4)];
    const adds = (target: number, addShare: number, kept = scored) => budgetOf(scored, kept, target, addShare).addTarget;
    expect(adds(10, 0.03)).toBe(1); // round(0.3) = 0, raised to 1
    expect(adds(32, 0.03)).toBe(1); // round(0.96)
    expect(adds(100, 0.03)).toBe(3);
    expect(adds(10, 0.01)).toBe(1);
    expect(adds(32, 0)).toBe(0);
    expect(adds(2, 0.03)).toBe(0); // both kept: no child to make
    expect(budgetOf(scored, [], 10, 0.03).mutateTarget).toBe(9);
  });

  it("sizes the children: the target minus the kept, addShare of the target added, half the mutations harder at most", () => {
    const scored = [scoredAt("s1", 0.95), scoredAt("s2", 0.95), scoredAt("s3", 0.95), scoredAt("m", 0.5), scoredAt("m2", 0.4)];
    const b = budgetOf(scored, [scored[3], scored[4]], 10, 0.2);
    expect(b.childrenTarget).toBe(8);
    expect(b.addTarget).toBe(2);
    expect(b.mutateTarget).toBe(6);
    expect(b.harderTarget).toBe(3);
    expect(b.crossTarget).toBe(1);
    expect(b.crossPool).toEqual([scored[3], scored[4]]);
    // without replay parents every mutation may go harder, up to the harder pool
    const onlySolved = budgetOf(scored.slice(0, 3), [], 10, 0.2);
    expect(onlySolved.harderTarget).toBe(3);
    expect(onlySolved.crossTarget).toBe(0);
    expect(budgetOf(scored, scored, 4).childrenTarget).toBe(0);
  });

  it("leaves infra-dominated, invalid, unsolvable and plateaued members out of every pool", () => {
    const out = [
      scoredAt("infra", 0.95, { infra: true }),
      scoredAt("invalid", 0.95, { retire: "invalid" }),
      scoredAt("unsolvable", 0.5, { retire: "unsolvable" }),
      scoredAt("plateau", 0.5, { retire: "plateaued" }, 6, [0.5, 0.5]),
    ];
    const b = budgetOf(out, [], 8);
    expect(b.harderPool).toEqual([]);
    expect(b.replayPool).toEqual([]);
    expect(b.crossPool).toEqual([]);
  });

  // catches: the bar inverted or dropped, the mean taken over this generation alone, lineage-plateaued or
  // infra-dominated members pushed harder, plateaued parents ahead of the solved ones
  it("pushes harder, after the solved parents, the members plateaued on their own that passed 0.6 or more on average", () => {
    const D = HEURISTIC_DEFAULTS;
    const solved = scoredAt("solved", 0.9);
    // means 0.625 (5/8, 5/8, 5/8) and exactly 0.6 (0.6, 0.575, 5/8): mostly passed, without a rise
    const high = scoredAt("high", 0.625, { retire: "plateaued" }, 6, [0.625, 0.625]);
    const edge = scoredAt("edge", 0.625, { retire: "plateaued" }, 6, [0.6, 0.575]);
    // 5/8 now but 0.5 on average: a noisy TV looks like this
    const half = scoredAt("half", 0.625, { retire: "plateaued" }, 6, [0.5, 0.375]);
    const lineage = scoredAt("lineage", 0.75, { retire: "plateaued", plateauedParent: "high" }, 6, [0.75, 0.75]);
    const flaky = scoredAt("flaky", 0.75, { retire: "plateaued", infra: true }, 6, [0.75, 0.75]);
    const mid = scoredAt("mid", 0.5);
    const b = budgetOf([high, half, solved, lineage, edge, flaky, mid], [mid], 8);
    expect(b.harderPool[0]).toBe(solved);
    expect(new Set(b.harderPool.slice(1))).toEqual(new Set([high, edge]));
    expect(b.replayPool).toEqual([mid]);
    expect(meanRate(edge.member)).toBeCloseTo(D.plateauHarderAbove, 12);
    // a rate that is no number is left out, and an unmeasured generation counts as 0, never as 0/0
    expect(meanRate({ history: [0.75, Number.NaN], n: 0, s: 0 } as unknown as PopulationMember)).toBe(0.375);
    expect(plateauedHarderParents(createRng(1), [high, edge, half], 0.61)).toEqual([high]);
    expect(plateauedHarderParents(createRng(1), [high, edge, half], 0.5)).toHaveLength(3);
  });

  // catches: the failing edge moved (q = 0.2 is not failing: it replays and crosses over whatever its failures are)
  it("treats q = 0.2 exactly as not failing: a replay parent and a crossover candidate even when its failures are the policy's output", () => {
    const output = {
      failures: 8,
      dominant: { kind: "output" as const, category: "format_error" as const, count: 8, exact: true, cluster: {} as never },
      top: null,
    };
    const edge = scoredAt("edge", 0.2, { failure: output });
    const other = scoredAt("other", 0.5);
    const b = budgetOf([edge, other], [], 8);
    expect(b.replayPool).toEqual([edge, other]);
    expect(b.crossPool).toEqual([edge, other]);
  });

  // catches: two kept parents not enough for the kept crossover pool, an infra-dominated kept member crossed over
  it("crosses over the kept parents from two of them on, never an infra-dominated one", () => {
    const keptA = scoredAt("keptA", 0.95);
    const keptB = scoredAt("keptB", 0.95);
    const replayA = scoredAt("replayA", 0.5);
    const replayB = scoredAt("replayB", 0.4);
    expect(budgetOf([keptA, keptB, replayA, replayB], [keptA, keptB], 8).crossPool).toEqual([keptA, keptB]);
    const flaky = scoredAt("flaky", 0.5, { infra: true });
    expect(budgetOf([keptA, keptB, flaky, replayA], [keptA, keptB, flaky], 8).crossPool).toEqual([keptA, keptB]);
  });

  // catches: the harder share capped at half of the mutations even when no replay parent could take the other half
  it("lets every mutation go harder when there is no replay parent, up to the solved parents", () => {
    const solved = ["a", "b", "c", "d", "e", "f"].map((k) => scoredAt(k, 0.95));
    const b = budgetOf(solved, [], 10, 0.2);
    expect(b.mutateTarget).toBe(8);
    expect(b.replayPool).toEqual([]);
    expect(b.harderTarget).toBe(6);
  });

  it("makes a failing member a parent only when it can move easier and its failures are not the policy's output", () => {
    const atEasiest = scoredAt("floor", 0.1, {}, 2);
    const output = scoredAt("output", 0.1, {
      failure: {
        failures: 8,
        dominant: { kind: "output", category: "format_error", count: 8, exact: true, cluster: {} as never },
        top: null,
      },
    });
    const movable = scoredAt("movable", 0.1);
    expect(budgetOf([atEasiest, output, movable], [], 8).replayPool).toEqual([movable]);
    // an unmeasured member is no failing one: a parent at the easiest end too (random edits, not an easier step)
    const unmeasuredAtEasiest = scoredAt("new-floor", null, {}, 2);
    expect(budgetOf([unmeasuredAtEasiest, atEasiest], [], 8).replayPool).toEqual([unmeasuredAtEasiest]);
  });
});

describe("predictChild", () => {
  const parent = scoredAt("p", 0.5, { mean: 0.5 });
  const cand = (kind: Candidate["kind"], edits: Candidate["edits"], extra: Partial<Candidate> = {}): Candidate => ({
    kind,
    config: {},
    direction: "horizon",
    edits,
    parent,
    ...extra,
  });
  const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

  // catches: a harder step predicted to raise success (the sign of a directed step inverted)
  it("moves the parent's posterior mean 0.5 logit down per harder step and up per easier step", () => {
    const harder = predictChild(family, 0.3, cand("harder", [{ path: "size", from: 6, to: 8 }], { steps: 2 }), undefined);
    expect(harder).toBe(round4(sigmoid(-1)));
    const easier = predictChild(family, 0.3, cand("easier", [{ path: "size", from: 6, to: 5 }], { steps: 1 }), undefined);
    expect(easier).toBe(round4(sigmoid(0.5)));
    const replay = predictChild(family, 0.3, cand("replay", [{ path: "size", from: 6, to: 7 }]), undefined);
    expect(replay).toBe(round4(sigmoid(-0.5)));
  });

  it("predicts a fresh sample at the base rate and a crossover at its parents' mean, capped at p_max", () => {
    expect(predictChild(family, 0.3, cand("fresh", []), undefined)).toBe(0.3);
    const second = scoredAt("q", 0.9, { mean: 0.9 });
    expect(predictChild(family, 0.3, cand("crossover", [], { second }), undefined)).toBe(0.7);
    expect(predictChild(family, 0.3, cand("crossover", [], { second }), 0.6)).toBe(0.6);
    expect(predictChild(family, 0.3, cand("fresh", []), 1)).toBe(0.3);
  });

  it("logit is clamped away from 0 and 1; the base rate is the summary's, else the members' mean, else 1/2", () => {
    expect(logit(0.5)).toBe(0);
    expect(Number.isFinite(logit(0))).toBe(true);
    expect(logit(1)).toBeCloseTo(-logit(0), 9);
    expect(logit(0.9)).toBeCloseTo(Math.log(9), 12);
    const summary = (successRate: number | null) => ({ behaviour: { successRate } }) as unknown as StructuredSummary;
    expect(baseSuccessRate(summary(0.42), [])).toBe(0.42);
    expect(baseSuccessRate(summary(null), [scoredAt("a", 0.2, { mean: 0.2 }), scoredAt("b", 0.6, { mean: 0.6 })])).toBeCloseTo(0.4, 12);
    expect(baseSuccessRate(summary(null), [])).toBe(0.5);
    expect(round4(0.123456)).toBe(0.1235);
  });
});

import { describe, expect, it } from "vitest";
import {
  DEFAULT_LEARNER,
  GAIN_SHAPES,
  Learner,
  expectedGroupGain,
  gainShapeValue,
  relativeSuccess,
  skillShare,
  successProbability,
  type HiddenTask,
  type LearnerParams,
} from "./learner";

const task = (difficulty: number, pMax = 1, skills = [0.5, 0.3, 0.2], trap: HiddenTask["trap"] = null): HiddenTask => ({
  difficulty,
  skills,
  pMax,
  trap,
});
const params = (over: Partial<LearnerParams> = {}): LearnerParams => ({ ...DEFAULT_LEARNER, ...over });

describe("success probability", () => {
  it("rises with the skills along the task's loadings, falls with its difficulty and never exceeds p_max", () => {
    const t = task(0.5, 0.7);
    let last = -1;
    for (const s of [-3, -1, 0, 1, 3, 6]) {
      const p = successProbability([s, s, s], t, 1.5);
      expect(p).toBeGreaterThan(last);
      expect(p).toBeLessThanOrEqual(0.7);
      last = p;
    }
    let prev = 2;
    for (const b of [-3, -1, 0, 1, 3]) {
      const p = successProbability([0, 0, 0], task(b), 1.5);
      expect(p).toBeLessThan(prev);
      prev = p;
    }
    // a skill the task does not load on changes nothing
    expect(successProbability([0, 0, 5], task(0, 1, [1, 0, 0]), 1.5)).toBeCloseTo(
      successProbability([0, 0, 0], task(0, 1, [1, 0, 0]), 1.5),
      12,
    );
    expect(relativeSuccess([0, 0, 0], task(0), 1.5)).toBeCloseTo(0.5, 12);
  });

  it("is 0.5 for a noisy TV whatever the skills, and 0 for unsolvable and invalid configs", () => {
    for (const s of [-5, 0, 5]) {
      expect(successProbability([s, s, s], task(1, 1, undefined, "noisy_tv"), 1.5)).toBe(0.5);
      expect(successProbability([s, s, s], task(-3, 1, undefined, "unsolvable"), 1.5)).toBe(0);
      expect(successProbability([s, s, s], task(-3, 1, undefined, "invalid"), 1.5)).toBe(0);
      expect(successProbability([s, s, s], task(-3, 0), 1.5)).toBe(0);
    }
  });

  it("credits the skill with all the variance at p_max 1, little of it once a capped config is mastered, none on traps", () => {
    expect(skillShare([0, 0, 0], task(0), 1.5)).toBeCloseTo(1, 12);
    const capped = skillShare([5, 5, 5], task(0, 0.5), 1.5);
    expect(capped).toBeGreaterThanOrEqual(0);
    expect(capped).toBeLessThan(0.01);
    expect(skillShare([0, 0, 0], task(0, 1, undefined, "noisy_tv"), 1.5)).toBe(0);
  });
});

describe("gain", () => {
  it("peaks at 1/4 for every gain shape, at p = x / (x + y), and is 0 for all-pass or all-fail groups", () => {
    for (const shape of GAIN_SHAPES) {
      const peak = shape[0] / (shape[0] + shape[1]);
      expect(gainShapeValue(peak, shape)).toBeCloseTo(0.25, 12);
      for (const p of [0.1, 0.3, 0.6, 0.9]) expect(gainShapeValue(p, shape)).toBeLessThanOrEqual(0.25 + 1e-12);
      expect(gainShapeValue(0, shape)).toBe(0);
      expect(gainShapeValue(1, shape)).toBe(0);
    }
    expect(gainShapeValue(0.5, [1, 1])).toBeCloseTo(0.25, 12);
  });

  it("has the binomial expectation of the group's gain (checked at G = 2 by hand)", () => {
    // G = 2: only s = 1 has variance, p(1/2) = 2 p (1 - p), gain(1/2) = 1/4
    expect(expectedGroupGain(0.3, 1, [1, 1], 2)).toBeCloseTo(2 * 0.3 * 0.7 * 0.25, 12);
    expect(expectedGroupGain(0.3, 0.5, [1, 1], 2)).toBeCloseTo(0.5 * 2 * 0.3 * 0.7 * 0.25, 12);
    expect(expectedGroupGain(0, 1, [1, 1], 8)).toBe(0);
    expect(expectedGroupGain(1, 1, [1, 1], 8)).toBe(0);
  });
});

describe("Learner.update", () => {
  const outcome = (t: HiddenTask, s: number, share = 1) => ({ task: t, successes: s, attempts: 8, share });

  it("moves each skill by at most eta x 1/4 a group and never down without forgetting", () => {
    const learner = new Learner(params({ forgetting: 0 }));
    const before = Array.from(learner.theta);
    const groups = [outcome(task(0), 4), outcome(task(1, 1, [1, 0, 0]), 2), outcome(task(-1), 8), outcome(task(2), 0)];
    learner.update(groups);
    for (let j = 0; j < 3; j++) {
      const delta = learner.theta[j] - before[j];
      expect(delta).toBeGreaterThanOrEqual(0);
      expect(delta).toBeLessThanOrEqual(DEFAULT_LEARNER.learningRate * 0.25 * groups.length + 1e-12);
    }
    expect(learner.theta[0]).toBeGreaterThan(before[0]);
  });

  it("learns more along the task's loadings, a share spread over all skills by transfer", () => {
    const learner = new Learner(params({ forgetting: 0, transfer: 0.25 }));
    learner.update([outcome(task(0, 1, [1, 0, 0]), 4)]);
    const eta = DEFAULT_LEARNER.learningRate;
    expect(learner.theta[0] - DEFAULT_LEARNER.initialSkill).toBeCloseTo(eta * 0.25 * (0.75 + 0.25 / 3), 12);
    expect(learner.theta[1] - DEFAULT_LEARNER.initialSkill).toBeCloseTo(eta * 0.25 * (0.25 / 3), 12);
  });

  it("learns nothing from zero-signal groups or noisy TVs", () => {
    const learner = new Learner(params({ forgetting: 0 }));
    const before = Array.from(learner.theta);
    learner.update([outcome(task(0), 0), outcome(task(0), 8), outcome(task(0, 1, undefined, "noisy_tv"), 4, 0)]);
    expect(Array.from(learner.theta)).toEqual(before);
  });

  it("forgets toward theta0 with every group, never past it", () => {
    const learner = new Learner(params({ forgetting: 0.01 }));
    learner.update([outcome(task(0), 4)]);
    const gained = learner.theta[0] - DEFAULT_LEARNER.initialSkill;
    expect(gained).toBeGreaterThan(0);
    learner.update(Array.from({ length: 50 }, () => outcome(task(0), 0)));
    const left = learner.theta[0] - DEFAULT_LEARNER.initialSkill;
    expect(left).toBeCloseTo(gained * 0.99 ** 50, 12);
    expect(left).toBeGreaterThan(0);
  });
});

// written against the survivors of a mutation run of learner.ts (docs/BENCHMARKS.md, "Mutation testing")
describe("the learner's edge rules", () => {
  it("a drifting TV succeeds half the time whatever the skills; a config of p_max 0 credits the skill with nothing", () => {
    for (const s of [-5, 5]) expect(successProbability([s, s, s], task(1, 1, undefined, "drifting_tv"), 1.5)).toBe(0.5);
    expect(skillShare([0, 0, 0], task(0, 0), 1.5)).toBe(0);
    // fully mastered at p_max 1: no variance left, no share (not 0/0)
    expect(skillShare([100, 100, 100], task(0), 1.5)).toBe(0);
  });

  it("a deceptive config's share is minus half the share of the same config without the trap", () => {
    const plain = skillShare([0, 0, 0], task(0, 0.5), 1.5);
    expect(plain).toBeCloseTo(2 / 3, 12);
    expect(skillShare([0, 0, 0], task(0, 0.5, undefined, "deceptive"), 1.5)).toBeCloseTo(-plain / 2, 12);
  });

  it("gives no gain for a success rate outside (0, 1)", () => {
    for (const shape of GAIN_SHAPES) for (const p of [-0.5, 1.5]) expect(gainShapeValue(p, shape)).toBe(0);
  });

  it("weights every success count by its binomial coefficient (checked at G = 3 by hand)", () => {
    // p = 1/2: s = 1 and s = 2 each have probability 3/8 and gain (1/3)(2/3) = 2/9
    expect(expectedGroupGain(0.5, 1, [1, 1], 3)).toBeCloseTo(2 * (3 / 8) * (2 / 9), 12);
  });

  it("returns the step's total gain and skips groups with no attempts", () => {
    const learner = new Learner(params({ forgetting: 0 }));
    const total = learner.update([
      { task: task(0), successes: 4, attempts: 8, share: 1 },
      { task: task(0), successes: 2, attempts: 8, share: 0.5 },
      { task: task(0), successes: 0, attempts: 0, share: 1 },
    ]);
    expect(total).toBeCloseTo(0.25 + 0.5 * 0.25 * 0.75, 12);
    for (const x of learner.theta) expect(Number.isFinite(x)).toBe(true);
  });

  it("forgets each skill at its own rate when given a list (a missing rate forgets nothing)", () => {
    const learner = new Learner(params({ forgetting: 0, transfer: 0 }));
    learner.update([{ task: task(0, 1, [1 / 3, 1 / 3, 1 / 3]), successes: 4, attempts: 8, share: 1 }]);
    const gained = learner.theta[0] - DEFAULT_LEARNER.initialSkill;
    const forgetful = new Learner(params({ forgetting: [0.5, 0], transfer: 0 }));
    forgetful.theta.set(learner.theta);
    forgetful.update([{ task: task(0), successes: 0, attempts: 8, share: 1 }]);
    expect(forgetful.theta[0] - DEFAULT_LEARNER.initialSkill).toBeCloseTo(gained * 0.5, 12);
    expect(forgetful.theta[1] - DEFAULT_LEARNER.initialSkill).toBeCloseTo(gained, 12);
    expect(forgetful.theta[2] - DEFAULT_LEARNER.initialSkill).toBeCloseTo(gained, 12);
  });
});

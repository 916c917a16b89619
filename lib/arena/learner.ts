/**
 * The simulated learner of the curriculum arena (ENGINEER.md): skills theta over M directions, a
 * config's success p(c) = p_max(c) * sigmoid(k (a(c).theta - b(c))), and a GRPO-like update from
 * groups of G Bernoulli attempts.
 *
 * Decisions where the spec is open:
 * - gain of a group with s successes in G attempts: the group variance shape g(s/G) = p^x (1-p)^y,
 *   rescaled so every (x, y) peaks at 1/4 like p(1-p); all-pass and all-fail groups give 0.
 * - the gain is multiplied by the share of the success variance that the skill explains,
 *   (1 - sigma) / (1 - p_max sigma) with sigma = sigmoid(k (a.theta - b)): 1 when p_max = 1, small
 *   when p_max caps a config the learner has already mastered (its variance is the environment's
 *   dice, not the policy's), and 0 for a noisy TV, whose coin flips do not depend on the skill.
 * - cross-skill transfer: a share `transfer` of every update spreads evenly over all skills.
 * - forgetting: every group of G rollouts pulls theta back toward theta0 by the factor
 *   (1 - forgetting), so it is a function of rollouts spent, not of how they are batched; a list
 *   gives every skill its own rate (the held-out learners).
 * - interference (held-out learners): a negative `transfer` takes from the skills a config does not
 *   load on what it gives to those it does.
 * - a deceptive trap looks like a normal config (its success follows the skills) but its update
 *   points the other way, at half strength: a shortcut that unlearns.
 */
import type { TrapKind } from "./types";

export type GainShape = readonly [number, number];

/** The three gain shapes of ENGINEER.md: (x, y) in {(1,1), (1,2), (2,1)}. */
export const GAIN_SHAPES: readonly GainShape[] = [
  [1, 1],
  [1, 2],
  [2, 1],
];

export interface LearnerParams {
  /** skills M (the SKILL_DIRECTIONS: horizon, uncertainty, precision) */
  skills: number;
  /** slope k of the success sigmoid */
  slope: number;
  /** eta: skill gained per group at the largest gain (1/4) */
  learningRate: number;
  /** theta0, every skill's starting value */
  initialSkill: number;
  /** (x, y) of the gain p^x (1-p)^y */
  gainShape: GainShape;
  /** share of (theta - theta0) lost per group of G rollouts (one rate, or one per skill) */
  forgetting: number | readonly number[];
  /** share of each update spread evenly over all skills (negative: interference between skills) */
  transfer: number;
  /** attempts per config in a training step (GRPO group size) */
  groupSize: number;
}

/** The learner's defaults (calibrated so uniform sampling reaches 50% target success within the budget on most seeds). */
export const DEFAULT_LEARNER: LearnerParams = {
  skills: 3,
  slope: 1.5,
  learningRate: 0.04,
  initialSkill: -1,
  gainShape: [1, 1],
  forgetting: 2e-5,
  transfer: 0.25,
  groupSize: 8,
};

/** What the learner knows of a config: hidden difficulty b, skill loadings a (summing to 1), p_max, trap. */
export interface HiddenTask {
  difficulty: number;
  skills: readonly number[];
  pMax: number;
  trap: TrapKind | null;
}

/** The logistic function. */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** sigmoid(k (a.theta - b)): success relative to the best achievable (q = p / p_max). */
export function relativeSuccess(theta: ArrayLike<number>, task: HiddenTask, slope: number): number {
  return sigmoid(slope * (dot(task.skills, theta) - task.difficulty));
}

/**
 * Success probability of one attempt: p_max * sigmoid(...); a noisy TV is 0.5 whatever the skill;
 * unsolvable (seen by the validator or not) and invalid configs 0; a deceptive config looks normal.
 * A drifting TV's success depends on how often it was played, which the world tracks (ArenaWorld).
 */
export function successProbability(theta: ArrayLike<number>, task: HiddenTask, slope: number): number {
  if (task.trap === "noisy_tv" || task.trap === "drifting_tv") return 0.5;
  if (task.trap === "unsolvable" || task.trap === "invalid" || task.trap === "hidden_unsolvable") return 0;
  return task.pMax * relativeSuccess(theta, task, slope);
}

/** Weight of a deceptive config's update: it unlearns at half the strength a normal config teaches. */
export const DECEPTIVE_SIGN = -0.5;

/**
 * Share of the success variance the skill explains: (1 - sigma) / (1 - p_max sigma) in [0, 1]; 0 for
 * traps, negative (DECEPTIVE_SIGN times the normal share) for a deceptive config.
 */
export function skillShare(theta: ArrayLike<number>, task: HiddenTask, slope: number): number {
  if ((task.trap !== null && task.trap !== "deceptive") || task.pMax <= 0) return 0;
  const s = relativeSuccess(theta, task, slope);
  const denominator = 1 - task.pMax * s;
  if (denominator <= 1e-12) return 0;
  const share = Math.min(1, Math.max(0, (1 - s) / denominator));
  return task.trap === "deceptive" ? DECEPTIVE_SIGN * share : share;
}

/** The gain shape p^x (1-p)^y, rescaled to peak at 1/4 (the peak of p(1-p)). */
export function gainShapeValue(p: number, shape: GainShape): number {
  const [x, y] = shape;
  if (p <= 0 || p >= 1) return 0;
  const peakAt = x / (x + y);
  const peak = Math.pow(peakAt, x) * Math.pow(1 - peakAt, y);
  return (0.25 * Math.pow(p, x) * Math.pow(1 - p, y)) / peak;
}

/** Expected gain of one group of G attempts at success probability p (binomial expectation of the shape), times the skill share. */
export function expectedGroupGain(p: number, share: number, shape: GainShape, groupSize: number): number {
  if (share === 0) return 0;
  let sum = 0;
  let coefficient = 1;
  for (let s = 0; s <= groupSize; s++) {
    if (s > 0) coefficient = (coefficient * (groupSize - s + 1)) / s;
    sum += coefficient * Math.pow(p, s) * Math.pow(1 - p, groupSize - s) * gainShapeValue(s / groupSize, shape);
  }
  return sum * share;
}

/** One group's outcome as the learner consumes it. */
export interface GroupOutcome {
  task: HiddenTask;
  successes: number;
  attempts: number;
  /** the skill share at the time of the attempts */
  share: number;
}

/** The skills of one simulated learner. */
export class Learner {
  readonly theta: Float64Array;
  private readonly theta0: Float64Array;

  constructor(readonly params: LearnerParams) {
    this.theta = new Float64Array(params.skills).fill(params.initialSkill);
    this.theta0 = Float64Array.from(this.theta);
  }

  /** Success probability of one attempt on a task now. */
  successProbability(task: HiddenTask): number {
    return successProbability(this.theta, task, this.params.slope);
  }

  /** The skill share of a task now (see skillShare). */
  skillShare(task: HiddenTask): number {
    return skillShare(this.theta, task, this.params.slope);
  }

  /**
   * Apply one synchronous training step: every group was attempted with the skills at the start of
   * the step. Forgetting per group, then theta += eta * sum over groups of gain * loadings (with transfer).
   * Returns the total gain of the step.
   */
  update(groups: readonly GroupOutcome[]): number {
    const { learningRate, forgetting, transfer, gainShape, skills } = this.params;
    const delta = new Float64Array(skills);
    let total = 0;
    for (const g of groups) {
      if (g.attempts <= 0 || g.share === 0) continue;
      const gain = gainShapeValue(g.successes / g.attempts, gainShape) * g.share;
      if (gain === 0) continue;
      total += gain;
      for (let j = 0; j < skills; j++) delta[j] += learningRate * gain * ((1 - transfer) * g.task.skills[j] + transfer / skills);
    }
    for (let j = 0; j < skills; j++) {
      const rate = typeof forgetting === "number" ? forgetting : (forgetting[j] ?? 0);
      const keep = Math.pow(1 - rate, groups.length);
      this.theta[j] = this.theta0[j] + keep * (this.theta[j] - this.theta0[j]) + delta[j];
    }
    return total;
  }
}

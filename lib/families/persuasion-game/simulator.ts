/**
 * Decision makers and the persuasion game of `persuasion-game` (Equation-to-Behavior models).
 *
 * Game: a binary state H is true and the persuader argues for it. Each round the persuader may run
 * one experiment whose signal is correct with probability q = evidence_strength, so it supports H
 * ("pro") w.p. q and contradicts it ("con") w.p. 1 - q; the decision maker sees the signal and
 * updates its belief P(H). The Bayesian likelihood ratio of a pro signal is q / (1 - q), of a
 * con signal (1 - q) / q. The persuader wins once the belief reaches target_belief within
 * num_rounds. Withholding an experiment leaves the belief unchanged and only wastes a round, so
 * the optimal persuader experiments every round until the target is reached.
 */

export type DecisionModel = "bayesian" | "affine" | "motivated" | "grether";
export type Signal = 1 | -1;

/** Parameters of a decision maker; missing ones take neutral values (which reduce every model to Bayes). */
export interface DecisionMakerParams {
  decision_model: DecisionModel;
  /** Grether weight on the log likelihood ratio (default 1). */
  alpha?: number;
  /** Grether weight on the log prior odds (default 1). */
  beta?: number;
  /** Affine distortion slope on the Bayesian posterior (default 1). */
  affine_slope?: number;
  /** Affine distortion intercept (default 0). */
  affine_intercept?: number;
  /** Motivated reasoning: share of the weight of unwelcome (pro-H) evidence that is ignored (default 0). */
  motivation_strength?: number;
  evidence_strength: number;
}

/** Neutral parameter values: with them every model updates exactly like Bayes' rule. */
export const NEUTRAL_PARAMS = { alpha: 1, beta: 1, affine_slope: 1, affine_intercept: 0, motivation_strength: 0 } as const;

const clamp01 = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x);

/** Bayes' rule for a binary hypothesis: posterior from prior and the signal's likelihood ratio. */
export function bayesPosterior(prior: number, likelihoodRatio: number): number {
  const numerator = prior * likelihoodRatio;
  const denominator = numerator + (1 - prior);
  return denominator === 0 ? prior : numerator / denominator;
}

/** Likelihood ratio P(signal | H) / P(signal | not H) of a signal with accuracy q. */
export function likelihoodRatio(q: number, signal: Signal): number {
  return signal === 1 ? q / (1 - q) : (1 - q) / q;
}

function logistic(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

function logOdds(p: number): number {
  const clamped = Math.min(1 - 1e-15, Math.max(1e-15, p));
  return Math.log(clamped / (1 - clamped));
}

/**
 * One belief update of a decision maker after a signal:
 * - bayesian: Bayes' rule;
 * - affine: slope * (Bayesian posterior) + intercept, clamped to [0, 1];
 * - motivated: the decision maker wants H to be false, so pro-H evidence has its log likelihood
 *   ratio scaled by (1 - motivation_strength) while con-H evidence counts fully;
 * - grether: posterior odds = LR^alpha * (prior odds)^beta.
 */
export function updateBelief(params: DecisionMakerParams, belief: number, signal: Signal): number {
  const q = params.evidence_strength;
  const lr = likelihoodRatio(q, signal);
  switch (params.decision_model) {
    case "bayesian":
      return bayesPosterior(belief, lr);
    case "affine": {
      const slope = params.affine_slope ?? NEUTRAL_PARAMS.affine_slope;
      const intercept = params.affine_intercept ?? NEUTRAL_PARAMS.affine_intercept;
      return clamp01(slope * bayesPosterior(belief, lr) + intercept);
    }
    case "motivated": {
      const m = params.motivation_strength ?? NEUTRAL_PARAMS.motivation_strength;
      const weight = signal === 1 ? 1 - m : 1;
      if (belief <= 0 || belief >= 1) return belief;
      return logistic(logOdds(belief) + weight * Math.log(lr));
    }
    case "grether": {
      const alpha = params.alpha ?? NEUTRAL_PARAMS.alpha;
      const beta = params.beta ?? NEUTRAL_PARAMS.beta;
      if ((belief <= 0 || belief >= 1) && beta > 0) return belief;
      const priorTerm = beta === 0 ? 0 : beta * logOdds(belief);
      return logistic(alpha * Math.log(lr) + priorTerm);
    }
  }
}

export interface GameParams extends DecisionMakerParams {
  prior: number;
  num_rounds: number;
  target_belief: number;
}

const REACHED_TOLERANCE = 1e-12;
/** Beliefs per round kept exactly up to this many; beyond it they are merged into bins of 1/BELIEF_BINS. */
const MAX_EXACT_STATES = 4096;
const BELIEF_BINS = 4096;

/** True when a belief counts as having reached the target. */
export function reachesTarget(belief: number, target: number): boolean {
  return belief >= target - REACHED_TOLERANCE;
}

/**
 * Probability that the optimal persuader (experimenting every round) brings the belief to
 * target_belief within num_rounds: forward dynamic programming over rounds on the distribution
 * of beliefs, with reached beliefs absorbed. Beliefs are keyed exactly (to 1e-12) while a round
 * holds at most 4096 distinct beliefs, which covers bayesian and motivated models (the belief
 * depends only on the signal counts); path-dependent models (affine, grether with beta != 1)
 * beyond that are merged into bins of width 1/4096 (probability-weighted mean belief per bin), so
 * the error is confined to probability mass within one bin of the target.
 */
export function persuasionPMax(params: GameParams): number {
  const q = params.evidence_strength;
  if (reachesTarget(params.prior, params.target_belief)) return 1;
  let states = new Map<number, { belief: number; mass: number }>([[0, { belief: params.prior, mass: 1 }]]);
  let reached = 0;
  for (let round = 0; round < params.num_rounds && states.size > 0; round++) {
    const next = new Map<number, { belief: number; mass: number }>();
    const add = (belief: number, mass: number) => {
      if (mass <= 0) return;
      if (reachesTarget(belief, params.target_belief)) {
        reached += mass;
        return;
      }
      const key = Math.round(belief * 1e12);
      const entry = next.get(key);
      if (entry) entry.mass += mass;
      else next.set(key, { belief, mass });
    };
    for (const { belief, mass } of states.values()) {
      add(updateBelief(params, belief, 1), mass * q);
      add(updateBelief(params, belief, -1), mass * (1 - q));
    }
    states = next.size > MAX_EXACT_STATES ? mergeBeliefs(next) : next;
  }
  return clamp01(reached);
}

function mergeBeliefs(states: Map<number, { belief: number; mass: number }>): Map<number, { belief: number; mass: number }> {
  const bins = new Map<number, { belief: number; mass: number }>();
  for (const { belief, mass } of states.values()) {
    const key = Math.floor(belief * BELIEF_BINS);
    const bin = bins.get(key);
    if (bin) {
      bin.belief = (bin.belief * bin.mass + belief * mass) / (bin.mass + mass);
      bin.mass += mass;
    } else bins.set(key, { belief, mass });
  }
  return bins;
}

export interface PersuasionEpisode {
  reached: boolean;
  /** Rounds used until the target was reached (num_rounds when it never was). */
  rounds: number;
  signals: Signal[];
  /** Belief before the first round and after each round. */
  beliefs: number[];
}

/** Simulate one game with the optimal persuader: signals drawn from `random` (uniform [0, 1) draws). */
export function simulatePersuasion(params: GameParams, random: () => number): PersuasionEpisode {
  let belief = params.prior;
  const beliefs = [belief];
  const signals: Signal[] = [];
  for (let round = 0; round < params.num_rounds; round++) {
    if (reachesTarget(belief, params.target_belief)) return { reached: true, rounds: round, signals, beliefs };
    const signal: Signal = random() < params.evidence_strength ? 1 : -1;
    belief = updateBelief(params, belief, signal);
    signals.push(signal);
    beliefs.push(belief);
  }
  return { reached: reachesTarget(belief, params.target_belief), rounds: params.num_rounds, signals, beliefs };
}

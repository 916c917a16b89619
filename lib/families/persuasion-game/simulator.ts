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
import { rememberRecent } from "../validation-cache";

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
  return beliefUpdater(params, signal)(belief);
}

/** The belief update of one decision maker after one signal (see updateBelief), its constants computed once. */
export function beliefUpdater(params: DecisionMakerParams, signal: Signal): (belief: number) => number {
  const lr = likelihoodRatio(params.evidence_strength, signal);
  switch (params.decision_model) {
    case "bayesian":
      return (belief) => bayesPosterior(belief, lr);
    case "affine": {
      const slope = params.affine_slope ?? NEUTRAL_PARAMS.affine_slope;
      const intercept = params.affine_intercept ?? NEUTRAL_PARAMS.affine_intercept;
      return (belief) => clamp01(slope * bayesPosterior(belief, lr) + intercept);
    }
    case "motivated": {
      const m = params.motivation_strength ?? NEUTRAL_PARAMS.motivation_strength;
      const shift = (signal === 1 ? 1 - m : 1) * Math.log(lr);
      return (belief) => (belief <= 0 || belief >= 1 ? belief : logistic(logOdds(belief) + shift));
    }
    case "grether": {
      const alpha = params.alpha ?? NEUTRAL_PARAMS.alpha;
      const beta = params.beta ?? NEUTRAL_PARAMS.beta;
      const evidence = alpha * Math.log(lr);
      return (belief) => {
        if ((belief <= 0 || belief >= 1) && beta > 0) return belief;
        return logistic(evidence + (beta === 0 ? 0 : beta * logOdds(belief)));
      };
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
/**
 * Games whose p_max persuasionPMax remembers (the most recently used): a config's p_max is read when it is drawn, when
 * it is validated and for its hidden difficulty, and the arena did all three for every persuasion config it met.
 */
const PMAX_REMEMBERED = 20_000;

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
export const persuasionPMax: (params: GameParams) => number = rememberRecent(pMaxByDp, PMAX_REMEMBERED);

/**
 * The DP behind persuasionPMax, without the cache (exported for its tests). A round's beliefs live
 * in two arrays in the order they were first met, found by their exact key through an
 * open-addressing table of typed arrays, and a merge visits them in that order: the same
 * floating-point operations in the same order as a Map of { belief, mass } objects (what it was
 * until 2026-12-06; `envforge arena --quick --family persuasion-game` spent most of its time there),
 * without an object or a boxed key per belief.
 */
export function pMaxByDp(params: GameParams): number {
  const q = params.evidence_strength;
  const target = params.target_belief;
  if (reachesTarget(params.prior, target)) return 1;
  const pro = beliefUpdater(params, 1);
  const con = beliefUpdater(params, -1);
  let beliefs: number[] = [params.prior];
  let masses: number[] = [1];
  let reached = 0;
  for (let round = 0; round < params.num_rounds && beliefs.length > 0; round++) {
    const nextBeliefs: number[] = [];
    const nextMasses: number[] = [];
    exactKeys.clear();
    for (let i = 0; i < beliefs.length; i++) {
      for (let side = 0; side < 2; side++) {
        const belief = side === 0 ? pro(beliefs[i]) : con(beliefs[i]);
        const mass = side === 0 ? masses[i] * q : masses[i] * (1 - q);
        if (mass <= 0) continue;
        if (reachesTarget(belief, target)) {
          reached += mass;
          continue;
        }
        const at = exactKeys.indexOf(Math.round(belief * 1e12), nextBeliefs.length);
        if (at === nextBeliefs.length) {
          nextBeliefs.push(belief);
          nextMasses.push(mass);
        } else nextMasses[at] += mass;
      }
    }
    if (nextBeliefs.length > MAX_EXACT_STATES) [beliefs, masses] = mergeBeliefs(nextBeliefs, nextMasses);
    else [beliefs, masses] = [nextBeliefs, nextMasses];
  }
  return clamp01(reached);
}

/**
 * Index of an exact belief key (an integer in [0, 1e12]) within a round, or `fresh` (recorded for
 * it) when the key is new: linear probing over a power-of-two table kept at most half full. One
 * table serves every DP (they run to the end synchronously); clear() empties only the slots used.
 */
class ExactKeyTable {
  private readonly keys: Float64Array;
  private readonly slots: Int32Array;
  private readonly used: Int32Array;
  private readonly mask: number;
  private size = 0;

  constructor(capacity: number) {
    this.keys = new Float64Array(capacity);
    this.slots = new Int32Array(capacity);
    this.used = new Int32Array(capacity / 2);
    this.mask = capacity - 1;
  }

  clear(): void {
    for (let i = 0; i < this.size; i++) this.slots[this.used[i]] = 0;
    this.size = 0;
  }

  indexOf(key: number, fresh: number): number {
    const hi = Math.floor(key / 4294967296);
    let h = Math.imul((key - hi * 4294967296) ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
    h ^= h >>> 15;
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const stored = this.slots[slot];
      if (stored === 0) {
        if (this.size === this.used.length) throw new RangeError("ExactKeyTable is half full.");
        this.used[this.size++] = slot;
        this.keys[slot] = key;
        this.slots[slot] = fresh + 1;
        return fresh;
      }
      if (this.keys[slot] === key) return stored - 1;
    }
  }
}

/** A round meets at most 2 x MAX_EXACT_STATES new beliefs (two signals from each kept one): room for twice that, a quarter full. */
const exactKeys = new ExactKeyTable(8 * MAX_EXACT_STATES);

/**
 * Beliefs merged into bins of 1/BELIEF_BINS (probability-weighted mean belief per bin), the bins in
 * the order first met. Every belief lies in [0, 1] (Bayes' rule, the logistic and clamp01 keep it
 * there), so the bin index is one of 0..BELIEF_BINS.
 */
function mergeBeliefs(beliefs: number[], masses: number[]): [number[], number[]] {
  const binOf = new Int32Array(BELIEF_BINS + 1).fill(-1);
  const binBeliefs: number[] = [];
  const binMasses: number[] = [];
  for (let i = 0; i < beliefs.length; i++) {
    const belief = beliefs[i];
    const mass = masses[i];
    const key = Math.floor(belief * BELIEF_BINS);
    const at = binOf[key];
    if (at < 0) {
      binOf[key] = binBeliefs.length;
      binBeliefs.push(belief);
      binMasses.push(mass);
    } else {
      binBeliefs[at] = (binBeliefs[at] * binMasses[at] + belief * mass) / (binMasses[at] + mass);
      binMasses[at] += mass;
    }
  }
  return [binBeliefs, binMasses];
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

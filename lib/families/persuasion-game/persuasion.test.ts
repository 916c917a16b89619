import { describe, expect, it } from "vitest";
import { createRng } from "../rng";
import { persuasionGameFamily, validatePersuasion, type PersuasionConfig } from "./index";
import {
  bayesPosterior,
  pMaxByDp,
  persuasionPMax,
  reachesTarget,
  simulatePersuasion,
  updateBelief,
  type DecisionMakerParams,
  type GameParams,
  type Signal,
} from "./simulator";

const bayes: DecisionMakerParams = { decision_model: "bayesian", evidence_strength: 0.8 };
const game = (overrides: Partial<GameParams> = {}): GameParams => ({
  ...bayes,
  prior: 0.5,
  num_rounds: 2,
  target_belief: 0.9,
  ...overrides,
});

describe("decision makers", () => {
  it("update by Bayes' rule (numbers checked by hand)", () => {
    // Prior 0.5, signal accuracy 0.8: LR 4 for a supporting signal, 1/4 against.
    expect(updateBelief(bayes, 0.5, 1)).toBeCloseTo(0.8, 12);
    expect(updateBelief(bayes, 0.5, -1)).toBeCloseTo(0.2, 12);
    expect(updateBelief(bayes, 0.8, 1)).toBeCloseTo(16 / 17, 12);
    // Prior 0.2: odds 1/4 * 4 = 1 -> 0.5.
    expect(updateBelief(bayes, 0.2, 1)).toBeCloseTo(0.5, 12);
    expect(bayesPosterior(0.3, 1)).toBeCloseTo(0.3, 12);
  });

  it("Grether with alpha = beta = 1 and affine with slope 1, intercept 0 equal Bayes", () => {
    const rng = createRng("models");
    for (let i = 0; i < 200; i++) {
      const belief = rng.float(0.01, 0.99);
      const q = rng.float(0.5, 0.99);
      const signal: Signal = rng.bool() ? 1 : -1;
      const expected = updateBelief({ decision_model: "bayesian", evidence_strength: q }, belief, signal);
      expect(updateBelief({ decision_model: "grether", alpha: 1, beta: 1, evidence_strength: q }, belief, signal)).toBeCloseTo(
        expected,
        10,
      );
      expect(
        updateBelief({ decision_model: "affine", affine_slope: 1, affine_intercept: 0, evidence_strength: q }, belief, signal),
      ).toBeCloseTo(expected, 10);
      expect(updateBelief({ decision_model: "motivated", motivation_strength: 0, evidence_strength: q }, belief, signal)).toBeCloseTo(
        expected,
        10,
      );
    }
  });

  it("Grether weighs likelihood by alpha and prior odds by beta", () => {
    // Odds after: 4^0.5 * 1^1 = 2 -> 2/3; prior 0.2 with beta 0: odds 4^1 * 1 -> 0.8.
    expect(updateBelief({ decision_model: "grether", alpha: 0.5, beta: 1, evidence_strength: 0.8 }, 0.5, 1)).toBeCloseTo(2 / 3, 12);
    expect(updateBelief({ decision_model: "grether", alpha: 1, beta: 0, evidence_strength: 0.8 }, 0.2, 1)).toBeCloseTo(0.8, 12);
    // alpha = 0 ignores evidence: with beta = 1 the belief never moves.
    expect(updateBelief({ decision_model: "grether", alpha: 0, beta: 1, evidence_strength: 0.9 }, 0.3, 1)).toBeCloseTo(0.3, 12);
  });

  it("affine distorts the Bayesian posterior and clamps to [0, 1]", () => {
    expect(
      updateBelief({ decision_model: "affine", affine_slope: 0.5, affine_intercept: 0.1, evidence_strength: 0.8 }, 0.5, 1),
    ).toBeCloseTo(0.5, 12);
    expect(updateBelief({ decision_model: "affine", affine_slope: 2, affine_intercept: 0.2, evidence_strength: 0.8 }, 0.5, 1)).toBe(1);
    expect(updateBelief({ decision_model: "affine", affine_slope: 0.5, affine_intercept: -0.5, evidence_strength: 0.8 }, 0.5, -1)).toBe(0);
  });

  it("motivated reasoning discounts only the evidence the decision maker does not want", () => {
    const motivated: DecisionMakerParams = { decision_model: "motivated", motivation_strength: 0.5, evidence_strength: 0.8 };
    // Pro-H evidence: log LR halved -> odds 1 * 4^0.5 = 2 -> 2/3.
    expect(updateBelief(motivated, 0.5, 1)).toBeCloseTo(2 / 3, 12);
    // Con-H evidence counts fully, like Bayes.
    expect(updateBelief(motivated, 0.5, -1)).toBeCloseTo(0.2, 12);
    expect(updateBelief({ ...motivated, motivation_strength: 1 }, 0.4, 1)).toBeCloseTo(0.4, 12);
  });

  it("leave a certain belief (0 or 1) where it is, except Grether with beta = 0, who ignores the prior", () => {
    const motivated: DecisionMakerParams = { decision_model: "motivated", motivation_strength: 0.3, evidence_strength: 0.8 };
    const grether: DecisionMakerParams = { decision_model: "grether", alpha: 0.9, beta: 1, evidence_strength: 0.8 };
    for (const params of [motivated, grether])
      for (const signal of [1, -1] as const) {
        expect(updateBelief(params, 0, signal)).toBe(0);
        expect(updateBelief(params, 1, signal)).toBe(1);
      }
    // Posterior odds = LR^alpha: 4^0.9 for a supporting signal, whatever the belief was.
    const noPrior = { ...grether, beta: 0 };
    expect(updateBelief(noPrior, 0, 1)).toBeCloseTo(4 ** 0.9 / (1 + 4 ** 0.9), 12);
    expect(updateBelief(noPrior, 1, -1)).toBeCloseTo(0.25 ** 0.9 / (1 + 0.25 ** 0.9), 12);
    expect(updateBelief(noPrior, 0.3, 1)).toBeCloseTo(4 ** 0.9 / (1 + 4 ** 0.9), 12);
  });
});

describe("persuasionPMax", () => {
  it("matches hand-computed probabilities for the Bayesian decision maker", () => {
    // From 0.5 with q = 0.8 the target 0.9 needs a net +2 signals: PP within 2 rounds.
    expect(persuasionPMax(game())).toBeCloseTo(0.64, 12);
    expect(persuasionPMax(game({ num_rounds: 3 }))).toBeCloseTo(0.64, 12);
    // Within 4 rounds: PP, PCPP, CPPP -> 0.64 + 2 * 0.8^3 * 0.2.
    expect(persuasionPMax(game({ num_rounds: 4 }))).toBeCloseTo(0.8448, 12);
    expect(persuasionPMax(game({ num_rounds: 1 }))).toBe(0);
  });

  it("rises with evidence strength and falls with the target", () => {
    let previous = -1;
    for (const q of [0.55, 0.65, 0.75, 0.85, 0.95]) {
      const p = persuasionPMax(game({ evidence_strength: q, num_rounds: 10 }));
      expect(p).toBeGreaterThan(previous);
      previous = p;
    }
    expect(persuasionPMax(game({ target_belief: 0.95, num_rounds: 10 }))).toBeLessThan(
      persuasionPMax(game({ target_belief: 0.85, num_rounds: 10 })),
    );
  });

  it("agrees with Monte Carlo simulation of the optimal persuader", () => {
    const params = game({
      decision_model: "affine",
      affine_slope: 0.9,
      affine_intercept: 0.08,
      evidence_strength: 0.7,
      prior: 0.3,
      target_belief: 0.75,
      num_rounds: 12,
    });
    const rng = createRng("mc");
    let wins = 0;
    const runs = 6000;
    for (let i = 0; i < runs; i++) if (simulatePersuasion(params, rng.next).reached) wins++;
    expect(Math.abs(wins / runs - persuasionPMax(params))).toBeLessThan(0.025);
  });

  it("simulates deterministically and stops once the target is reached", () => {
    const params = game({ num_rounds: 10 });
    const a = simulatePersuasion(params, createRng(1).next);
    const b = simulatePersuasion(params, createRng(1).next);
    expect(a).toEqual(b);
    const allPro = simulatePersuasion(params, () => 0);
    expect(allPro.reached).toBe(true);
    expect(allPro.rounds).toBe(2);
    expect(allPro.beliefs).toHaveLength(3);
    expect(allPro.beliefs[2]).toBeCloseTo(16 / 17, 12);
  });

  it("draws a supporting signal with probability evidence_strength and plays every round of a game it does not win", () => {
    const params = game({ evidence_strength: 0.6, target_belief: 0.999999, num_rounds: 12 });
    const rng = createRng("signals");
    let pros = 0;
    let signals = 0;
    for (let i = 0; i < 2000; i++) {
      const episode = simulatePersuasion(params, rng.next);
      expect(episode.reached).toBe(false);
      expect(episode.rounds).toBe(12);
      expect(episode.signals).toHaveLength(12);
      expect(episode.beliefs).toHaveLength(13);
      pros += episode.signals.filter((s) => s === 1).length;
      signals += episode.signals.length;
    }
    // From 0.5 with LR 1.5 the target needs 34 more supporting than opposing signals: no game of 12 rounds gets there.
    expect(signals).toBe(2000 * 12);
    expect(pros / signals).toBeGreaterThan(0.58);
    expect(pros / signals).toBeLessThan(0.62);
    const allCon = simulatePersuasion(params, () => 0.99);
    expect(allCon).toMatchObject({ reached: false, rounds: 12 });
    expect(allCon.signals.every((s) => s === -1)).toBe(true);
  });

  /** p_max by walking every sequence of signals (the persuader experiments each round until the target is reached). */
  function pMaxByEnumeration(params: GameParams): number {
    const walk = (belief: number, round: number): number => {
      if (belief >= params.target_belief - 1e-12) return 1;
      if (round === params.num_rounds) return 0;
      const q = params.evidence_strength;
      return q * walk(updateBelief(params, belief, 1), round + 1) + (1 - q) * walk(updateBelief(params, belief, -1), round + 1);
    };
    return walk(params.prior, 0);
  }

  // Path-dependent decision makers: their beliefs depend on the order of the signals, so the DP's table of exact beliefs
  // fills up (2^round of them) until it merges them into bins past 4096.
  const affine = game({
    decision_model: "affine",
    affine_slope: 0.95,
    affine_intercept: 0.04,
    evidence_strength: 0.7,
    prior: 0.3,
    target_belief: 0.8,
  });
  const grether = game({ decision_model: "grether", alpha: 0.85, beta: 0.9, evidence_strength: 0.7, prior: 0.3, target_belief: 0.85 });

  it("equals the sum over every sequence of signals while the DP keeps its beliefs exact (12 rounds: 4,096 paths)", () => {
    for (const params of [affine, grether]) {
      const exact = pMaxByEnumeration({ ...params, num_rounds: 12 });
      expect(exact).toBeGreaterThan(0.05);
      expect(pMaxByDp({ ...params, num_rounds: 12 })).toBeCloseTo(exact, 10);
    }
  });

  it("stays near the exact sum once it merges beliefs into bins (18 rounds: 262,144 paths, up to 8,190 beliefs a round)", () => {
    const affineSlow = game({
      ...affine,
      affine_slope: 0.9,
      affine_intercept: 0.08,
      evidence_strength: 0.6,
      prior: 0.2,
      target_belief: 0.9,
    });
    for (const params of [affine, grether, affineSlow]) {
      const exact = pMaxByEnumeration({ ...params, num_rounds: 18 });
      expect(Math.abs(pMaxByDp({ ...params, num_rounds: 18 }) - exact)).toBeLessThan(1e-3);
    }
    // The merged figures the Map-of-objects DP gave before 2026-12-06 (the same operations in the same order): a merge that
    // kept a bin's last belief, not its probability-weighted mean, moves them by 1e-4 and more.
    expect(pMaxByDp({ ...affineSlow, num_rounds: 18 })).toBeCloseTo(0.3634074734949816, 14);
    expect(pMaxByDp({ ...grether, num_rounds: 18 })).toBeCloseTo(0.9106266745834987, 14);
  });

  it("remembers games by every parameter the DP reads: changing any one of them gives that game's own p_max", () => {
    const base = { ...grether, prior: 0.1, num_rounds: 12, affine_slope: 1, affine_intercept: 0, motivation_strength: 0 };
    const affineBase = { ...affine, num_rounds: 8 };
    const motivatedBase = game({ decision_model: "motivated", motivation_strength: 0.2, num_rounds: 8, evidence_strength: 0.7 });
    const cases: [GameParams, [string, GameParams][]][] = [
      [
        base,
        [
          ["decision_model", { ...base, decision_model: "bayesian" }],
          ["evidence_strength", { ...base, evidence_strength: 0.65 }],
          ["prior", { ...base, prior: 0.35 }],
          ["num_rounds", { ...base, num_rounds: 9 }],
          // prior 0.1 with 12 rounds and prior 0.11 with 2 rounds: a key of the values run together would read "0.112" for both
          ["prior and num_rounds", { ...base, prior: 0.11, num_rounds: 2 }],
          ["target_belief", { ...base, target_belief: 0.8 }],
          ["alpha", { ...base, alpha: 0.95 }],
          ["beta", { ...base, beta: 0.7 }],
        ],
      ],
      [
        affineBase,
        [
          ["affine_slope", { ...affineBase, affine_slope: 0.97 }],
          ["affine_intercept", { ...affineBase, affine_intercept: 0.03 }],
        ],
      ],
      [motivatedBase, [["motivation_strength", { ...motivatedBase, motivation_strength: 0.4 }]]],
    ];
    for (const [from, variants] of cases) {
      persuasionPMax(from);
      for (const [field, params] of variants) {
        const own = pMaxByDp(params);
        expect(own, field).not.toBe(pMaxByDp(from));
        expect(persuasionPMax(params), field).toBe(own);
        expect(persuasionPMax(params), field).toBe(own);
      }
    }
  });

  it("equals the exact hitting probability of the signal counts over 20 rounds (Bayesian and motivated decision makers)", () => {
    // A Bayesian belief depends only on pros - cons, a motivated one on (pros, cons): an exact DP over the counts, with
    // no belief keys or bins, is an independent reference for games longer than the enumeration above can walk.
    const byCounts = (params: GameParams, logit: (pros: number, cons: number) => number): number => {
      const logistic = (x: number) => 1 / (1 + Math.exp(-x));
      let states = new Map<string, { pros: number; cons: number; mass: number }>([["0,0", { pros: 0, cons: 0, mass: 1 }]]);
      let reached = 0;
      for (let round = 0; round < params.num_rounds; round++) {
        const next = new Map<string, { pros: number; cons: number; mass: number }>();
        for (const { pros, cons, mass } of states.values()) {
          for (const [p, c, m] of [
            [pros + 1, cons, mass * params.evidence_strength],
            [pros, cons + 1, mass * (1 - params.evidence_strength)],
          ]) {
            if (logistic(logit(p, c)) >= params.target_belief - 1e-12) reached += m;
            else {
              const entry = next.get(`${p},${c}`);
              if (entry) entry.mass += m;
              else next.set(`${p},${c}`, { pros: p, cons: c, mass: m });
            }
          }
        }
        states = next;
      }
      return reached;
    };
    const bayesGame = game({ evidence_strength: 0.7, prior: 0.3, target_belief: 0.97, num_rounds: 20 });
    const lr = Math.log(0.7 / 0.3);
    const prior = Math.log(0.3 / 0.7);
    const bayesExact = byCounts(bayesGame, (p, c) => prior + (p - c) * lr);
    expect(bayesExact).toBeGreaterThan(0.3);
    expect(pMaxByDp(bayesGame)).toBeCloseTo(bayesExact, 12);
    const motivatedGame = { ...bayesGame, decision_model: "motivated" as const, motivation_strength: 0.3, target_belief: 0.9 };
    const motivatedExact = byCounts(motivatedGame, (p, c) => prior + (0.7 * p - c) * lr);
    expect(motivatedExact).toBeGreaterThan(0.1);
    expect(pMaxByDp(motivatedGame)).toBeCloseTo(motivatedExact, 12);
  });

  it("is 1 when the prior already reaches the target, and counts a belief at the target as reached", () => {
    expect(pMaxByDp(game({ prior: 0.9, target_belief: 0.9, num_rounds: 3 }))).toBe(1);
    expect(pMaxByDp(game({ decision_model: "affine", affine_slope: 0.5, prior: 0.95, target_belief: 0.9 }))).toBe(1);
    expect(reachesTarget(0.9, 0.9)).toBe(true);
    expect(reachesTarget(0.9 - 1e-13, 0.9)).toBe(true);
    expect(reachesTarget(0.9 - 1e-9, 0.9)).toBe(false);
  });
});

describe("validatePersuasion", () => {
  const base: PersuasionConfig = { decision_model: "bayesian", prior: 0.3, evidence_strength: 0.8, num_rounds: 6, target_belief: 0.8 };

  it("is valid with p_max in (0, 1] for a persuadable decision maker", () => {
    const result = persuasionGameFamily.validate(base);
    expect(result.state).toBe("valid");
    expect(result.pMax).toBeGreaterThan(0);
    expect(result.pMax).toBeLessThanOrEqual(1);
  });

  it("is unsolvable when the decision maker never moves (Grether alpha = 0)", () => {
    const result = validatePersuasion({ ...base, decision_model: "grether", alpha: 0, beta: 1 });
    expect(result.state).toBe("unsolvable");
    expect(result.pMax).toBe(0);
    expect(result.errors[0].path).toBe("alpha");
    // The same parameters on a Bayesian decision maker are ignored.
    expect(validatePersuasion({ ...base, alpha: 0 }).state).toBe("valid");
  });

  it("is unsolvable for uninformative evidence and for a fully motivated decision maker", () => {
    expect(validatePersuasion({ ...base, evidence_strength: 0.5 }).errors[0].path).toBe("evidence_strength");
    expect(validatePersuasion({ ...base, decision_model: "motivated", motivation_strength: 1 }).state).toBe("unsolvable");
  });

  it("is invalid when the target is not above the prior", () => {
    const result = persuasionGameFamily.validate({ ...base, prior: 0.9 });
    expect(result.state).toBe("invalid");
    expect(result.errors[0].path).toBe("target_belief");
  });

  it("is harder for a motivated than a Bayesian decision maker", () => {
    const bayesian = persuasionGameFamily.difficulty!(base);
    const motivated = persuasionGameFamily.difficulty!({ ...base, decision_model: "motivated", motivation_strength: 0.8 });
    expect(motivated.pMax).toBeLessThan(bayesian.pMax);
    expect(motivated.difficulty).toBeGreaterThan(bayesian.difficulty);
  });
});

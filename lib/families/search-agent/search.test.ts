import { describe, expect, it } from "vitest";
import { createRng } from "../rng";
import { searchAgentFamily, validateSearchAgent, type SearchAgentConfig } from "./index";
import { INTERFERENCE, searchPMax, simulateSearch, turnSuccessProbability } from "./simulator";

const base: SearchAgentConfig = {
  hops: 3,
  max_turns: 8,
  docs_per_turn: 5,
  distractor_ratio: 0.6,
  context_refiner: false,
  answer_match: "exact",
  seed: 4,
};

describe("searchPMax", () => {
  it("matches hand-computed values", () => {
    expect(searchPMax({ ...base, distractor_ratio: 0, hops: 2, max_turns: 2 })).toBe(1);
    // One slot, half distractors: retrieved w.p. 0.5, recognised w.p. 1 / (1 + 0.05 * 0.5).
    expect(searchPMax({ ...base, hops: 1, max_turns: 1, docs_per_turn: 1, distractor_ratio: 0.5 })).toBeCloseTo(
      0.5 / (1 + INTERFERENCE * 0.5),
      12,
    );
    // Two hops in exactly two turns: both turns must succeed.
    const two = { ...base, hops: 2, max_turns: 2, docs_per_turn: 1, distractor_ratio: 0.5 };
    expect(searchPMax(two)).toBeCloseTo(turnSuccessProbability(two, 1) * turnSuccessProbability(two, 2), 12);
  });

  it("falls monotonically as distractor_ratio rises", () => {
    for (const refiner of [false, true]) {
      let previous = Infinity;
      for (let r = 0; r <= 0.95 + 1e-9; r += 0.05) {
        const p = searchPMax({ ...base, distractor_ratio: r, context_refiner: refiner });
        expect(p).toBeLessThanOrEqual(previous);
        expect(p).toBeGreaterThanOrEqual(0);
        previous = p;
      }
      expect(previous).toBeLessThan(searchPMax({ ...base, distractor_ratio: 0, context_refiner: refiner }));
    }
  });

  it("rises with max_turns, falls with hops, and the refiner helps", () => {
    expect(searchPMax({ ...base, max_turns: 12 })).toBeGreaterThan(searchPMax(base));
    expect(searchPMax({ ...base, hops: 4 })).toBeLessThan(searchPMax(base));
    expect(searchPMax({ ...base, context_refiner: true })).toBeGreaterThan(searchPMax(base));
  });

  it("agrees with simulated episodes", () => {
    const rng = createRng("episodes");
    let wins = 0;
    for (let i = 0; i < 4000; i++) if (simulateSearch(base, rng).success) wins++;
    // The simulator counts the distractors actually kept, the DP their expectation: close, not equal.
    expect(Math.abs(wins / 4000 - searchPMax(base))).toBeLessThan(0.04);
  });
});

describe("simulateSearch", () => {
  it("is deterministic for a seed and marks gold documents per hop", () => {
    const episode = simulateSearch(base);
    expect(simulateSearch(base)).toEqual(episode);
    expect(episode.turns.length).toBeLessThanOrEqual(base.max_turns);
    for (const turn of episode.turns) {
      expect(turn.docs).toHaveLength(base.docs_per_turn);
      for (const doc of turn.docs) if (doc.kind === "gold") expect(doc.hop).toBe(turn.hop);
      if (turn.foundGold) expect(turn.docs.some((d) => d.kind === "gold")).toBe(true);
    }
    const refined = simulateSearch({ ...base, context_refiner: true, distractor_ratio: 0.9, max_turns: 30 });
    const dropped = refined.turns.reduce((n, t) => n + t.docs.length - t.kept.length, 0);
    expect(dropped).toBeGreaterThan(0);
  });
});

describe("validateSearchAgent", () => {
  it("is unsolvable when max_turns < hops", () => {
    const result = searchAgentFamily.validate({ ...base, hops: 5, max_turns: 4 });
    expect(result.state).toBe("unsolvable");
    expect(result.pMax).toBe(0);
    expect(result.errors[0].path).toBe("max_turns");
  });

  it("is valid with p_max in (0, 1] otherwise", () => {
    const result = validateSearchAgent(base);
    expect(result.state).toBe("valid");
    expect(result.pMax).toBeCloseTo(searchPMax(base), 12);
  });

  it("rejects an unknown answer_match level naming the field", () => {
    const result = searchAgentFamily.validate({ ...base, answer_match: "fuzzy" });
    expect(result.state).toBe("invalid");
    expect(result.errors[0].path).toBe("answer_match");
  });
});

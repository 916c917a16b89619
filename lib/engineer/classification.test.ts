/** The shared classification at its thresholds: solved (>= 0.8), frontier (0.2, 0.8), hopeless (0 of >= 4). */
import { describe, expect, it } from "vitest";
import { CLASSIFICATION, classifyPopulation, isFrontier, isHopeless, isSolved, successRate } from "./classification";
import type { PopulationMember } from "./types";

describe("classification", () => {
  it("keeps its thresholds in order", () => {
    expect(CLASSIFICATION.frontierAbove).toBe(0.2);
    expect(CLASSIFICATION.solvedAt).toBe(0.8);
    expect(CLASSIFICATION.hopelessAttempts).toBe(4);
  });

  it("measures the success rate only with attempts", () => {
    expect(successRate(0, 0)).toBeNull();
    expect(successRate(8, 2)).toBe(0.25);
  });

  // catches: the solved comparison inverted or its threshold flipped to the frontier edge
  it("calls 0.8 and above solved, below not, and nothing unmeasured", () => {
    expect(isSolved(10, 8)).toBe(true);
    expect(isSolved(8, 8)).toBe(true);
    expect(isSolved(10, 7)).toBe(false);
    expect(isSolved(10, 2)).toBe(false);
    expect(isSolved(0, 0)).toBe(false);
  });

  // catches: the frontier band inverted or its edges made inclusive
  it("calls strictly between 0.2 and 0.8 frontier", () => {
    expect(isFrontier(10, 5)).toBe(true);
    expect(isFrontier(10, 3)).toBe(true);
    expect(isFrontier(10, 7)).toBe(true);
    expect(isFrontier(10, 2)).toBe(false);
    expect(isFrontier(10, 8)).toBe(false);
    expect(isFrontier(10, 0)).toBe(false);
    expect(isFrontier(0, 0)).toBe(false);
  });

  // catches: the hopeless test inverted (a pass) or its attempt floor flipped
  it("calls no success in at least 4 attempts hopeless", () => {
    expect(isHopeless(4, 0)).toBe(true);
    expect(isHopeless(9, 0)).toBe(true);
    expect(isHopeless(3, 0)).toBe(false);
    expect(isHopeless(9, 1)).toBe(false);
  });

  it("lists each class's keys in population order, at most max per class", () => {
    const m = (key: string, n: number, s: number, state = "valid", pMax: number | null = null) =>
      ({ key, n, s, validation: { state, pMax } }) as PopulationMember;
    const population = [
      m("solved-a", 8, 8),
      m("front-a", 8, 4),
      m("hopeless-a", 8, 0),
      m("solved-b", 10, 9),
      m("front-b", 8, 3),
      m("new", 0, 0, "unvalidated"),
      m("zero-max", 4, 0, "valid", 0),
      m("unsolvable", 2, 1, "unsolvable"),
    ];
    expect(classifyPopulation(population, 10)).toEqual({
      solved: ["solved-a", "solved-b"],
      frontier: ["front-a", "front-b", "unsolvable"],
      hopeless: ["hopeless-a", "zero-max"],
      unvalidated: ["new"],
      unsolvable: ["zero-max", "unsolvable"],
    });
    expect(classifyPopulation(population, 1)).toEqual({
      solved: ["solved-a"],
      frontier: ["front-a"],
      hopeless: ["hopeless-a"],
      unvalidated: ["new"],
      unsolvable: ["zero-max"],
    });
  });
});

/**
 * Where an environment stands by its results: solved, frontier, hopeless (and unvalidated,
 * unsolvable by its validation). The one classification the engineers, their summaries and the
 * arena share; the thresholds live here.
 */
import { isUnsolvable } from "./scoring";
import type { PopulationMember, StructuredSummary } from "./types";

/** Thresholds of the classification on the raw success rate s/n. */
export const CLASSIFICATION = {
  /** solved at a success rate of at least this (nothing left to learn) */
  solvedAt: 0.8,
  /** frontier strictly between this and solvedAt; at or below it the policy mostly fails */
  frontierAbove: 0.2,
  /** hopeless: no success in at least this many attempts */
  hopelessAttempts: 4,
} as const;

/** The success rate s/n, or null when unmeasured. */
export function successRate(n: number, s: number): number | null {
  return n > 0 ? s / n : null;
}

/** Solved: measured, with a success rate of at least solvedAt. */
export function isSolved(n: number, s: number): boolean {
  const rate = successRate(n, s);
  return rate !== null && rate >= CLASSIFICATION.solvedAt;
}

/** Frontier: measured, with a success rate strictly between frontierAbove and solvedAt. */
export function isFrontier(n: number, s: number): boolean {
  const rate = successRate(n, s);
  return rate !== null && rate > CLASSIFICATION.frontierAbove && rate < CLASSIFICATION.solvedAt;
}

/** Hopeless: no success in at least hopelessAttempts attempts. */
export function isHopeless(n: number, s: number): boolean {
  return n >= CLASSIFICATION.hopelessAttempts && s === 0;
}

type ClassLists = Pick<StructuredSummary["environments"], "solved" | "frontier" | "hopeless" | "unvalidated" | "unsolvable">;

/** The keys of each class, in population order, at most `max` per class. */
export function classifyPopulation(population: readonly PopulationMember[], max: number): ClassLists {
  const keysWhere = (pred: (m: PopulationMember) => boolean) =>
    population
      .filter(pred)
      .map((m) => m.key)
      .slice(0, max);
  return {
    solved: keysWhere((m) => isSolved(m.n, m.s)),
    frontier: keysWhere((m) => isFrontier(m.n, m.s)),
    hopeless: keysWhere((m) => isHopeless(m.n, m.s)),
    unvalidated: keysWhere((m) => m.validation.state === "unvalidated"),
    unsolvable: keysWhere((m) => isUnsolvable(m.validation)),
  };
}

/**
 * Step 2 of the heuristic engineer: keep the most learnable members (ties broken by evidence, see
 * compareForKeep), mark the rest "outranked"; and the weighted random order parents are drawn in.
 */
import type { Scored } from "./model";

/** The keep decision: members ranked by learnability, the kept head, the keep cut and each ranked member's rank. */
export interface Selection {
  ranked: Scored[];
  kept: Scored[];
  /** learnability of the last kept member, or null when none is kept */
  keepCut: number | null;
  rankOf: Map<Scored, number>;
}

/** Learnability values this close are the same figure (0/5 and 5/5 have equal posteriors). */
export const LEARNABILITY_TIE = 1e-9;

/** Whether two learnability values tie. */
export function learnabilityTies(a: number, b: number): boolean {
  return Math.abs(a - b) < LEARNABILITY_TIE;
}

/** How ties in learnability are broken, in words (the rationale of members at the keep cut says it). */
export const TIE_BREAK_RULE =
  "ties go to evidence: learning progress, then at least one pass, then more attempts, then fewer infrastructure failures";

/**
 * Keep order: higher learnability first; on a tie, the member with more evidence that it teaches:
 * learning progress, a nonzero success (a 0/5 may be out of reach, a 5/5 is reachable), more attempts,
 * not infra-dominated; the population order last so the result never depends on sort stability.
 */
export function compareForKeep(a: Scored, b: Scored): number {
  if (!learnabilityTies(a.learnability, b.learnability)) return b.learnability - a.learnability;
  if (a.progress !== b.progress) return b.progress - a.progress;
  const passedA = a.member.s > 0 ? 1 : 0;
  const passedB = b.member.s > 0 ? 1 : 0;
  if (passedA !== passedB) return passedB - passedA;
  if (a.member.n !== b.member.n) return b.member.n - a.member.n;
  if (a.infra !== b.infra) return a.infra ? 1 : -1;
  return a.index - b.index;
}

/** Keep floor(keepShare * target) of the members without a retirement reason; the rest retire as "outranked" (mutates `scored`). */
export function selectKept(scored: readonly Scored[], keepShare: number, target: number): Selection {
  const ranked = scored.filter((sc) => sc.retire === null).sort(compareForKeep);
  const kept = ranked.slice(0, Math.min(ranked.length, Math.floor(keepShare * target)));
  for (const sc of ranked.slice(kept.length)) sc.retire = "outranked";
  const keepCut = kept.length > 0 ? kept[kept.length - 1].learnability : null;
  const rankOf = new Map(ranked.map((sc, i) => [sc, i + 1]));
  return { ranked, kept, keepCut, rankOf };
}

// one weighted sampler for the engineer and the arena's baselines
export { weightedOrder } from "@/lib/families/rng";

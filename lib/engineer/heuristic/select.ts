/**
 * Step 2 of the heuristic engineer: keep the most learnable members (ties: learning progress),
 * mark the rest "outranked"; and the weighted random order parents are drawn in.
 */
import type { Rng } from "@/lib/families/rng";
import type { Scored } from "./model";

/** The keep decision: members ranked by learnability, the kept head, the keep cut and each ranked member's rank. */
export interface Selection {
  ranked: Scored[];
  kept: Scored[];
  /** learnability of the last kept member, or null when none is kept */
  keepCut: number | null;
  rankOf: Map<Scored, number>;
}

/** Keep floor(keepShare * target) of the members without a retirement reason; the rest retire as "outranked" (mutates `scored`). */
export function selectKept(scored: readonly Scored[], keepShare: number, target: number): Selection {
  const ranked = scored
    .filter((sc) => sc.retire === null)
    .sort((a, b) => b.learnability - a.learnability || b.progress - a.progress || a.index - b.index);
  const kept = ranked.slice(0, Math.min(ranked.length, Math.floor(keepShare * target)));
  for (const sc of ranked.slice(kept.length)) sc.retire = "outranked";
  const keepCut = kept.length > 0 ? kept[kept.length - 1].learnability : null;
  const rankOf = new Map(ranked.map((sc, i) => [sc, i + 1]));
  return { ranked, kept, keepCut, rankOf };
}

/** Indices of `weights` in a weighted random order without replacement (Efraimidis-Spirakis keys). */
export function weightedOrder(rng: Rng, weights: readonly number[]): number[] {
  const keyed = weights.map((w, i) => {
    const u = rng.next() || Number.MIN_VALUE;
    return { i, k: w > 0 ? Math.log(u) / w : Number.NEGATIVE_INFINITY };
  });
  keyed.sort((a, b) => (a.k === b.k ? a.i - b.i : b.k - a.k));
  return keyed.map((x) => x.i);
}

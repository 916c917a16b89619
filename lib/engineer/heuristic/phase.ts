/**
 * What the members measured this generation say about the policy's pace: how many measurements in
 * a row a member has stayed above the frontier (the directed steps' ratchet), and how the fresh
 * samples drawn last generation did (whether the generator still draws near the policy's level).
 */
import { HEURISTIC_DEFAULTS } from "./defaults";
import type { Scored } from "./model";

/**
 * Measurements in a row, the current one and then the history backwards, with a success rate above
 * `above` (replayHarderAbove: the policy passes it mostly). 0 for an unmeasured member.
 */
export function streakAbove(sc: Scored, above: number = HEURISTIC_DEFAULTS.replayHarderAbove): number {
  if (sc.member.n <= 0) return 0;
  const rates = [...sc.member.history.filter((r) => Number.isFinite(r)), sc.member.s / sc.member.n];
  let k = 0;
  for (let i = rates.length - 1; i >= 0 && rates[i] > above; i--) k++;
  return k;
}

/**
 * Pooled attempts and successes of the fresh samples measured this generation (new members added
 * without a parent), or null when there are none; invalid and unsolvable ones are left out.
 */
export function freshSuccess(scored: readonly Scored[]): { s: number; n: number } | null {
  let s = 0;
  let n = 0;
  for (const sc of scored) {
    const m = sc.member;
    if (m.age !== 1 || m.op !== "add" || m.parentKey !== null || sc.retire === "invalid" || sc.retire === "unsolvable") continue;
    s += m.s;
    n += m.n;
  }
  return n > 0 ? { s, n } : null;
}

/**
 * Whether the generator draws below the policy's level: the fresh samples measured this generation
 * passed more than harderAbove (0.8) of their attempts, as a posterior mean (s + 1) / (n + 2).
 */
export function freshTooEasy(scored: readonly Scored[]): boolean {
  const fresh = freshSuccess(scored);
  return fresh !== null && (fresh.s + 1) / (fresh.n + 2) > HEURISTIC_DEFAULTS.harderAbove;
}

/** Mean success rate (q) of the members measured this generation, or null when none was. */
export function meanSuccess(scored: readonly Scored[]): number | null {
  let sum = 0;
  let count = 0;
  for (const sc of scored) {
    if (sc.q === null) continue;
    sum += sc.q;
    count += 1;
  }
  return count > 0 ? sum / count : null;
}

/**
 * Fresh samples from the frontier's window on top of the adds (budget.ts, frontierFresh), for a
 * population of `target` members whose fresh samples are drawn at a frontier (index.ts: by default
 * while it rises): frontierFreshShare of the target when the members measured this generation passed
 * at least frontierFreshAbove of their attempts on average, else none. A policy that passes most of
 * its population while its frontier moves harder has outgrown the middle of it, and the kept members
 * and their children lag behind (threshold stepping's batches, drawn fresh at its level, sit there).
 */
export function frontierFreshCount(scored: readonly Scored[], target: number): number {
  const D = HEURISTIC_DEFAULTS;
  const mean = meanSuccess(scored);
  if (mean === null || mean < D.frontierFreshAbove) return 0;
  return Math.round(D.frontierFreshShare * Math.max(0, target));
}

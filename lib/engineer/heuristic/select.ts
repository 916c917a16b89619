/**
 * Step 2 of the heuristic engineer: keep the members of highest priority (learnability, weighed by
 * hardness; ties broken by evidence, see compareForKeep), mark the rest "outranked"; and the
 * weighted random order parents are drawn in.
 */
import type { FamilyDefinition } from "@/lib/families/types";
import { fitSuccessOnHardness, fittedSuccess, memberHardness } from "./frontier";
import type { Scored } from "./model";
import { meanSuccess } from "./phase";

/**
 * The hardness bias of the keep order (HEURISTIC_DEFAULTS.hardnessBias): every member's priority
 * becomes its learnability times max(0, 1 + bias x rate x (h - mean h)), with h its hardness (the
 * mean easy -> hard position of its difficulty-signed fields, frontier.ts), mean h the population's
 * mean hardness and rate the population's mean success rate (q of the measured members). Learnability
 * alone cannot tell a config the policy fails because it is hard from one it passes half the time
 * because it is capped or noisy, and the curriculum's aim lies at the hard end: where two members
 * teach about as much, the harder one stays and is more often a parent. The bias grows with the
 * success rate: while the policy fails most of the population there is no easy side to leave.
 * The bonus (a weight above 1) is given at a member's first measurement only (age 1); from then on
 * it stays on what it taught, while an easier member's penalty holds at any age. Hardness is a
 * prior that one group of attempts should not overrule, not a reason to keep a member for ever: with
 * the bonus at every age, noisy TVs (success 1/2 wherever they lie, so they look most learnable
 * where real configs fail) filled the arena's traps 0.3 setting (frozenlake-mapf, full budget,
 * tuning seeds 0-9: rollouts to 50% 12,574 -> 16,783). A family without difficulty-signed fields,
 * or a bias of 0, leaves every priority at its learnability (mutates `scored`).
 */
export function weighByHardness(family: FamilyDefinition, scored: readonly Scored[], bias: number): void {
  const rate = meanSuccess(scored) ?? 0;
  const hardness = scored.map((sc) => memberHardness(family, sc.member.config));
  const known = hardness.filter((h): h is number => h !== undefined);
  const mean = known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : 0;
  scored.forEach((sc, i) => {
    const h = hardness[i];
    if (h === undefined) return;
    sc.hardness = h;
    const weight = bias === 0 ? 1 : Math.max(0, 1 + bias * rate * (h - mean));
    // A bonus for hardness only at a member's first measurement: after that it stays on what it taught.
    sc.hardnessWeight = sc.member.age > 1 ? Math.min(1, weight) : weight;
    sc.priority = sc.learnability * sc.hardnessWeight;
  });
}

/**
 * The frontier discount of the keep order (HEURISTIC_DEFAULTS.frontierDiscount): with f the population's
 * fitted success at a member's hardness (frontier.ts, fitSuccessOnHardness: a logistic fit of the measured
 * members' success on their hardness), the member's priority is multiplied by
 * max(0, 1 - discount x max(0, 2 f - 1)): nothing at or beyond the frontier (f <= 1/2), down to
 * 1 - discount where the fit says the policy passes everything this hard. A member passed about half
 * the time where the policy passes most configs as hard is more likely capped (a p_max below 1 that
 * the policy has reached: its failures are the environment's dice, and in the arena the learner's skill
 * explains little of their success variance) or noisy than one the policy is still learning, so its
 * learnability overstates what it teaches; a member as hard as the frontier keeps its full priority.
 * No fit (fewer than 8 measured members, or success not falling with hardness, as where the difficulty
 * signs say nothing), a discount of 0, or a member without a hardness: priorities unchanged (mutates `scored`).
 */
export function weighByFrontier(family: FamilyDefinition, scored: readonly Scored[], discount: number): void {
  if (discount <= 0) return;
  const fit = fitSuccessOnHardness(family, scored);
  if (fit === null) return;
  for (const sc of scored) {
    if (sc.hardness === undefined) continue;
    const f = fittedSuccess(fit, sc.hardness);
    sc.fittedSuccess = f;
    sc.frontierWeight = Math.max(0, 1 - discount * Math.max(0, 2 * f - 1));
    sc.priority *= sc.frontierWeight;
  }
}

/**
 * The keep decision: members ranked by priority (learnability, weighed by hardness and the frontier), the kept
 * head, the keep cut and each ranked member's rank.
 */
export interface Selection {
  ranked: Scored[];
  kept: Scored[];
  /** priority of the last kept member, or null when none is kept */
  keepCut: number | null;
  rankOf: Map<Scored, number>;
}

/** Learnability values (and priorities) this close are the same figure (0/5 and 5/5 have equal posteriors). */
export const LEARNABILITY_TIE = 1e-9;

/** Whether two learnability values, or two priorities, tie. */
export function learnabilityTies(a: number, b: number): boolean {
  return Math.abs(a - b) < LEARNABILITY_TIE;
}

/** How ties in priority are broken, in words (the rationale of members at the keep cut says it). */
export const TIE_BREAK_RULE =
  "ties go to evidence: learning progress, then at least one pass, then more attempts, then fewer infrastructure failures";

/**
 * Keep order: higher priority (learnability, weighed by hardness and the frontier) first; on a tie, the member with more evidence that it teaches:
 * learning progress, a nonzero success (a 0/5 may be out of reach, a 5/5 is reachable), more attempts,
 * not infra-dominated; the population order last so the result never depends on sort stability.
 */
export function compareForKeep(a: Scored, b: Scored): number {
  if (!learnabilityTies(a.priority, b.priority)) return b.priority - a.priority;
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
  const keepCut = kept.length > 0 ? kept[kept.length - 1].priority : null;
  const rankOf = new Map(ranked.map((sc, i) => [sc, i + 1]));
  return { ranked, kept, keepCut, rankOf };
}

// one weighted sampler for the engineer and the arena's baselines
export { weightedOrder } from "@/lib/families/rng";

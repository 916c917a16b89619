/**
 * Where the policy's competence ends, read from the population: each member's hardness (the mean
 * position of its difficulty-signed fields on their easy -> hard scale, as the family's sampler
 * windows it) against its measured success, fitted with a logistic curve; the frontier is the
 * hardness at which the fit predicts a success of 65% (FRONTIER_AIM). Fresh samples are drawn in a window around it
 * (ALP-GMM, goal-GAN's "goals of intermediate difficulty"): new levels where the learner can learn,
 * not from the whole generator, most of which it has outgrown or cannot yet touch.
 *
 * Decisions where the spec is open:
 * - members without a difficulty-signed field, unscored (n = 0), invalid, unsolvable or
 *   infra-dominated ones are left out; fewer than FRONTIER_MIN_MEMBERS left -> no frontier;
 * - the fit weights each member by its attempts, with a weak ridge prior (FRONTIER_RIDGE: slope and
 *   intercept toward 0) so a population that all passes or all fails still gives a finite answer;
 * - a fit whose success does not fall with hardness (slope >= 0: the signs say nothing here) gives
 *   no frontier, and fresh samples come from the whole generator as before;
 * - the window is FRONTIER_HALF_WIDTH either side of the frontier, clamped to [0, 1].
 */
import { hardnessProfile } from "@/lib/families/hardness";
import type { FamilyDefinition } from "@/lib/families/types";
import type { Scored } from "./model";

/** Members with a measured success needed before the frontier is estimated. */
export const FRONTIER_MIN_MEMBERS = 8;
/**
 * Log-odds of the success the window is centred on: logit(0.65). The fit runs on members the
 * population kept for their learnability, whose fields mix easy and hard; a fresh sample from the
 * window has every signed field at the window's hardness at once and lands harder than the fit
 * predicts (on the tuning seeds 0-7, centred at 50% half of them had success below 10%). Tuned on
 * the tuning seeds 0-7 of search-agent's default learner (0.5, 0.65 and 0.73 tried), never on the
 * evaluation seeds or the held-out learners.
 */
export const FRONTIER_AIM = 0.62;
/** Ridge prior on the fit's intercept and slope: small, so a steep fall in success is not flattened (1 moved the frontier well past the data). */
export const FRONTIER_RIDGE = 0.1;
/** Half width of the fresh-sample window around the frontier (hardness scale 0..1). */
export const FRONTIER_HALF_WIDTH = 0.1;

/**
 * A member's hardness in [0, 1], or undefined when the family has no difficulty-signed field or the
 * config's values give none (a NaN, or a negative value on a log scale: one such member would
 * otherwise make the population's mean hardness, and every keep priority with it, NaN).
 */
export function memberHardness(family: FamilyDefinition, config: unknown): number | undefined {
  if (!family.fields.some((f) => f.difficulty)) return undefined;
  const h = hardnessProfile(family.fields, config).hardness;
  return Number.isFinite(h) ? h : undefined;
}

/** A logistic fit of success on hardness: logit(success) = a + b (hardness - 0.5); b < 0 (success falls with hardness). */
export interface HardnessFit {
  a: number;
  b: number;
}

/** The fit's success at a hardness. */
export function fittedSuccess(fit: HardnessFit, hardness: number): number {
  return 1 / (1 + Math.exp(-(fit.a + fit.b * (hardness - 0.5))));
}

/**
 * The population's success fitted on hardness (each measured member weighed by its attempts), or null when it
 * cannot be told: fewer than FRONTIER_MIN_MEMBERS usable members, or success not falling with hardness (b >= 0).
 */
export function fitSuccessOnHardness(family: FamilyDefinition, scored: readonly Scored[]): HardnessFit | null {
  const points: { h: number; s: number; n: number }[] = [];
  for (const sc of scored) {
    if (sc.q === null || sc.infra || sc.retire === "invalid" || sc.retire === "unsolvable") continue;
    // weighByHardness (select.ts) has measured it already for the keep order
    const h = sc.hardness ?? memberHardness(family, sc.member.config);
    if (h === undefined || sc.member.n <= 0) continue;
    points.push({ h, s: sc.q * sc.member.n, n: sc.member.n });
  }
  if (points.length < FRONTIER_MIN_MEMBERS) return null;
  // Newton's method on the ridge-penalised log-likelihood of logit(p) = a + b (h - 0.5).
  let a = 0;
  let b = 0;
  const ridge = FRONTIER_RIDGE;
  for (let iter = 0; iter < 25; iter++) {
    let ga = -ridge * a;
    let gb = -ridge * b;
    let haa = ridge;
    let hab = 0;
    let hbb = ridge;
    for (const { h, s, n } of points) {
      const x = h - 0.5;
      const p = fittedSuccess({ a, b }, h);
      const w = n * p * (1 - p);
      ga += s - n * p;
      gb += (s - n * p) * x;
      haa += w;
      hab += w * x;
      hbb += w * x * x;
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 0)) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a += da;
    b += db;
    if (Math.abs(da) + Math.abs(db) < 1e-6) break;
  }
  return b < 0 ? { a, b } : null;
}

/**
 * The hardness at which the population's success is predicted to be 65% (FRONTIER_AIM; logistic fit of success
 * on hardness), or null when it cannot be told (too few members, or success does not fall with hardness).
 */
export function competenceFrontier(family: FamilyDefinition, scored: readonly Scored[]): number | null {
  const fit = fitSuccessOnHardness(family, scored);
  if (fit === null) return null;
  return Math.min(1, Math.max(0, 0.5 + (FRONTIER_AIM - fit.a) / fit.b));
}

/** The sampler's hardness window around the frontier (FRONTIER_HALF_WIDTH either side, kept inside [0, 1]). */
export function frontierWindow(frontier: number): { min: number; max: number } {
  const width = 2 * FRONTIER_HALF_WIDTH;
  const min = Math.max(0, Math.min(1 - width, frontier - FRONTIER_HALF_WIDTH));
  return { min, max: Math.min(1, min + width) };
}

/**
 * Whether the policy's competence is moving along the hardness scale: the frontier fitted on the
 * re-measured members' success this generation lies above the one fitted on the same members' previous
 * success rates (the last history entry). Where success falls with hardness through the skill, a policy
 * that learns pushes its frontier harder (search-agent on the arena's tuning seeds: 0.24 -> 0.7 over the
 * run); where it falls through p_max caps the fit stands still however much the policy learns
 * (frozenlake-mapf: 0.35-0.45 from generation 5 on), and fresh samples from the window land on capped configs.
 * False when either fit cannot be made (fewer than FRONTIER_MIN_MEMBERS re-measured members, or success not falling).
 */
export function frontierRising(family: FamilyDefinition, scored: readonly Scored[]): boolean {
  const again = scored.filter((sc) => sc.member.history.length > 0 && Number.isFinite(sc.member.history[sc.member.history.length - 1]));
  // raw rates on both sides: the history holds s / n, not the p_max-normalised q
  const now = competenceFrontier(
    family,
    again.map((sc) => ({ ...sc, q: sc.member.n > 0 ? sc.member.s / sc.member.n : null })),
  );
  const before = competenceFrontier(
    family,
    again.map((sc) => ({ ...sc, q: sc.member.history[sc.member.history.length - 1] })),
  );
  return now !== null && before !== null && now > before;
}

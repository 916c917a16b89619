/**
 * Per-environment scores of the environment engineer (ENGINEER.md, "Scores"): normalised success
 * rate, learnability, learning progress, novelty and PLR rank weights. Pure: no database, no Next.js.
 *
 * Conventions (decided here):
 * - q = p / p_max when a validator gave 0 < p_max < 1, else p; a p_max of 1 or more, null or not
 *   finite means "unknown" and leaves q = p.
 * - p_max <= 0 (or validation state "unsolvable") marks an unsolvable environment: normalizedRate
 *   returns null and learnabilityScore 0, so nothing is ever mutated toward it.
 * - learning progress follows Kanitscheider et al. (2021) with one alpha: the fast average is an
 *   EMA of p, the slow average an EMA of the fast one, both with alpha = 0.1.
 */
import { groupLearnability, learnability } from "@/lib/analytics/metrics";
import { novelty } from "@/lib/families/operators";
import type { FieldSpec } from "@/lib/families/types";
import type { PopulationMember } from "./types";

function checkCounts(s: number, n: number): void {
  if (!Number.isInteger(n) || !Number.isInteger(s) || n < 0 || s < 0 || s > n) {
    throw new RangeError(`need integers 0 <= s <= n, got s=${s}, n=${n}`);
  }
}

/** True when a validator says the environment cannot be solved (state "unsolvable" or p_max <= 0). */
export function isUnsolvable(validation: { state?: string | null; pMax?: number | null }): boolean {
  if (validation.state === "unsolvable") return true;
  return typeof validation.pMax === "number" && validation.pMax <= 0;
}

/**
 * Normalised success rate q = (s/n) / p_max clipped to [0, 1] (q = s/n when p_max is unknown or >= 1).
 * Returns null when there is no rate: the environment is unsolvable (p_max <= 0) or has no attempts.
 */
export function normalizedRate(s: number, n: number, pMax?: number | null): number | null {
  checkCounts(s, n);
  if (typeof pMax === "number" && pMax <= 0) return null;
  if (n === 0) return null;
  const p = s / n;
  if (typeof pMax !== "number" || !Number.isFinite(pMax) || pMax >= 1) return p;
  return Math.min(1, p / pMax);
}

/** Posterior mean (s+1)/(n+2) of the success probability under Beta(s+1, n-s+1): the measured rate, shrunk. */
export function posteriorMean(s: number, n: number): number {
  checkCounts(s, n);
  return (s + 1) / (n + 2);
}

/**
 * Learnability of one environment: E[q(1-q)] under Beta(s+1, n-s+1) with p_max normalisation (in
 * [0, 1/4]), or with a GRPO group size G the share of groups with a non-zero advantage
 * E[1 - q^G - (1-q)^G] (in [0, 1]). Unsolvable environments score 0.
 */
export function learnabilityScore(member: Pick<PopulationMember, "n" | "s" | "validation">, groupSize?: number): number {
  if (isUnsolvable(member.validation)) return 0;
  const pMax = member.validation.pMax;
  if (groupSize !== undefined) return groupLearnability(member.n, member.s, groupSize, pMax);
  return learnability(member.n, member.s, pMax);
}

/** The learning-progress reweighting f(p) = p(1-theta) / (p + theta(1-2p)), which stretches low success rates. */
export function progressReweight(p: number, theta = 0.1): number {
  const denominator = p + theta * (1 - 2 * p);
  return denominator <= 0 ? 0 : (p * (1 - theta)) / denominator;
}

/**
 * Learning progress of a success-rate history (oldest first): LP = |f(p_fast) - f(p_slow)| where
 * p_fast is an EMA of p and p_slow an EMA of p_fast, both with `alpha` and started at the first
 * value (Kanitscheider et al. 2021). 0 for fewer than two values or a flat history; values are
 * clipped to [0, 1] and non-finite ones skipped.
 */
export function learningProgress(history: readonly number[], alpha = 0.1, theta = 0.1): number {
  if (!(alpha > 0 && alpha <= 1)) throw new RangeError(`alpha must be in (0, 1], got ${alpha}`);
  if (!(theta > 0 && theta < 0.5)) throw new RangeError(`theta must be in (0, 0.5), got ${theta}`);
  const rates = history.filter((p) => Number.isFinite(p)).map((p) => Math.min(1, Math.max(0, p)));
  if (rates.length < 2) return 0;
  let fast = rates[0];
  let slow = rates[0];
  for (let i = 1; i < rates.length; i++) {
    fast = alpha * rates[i] + (1 - alpha) * fast;
    slow = alpha * fast + (1 - alpha) * slow;
  }
  return Math.abs(progressReweight(fast, theta) - progressReweight(slow, theta));
}

/**
 * Novelty of a config in [0, 1]: normalised distance to the nearest member of `population`
 * (operators.novelty; 1 for an empty population). With `maxReference`, a larger population is
 * thinned to an evenly strided reference set of that size, so the cost stays bounded.
 */
export function noveltyScore(
  family: { fields: readonly FieldSpec[] },
  config: unknown,
  population: readonly unknown[],
  maxReference: number = Number.POSITIVE_INFINITY,
): number {
  if (population.length <= maxReference) return novelty(family, config, population);
  const size = Math.max(1, Math.floor(maxReference));
  const stride = population.length / size;
  const reference: unknown[] = [];
  for (let i = 0; i < size; i++) reference.push(population[Math.floor(i * stride)]);
  return novelty(family, config, reference);
}

/** True when a config hash is already known (exact duplicates never enter a population twice). */
export function isDuplicate(hash: string, knownHashes: ReadonlySet<string> | readonly string[]): boolean {
  return "has" in knownHashes ? knownHashes.has(hash) : knownHashes.includes(hash);
}

/**
 * Replay distribution of Prioritized Level Replay (Jiang et al. 2021): rank prioritisation
 * P_S ∝ h(S_i)^(1/temperature) with h = 1/rank (rank 1 = highest score; tied scores share the
 * better rank; NaN ranks last), mixed as (1 - w) P_S + w P_C with the staleness distribution
 * P_C ∝ staleness (uniform when every staleness is 0). Without `staleness` it is P_S alone.
 * Returns weights that sum to 1 (an empty array for no scores).
 */
export function plrRankWeights(
  scores: readonly number[],
  temperature = 0.3,
  staleness?: readonly number[],
  stalenessWeight = 0.3,
): number[] {
  if (!(temperature > 0)) throw new RangeError(`temperature must be > 0, got ${temperature}`);
  if (!(stalenessWeight >= 0 && stalenessWeight <= 1)) throw new RangeError(`staleness weight must be in [0, 1], got ${stalenessWeight}`);
  if (staleness && staleness.length !== scores.length) {
    throw new RangeError(`staleness has ${staleness.length} values for ${scores.length} scores`);
  }
  const count = scores.length;
  if (count === 0) return [];
  const key = (i: number) => (Number.isNaN(scores[i]) ? Number.NEGATIVE_INFINITY : scores[i]);
  const order = scores.map((_, i) => i).sort((a, b) => key(b) - key(a) || a - b);
  const rank = new Array<number>(count);
  for (let pos = 0; pos < count; pos++) {
    const i = order[pos];
    const prev = pos > 0 ? order[pos - 1] : -1;
    rank[i] = prev >= 0 && key(prev) === key(i) ? rank[prev] : pos + 1;
  }
  const exponent = 1 / temperature;
  const raw = rank.map((r) => Math.exp(-exponent * Math.log(r)));
  const rawSum = raw.reduce((a, b) => a + b, 0);
  const scoreDist = raw.map((x) => x / rawSum);
  if (!staleness) return scoreDist;
  const stale = staleness.map((x) => (Number.isFinite(x) && x > 0 ? x : 0));
  const staleSum = stale.reduce((a, b) => a + b, 0);
  const staleDist = staleSum > 0 ? stale.map((x) => x / staleSum) : stale.map(() => 1 / count);
  return scoreDist.map((p, i) => (1 - stalenessWeight) * p + stalenessWeight * staleDist[i]);
}

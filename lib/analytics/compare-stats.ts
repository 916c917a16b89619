/**
 * Statistics of a run comparison, task by task: Fisher's exact test on each environment's successes
 * (exact for the handful of attempts a task usually has), Newcombe's hybrid score interval for the
 * difference of two success rates, and a seeded bootstrap interval for the mean of per-environment
 * differences. Pure functions; the queries live in lib/compare.
 */

/**
 * Two-sided p-value of Fisher's exact test on the 2×2 table [[s1, n1-s1], [s2, n2-s2]]: the summed
 * probability of every table with the same margins that is no more likely than the observed one
 * (the same rule as scipy.stats.fisher_exact and R's fisher.test).
 */
export function fisherExactTwoSided(s1: number, n1: number, s2: number, n2: number): number {
  for (const [v, name] of [
    [s1, "s1"],
    [n1, "n1"],
    [s2, "s2"],
    [n2, "n2"],
  ] as const) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer`);
  }
  if (s1 > n1 || s2 > n2) throw new RangeError("successes cannot exceed attempts");
  const successes = s1 + s2;
  const total = n1 + n2;
  if (n1 === 0 || n2 === 0 || successes === 0 || successes === total) return 1;
  const lf = new Float64Array(total + 1);
  for (let i = 2; i <= total; i++) lf[i] = lf[i - 1] + Math.log(i);
  const fixed = lf[n1] + lf[n2] + lf[successes] + lf[total - successes] - lf[total];
  // probability of the table whose first row holds x successes (hypergeometric)
  const logP = (x: number) => fixed - lf[x] - lf[n1 - x] - lf[successes - x] - lf[n2 - successes + x];
  const observed = logP(s1);
  const lo = Math.max(0, successes - n2);
  const hi = Math.min(n1, successes);
  let p = 0;
  // relative tolerance as in R, so ties in floating point count as "as extreme"
  const cutoff = observed + Math.log1p(1e-7);
  for (let x = lo; x <= hi; x++) {
    const l = logP(x);
    if (l <= cutoff) p += Math.exp(l);
  }
  return Math.min(1, p);
}

/** Wilson score interval for a proportion s/n at the given z (0..1 bounds); [0, 1] when n is 0. */
export function wilsonInterval(s: number, n: number, z = 1.959963984540054): [number, number] {
  if (n === 0) return [0, 1];
  const p = s / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * Newcombe's hybrid score interval (his method 10, 1998) for the difference of two proportions
 * sB/nB − sA/nA; well-behaved at 0 and 1 and for small n, unlike the Wald interval.
 */
export function newcombeDifference(sA: number, nA: number, sB: number, nB: number, z = 1.959963984540054): [number, number] {
  const pA = nA === 0 ? 0 : sA / nA;
  const pB = nB === 0 ? 0 : sB / nB;
  const [lA, uA] = wilsonInterval(sA, nA, z);
  const [lB, uB] = wilsonInterval(sB, nB, z);
  const d = pB - pA;
  return [Math.max(-1, d - Math.sqrt((pB - lB) ** 2 + (uA - pA) ** 2)), Math.min(1, d + Math.sqrt((uB - pB) ** 2 + (pA - lA) ** 2))];
}

/** A small seeded PRNG (mulberry32): the same data give the same bootstrap interval on every call. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Mean of `values` with a percentile bootstrap interval (resampling the values, seeded so the
 * answer is reproducible); null for no values, a zero-width interval for one value.
 */
export function bootstrapMeanInterval(
  values: readonly number[],
  opts: { level?: number; resamples?: number; seed?: number } = {},
): { mean: number; interval: [number, number] } | null {
  const n = values.length;
  if (n === 0) return null;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean, interval: [mean, mean] };
  const level = opts.level ?? 0.95;
  const resamples = opts.resamples ?? 4000;
  const random = mulberry32(opts.seed ?? 20260101);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[Math.floor(random() * n)];
    means[r] = s / n;
  }
  means.sort();
  const tail = (1 - level) / 2;
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))];
  return { mean, interval: [at(tail), at(1 - tail)] };
}

export type CompareVerdict = "improved" | "regressed" | "unchanged";

/** Improved or regressed when Fisher's test rejects equal success rates at `alpha`; the sign says which. */
export function verdictOf(
  a: { n: number; successes: number },
  b: { n: number; successes: number },
  alpha: number,
): { verdict: CompareVerdict; pValue: number } {
  const pValue = fisherExactTwoSided(b.successes, b.n, a.successes, a.n);
  if (pValue >= alpha || a.n === 0 || b.n === 0) return { verdict: "unchanged", pValue };
  return { verdict: b.successes / b.n > a.successes / a.n ? "improved" : "regressed", pValue };
}

/**
 * The smallest two-sided p-value Fisher's test can give on tables with these margins (n1 and n2 attempts, `successes`
 * in all): a task tried a few times, or passed or failed by both sides every time, can never reach a small p, whatever
 * the policies did. The hypergeometric is unimodal, so the smallest p is that of one of the two extreme tables.
 */
export function fisherMinimumP(n1: number, n2: number, successes: number): number {
  const lo = Math.max(0, successes - n2);
  const hi = Math.min(n1, successes);
  return Math.min(fisherExactTwoSided(lo, n1, successes - lo, n2), fisherExactTwoSided(hi, n1, successes - hi, n2));
}

/**
 * Benjamini-Hochberg adjusted p-values (q-values) of a family of tests, in the order given: the smallest false discovery
 * rate at which each test would be declared a discovery. Rejecting every q <= alpha keeps the expected share of false
 * discoveries among the rejected at most alpha (independent or positively dependent tests).
 */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const q = new Array<number>(m);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const [p, i] = order[rank - 1];
    running = Math.min(running, (p * m) / rank);
    q[i] = running;
  }
  return q;
}

/**
 * Which of many per-task tests survive false discovery control at `alpha`: Benjamini-Hochberg over the tasks whose
 * test could reach `alpha` at all (Tarone's screen, as Gilbert 2005 applies it to discrete tests: tasks that can never
 * be significant only dilute the correction). The others get q = 1.
 */
export function falseDiscoveryControl(
  tests: readonly { pValue: number; minimumP: number }[],
  alpha: number,
): { qValues: number[]; testable: number; discoveries: number } {
  const testable = tests.flatMap((t, i) => (t.minimumP <= alpha ? [i] : []));
  const adjusted = benjaminiHochberg(testable.map((i) => tests[i].pValue));
  const qValues = tests.map(() => 1);
  testable.forEach((i, j) => (qValues[i] = adjusted[j]));
  return { qValues, testable: testable.length, discoveries: qValues.filter((q) => q <= alpha).length };
}

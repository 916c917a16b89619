/**
 * Population metrics over rollouts (PRODUCT.md, "Metrics"). Pure: no database, no Next.js.
 *
 * Everything here starts from per-environment aggregates, so the same code serves a
 * generation, a policy slice of it, or one environment.
 *
 * Conventions (decided here, used everywhere):
 * - success = reward >= threshold (default 1.0); a rollout without a reward counts reward 0
 *   and is counted in `unrewarded`.
 * - success rate and mean reward are pooled over rollouts (Harbor's mean is over all trials,
 *   errored ones included).
 * - pass@k is the unbiased estimator 1 - C(n-c,k)/C(n,k) per environment, averaged over the
 *   environments that have at least k attempts. Harbor's job result only reports k up to the
 *   smallest attempt count, so the question never arises there; the Terminal-Bench
 *   leaderboard skips a task with fewer than k trials for that k, and so do we (padding such
 *   an environment with failures or clipping k would bias the figure).
 * - zero-signal: an environment with n >= 1 whose attempts all passed or all failed; the
 *   fraction is over environments with n >= 1.
 */

/** Default success threshold for 0/1 rewards. */
export const DEFAULT_SUCCESS_THRESHOLD = 1.0;

/** What the metrics need to know about one environment's rollouts. */
export interface EnvironmentAggregate {
  /** rollouts */
  n: number;
  /** successes (reward >= threshold) */
  s: number;
  /** sum of rewards, a missing reward counting 0 */
  rewardSum: number;
  /** best achievable success rate where a validator estimated it */
  pMax?: number | null;
  /** rollouts classified infra_error */
  infraErrors: number;
  /** rollouts with status errored */
  errored: number;
  /** rollouts that carried no reward */
  unrewarded: number;
}

/** One rollout as the aggregation sees it. */
export interface RolloutOutcomeInput {
  environmentKey: string;
  reward?: number | null;
  /** used only when the rollout has no reward */
  success?: boolean | null;
  status?: string | null;
  /** true when the failure classifier put it in infra_error */
  infra?: boolean;
  /** true when the reward is a stand-in (e.g. Harbor trial without a verdict) */
  unrewarded?: boolean;
}

/** Reward and success of one rollout under the project's threshold. */
export interface RolloutOutcome {
  reward: number;
  success: boolean;
  unrewarded: boolean;
}

/** Reward (missing counts 0) and success (reward >= threshold) of one rollout. */
export function rolloutOutcome(
  rollout: { reward?: number | null; success?: boolean | null; unrewarded?: boolean },
  threshold: number = DEFAULT_SUCCESS_THRESHOLD,
): RolloutOutcome {
  const hasReward = typeof rollout.reward === "number" && Number.isFinite(rollout.reward);
  if (!hasReward) {
    // Without a reward the harness's own success flag is the only evidence left.
    return { reward: 0, success: rollout.success === true, unrewarded: true };
  }
  const reward = rollout.reward as number;
  return { reward, success: reward >= threshold, unrewarded: rollout.unrewarded === true };
}

/** An empty aggregate. */
export function emptyAggregate(pMax?: number | null): EnvironmentAggregate {
  return { n: 0, s: 0, rewardSum: 0, pMax: pMax ?? null, infraErrors: 0, errored: 0, unrewarded: 0 };
}

/** Groups rollouts by environment key into aggregates (keys in first-seen order). */
export function aggregateByEnvironment(
  rollouts: Iterable<RolloutOutcomeInput>,
  options: { threshold?: number; pMax?: ReadonlyMap<string, number | null> } = {},
): Map<string, EnvironmentAggregate> {
  const threshold = options.threshold ?? DEFAULT_SUCCESS_THRESHOLD;
  const out = new Map<string, EnvironmentAggregate>();
  for (const r of rollouts) {
    let agg = out.get(r.environmentKey);
    if (!agg) {
      agg = emptyAggregate(options.pMax?.get(r.environmentKey));
      out.set(r.environmentKey, agg);
    }
    const o = rolloutOutcome(r, threshold);
    agg.n += 1;
    agg.s += o.success ? 1 : 0;
    agg.rewardSum += o.reward;
    agg.unrewarded += o.unrewarded ? 1 : 0;
    agg.errored += r.status === "errored" ? 1 : 0;
    agg.infraErrors += r.infra ? 1 : 0;
  }
  return out;
}

function totals(envs: Iterable<EnvironmentAggregate>) {
  let n = 0;
  let s = 0;
  let rewardSum = 0;
  let infra = 0;
  let errored = 0;
  let unrewarded = 0;
  let environments = 0;
  for (const e of envs) {
    environments += 1;
    n += e.n;
    s += e.s;
    rewardSum += e.rewardSum;
    infra += e.infraErrors;
    errored += e.errored;
    unrewarded += e.unrewarded;
  }
  return { n, s, rewardSum, infra, errored, unrewarded, environments };
}

/** Share of rollouts that succeeded (pooled over rollouts); null without rollouts. */
export function successRate(envs: Iterable<EnvironmentAggregate>): number | null {
  const t = totals(envs);
  return t.n === 0 ? null : t.s / t.n;
}

/** Mean reward over all rollouts, errored and unrewarded ones counting 0; null without rollouts. */
export function meanReward(envs: Iterable<EnvironmentAggregate>): number | null {
  const t = totals(envs);
  return t.n === 0 ? null : t.rewardSum / t.n;
}

/** Share of rollouts that failed for infrastructure reasons; null without rollouts. */
export function infraErrorRate(envs: Iterable<EnvironmentAggregate>): number | null {
  const t = totals(envs);
  return t.n === 0 ? null : t.infra / t.n;
}

/**
 * Unbiased pass@k of one environment, 1 - C(n-c,k)/C(n,k), in product form
 * prod_{i<k} (n-c-i)/(n-i) so that no factorial is ever formed; null when n < k.
 */
export function passAtKForEnvironment(n: number, c: number, k: number): number | null {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`pass@k needs an integer k >= 1, got ${k}`);
  if (n < k) return null;
  if (c <= 0) return 0;
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = 0; i < k; i++) allFail *= (n - c - i) / (n - i);
  return 1 - allFail;
}

/** pass@k averaged over environments with at least k attempts; null when there are none. */
export function passAtK(envs: Iterable<EnvironmentAggregate>, k: number): number | null {
  let sum = 0;
  let count = 0;
  for (const e of envs) {
    const v = passAtKForEnvironment(e.n, e.s, k);
    if (v === null) continue;
    sum += v;
    count += 1;
  }
  return count === 0 ? null : sum / count;
}

/**
 * pass@k for k = 1..(most attempts of any environment), keyed by k as a string (API shape).
 * Each environment's product is extended one factor per k (the same factors in the same order as
 * passAtKForEnvironment), so the curve is linear in the attempts, not cubic. Three things keep a
 * generation of a million rollouts (one environment with 58,000 attempts) to milliseconds:
 * environments with the same (n, c) share one pass (a term times how many there are); an
 * environment that never passed adds 0 and is only counted; and once 1 - allFail rounds to
 * exactly 1 (allFail below 2^-54, and it only shrinks) every later term is exactly 1, so that
 * stretch is added as a count. Equal to averaging passAtKForEnvironment per k up to the order
 * of float additions (below 1e-12).
 */
export function passAtKCurve(envs: Iterable<EnvironmentAggregate>): Record<string, number> {
  return curveRecord(passAtKSeries(envs));
}

/**
 * The pass@k curve as an array: element k - 1 is pass@k, for k = 1..(most attempts of any environment); the
 * values of passAtKCurve without an object of tens of thousands of keys (the dashboard charts a few hundred).
 */
export function passAtKSeries(envs: Iterable<EnvironmentAggregate>): Float64Array {
  const groups = new Map<number, Map<number, number>>(); // n -> c -> environments
  let maxN = 0;
  for (const { n, s: c } of envs) {
    if (n < 1) continue;
    maxN = Math.max(maxN, n);
    let byC = groups.get(n);
    if (!byC) groups.set(n, (byC = new Map()));
    byC.set(c, (byC.get(c) ?? 0) + 1);
  }
  // difference arrays: environments with n >= k, and environments whose term is exactly 1 at k
  const counted = new Float64Array(maxN + 2);
  const ones = new Float64Array(maxN + 2);
  const partial = new Float64Array(maxN + 1);
  for (const [n, byC] of groups) {
    for (const [c, m] of byC) {
      counted[1] += m;
      counted[n + 1] -= m;
      if (c <= 0) continue;
      let allFail = 1;
      let k = 1;
      for (; k <= n - c; k++) {
        allFail *= (n - c - (k - 1)) / (n - (k - 1));
        const v = 1 - allFail;
        if (v === 1) break;
        partial[k] += m * v;
      }
      ones[k] += m;
      ones[n + 1] -= m;
    }
  }
  // every k up to maxN has an environment with at least k attempts (the one with maxN), so count > 0 throughout
  const out = new Float64Array(maxN);
  let count = 0;
  let one = 0;
  for (let k = 1; k <= maxN; k++) {
    count += counted[k];
    one += ones[k];
    out[k - 1] = (partial[k] + one) / count;
  }
  return out;
}

function curveRecord(series: Float64Array, keep?: (k: number) => boolean): Record<string, number> {
  const out: Record<string, number> = {};
  for (let k = 1; k <= series.length; k++) if (!keep || keep(k)) out[String(k)] = series[k - 1];
  return out;
}

/** Whether a chart draws k: every k up to `dense`, then k growing by at least `ratio` a step (rounded up), and the last. */
function chartKeeps(ks: readonly number[], dense: number, ratio: number): Set<number> {
  const kept = new Set<number>();
  let next = 0;
  ks.forEach((k, i) => {
    if (k <= dense || k >= next || i === ks.length - 1) {
      kept.add(k);
      next = Math.ceil(k * ratio);
    }
  });
  return kept;
}

/**
 * The points of a pass@k curve a chart draws: every k up to `dense`, then k growing by at least `ratio` each step
 * (rounded up), and always the largest k; values as in the full curve. A 58,000-attempt environment's curve is 633 KB
 * of JSON at every k and about 230 points here. For views that chart the curve (/analytics); the generation detail of
 * the API keeps every k.
 */
export function passAtKChartPoints(curve: Record<string, number>, dense = 100, ratio = 1.05): Record<string, number> {
  const ks = Object.keys(curve)
    .map(Number)
    .sort((a, b) => a - b);
  const out: Record<string, number> = {};
  for (const k of chartKeeps(ks, dense, ratio)) out[String(k)] = curve[String(k)];
  return out;
}

/** passAtKChartPoints of passAtKSeries's curve, straight from the array. */
export function seriesChartPoints(series: Float64Array, dense = 100, ratio = 1.05): Record<string, number> {
  const kept = chartKeeps(
    Array.from({ length: series.length }, (_, i) => i + 1),
    dense,
    ratio,
  );
  return curveRecord(series, (k) => kept.has(k));
}

// --- Beta posterior helpers -------------------------------------------------------------

/** Natural log of the gamma function (Lanczos, g = 7), for x > 0. */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/**
 * E[g(min(X/pMax, 1))] for X ~ Beta(a, b), for a g with g(1) = 0, by composite Simpson over
 * [0, pMax] intersected with mean +- 12 sd (the Beta mass outside is below 1e-30).
 */
function expectScaled(a: number, b: number, pMax: number, g: (q: number) => number): number {
  const mean = a / (a + b);
  const sd = Math.sqrt((a * b) / ((a + b) ** 2 * (a + b + 1)));
  const lo = Math.max(0, mean - 12 * sd);
  const hi = Math.min(pMax, mean + 12 * sd);
  if (hi <= lo) return 0;
  const logNorm = logGamma(a + b) - logGamma(a) - logGamma(b);
  const density = (x: number) => {
    if (x <= 0) return a === 1 ? Math.exp(logNorm) : 0;
    if (x >= 1) return b === 1 ? Math.exp(logNorm) : 0;
    return Math.exp(logNorm + (a - 1) * Math.log(x) + (b - 1) * Math.log1p(-x));
  };
  const steps = 2048; // even
  const h = (hi - lo) / steps;
  let sum = 0;
  for (let i = 0; i <= steps; i++) {
    const x = lo + i * h;
    const w = i === 0 || i === steps ? 1 : i % 2 === 1 ? 4 : 2;
    sum += w * g(x / pMax) * density(x);
  }
  return (sum * h) / 3;
}

/** Answers of expectScaled kept for reuse (bounded; the oldest go first). */
const SCALED_MEMO_LIMIT = 100_000;
const scaledMemo = new Map<string, number>();

/**
 * expectScaled for (a, b, pMax, what g is), remembered: the engineer's summary and its scoring ask for
 * the same members' learnability, and every proposal on a generation asks again (10,000 members
 * of 2,049 density evaluations each). The same figures bit for bit, so rankings cannot move.
 */
function expectScaledMemo(a: number, b: number, pMax: number, what: string, g: (q: number) => number): number {
  const key = `${what}:${a}:${b}:${pMax}`;
  let value = scaledMemo.get(key);
  if (value === undefined) {
    value = expectScaled(a, b, pMax, g);
    if (scaledMemo.size >= SCALED_MEMO_LIMIT) scaledMemo.delete(scaledMemo.keys().next().value as string);
    scaledMemo.set(key, value);
  }
  return value;
}

/** Beta(s+1, n-s+1) posterior parameters of an environment's success probability. */
export function betaPosterior(n: number, s: number): { a: number; b: number } {
  if (n < 0 || s < 0 || s > n) throw new RangeError(`need 0 <= s <= n, got s=${s}, n=${n}`);
  return { a: s + 1, b: n - s + 1 };
}

function usablePMax(pMax: number | null | undefined): number | null {
  if (pMax === null || pMax === undefined || !Number.isFinite(pMax)) return null;
  return pMax >= 1 ? null : pMax;
}

/**
 * Learnability E[q(1-q)] of one environment, q ~ posterior Beta(s+1, n-s+1) of its success
 * probability; closed form E[q] - E[q^2] = ab/((a+b)(a+b+1)). With a known pMax < 1,
 * q = min(X/pMax, 1): posterior mass above what is achievable counts as solved (no signal),
 * which keeps the value in [0, 1/4]; pMax <= 0 (unsolvable) gives 0.
 */
export function learnability(n: number, s: number, pMax?: number | null): number {
  const { a, b } = betaPosterior(n, s);
  const p = usablePMax(pMax);
  if (p === null) return (a * b) / ((a + b) * (a + b + 1));
  if (p <= 0) return 0;
  return expectScaledMemo(a, b, p, "L", (q) => q * (1 - q));
}

/** E[X^g] for X ~ Beta(a, b): prod_{i<g} (a+i)/(a+b+i). */
function betaRawMoment(a: number, b: number, g: number): number {
  let m = 1;
  for (let i = 0; i < g; i++) m *= (a + i) / (a + b + i);
  return m;
}

/**
 * GRPO learnability: probability that a group of G attempts is not all-pass or all-fail,
 * E[1 - q^G - (1-q)^G] under the same posterior (Beta moments; pMax scaling as in learnability).
 */
export function groupLearnability(n: number, s: number, groupSize: number, pMax?: number | null): number {
  if (!Number.isInteger(groupSize) || groupSize < 1) throw new RangeError(`group size must be an integer >= 1, got ${groupSize}`);
  const { a, b } = betaPosterior(n, s);
  const p = usablePMax(pMax);
  if (p === null) return 1 - betaRawMoment(a, b, groupSize) - betaRawMoment(b, a, groupSize);
  if (p <= 0) return 0;
  return expectScaledMemo(a, b, p, `G${groupSize}`, (q) => 1 - q ** groupSize - (1 - q) ** groupSize);
}

/** Learnability of an aggregate (its pMax applied). */
export function environmentLearnability(env: EnvironmentAggregate): number {
  return learnability(env.n, env.s, env.pMax);
}

/** Population mean learnability over environments; null without environments. */
export function meanLearnability(envs: Iterable<EnvironmentAggregate>): number | null {
  let sum = 0;
  let count = 0;
  for (const e of envs) {
    sum += environmentLearnability(e);
    count += 1;
  }
  return count === 0 ? null : sum / count;
}

/** True when an environment has attempts and they all passed or all failed. */
export function isZeroSignal(env: Pick<EnvironmentAggregate, "n" | "s">): boolean {
  return env.n >= 1 && (env.s === 0 || env.s === env.n);
}

/** Share of environments (with n >= 1) whose attempts all passed or all failed; null if none. */
export function zeroSignalFraction(envs: Iterable<EnvironmentAggregate>): number | null {
  let zero = 0;
  let counted = 0;
  for (const e of envs) {
    if (e.n < 1) continue;
    counted += 1;
    if (isZeroSignal(e)) zero += 1;
  }
  return counted === 0 ? null : zero / counted;
}

// --- Tiers ------------------------------------------------------------------------------

/** Tmax difficulty tiers, hardest first. */
export const DIFFICULTY_TIERS = ["frontier", "advanced", "core", "solved"] as const;
export type DifficultyTier = (typeof DIFFICULTY_TIERS)[number];

/** Tier of a success rate: frontier < 40%, advanced 40-60%, core 60-80%, solved >= 80%. */
export function difficultyTier(rate: number): DifficultyTier {
  if (rate < 0.4) return "frontier";
  if (rate < 0.6) return "advanced";
  if (rate < 0.8) return "core";
  return "solved";
}

/** Tier of an environment from its per-policy results: the best policy's success rate decides. */
export function environmentTier(perPolicy: Iterable<Pick<EnvironmentAggregate, "n" | "s">>): DifficultyTier | null {
  let best: number | null = null;
  for (const p of perPolicy) {
    if (p.n < 1) continue;
    const rate = p.s / p.n;
    if (best === null || rate > best) best = rate;
  }
  return best === null ? null : difficultyTier(best);
}

/** Count of environments per tier (every tier present, zero when empty). */
export function tierHistogram(tiers: Iterable<DifficultyTier | null>): Record<DifficultyTier, number> {
  const out: Record<DifficultyTier, number> = { frontier: 0, advanced: 0, core: 0, solved: 0 };
  for (const t of tiers) if (t) out[t] += 1;
  return out;
}

// --- Population summary -----------------------------------------------------------------

/** The metrics block of a generation (API: GET .../generations/{index}). */
export interface PopulationMetrics {
  rollouts: number;
  environments: number;
  successRate: number | null;
  meanReward: number | null;
  passAtK: Record<string, number>;
  learnability: number | null;
  zeroSignalFraction: number | null;
  infraErrorRate: number | null;
  errored: number;
  unrewarded: number;
}

/**
 * All population metrics of a set of environment aggregates; `passAtK: "chart"` keeps the curve's chart points only
 * (seriesChartPoints), without building the curve at every k first.
 */
export function populationMetrics(envs: Iterable<EnvironmentAggregate>, options: { passAtK?: "every" | "chart" } = {}): PopulationMetrics {
  const list = [...envs];
  const series = passAtKSeries(list);
  // one pass for the totals (successRate, meanReward and infraErrorRate are these ratios)
  const t = totals(list);
  return {
    rollouts: t.n,
    environments: t.environments,
    successRate: t.n === 0 ? null : t.s / t.n,
    meanReward: t.n === 0 ? null : t.rewardSum / t.n,
    passAtK: options.passAtK === "chart" ? seriesChartPoints(series) : curveRecord(series),
    learnability: meanLearnability(list),
    zeroSignalFraction: zeroSignalFraction(list),
    infraErrorRate: t.n === 0 ? null : t.infra / t.n,
    errored: t.errored,
    unrewarded: t.unrewarded,
  };
}

// --- Per-field breakdown ----------------------------------------------------------------

/** Field kinds of a family (PRODUCT.md, "Concepts"). */
export type FieldKind = "integer" | "number" | "ordinal" | "nominal" | "boolean";

/** What the breakdown needs to know about a field. */
export interface BreakdownField {
  kind: FieldKind;
  /** declared order of ordinal (and nominal) levels */
  levels?: readonly (string | number | boolean)[];
}

/** One environment: its value of the field and its aggregate. */
export interface BreakdownItem {
  value: unknown;
  env: Pick<EnvironmentAggregate, "n" | "s" | "rewardSum">;
}

/** One bucket of a breakdown. */
export interface BreakdownBucket {
  label: string;
  /** the level for categorical fields */
  value?: string | number | boolean | null;
  /** bin edges for numeric fields ([lo, hi), the last bin closed) */
  lo?: number;
  hi?: number;
  environments: number;
  rollouts: number;
  successes: number;
  successRate: number | null;
  meanReward: number | null;
}

/** Success by value of one config field. */
export interface FieldBreakdown {
  kind: FieldKind;
  buckets: BreakdownBucket[];
}

function bucketFrom(label: string, items: BreakdownItem[], extra: Partial<BreakdownBucket>): BreakdownBucket {
  let rollouts = 0;
  let successes = 0;
  let rewardSum = 0;
  for (const it of items) {
    rollouts += it.env.n;
    successes += it.env.s;
    rewardSum += it.env.rewardSum;
  }
  return {
    label,
    ...extra,
    environments: items.length,
    rollouts,
    successes,
    successRate: rollouts === 0 ? null : successes / rollouts,
    meanReward: rollouts === 0 ? null : rewardSum / rollouts,
  };
}

const MISSING_LABEL = "(missing)";

/**
 * Success by field value: one bucket per level for nominal/ordinal/boolean fields (declared
 * level order first, then unseen values sorted), equal-width bins over the observed range
 * for numeric fields; environments without a value go to a trailing "(missing)" bucket.
 */
export function fieldBreakdown(items: readonly BreakdownItem[], field: BreakdownField, bins = 5): FieldBreakdown {
  const missing = items.filter((it) => it.value === null || it.value === undefined);
  const present = items.filter((it) => it.value !== null && it.value !== undefined);
  const buckets: BreakdownBucket[] = [];

  if (field.kind === "integer" || field.kind === "number") {
    const numeric = present.filter((it) => typeof it.value === "number" && Number.isFinite(it.value));
    const other = present.filter((it) => !(typeof it.value === "number" && Number.isFinite(it.value)));
    missing.push(...other);
    if (numeric.length > 0) {
      const values = numeric.map((it) => it.value as number);
      const min = Math.min(...values);
      const max = Math.max(...values);
      if (min === max) {
        buckets.push(bucketFrom(formatEdge(min), numeric, { lo: min, hi: max }));
      } else {
        const width = (max - min) / bins;
        const groups: BreakdownItem[][] = Array.from({ length: bins }, () => []);
        for (const it of numeric) {
          const idx = Math.min(bins - 1, Math.floor(((it.value as number) - min) / width));
          groups[idx].push(it);
        }
        groups.forEach((group, i) => {
          const lo = min + i * width;
          const hi = i === bins - 1 ? max : min + (i + 1) * width;
          const label = `${formatEdge(lo)}–${formatEdge(hi)}`;
          buckets.push(bucketFrom(label, group, { lo, hi }));
        });
      }
    }
  } else {
    const groups = new Map<string, { value: string | number | boolean; items: BreakdownItem[] }>();
    const keyOf = (v: unknown) => `${typeof v}:${String(v)}`;
    const declared = field.kind === "boolean" ? [false, true] : (field.levels ?? []);
    for (const level of declared) groups.set(keyOf(level), { value: level, items: [] });
    const unseen: string[] = [];
    for (const it of present) {
      const v = it.value;
      if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") {
        missing.push(it);
        continue;
      }
      const key = keyOf(v);
      let g = groups.get(key);
      if (!g) {
        g = { value: v, items: [] };
        groups.set(key, g);
        unseen.push(key);
      }
      g.items.push(it);
    }
    const declaredKeys = declared.map(keyOf);
    unseen.sort((x, y) => String(groups.get(x)!.value).localeCompare(String(groups.get(y)!.value)));
    for (const key of [...declaredKeys, ...unseen]) {
      const g = groups.get(key)!;
      buckets.push(bucketFrom(typeof g.value === "number" ? formatEdge(g.value) : String(g.value), g.items, { value: g.value }));
    }
  }

  if (missing.length > 0) buckets.push(bucketFrom(MISSING_LABEL, missing, { value: null }));
  return { kind: field.kind, buckets };
}

function formatEdge(x: number): string {
  return Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(4)));
}

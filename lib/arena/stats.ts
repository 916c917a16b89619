/** Statistics of the arena: interquartile mean, bootstrap intervals, level crossings and areas under curves. */
import { createRng } from "@/lib/families/rng";

/**
 * Interquartile mean: the mean of the values left after cutting floor(n/4) from each end of the
 * sorted list (scipy's trim_mean(x, 0.25), as rliable uses); NaN for no values.
 */
export function iqm(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length / 4);
  const middle = sorted.slice(cut, sorted.length - cut);
  return middle.reduce((a, b) => a + b, 0) / middle.length;
}

/** The q-quantile of sorted values (linear interpolation between order statistics). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = Math.min(1, Math.max(0, q)) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/**
 * Percentile bootstrap interval of a statistic over seeds: `resamples` draws of n values with
 * replacement (seeded, so deterministic), the (1-level)/2 and (1+level)/2 quantiles of the statistic.
 */
export function bootstrapInterval(
  values: readonly number[],
  statistic: (sample: number[]) => number = iqm,
  opts: { resamples?: number; level?: number; seed?: number | string } = {},
): [number, number] {
  if (values.length === 0) return [Number.NaN, Number.NaN];
  const resamples = opts.resamples ?? 2000;
  const level = opts.level ?? 0.95;
  const rng = createRng(opts.seed ?? "arena:bootstrap");
  const stats: number[] = new Array(resamples);
  const sample: number[] = new Array(values.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < values.length; i++) sample[i] = values[Math.floor(rng.next() * values.length)];
    stats[r] = statistic(sample);
  }
  stats.sort((a, b) => a - b);
  return [quantile(stats, (1 - level) / 2), quantile(stats, (1 + level) / 2)];
}

/**
 * First x at which a curve reaches `level`, interpolating linearly between recorded points; null
 * when it never does. The curve's x values must be non-decreasing.
 */
export function firstCrossing(xs: readonly number[], ys: readonly number[], level: number): number | null {
  for (let i = 0; i < ys.length; i++) {
    if (ys[i] < level) continue;
    if (i === 0) return xs[0];
    const [x0, x1, y0, y1] = [xs[i - 1], xs[i], ys[i - 1], ys[i]];
    return y1 === y0 ? x1 : x0 + ((level - y0) / (y1 - y0)) * (x1 - x0);
  }
  return null;
}

/**
 * Area under a step-recorded curve over [0, end], divided by end: trapezoids between points, the
 * last value held until `end`.
 */
export function normalizedArea(xs: readonly number[], ys: readonly number[], end: number): number {
  if (xs.length === 0 || end <= 0) return 0;
  let area = 0;
  for (let i = 1; i < xs.length; i++) {
    const x0 = Math.min(xs[i - 1], end);
    const x1 = Math.min(xs[i], end);
    area += ((ys[i - 1] + ys[i]) / 2) * (x1 - x0);
  }
  const last = Math.min(xs[xs.length - 1], end);
  area += ys[ys.length - 1] * (end - last);
  return area / end;
}

/** The curve's value at x (linear interpolation, held constant beyond the ends). */
export function valueAt(xs: readonly number[], ys: readonly number[], x: number): number {
  if (xs.length === 0) return Number.NaN;
  if (x <= xs[0]) return ys[0];
  for (let i = 1; i < xs.length; i++) {
    if (xs[i] >= x) {
      const span = xs[i] - xs[i - 1];
      return span === 0 ? ys[i] : ys[i - 1] + ((x - xs[i - 1]) / span) * (ys[i] - ys[i - 1]);
    }
  }
  return ys[ys.length - 1];
}

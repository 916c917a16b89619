/**
 * Percentiles of a column from its value counts, equal to Postgres's `percentile_cont` over the rows. Pure.
 */

/** A value of a column and how many rows hold it. */
export interface ValueCount {
  value: number;
  n: number;
}

/**
 * `percentile_cont(f) within group (order by x)` over the rows the counts stand for: the sorted rows' value at
 * position f * (rows - 1), interpolated between its two neighbours in Postgres's float8 arithmetic
 * (lo + (pos - floor(pos)) * (hi - lo)), so the result is the same double. null when there are no rows.
 */
export function percentileCont(counts: readonly ValueCount[], f: number): number | null {
  if (!(f >= 0 && f <= 1)) throw new RangeError(`percentile must be between 0 and 1, got ${f}`);
  const sorted = counts.filter((c) => c.n > 0).sort((a, b) => a.value - b.value);
  const rows = sorted.reduce((sum, c) => sum + c.n, 0);
  if (rows === 0) return null;
  const at = (row: number): number => {
    let seen = 0;
    for (const c of sorted) {
      seen += c.n;
      if (row < seen) return c.value;
    }
    return sorted[sorted.length - 1].value;
  };
  const pos = f * (rows - 1);
  const first = Math.floor(pos);
  const lo = at(first);
  if (first === Math.ceil(pos)) return lo;
  return lo + (pos - first) * (at(first + 1) - lo);
}

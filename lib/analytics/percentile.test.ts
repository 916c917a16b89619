import { describe, expect, it } from "vitest";
import { percentileCont } from "./percentile";

/** The definition over the rows themselves: sort, take position f * (rows - 1), interpolate (Postgres's float8 arithmetic). */
function overRows(values: number[], f: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = f * (sorted.length - 1);
  const first = Math.floor(pos);
  const second = Math.ceil(pos);
  return first === second ? sorted[first] : sorted[first] + (pos - first) * (sorted[second] - sorted[first]);
}

const countsOf = (values: number[]) => {
  const m = new Map<number, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m].map(([value, n]) => ({ value, n }));
};

describe("percentileCont", () => {
  it("gives Postgres's percentile_cont doubles (values checked in psql)", () => {
    // select percentile_cont(0.9) within group (order by x) from unnest(array[1,2,3,4]) x -> 3.7
    expect(percentileCont(countsOf([1, 2, 3, 4]), 0.9)).toBe(3.7);
    expect(percentileCont(countsOf([4, 1, 3, 2]), 0.5)).toBe(2.5);
    // bench:engineer's million rollouts: turns 5..24 (50,000 each): median 14.5, p90 22.099999999976717
    const turns = Array.from({ length: 20 }, (_, i) => ({ value: 5 + i, n: 50_000 }));
    expect(percentileCont(turns, 0.5)).toBe(14.5);
    expect(percentileCont(turns, 0.9)).toBe(22.099999999976717);
  });

  it("equals the definition over the rows, whatever the order, ties and zero counts of the value counts", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 300; trial++) {
      const values = Array.from({ length: 1 + Math.floor(next() * 40) }, () => Math.floor(next() * (trial % 3 ? 8 : 1000)) - 3);
      const counts = countsOf(values).sort(() => next() - 0.5);
      if (trial % 4 === 0) counts.push({ value: 99_999, n: 0 }); // a value with no rows takes no position
      for (const f of [0, 0.1, 0.25, 0.5, 0.9, 0.99, 1]) expect(percentileCont(counts, f), `${values} at ${f}`).toBe(overRows(values, f));
    }
  });

  it("is null without rows and one row's value with one row", () => {
    expect(percentileCont([], 0.5)).toBeNull();
    expect(percentileCont([{ value: 3, n: 0 }], 0.5)).toBeNull();
    expect(percentileCont([{ value: 7, n: 1 }], 0.9)).toBe(7);
    expect(() => percentileCont([{ value: 7, n: 1 }], 1.5)).toThrow(RangeError);
  });
});

import { describe, expect, it } from "vitest";
import { chartComparison } from "./comparison-chart";
import type { ComparisonPoint, PolicyComparison } from "./views";

const point = (key: string, a: number | null, b: number | null): ComparisonPoint => ({
  key,
  a: { n: 10, s: a === null ? 0 : a * 10, rate: a },
  b: { n: 10, s: b === null ? 0 : b * 10, rate: b },
  delta: a === null || b === null ? null : b - a,
});

function comparison(points: ComparisonPoint[]): PolicyComparison {
  return { a: "p", b: "q", points, improved: 0, regressed: 0, unchanged: 0, margin: 0.2 };
}

describe("chartComparison", () => {
  const changed = [point("up", 0.1, 0.9), point("down", 0.8, 0.2), point("one-sided", null, 0.5), point("edge", 0.3, 0.5)];
  const still = Array.from({ length: 3000 }, (_, i) => point(`s${i}`, (i % 100) / 100, (i % 100) / 100 + 0.05));

  it("keeps every changed and one-sided environment (a change of exactly the margin is one) and at most the cap of the rest", () => {
    const c = chartComparison(comparison([...changed, ...still]), 500);
    const keys = new Set(c.points.map((p) => p.key));
    for (const p of changed) expect(keys.has(p.key)).toBe(true);
    expect(c.points).toHaveLength(changed.length + 500);
    expect(c.unchangedDrawn).toEqual({ shown: 500, of: 3000 });
    expect(new Set(c.points.filter((p) => p.key.startsWith("s")).map((p) => p.key)).size).toBe(500);
  });

  it("spreads the drawn ones over the cloud: the lowest and highest rates and every rate between in proportion", () => {
    const c = chartComparison(comparison(still), 500);
    const rates = c.points.map((p) => p.a.rate!);
    expect(Math.min(...rates)).toBe(0);
    expect(Math.max(...rates)).toBeGreaterThanOrEqual(0.98);
    // 100 distinct rates, 30 environments each: every rate drawn 5 times
    const per = new Map<number, number>();
    for (const r of rates) per.set(r, (per.get(r) ?? 0) + 1);
    expect([...per.values()].every((n) => n === 5)).toBe(true);
  });

  it("leaves a comparison within the cap as it is, and is the same whatever order the points came in", () => {
    const small = comparison([...changed, ...still.slice(0, 10)]);
    expect(chartComparison(small, 500)).toEqual({ ...small, unchangedDrawn: { shown: 10, of: 10 } });
    const once = chartComparison(comparison(still), 300).points.map((p) => p.key);
    const again = chartComparison(comparison([...still].reverse()), 300).points.map((p) => p.key);
    expect(again).toEqual(once);
  });
});

import { describe, expect, it } from "vitest";
import { STACK_KEYS, changeOf, chartComparison, stackPoints } from "./comparison-chart";
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

const total = (stacks: { n: number }[]) => stacks.reduce((sum, s) => sum + s.n, 0);

describe("changeOf", () => {
  it("is improved or regressed from the margin on, in the direction of the change, and unchanged below it", () => {
    expect(changeOf(0.2, 0.2)).toBe("improved");
    expect(changeOf(-0.2, 0.2)).toBe("regressed");
    expect(changeOf(0.19, 0.2)).toBe("unchanged");
    expect(changeOf(-0.19, 0.2)).toBe("unchanged");
    expect(changeOf(0, 0)).toBe("unchanged");
  });
});

describe("stackPoints", () => {
  it("puts environments with the same two rates in one stack, counted, and keeps different pairs apart", () => {
    const stacks = stackPoints(
      [point("c", 0, 0), point("a", 0, 0), point("b", 0, 0), point("d", 0, 1), point("e", 1, 0), point("f", 0.2, 0), point("g", null, 1)],
      0.2,
    );
    expect(stacks).toEqual([
      { x: 0, y: 0, change: "unchanged", n: 3, keys: ["a", "b", "c"] },
      { x: 0, y: 1, change: "improved", n: 1, keys: ["d"] },
      { x: 0.2, y: 0, change: "regressed", n: 1, keys: ["f"] },
      { x: 1, y: 0, change: "regressed", n: 1, keys: ["e"] },
    ]);
  });

  it("counts every environment of a stack but carries only the first keys in key order", () => {
    const many = Array.from({ length: 40 }, (_, i) => point(`env-${String(39 - i).padStart(2, "0")}`, 0.5, 0.5));
    const [stack] = stackPoints(many, 0.2);
    expect(stack.n).toBe(40);
    expect(stack.keys).toHaveLength(STACK_KEYS);
    expect(stack.keys[0]).toBe("env-00");
    expect(stack.keys[STACK_KEYS - 1]).toBe(`env-${String(STACK_KEYS - 1).padStart(2, "0")}`);
  });
});

describe("chartComparison", () => {
  const changed = [point("up", 0.1, 0.9), point("down", 0.8, 0.2), point("one-sided", null, 0.5), point("edge", 0.3, 0.5)];
  // 3,000 unchanged environments on 100 distinct pairs of rates, 30 each
  const still = Array.from({ length: 3000 }, (_, i) => point(`s${i}`, (i % 100) / 100, (i % 100) / 100 + 0.05));

  it("draws each distinct pair of rates once, with its count, and keeps the changed and one-sided environments one by one", () => {
    const c = chartComparison(comparison([...changed, ...still]), 500);
    expect(c.stacks).toHaveLength(3 + 100);
    expect(total(c.stacks)).toBe(3 + 3000);
    expect(c.stacks.filter((s) => s.change === "unchanged").every((s) => s.n === 30)).toBe(true);
    expect(c.unchangedDrawn).toEqual({ shown: 3000, of: 3000 });
    // the listed points: everything but the unchanged (a change of exactly the margin is one)
    expect(c.points.map((p) => p.key).sort()).toEqual(["down", "edge", "one-sided", "up"]);
    expect(c.stacks.find((s) => s.keys.includes("edge"))?.change).toBe("improved");
    expect(c.stacks.find((s) => s.keys.includes("down"))?.change).toBe("regressed");
  });

  it("beyond the cap draws every k-th unchanged mark along the diagonal and says how many environments they hold", () => {
    const c = chartComparison(comparison([...changed, ...still]), 20);
    const drawn = c.stacks.filter((s) => s.change === "unchanged");
    expect(drawn).toHaveLength(20);
    expect(c.stacks.filter((s) => s.change !== "unchanged")).toHaveLength(3);
    expect(c.unchangedDrawn).toEqual({ shown: 20 * 30, of: 3000 });
    const rates = drawn.map((s) => s.x);
    expect(rates[0]).toBe(0);
    expect(rates).toEqual([...rates].sort((x, y) => x - y));
    expect(rates[19]).toBeGreaterThanOrEqual(0.95);
  });

  it("is the same whatever order the points came in", () => {
    const once = chartComparison(comparison([...changed, ...still]), 30);
    const again = chartComparison(comparison([...still, ...changed].reverse()), 30);
    expect(again.stacks).toEqual(once.stacks);
    expect(new Set(again.points.map((p) => p.key))).toEqual(new Set(once.points.map((p) => p.key)));
  });
});

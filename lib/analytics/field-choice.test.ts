import { describe, expect, it } from "vitest";
import type { FieldBreakdownView } from "./views";
import { defaultBreakdownField } from "./field-choice";

const bucket = (value: string | number | null, environments: number) => ({
  label: value === null ? "(missing)" : String(value),
  value,
  environments,
  rollouts: environments,
  successes: 0,
  successRate: 0,
  meanReward: null,
});
const field = (path: string, buckets: ReturnType<typeof bucket>[], direction: FieldBreakdownView["direction"] = null): FieldBreakdownView =>
  ({ path, kind: "nominal", buckets, direction, difficulty: null }) as FieldBreakdownView;

describe("defaultBreakdownField", () => {
  it("never opens on a field every task lacks when another has values (Harbor: most fields unset)", () => {
    const lacking = field("agent.timeout_sec", [bucket(null, 88)], "precision");
    const constant = field("category", [bucket("software-engineering", 88)]);
    expect(defaultBreakdownField([lacking, constant])?.path).toBe("category");
  });

  it("prefers a varying field with a direction, then any varying field, by coverage", () => {
    const sparse = field("a", [bucket("x", 2), bucket("y", 1), bucket(null, 85)]);
    const wide = field("b", [bucket("x", 40), bucket("y", 48)]);
    expect(defaultBreakdownField([sparse, wide])?.path).toBe("b");
    const directed = field("c", [bucket(1, 3), bucket(2, 3), bucket(null, 82)], "horizon");
    expect(defaultBreakdownField([sparse, wide, directed])?.path).toBe("c");
  });

  it("falls back to the first field, and to nothing without fields", () => {
    const empty = field("e", [bucket(null, 4)]);
    expect(defaultBreakdownField([empty])?.path).toBe("e");
    expect(defaultBreakdownField([])).toBeUndefined();
  });
});

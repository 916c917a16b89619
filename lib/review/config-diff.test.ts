import { describe, expect, it } from "vitest";
import { ABSENT, diffConfigs, showValue } from "./config-diff";

describe("diffConfigs", () => {
  it("marks changed leaves of nested objects and keeps false, 0 and empty strings", () => {
    const rows = diffConfigs({ a: 1, b: { c: false, d: "" }, e: [1, 2] }, { a: 0, b: { c: false, d: "x" }, e: [1, 2], f: true });
    expect(rows.map((r) => [r.path, r.changed])).toEqual([
      ["a", true],
      ["b.c", false],
      ["b.d", true],
      ["e", false],
      ["f", true],
    ]);
    expect(rows.find((r) => r.path === "f")!.before).toBe(ABSENT);
    expect(showValue(rows[0].after)).toBe("0");
    expect(showValue(rows[1].after)).toBe("false");
    expect(showValue(rows[2].before)).toBe('""');
    expect(showValue(ABSENT)).toBe("(absent)");
  });

  it("reports a removed key and an array change", () => {
    const rows = diffConfigs({ a: [1], gone: 3 }, { a: [2] });
    expect(rows).toEqual([
      { path: "a", before: [1], after: [2], changed: true },
      { path: "gone", before: 3, after: ABSENT, changed: true },
    ]);
  });
});

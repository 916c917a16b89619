import { describe, expect, it } from "vitest";
import { FAILURE_CATEGORIES } from "@/lib/analytics/failures";
import { CATEGORY_LINE_CHARS, categoryLines } from "./axis-labels";

describe("categoryLines", () => {
  it("keeps a name that fits on one line", () => {
    expect(categoryLines("verifier_timeout")).toEqual(["verifier_timeout"]);
    expect(categoryLines("format_error")).toEqual(["format_error"]);
  });

  it("breaks a longer name after an underscore, the first line as full as it fits", () => {
    expect(categoryLines("environment_broken_by_agent")).toEqual(["environment_", "broken_by_agent"]);
    expect(categoryLines("context_length_exceeded")).toEqual(["context_length_", "exceeded"]);
  });

  it("fits every failure category in two whole lines of the axis's width", () => {
    for (const category of FAILURE_CATEGORIES) {
      const lines = categoryLines(category);
      expect(lines.length, category).toBeLessThanOrEqual(2);
      expect(lines.join(""), category).toBe(category);
      for (const line of lines) expect(line.length, category).toBeLessThanOrEqual(CATEGORY_LINE_CHARS);
    }
  });

  it("cuts what does not fit in two lines, and a word longer than a line, with an ellipsis", () => {
    expect(categoryLines("a_very_long_custom_category_name_here", 10)).toEqual(["a_very_", "long_cust…"]);
    expect(categoryLines("supercalifragilistic", 10)).toEqual(["supercali…"]);
  });
});

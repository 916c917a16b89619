import { describe, expect, it } from "vitest";
import { parseMarked, snippetAnchors, snippetOf, substringPattern } from "./search";

describe("search snippets", () => {
  it("turns ts_headline's marks into plain text with offsets, whitespace collapsed", () => {
    const s = parseMarked("ran \u0001pytest\u0002 and\n\n got \u0001Segmentation\u0002 \u0001fault\u0002");
    expect(s.text).toBe("ran pytest and got Segmentation fault");
    expect(s.highlights.map(([a, b]) => s.text.slice(a, b))).toEqual(["pytest", "Segmentation", "fault"]);
  });

  it("keeps markup as text: a snippet never carries HTML to render", () => {
    const s = parseMarked('<img src=x onerror="alert(1)"> \u0001hit\u0002');
    expect(s.text).toBe('<img src=x onerror="alert(1)"> hit');
    expect(s.highlights).toEqual([[31, 34]]);
  });

  it("falls back to the substring around a match, case-insensitively, when full-text marked nothing", () => {
    const around = `${"x".repeat(200)} path /usr/lib/PGMPY/models.py here ${"y".repeat(200)}`;
    const s = snippetOf(null, around, "pgmpy");
    expect(s.text.slice(s.highlights[0][0], s.highlights[0][1])).toBe("PGMPY");
    expect(s.text.length).toBeLessThan(200);
    expect(snippetOf(null, "nothing here", "pgmpy")).toEqual({ text: "nothing here", highlights: [] });
    expect(snippetOf("a \u0001b\u0002", "ignored", "b").highlights).toEqual([[2, 3]]);
  });

  it("anchors: the query, its words, then stems; substring patterns escape LIKE wildcards and need 3 characters", () => {
    expect(snippetAnchors("Segmentation fault", ["segment", "fault"])).toEqual(["segmentation fault", "segmentation", "fault", "segment"]);
    expect(substringPattern("100%_a\\b")).toBe("%100\\%\\_a\\\\b%");
    expect(substringPattern("ab")).toBeNull();
  });
});

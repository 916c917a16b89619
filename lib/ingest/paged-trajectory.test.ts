import { describe, expect, it } from "vitest";
import { trajectoryJson } from "./paged-trajectory";

const messages = (n: number) => Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "tool" : "assistant", content: `m${i} "q"\n` }));

describe("trajectoryJson", () => {
  it("gives a short trajectory whole, exactly JSON.stringify's text, across page boundaries", () => {
    for (const n of [0, 1, 3, 4, 5, 9]) {
      const t = messages(n);
      expect(trajectoryJson(t, 3, 10_000)).toEqual({ whole: JSON.stringify(t) });
    }
  });

  it("gives a long one as pages only, each the JSON of up to pageSize messages, the last shorter", () => {
    const t = messages(7);
    const out = trajectoryJson(t, 3, 10);
    expect(out).toEqual({ pages: [JSON.stringify(t.slice(0, 3)), JSON.stringify(t.slice(3, 6)), JSON.stringify(t.slice(6))] });
    // one page is enough to be long
    expect(trajectoryJson(t.slice(0, 2), 3, 10)).toEqual({ pages: [JSON.stringify(t.slice(0, 2))] });
  });

  it("pages exactly when the whole JSON is longer than minChars", () => {
    const t = messages(8);
    const length = JSON.stringify(t).length;
    expect(trajectoryJson(t, 3, length)).toEqual({ whole: JSON.stringify(t) });
    expect("pages" in trajectoryJson(t, 3, length - 1)).toBe(true);
  });
});

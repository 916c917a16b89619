import { describe, expect, it } from "vitest";
import { unstorableString, unstorableValues } from "./json-safety";

describe("unstorableString", () => {
  it("passes text Postgres stores: ASCII, accents, astral characters as surrogate pairs, the empty string", () => {
    for (const s of ["", "plain", "é→ü", "😀 and 𝔘", "a\uD83D\uDE00b", "x".repeat(100_000)]) expect(unstorableString(s)).toBeNull();
  });

  it("names a NUL and a lone surrogate (high, low, or a pair in the wrong order) with its offset", () => {
    expect(unstorableString("ab\u0000")).toBe("holds a NUL character (\\u0000) at offset 2");
    expect(unstorableString("x\uD800y")).toBe("holds an unpaired UTF-16 surrogate at offset 1");
    expect(unstorableString("xy\uDC00")).toBe("holds an unpaired UTF-16 surrogate at offset 2");
    expect(unstorableString("\uDE00\uD83D")).toBe("holds an unpaired UTF-16 surrogate at offset 0");
    expect(unstorableString("😀".repeat(1000) + "\uD800")).toBe("holds an unpaired UTF-16 surrogate at offset 2000");
  });

  it("finds them deep in a document and in keys", () => {
    const issues = unstorableValues({ a: [{ b: "ok" }, { c: "bad\uDBFF" }], ["k\u0000"]: 1 });
    expect(issues.sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: "a.1.c", message: "holds an unpaired UTF-16 surrogate at offset 3" },
      { path: "k\\u0000", message: "key holds a NUL character (\\u0000) at offset 1" },
    ]);
  });
});

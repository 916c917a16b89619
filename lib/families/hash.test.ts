import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, configHash } from "./hash";

describe("configHash", () => {
  it("is stable under key order at every depth", () => {
    const a = { size: 8, grid: { w: 1, h: 2 }, list: [{ x: 1, y: 2 }] };
    const b = { list: [{ y: 2, x: 1 }], grid: { h: 2, w: 1 }, size: 8 };
    expect(configHash(a)).toBe(configHash(b));
    expect(canonicalJson(b)).toBe('{"grid":{"h":2,"w":1},"list":[{"x":1,"y":2}],"size":8}');
  });

  it("changes when a value, an array order or a key changes", () => {
    const base = configHash({ size: 8, seeds: [1, 2] });
    expect(configHash({ size: 9, seeds: [1, 2] })).not.toBe(base);
    expect(configHash({ size: 8, seeds: [2, 1] })).not.toBe(base);
    expect(configHash({ size: 8, seedz: [1, 2] })).not.toBe(base);
    expect(configHash({ size: "8", seeds: [1, 2] })).not.toBe(base);
  });

  it("drops undefined values like JSON and is the sha256 of the canonical text", () => {
    expect(configHash({ a: 1, b: undefined })).toBe(configHash({ a: 1 }));
    expect(configHash({})).toBe("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    expect(configHash({ b: 1, a: [true, null] })).toBe(createHash("sha256").update('{"a":[true,null],"b":1}').digest("hex"));
  });
});

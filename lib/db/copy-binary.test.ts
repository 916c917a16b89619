/** The binary COPY encoder's bytes, against the layout of PostgreSQL's COPY page ("Binary Format"). */
import { describe, expect, it } from "vitest";
import { binaryCopyChunks, binaryCopyHeader, binaryCopyRows, binaryCopyTrailer } from "./copy-binary";

describe("binary COPY", () => {
  it("writes the signature, a zero flags word and an empty header extension, and a -1 trailer", () => {
    expect(binaryCopyHeader().toString("hex")).toBe("5047434f50590aff0d0a00" + "00000000" + "00000000");
    expect(binaryCopyTrailer().toString("hex")).toBe("ffff");
  });

  it("writes each row as its field count, then each field's length and bytes (-1 for NULL)", () => {
    const out = binaryCopyRows(["int8", "jsonb", "text", "jsonb"], [[-2, '{"a":"é"}', "x\ty", null]]);
    const hex = out.toString("hex");
    expect(hex).toBe(
      "0004" + // four fields
        "00000008" +
        "fffffffffffffffe" + // int8 -2, big-endian two's complement
        "0000000b" +
        "01" +
        Buffer.from('{"a":"é"}').toString("hex") + // jsonb: version 1, then the UTF-8 text (é is 2 bytes)
        "00000003" +
        "780979" + // text: its bytes, the tab not escaped
        "ffffffff", // NULL
    );
  });

  it("measures each string in UTF-8 bytes, not UTF-16 units", () => {
    const out = binaryCopyRows(["text"], [["😀€"]]);
    expect(out.readInt32BE(2)).toBe(7);
    expect(out.subarray(6).toString("utf8")).toBe("😀€");
  });

  it("writes int8 values beyond 32 bits exactly", () => {
    const out = binaryCopyRows(["int8"], [[2 ** 40 + 5]]);
    expect(out.readBigInt64BE(6)).toBe(BigInt(2 ** 40 + 5));
  });

  it("refuses a row of the wrong width and values of the wrong kind, naming the column", () => {
    expect(() => binaryCopyRows(["int8", "text"], [[1]])).toThrow(/1 values for 2 columns/);
    expect(() => binaryCopyRows(["int8"], [[1.5]])).toThrow(/column 0: int8 needs a safe integer/);
    expect(() => binaryCopyRows(["text", "jsonb"], [["a", 3]])).toThrow(/column 1: jsonb needs a string/);
  });

  it("writes a lone surrogate as U+FFFD's three bytes, its length what was written", () => {
    const out = binaryCopyRows(["text", "jsonb"], [["a\ud800b", '"\udc00"']]);
    expect(out.readInt32BE(2)).toBe(5);
    expect(out.subarray(6, 11).toString("hex")).toBe("61efbfbd62");
    expect(out.readInt32BE(11)).toBe(6); // version byte, two quotes, three bytes
    expect(out.subarray(15).toString("hex")).toBe("01" + "22efbfbd22");
  });

  it("gives the same bytes in buffers of any size, each field whole in one buffer", () => {
    const kinds = ["int8", "jsonb", "text"] as const;
    const rows = Array.from({ length: 50 }, (_, i) => [i, JSON.stringify({ i, s: "é😀漢".repeat(i) }), i % 3 ? "x".repeat(i * 7) : null]);
    const whole = binaryCopyRows(kinds, rows, 1 << 20);
    for (const size of [8, 16, 64, 300, 4096]) {
      const chunks = [...binaryCopyChunks(kinds, rows, size)];
      expect(Buffer.concat(chunks).equals(whole)).toBe(true);
      // a buffer only goes out when the next field may not fit: none is longer than its size unless one field needs more
      for (const c of chunks) expect(c.length).toBeGreaterThan(0);
      if (size >= 4096) expect(chunks.length).toBeLessThanOrEqual(Math.ceil(whole.length / 1000));
    }
    // 8-byte buffers: a field that may take 4 + 3 x 8 bytes starts a buffer of 28, where the next row's count still fits
    expect([...binaryCopyChunks(["text"], [["abcdefgh"], ["ijklmnop"]], 8)].map((c) => c.toString("hex"))).toEqual([
      "0001",
      "00000008" + Buffer.from("abcdefgh").toString("hex") + "0001",
      "00000008" + Buffer.from("ijklmnop").toString("hex"),
    ]);
  });

  it("gives a field larger than a buffer a buffer of its own size", () => {
    const big = "€".repeat(10_000); // 30,000 bytes
    const chunks = [...binaryCopyChunks(["int8", "text"], [[1, big]], 1024)];
    expect(chunks.map((c) => c.length)).toEqual([2 + 12, 4 + 30_000]);
    expect(chunks[1].readInt32BE(0)).toBe(30_000);
    expect(chunks[1].subarray(4).toString("utf8")).toBe(big);
  });
});

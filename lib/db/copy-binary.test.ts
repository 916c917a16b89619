/** The binary COPY encoder's bytes, against the layout of PostgreSQL's COPY page ("Binary Format"). */
import { describe, expect, it } from "vitest";
import { binaryCopyHeader, binaryCopyRows, binaryCopyTrailer } from "./copy-binary";

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
});

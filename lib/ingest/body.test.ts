import { describe, expect, it } from "vitest";
import { jsonArrayElements, ndjsonLines } from "./body";
import type { IngestLine } from "./store";

async function collect(gen: AsyncIterable<IngestLine>) {
  const out: IngestLine[] = [];
  for await (const x of gen) out.push(x);
  return out;
}
/** The text as chunks of `size` bytes (1 = every possible boundary). */
async function* chunks(text: string, size: number) {
  const buf = Buffer.from(text);
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

const tricky = [{ a: 'x]}{[,"q\\\\' }, { b: [1, [2, { c: '\\"' }]], d: "é 漢" }, 3, "s,]", null, { e: {} }];

describe("jsonArrayElements", () => {
  it.each([1, 2, 7, 4096])("splits elements exactly, whatever the chunk size (%i)", async (size) => {
    const out = await collect(jsonArrayElements(chunks(` [ ${tricky.map((t) => JSON.stringify(t)).join(" ,\n")} ] `, size)));
    expect(out).toEqual(tricky.map((value, i) => ({ line: i + 1, value })));
  });

  it("numbers malformed elements and keeps going", async () => {
    const out = await collect(jsonArrayElements(chunks('[{"a":1},{bad},{"b":2}]', 3)));
    expect(out[0]).toEqual({ line: 1, value: { a: 1 } });
    expect(out[1]).toMatchObject({ line: 2, error: expect.stringContaining("element 2") });
    expect(out[2]).toEqual({ line: 3, value: { b: 2 } });
  });

  it("refuses what is not one array", async () => {
    await expect(collect(jsonArrayElements(chunks('{"a":1}', 4)))).rejects.toThrow(/must be an array/);
    await expect(collect(jsonArrayElements(chunks('[{"a":1}', 4)))).rejects.toThrow(/not closed/);
    await expect(collect(jsonArrayElements(chunks("[1] x", 4)))).rejects.toThrow(/after the closing/);
    await expect(collect(jsonArrayElements(chunks("  ", 4)))).rejects.toThrow(/empty/);
    expect(await collect(jsonArrayElements(chunks("[]", 1)))).toEqual([]);
  });
});

describe("ndjsonLines", () => {
  it.each([1, 5, 4096])("numbers lines from 1, skips blanks, handles CRLF and a last line without newline (%i)", async (size) => {
    const out = await collect(ndjsonLines(chunks('{"a":1}\r\n\n{"b":"漢"}\nnope\n{"c":3}', size)));
    expect(out).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 3, value: { b: "漢" } },
      { line: 4, error: expect.stringContaining("not valid JSON") },
      { line: 5, value: { c: 3 } },
    ]);
  });

  it("joins a line spread over many chunks (a 100 MB trajectory arrives in thousands), CRLF split between two", async () => {
    const long = JSON.stringify({ t: "x".repeat(200_000) });
    const text = `${long}\r\n{"b":2}\n`;
    const size = long.length + 1; // the \r ends one chunk, the \n starts the next
    const out = await collect(ndjsonLines(chunks(text, 997)));
    expect(out).toEqual([
      { line: 1, value: { t: "x".repeat(200_000) } },
      { line: 2, value: { b: 2 } },
    ]);
    expect(await collect(ndjsonLines(chunks(text, size)))).toEqual(out);
  });

  it.each([1, 2, 4096])("drops a byte-order mark at the start of the body only, and reads invalid UTF-8 as U+FFFD (%i)", async (size) => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('{"a":"x'),
      Buffer.from([0xff, 0xc3]), // a stray byte and a cut two-byte sequence
      Buffer.from('"}\n\uFEFF{"b":1}\n'),
    ]);
    async function* of(buf: Buffer) {
      for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
    }
    const out = await collect(ndjsonLines(of(bytes)));
    expect(out[0]).toEqual({ line: 1, value: { a: "x\uFFFD\uFFFD" } });
    // a mark inside the body is the line's own text, which JSON does not allow before a value
    expect(out[1]).toMatchObject({ line: 2, error: expect.stringContaining("not valid JSON") });
  });

  it("gives a stream's chunks back untouched and copies what it keeps (a reused chunk does not change a line)", async () => {
    const shared = Buffer.alloc(8);
    async function* reusing() {
      for (const part of ['{"k":"ab', 'cd"}\n{"z', '":9}\n']) {
        shared.fill(0);
        const n = shared.write(part);
        yield shared.subarray(0, n);
      }
    }
    expect(await collect(ndjsonLines(reusing()))).toEqual([
      { line: 1, value: { k: "abcd" } },
      { line: 2, value: { z: 9 } },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { payloadRowsJson, type Payload } from "./store";

const payload = (over: Partial<Payload> = {}): Payload => ({ trajectory: null, pages: null, verifier: null, metadata: null, ...over });

describe("payloadRowsJson", () => {
  it("joins each payload's JSON into rows for json_to_recordset, leaving null fields out (SQL NULL, not a JSON null)", () => {
    const tricky = 'FAILED "quoted" \\ back\\slash\nnew line\ttab \u2028 é 🙂';
    const [json, ...rest] = payloadRowsJson(
      [7, 8, 9],
      [
        payload({ trajectory: JSON.stringify([{ role: "user", content: tricky }]), verifier: tricky, metadata: '{"a":[1,{"b":null}]}' }),
        payload({ verifier: "1 passed" }),
        payload({ metadata: "{}" }),
      ],
    );
    expect(rest).toEqual([]);
    expect(JSON.parse(json)).toEqual([
      { id: 7, tr: [{ role: "user", content: tricky }], vo: tricky, md: { a: [1, { b: null }] } },
      { id: 8, vo: "1 passed" },
      { id: 9, md: {} },
    ]);
  });

  it("splits rows into several arrays of at most maxChars (a row longer than that alone), keeping every row once in order", () => {
    const ids = Array.from({ length: 25 }, (_, i) => i + 1);
    const rows = ids.map((i) => payload({ verifier: "x".repeat(i * 10) }));
    const chunks = payloadRowsJson(ids, rows, 300);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      const parsed = JSON.parse(c) as unknown[];
      if (parsed.length > 1) expect(c.length).toBeLessThanOrEqual(300 + 1);
    }
    const all = chunks.flatMap((c) => JSON.parse(c) as { id: number; vo: string }[]);
    expect(all.map((r) => r.id)).toEqual(ids);
    expect(all.map((r) => r.vo.length)).toEqual(ids.map((i) => i * 10));
    // one long row is its own statement rather than an error or a lost row
    expect(
      payloadRowsJson([1, 2], [payload({ verifier: "y".repeat(500) }), payload({ verifier: "z" })], 100).map((c) => JSON.parse(c)),
    ).toEqual([[{ id: 1, vo: "y".repeat(500) }], [{ id: 2, vo: "z" }]]);
  });

  it("makes no statement for no rows", () => {
    expect(payloadRowsJson([], [])).toEqual([]);
  });
});

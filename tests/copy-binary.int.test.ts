/**
 * The binary COPY encoder (lib/db/copy-binary.ts) read by a real PostgreSQL: what goes in comes back byte for byte,
 * for the texts ingest stores (multi-byte characters, backslashes, tabs and newlines that the text format would escape,
 * JSON escapes) and for NULLs, int8 beyond 32 bits, and a value the server refuses (a jsonb that is not JSON).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyBinary, type CopyValue } from "@/lib/db/copy-binary";
import { freshDatabase } from "./db";

let db: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  db = await freshDatabase();
  await db.pool.query("create table copy_probe (id bigint, doc jsonb, body text, meta jsonb)");
});
afterAll(async () => db.drop());

const COLUMNS = [
  { name: "id", kind: "int8" },
  { name: "doc", kind: "jsonb" },
  { name: "body", kind: "text" },
  { name: "meta", kind: "jsonb" },
] as const;

async function copy(rows: CopyValue[][], chunkBytes?: number) {
  const client = await db.pool.connect();
  try {
    await copyBinary(client, "copy_probe", COLUMNS, rows, chunkBytes);
  } finally {
    client.release();
  }
}

describe("binary COPY into PostgreSQL", () => {
  it("stores every value as it was given", async () => {
    const doc = [{ role: "assistant", content: 'a "quoted" \\ back\tslash\nnew line, é, 漢字, 😀' }];
    const rows: CopyValue[][] = [
      [1, JSON.stringify(doc), "line 1\nline 2\t\\N\r\n", JSON.stringify({ k: "\\u0041" })],
      [2 ** 40 + 7, null, null, null],
      [-3, "[]", "", "{}"],
    ];
    // 16-byte buffers: every row crosses a buffer boundary, as a batch's rows cross megabyte buffers
    await copy(rows, 16);
    const back = await db.pool.query("select id::text, doc, body, meta from copy_probe order by id");
    expect(back.rows).toEqual([
      { id: "-3", doc: [], body: "", meta: {} },
      { id: "1", doc, body: "line 1\nline 2\t\\N\r\n", meta: { k: "\\u0041" } },
      { id: String(2 ** 40 + 7), doc: null, body: null, meta: null },
    ]);
  });

  it("refuses a jsonb field that is not JSON, storing none of the rows", async () => {
    await db.pool.query("truncate copy_probe");
    await expect(
      copy([
        [1, "[1]", "ok", null],
        [2, "{not json", "x", null],
      ]),
    ).rejects.toThrow(/invalid input syntax for type json/);
    expect((await db.pool.query("select count(*)::int as n from copy_probe")).rows[0].n).toBe(0);
  });
});

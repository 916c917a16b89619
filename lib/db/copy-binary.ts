/**
 * Rows in PostgreSQL's binary COPY format (the manual's COPY page, "Binary Format"; the server's reader is
 * src/backend/commands/copyfromparse.c): an 11-byte signature, a flags word and a header-extension length, then
 * per row a 16-bit field count and each field as a 32-bit byte length (-1 for NULL) and its bytes in the type's
 * binary "send" form, and a 16-bit -1 at the end.
 *
 * Used for the few kinds of column we write in bulk: int8 (big-endian two's complement, int8send), text (its UTF-8
 * bytes, textsend) and jsonb (a version byte 1, then the JSON text, jsonb_send). Nothing is escaped, so a value's
 * bytes are written once; the server parses a jsonb field's text as it parses a text parameter's (jsonb_recv).
 * Values Postgres refuses (NUL characters, lone surrogates) are the caller's to reject first (lib/ingest/json-safety.ts).
 */

import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

export type CopyColumnKind = "int8" | "text" | "jsonb";
export type CopyValue = number | string | null;

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
const JSONB_VERSION = 1;

/** The signature, the flags (no OIDs) and an empty header extension. */
export function binaryCopyHeader(): Buffer {
  const out = Buffer.alloc(SIGNATURE.length + 8);
  SIGNATURE.copy(out, 0);
  // flags word and header-extension length: both 0
  return out;
}

/** The file trailer: a field count of -1. */
export function binaryCopyTrailer(): Buffer {
  const out = Buffer.alloc(2);
  out.writeInt16BE(-1, 0);
  return out;
}

/** Bytes a chunk buffer starts with; a field that may need more gets a buffer of its own size (see binaryCopyChunks). */
export const COPY_CHUNK_BYTES = 1024 * 1024;

/**
 * The rows (each with one value per column, in the columns' order) as binary COPY tuples, without the header and the
 * trailer, in buffers of about `chunkBytes` (a COPY stream may split a row anywhere). A string is written once, at the
 * most bytes it can take (3 per UTF-16 unit: a surrogate pair's 4 bytes, a lone surrogate's U+FFFD 3), and its length
 * is filled in from what was written: measuring each string's UTF-8 length first (Buffer.byteLength) cost twice the
 * writing on the trajectories of Harbor trials, whose text is almost never ASCII.
 */
export function* binaryCopyChunks(
  kinds: readonly CopyColumnKind[],
  rows: readonly (readonly CopyValue[])[],
  chunkBytes = COPY_CHUNK_BYTES,
): Generator<Buffer> {
  let out = Buffer.allocUnsafe(chunkBytes);
  let at = 0;
  for (const row of rows) {
    if (row.length !== kinds.length) throw new TypeError(`a row has ${row.length} values for ${kinds.length} columns`);
    // the field count, then each field: the most bytes it can take first, so the buffer written so far goes out (and
    // the next one holds the field) before it is written
    for (let c = -1; c < kinds.length; c++) {
      const value = c < 0 ? null : row[c];
      const kind = c < 0 ? null : kinds[c];
      let most: number;
      if (c < 0) most = 2;
      else if (value === null) most = 4;
      else if (kind === "int8") {
        if (typeof value !== "number" || !Number.isSafeInteger(value))
          throw new TypeError(`column ${c}: int8 needs a safe integer, got ${String(value)}`);
        most = 12;
      } else {
        if (typeof value !== "string") throw new TypeError(`column ${c}: ${kind} needs a string, got ${typeof value}`);
        most = (kind === "jsonb" ? 5 : 4) + value.length * 3;
      }
      if (at + most > out.length) {
        if (at > 0) yield out.subarray(0, at);
        out = Buffer.allocUnsafe(Math.max(chunkBytes, most));
        at = 0;
      }
      if (c < 0) at = out.writeInt16BE(kinds.length, at);
      else if (value === null) at = out.writeInt32BE(-1, at);
      else if (kind === "int8") {
        at = out.writeInt32BE(8, at);
        at = out.writeBigInt64BE(BigInt(value), at);
      } else {
        const start = at;
        at += 4;
        if (kind === "jsonb") at = out.writeUInt8(JSONB_VERSION, at);
        at += out.write(value as string, at, "utf8");
        out.writeInt32BE(at - start - 4, start);
      }
    }
  }
  if (at > 0) yield out.subarray(0, at);
}

/** binaryCopyChunks' bytes as one buffer. */
export function binaryCopyRows(
  kinds: readonly CopyColumnKind[],
  rows: readonly (readonly CopyValue[])[],
  chunkBytes = COPY_CHUNK_BYTES,
): Buffer {
  return Buffer.concat([...binaryCopyChunks(kinds, rows, chunkBytes)]);
}

/**
 * Copy `rows` into `table (columns)` with one binary COPY on `connection` (inside the caller's transaction, if any), the
 * rows encoded as the socket takes them, a buffer of about `chunkBytes` at a time.
 */
export async function copyBinary(
  connection: pg.PoolClient,
  table: string,
  columns: readonly { name: string; kind: CopyColumnKind }[],
  rows: readonly (readonly CopyValue[])[],
  chunkBytes = COPY_CHUNK_BYTES,
): Promise<void> {
  const kinds = columns.map((c) => c.kind);
  function* chunks() {
    yield binaryCopyHeader();
    yield* binaryCopyChunks(kinds, rows, chunkBytes);
    yield binaryCopyTrailer();
  }
  const names = columns.map((c) => c.name).join(", ");
  await pipeline(Readable.from(chunks()), connection.query(copyFrom(`copy ${table} (${names}) from stdin with (format binary)`)));
}

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

function fieldBytes(kind: CopyColumnKind, value: CopyValue, column: number): number {
  if (value === null) return 0;
  if (kind === "int8") {
    if (typeof value !== "number" || !Number.isSafeInteger(value))
      throw new TypeError(`column ${column}: int8 needs a safe integer, got ${String(value)}`);
    return 8;
  }
  if (typeof value !== "string") throw new TypeError(`column ${column}: ${kind} needs a string, got ${typeof value}`);
  return Buffer.byteLength(value, "utf8") + (kind === "jsonb" ? 1 : 0);
}

/**
 * The rows (each with one value per column, in the columns' order) as binary COPY tuples, without the header and the
 * trailer: one buffer sized exactly, each string's UTF-8 length measured once.
 */
export function binaryCopyRows(kinds: readonly CopyColumnKind[], rows: readonly (readonly CopyValue[])[]): Buffer {
  const lengths: number[] = [];
  let size = 0;
  for (const row of rows) {
    if (row.length !== kinds.length) throw new TypeError(`a row has ${row.length} values for ${kinds.length} columns`);
    size += 2;
    for (let c = 0; c < kinds.length; c++) {
      const n = fieldBytes(kinds[c], row[c], c);
      lengths.push(n);
      size += 4 + n;
    }
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  let f = 0;
  for (const row of rows) {
    at = out.writeInt16BE(kinds.length, at);
    for (let c = 0; c < kinds.length; c++) {
      const value = row[c];
      const n = lengths[f++];
      if (value === null) {
        at = out.writeInt32BE(-1, at);
        continue;
      }
      at = out.writeInt32BE(n, at);
      if (kinds[c] === "int8") {
        at = out.writeBigInt64BE(BigInt(value), at);
      } else if (kinds[c] === "jsonb") {
        at = out.writeUInt8(JSONB_VERSION, at);
        at += out.write(value as string, at, n - 1, "utf8");
      } else {
        at += out.write(value as string, at, n, "utf8");
      }
    }
  }
  if (at !== size) throw new Error(`binary COPY rows: wrote ${at} bytes of ${size}`);
  return out;
}

/**
 * Copy `rows` into `table (columns)` with one binary COPY on `connection` (inside the caller's transaction, if any), the
 * rows encoded `rowsPerChunk` at a time so only one chunk's buffer is built ahead of the socket.
 */
export async function copyBinary(
  connection: pg.PoolClient,
  table: string,
  columns: readonly { name: string; kind: CopyColumnKind }[],
  rows: readonly (readonly CopyValue[])[],
  rowsPerChunk = 100,
): Promise<void> {
  const kinds = columns.map((c) => c.kind);
  function* chunks() {
    yield binaryCopyHeader();
    for (let i = 0; i < rows.length; i += rowsPerChunk) yield binaryCopyRows(kinds, rows.slice(i, i + rowsPerChunk));
    yield binaryCopyTrailer();
  }
  const names = columns.map((c) => c.name).join(", ");
  await pipeline(Readable.from(chunks()), connection.query(copyFrom(`copy ${table} (${names}) from stdin with (format binary)`)));
}

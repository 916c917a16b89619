/**
 * Streamed Parquet downloads (hyparquet-writer, pure JavaScript): each page of rows becomes one row
 * group, sent as soon as it is written; the next page is read only when the client has taken the
 * previous bytes (backpressure), so an export of any size keeps one page in memory.
 */
import { ByteWriter, ParquetWriter, schemaFromColumnData, type ColumnSource } from "hyparquet-writer";

/** A column of an export: its name and Parquet type (every column is nullable). */
export interface ParquetColumn {
  name: string;
  type: "STRING" | "INT64" | "DOUBLE" | "BOOLEAN" | "TIMESTAMP";
}

export type ParquetValue = string | number | boolean | Date | null | undefined | readonly string[];

/** One cell as its column's type wants it: INT64 as bigint, TIMESTAMP as Date, string lists joined by "; ", null for missing. */
function parquetCell(type: ParquetColumn["type"], value: ParquetValue): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.join("; ");
  switch (type) {
    case "INT64":
      return typeof value === "number" && Number.isFinite(value) ? BigInt(Math.trunc(value)) : null;
    case "DOUBLE":
      return typeof value === "number" ? value : Number(value);
    case "BOOLEAN":
      return Boolean(value);
    case "TIMESTAMP":
      return value instanceof Date ? value : new Date(String(value));
    default:
      return value instanceof Date ? value.toISOString() : String(value);
  }
}

/** A ByteWriter that hands over what it holds on every flush and starts again empty. */
class ChunkWriter extends ByteWriter {
  chunks: Uint8Array[] = [];
  flush() {
    if (this.index > 0) this.chunks.push(new Uint8Array(this.buffer.slice(0, this.index)));
    this.index = 0;
  }
  finish() {
    this.flush();
  }
  take(): Uint8Array[] {
    const out = this.chunks;
    this.chunks = [];
    return out;
  }
}

/** A streamed Parquet file: `columns`, then one row group per page `pages` yields (rows as arrays in column order). */
export function parquetStream(
  columns: readonly ParquetColumn[],
  pages: AsyncIterable<readonly (readonly ParquetValue[])[]>,
): ReadableStream<Uint8Array> {
  const iterator = pages[Symbol.asyncIterator]();
  const writer = new ChunkWriter();
  const empty: ColumnSource[] = columns.map((c) => ({ name: c.name, data: [], type: c.type, nullable: true }));
  // the constructor writes the leading PAR1: it goes out with the first row group
  const parquet = new ParquetWriter({ writer, schema: schemaFromColumnData({ columnData: empty }), createdBy: "envforge" });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // a pull must enqueue something (or close), else the reader waits forever: skip empty pages
      for (;;) {
        const next = await iterator.next();
        if (next.done) {
          parquet.finish();
          for (const chunk of writer.take()) controller.enqueue(chunk);
          controller.close();
          return;
        }
        if (next.value.length === 0) continue;
        const columnData: ColumnSource[] = columns.map((c, j) => ({
          name: c.name,
          type: c.type,
          nullable: true,
          data: next.value.map((row) => parquetCell(c.type, row[j])),
        }));
        await parquet.write({ columnData, rowGroupSize: next.value.length });
        writer.flush();
        for (const chunk of writer.take()) controller.enqueue(chunk);
        return;
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** The response for a Parquet download named `filename` (characters outside [A-Za-z0-9._-] replaced). */
export function parquetResponse(body: ReadableStream<Uint8Array>, filename: string): Response {
  const safe = filename.replace(/[^A-Za-z0-9._-]/g, "_");
  return new Response(body, {
    headers: {
      "content-type": "application/vnd.apache.parquet",
      "content-disposition": `attachment; filename="${safe}"`,
      "cache-control": "no-store",
    },
  });
}

/**
 * CSV as RFC 4180 says (comma separated, CRLF line ends, fields with quotes, commas or line breaks
 * quoted with inner quotes doubled), with spreadsheet formula injection defused: a text cell that
 * starts with = + - @ (or a tab or carriage return) gets a leading single quote, so Excel, LibreOffice
 * and Sheets show it as text instead of evaluating it (OWASP's "CSV injection" advice).
 */

export type CsvValue = string | number | boolean | Date | null | undefined | readonly string[];

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/** One cell as CSV text: numbers as they are, text defused and quoted when it must be. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof Date) return value.toISOString();
  let text = Array.isArray(value) ? value.join("; ") : (value as string);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record: cells joined by commas, ended by CRLF. */
export function csvRow(values: readonly CsvValue[]): string {
  return values.map(csvCell).join(",") + "\r\n";
}

/**
 * A streamed CSV body: the header, then the rows of each page as `pages` yields them; the next page
 * is read only when the client has taken the previous one (backpressure), so any size fits in memory.
 */
export function csvStream(header: readonly string[], pages: AsyncIterable<readonly (readonly CsvValue[])[]>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = pages[Symbol.asyncIterator]();
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvRow(header)));
        return;
      }
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value.map(csvRow).join("")));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** The response for a CSV download named `filename` (characters outside [A-Za-z0-9._-] replaced). */
export function csvResponse(body: ReadableStream<Uint8Array>, filename: string): Response {
  const safe = filename.replace(/[^A-Za-z0-9._-]/g, "_");
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${safe}"`,
      "cache-control": "no-store",
    },
  });
}

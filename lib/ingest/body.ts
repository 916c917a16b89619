/**
 * Request bodies of rollouts as a stream of lines: NDJSON split on newlines, or a JSON array split
 * into its top-level elements, without holding the whole body in memory. A body without a declared
 * length is spooled to a temporary file first, so a body over the limit gets 413 before anything
 * is stored.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { BadRequest, PayloadTooLarge, UnsupportedMediaType } from "@/lib/api/errors";
import { assertDeclaredSize } from "@/lib/api/route";
import type { IngestLine } from "./store";

/** Which reader a content type selects. */
export function bodyKind(contentType: string | null): "ndjson" | "json" {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/x-ndjson" || type === "application/ndjson" || type === "application/jsonl") return "ndjson";
  if (type === "application/json") return "json";
  throw new UnsupportedMediaType(`Send rollouts as application/x-ndjson (one per line) or application/json (an array); got ${type || "no content type"}.`);
}

/** The body as a byte stream within `limit`, spooled to disk when its length is not declared. */
export async function limitedBody(req: Request, limit: number): Promise<{ stream: AsyncIterable<Uint8Array>; cleanup: () => Promise<void> }> {
  if (!req.body) throw new BadRequest("The request body is empty.");
  if (req.headers.get("content-length") !== null) {
    assertDeclaredSize(req, limit);
    return { stream: req.body as unknown as AsyncIterable<Uint8Array>, cleanup: async () => {} };
  }
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "envforge-body-"));
  const file = path.join(dir, "body");
  const out = fs.createWriteStream(file);
  let size = 0;
  try {
    for await (const chunk of req.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > limit) throw new PayloadTooLarge(`The body is over the limit of ${limit} bytes (ENVFORGE_MAX_BODY_MB).`);
      if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (err) {
    out.destroy();
    await fsp.rm(dir, { recursive: true, force: true });
    throw err;
  }
  return { stream: fs.createReadStream(file), cleanup: () => fsp.rm(dir, { recursive: true, force: true }) };
}

/** NDJSON lines (1-based), blank lines skipped, each parsed or reported as malformed. */
export async function* ndjsonLines(stream: AsyncIterable<Uint8Array>): AsyncIterable<IngestLine> {
  const decoder = new TextDecoder();
  let rest = "";
  let line = 0;
  const emit = function* (text: string): Generator<IngestLine> {
    line++;
    if (!text.trim()) return;
    try {
      yield { line, value: JSON.parse(text) };
    } catch (err) {
      yield { line, error: `not valid JSON: ${(err as Error).message}` };
    }
  };
  for await (const chunk of stream) {
    rest += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = rest.indexOf("\n")) >= 0) {
      const text = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      yield* emit(text.endsWith("\r") ? text.slice(0, -1) : text);
    }
  }
  rest += decoder.decode();
  if (rest.length) yield* emit(rest);
}

/** The elements of a top-level JSON array (numbered from 1), split by a small scanner. */
export async function* jsonArrayElements(stream: AsyncIterable<Uint8Array>): AsyncIterable<IngestLine> {
  const decoder = new TextDecoder();
  let state: "start" | "between" | "value" | "end" = "start";
  let depth = 0;
  let inString = false;
  let escaped = false;
  let current = "";
  let index = 0;
  const finish = (): IngestLine => {
    index++;
    try {
      return { line: index, value: JSON.parse(current) };
    } catch (err) {
      return { line: index, error: `element ${index} is not valid JSON: ${(err as Error).message}` };
    }
  };
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (state === "start") {
        if (/\s/.test(ch)) continue;
        if (ch !== "[") throw new BadRequest("An application/json body must be an array of rollouts (use application/x-ndjson for one per line).");
        state = "between";
        continue;
      }
      if (state === "end") {
        if (!/\s/.test(ch)) throw new BadRequest("Unexpected content after the closing ] of the array.");
        continue;
      }
      if (state === "between") {
        if (/\s/.test(ch) || ch === ",") continue;
        if (ch === "]") {
          state = "end";
          continue;
        }
        state = "value";
        current = "";
        depth = 0;
      }
      // state === "value"
      if (inString) {
        current += ch;
        if (escaped) escaped = false;
        else if (ch === "\\") escaped = true;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === "{" || ch === "[") depth++;
      else if (ch === "}" || ch === "]") {
        if (depth === 0 && ch === "]") {
          if (current.trim()) yield finish();
          state = "end";
          continue;
        }
        depth--;
      } else if (ch === "," && depth === 0) {
        yield finish();
        state = "between";
        continue;
      }
      current += ch;
      if (depth === 0 && (ch === "}" || ch === "]")) {
        yield finish();
        state = "between";
      }
    }
  }
  if (state === "start") throw new BadRequest("The request body is empty; send an array of rollouts.");
  if (state !== "end") throw new BadRequest("The JSON array is not closed: the body ended early.");
}

/** Sends rollouts to the API in NDJSON batches, a few in flight, and adds up the answers. */
import type { EnvForgeClient } from "./client";

export interface UploadItem {
  /** How the user names this rollout in messages: a file line, a trial folder. */
  ref: string;
  /** One rollout as a JSON line (no newline inside). */
  json: string;
}

interface EncodedItem {
  ref: string;
  /** The line's UTF-8 bytes, without its newline. */
  bytes: Buffer;
}

const NEWLINE = Buffer.from("\n");

/** Bytes of each buffer LineEncoder writes lines into. */
const ENCODER_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Lines' UTF-8 bytes written one after another into large buffers, each line a view of its part: a line costs one
 * write, not an allocation of its own (Buffer.from per line) or a join into one string encoded whole (which cost three
 * times as much on Harbor trials, whose strings are nearly all two-byte). A buffer is kept while a line in it is.
 */
export class LineEncoder {
  private buf = Buffer.allocUnsafe(0);
  private at = 0;

  constructor(private readonly bufferBytes = ENCODER_BUFFER_BYTES) {}

  encode(line: string): Buffer {
    // at most 3 bytes per UTF-16 unit (a surrogate pair's 4, a lone surrogate's U+FFFD 3)
    const most = line.length * 3;
    if (this.at + most > this.buf.length) {
      this.buf = Buffer.allocUnsafe(Math.max(this.bufferBytes, most));
      this.at = 0;
    }
    const n = this.buf.write(line, this.at, "utf8");
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
}

export interface UploadSummary {
  accepted: number;
  duplicates: number;
  rejected: { ref: string; code: string; message: string }[];
  sent: number;
}

export interface UploadOptions {
  createEnvironments?: boolean;
  /** Rollouts per request (default 1,000). */
  batchRollouts?: number;
  /** Bytes per request (default 8 MiB; a single larger line is sent alone). */
  batchBytes?: number;
  /** Requests in flight (default 2). */
  concurrency?: number;
  onProgress?: (s: UploadSummary) => void;
}

/** Upload every item; a failing request stops the upload with its error (what was accepted stays accepted). */
export async function uploadRollouts(
  client: EnvForgeClient,
  project: string,
  items: AsyncIterable<UploadItem> | Iterable<UploadItem>,
  opts: UploadOptions = {},
): Promise<UploadSummary> {
  const maxRollouts = opts.batchRollouts ?? 1000;
  const maxBytes = opts.batchBytes ?? 8 * 1024 * 1024;
  const concurrency = opts.concurrency ?? 2;
  const summary: UploadSummary = { accepted: 0, duplicates: 0, rejected: [], sent: 0 };
  const inFlight = new Set<Promise<void>>();
  let failure: unknown = null;

  const send = (batch: EncodedItem[]) => {
    const p = client
      .postRollouts(
        project,
        batch.flatMap((b) => [b.bytes, NEWLINE]),
        { createEnvironments: opts.createEnvironments },
      )
      .then((r) => {
        summary.accepted += r.accepted;
        summary.duplicates += r.duplicates;
        for (const rej of r.rejected)
          summary.rejected.push({ ref: batch[rej.line - 1]?.ref ?? `line ${rej.line}`, code: rej.code, message: rej.message });
        summary.sent += batch.length;
        opts.onProgress?.(summary);
      })
      .catch((err) => {
        failure ??= err;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  const encoder = new LineEncoder();
  let batch: EncodedItem[] = [];
  let bytes = 0;
  for await (const item of items as AsyncIterable<UploadItem>) {
    if (failure) break;
    // each line is encoded as it comes (its string can then go)
    const encoded = { ref: item.ref, bytes: encoder.encode(item.json) };
    if (batch.length && (batch.length >= maxRollouts || bytes + encoded.bytes.length + 1 > maxBytes)) {
      send(batch);
      batch = [];
      bytes = 0;
      while (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
    batch.push(encoded);
    bytes += encoded.bytes.length + 1;
  }
  if (batch.length && !failure) send(batch);
  await Promise.all(inFlight);
  if (failure) throw failure;
  return summary;
}

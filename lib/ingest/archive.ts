/**
 * Unpacking an uploaded Harbor archive (.tar.gz or .tar) entry by entry from its stream: only
 * folders and regular files are written, by this code, under a private folder; links, devices
 * and paths that leave the archive are never created (they are recorded as refused, so the
 * reader can name them per trial). Size and entry-count limits are checked from each entry's
 * header before a byte of it is written, and on the decompressed stream itself.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { once } from "node:events";
import { Readable, pipeline } from "node:stream";
import zlib from "node:zlib";
import { Parser, type ReadEntry } from "tar";
import { BadRequest } from "@/lib/errors";
import { HARDLINK_REFUSED, LINK_REFUSED, SPECIAL_REFUSED } from "./safe-tree";

/** Limits of one archive (ENVFORGE_IMPORT_MAX_* settings). */
export interface ArchiveLimits {
  /** total bytes of all entries */
  maxUnpackedBytes: number;
  /** entries of any kind */
  maxEntries: number;
  /** bytes of one file; larger files are not written and are refused when read */
  maxFileBytes: number;
}

/** What was unpacked, and what was not. */
export interface UnpackedArchive {
  /** entries (relative, `/`-separated) not written, with the reason: links, devices, oversized files */
  refused: Map<string, string>;
  /** entries whose path leaves the archive (absolute or `..`), not written */
  outside: string[];
  files: number;
  bytes: number;
}

/** An archive over one of the limits: the import fails as a whole. */
export class ArchiveLimitError extends BadRequest {}

/** decompressed bytes allowed beyond the entries and their headers (tar's record padding, pax headers) */
const STREAM_SLACK_BYTES = 1024 * 1024;

const FILE_TYPES = new Set(["File", "OldFile", "ContiguousFile"]);

/** The entry's path inside the archive, or null when it would leave it. */
export function archiveEntryPath(raw: string): string | null {
  if (raw.includes("\0") || raw.includes("\\")) return null;
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) return null;
  let normal = path.posix.normalize(raw);
  while (normal.endsWith("/")) normal = normal.slice(0, -1);
  if (normal === "." || normal === "") return "";
  if (normal === ".." || normal.startsWith("../")) return null;
  return normal;
}

/**
 * Unpack a tar stream (gzip detected by its magic bytes) into `dest`, an empty folder. Throws
 * ArchiveLimitError (400) for a bomb and BadRequest for a file that is not a tar archive.
 */
export async function unpackArchive(source: AsyncIterable<Uint8Array>, dest: string, limits: ArchiveLimits): Promise<UnpackedArchive> {
  const out: UnpackedArchive = { refused: new Map(), outside: [], files: 0, bytes: 0 };
  let entries = 0;
  let declared = 0;
  let failure: Error | null = null;
  const writes: Promise<void>[] = [];
  const madeDirs = new Set<string>([""]);

  const fail = (err: Error) => {
    failure ??= err;
  };
  const ensureDir = async (rel: string) => {
    if (madeDirs.has(rel)) return;
    // mkdir never follows anything: only folders and regular files exist under dest
    await fsp.mkdir(path.join(dest, rel), { recursive: true, mode: 0o700 });
    madeDirs.add(rel);
  };

  const parser = new Parser({
    strict: true,
    // tar's own decompression-ratio guard is replaced by the byte limits below
    maxDecompressionRatio: Number.POSITIVE_INFINITY,
    onReadEntry: (entry: ReadEntry) => {
      if (failure) return void entry.resume();
      entries++;
      if (entries > limits.maxEntries) {
        fail(new ArchiveLimitError(`The archive holds more than ${limits.maxEntries} entries (ENVFORGE_IMPORT_MAX_ENTRIES).`));
        return void entry.resume();
      }
      declared += entry.size ?? 0;
      if (declared > limits.maxUnpackedBytes) {
        fail(new ArchiveLimitError(`The archive unpacks to more than ${limits.maxUnpackedBytes} bytes (ENVFORGE_IMPORT_MAX_UNPACKED_MB).`));
        return void entry.resume();
      }
      const rel = archiveEntryPath(entry.path);
      if (rel === null) {
        out.outside.push(entry.path.slice(0, 300));
        return void entry.resume();
      }
      if (rel === "") return void entry.resume();
      if (entry.type === "SymbolicLink" || entry.type === "Link") {
        out.refused.set(rel, entry.type === "Link" ? HARDLINK_REFUSED : LINK_REFUSED);
        return void entry.resume();
      }
      if (entry.type === "Directory") {
        entry.resume();
        writes.push(ensureDir(rel).catch(() => void out.refused.set(rel, "could not be unpacked (a file of the same name came first)")));
        return;
      }
      if (!FILE_TYPES.has(entry.type)) {
        out.refused.set(rel, SPECIAL_REFUSED);
        return void entry.resume();
      }
      if (entry.size > limits.maxFileBytes) {
        out.refused.set(
          rel,
          `is ${entry.size} bytes, over the limit of ${limits.maxFileBytes} bytes a file may have (ENVFORGE_IMPORT_MAX_FILE_MB)`,
        );
        return void entry.resume();
      }
      out.files++;
      out.bytes += entry.size;
      writes.push(
        writeEntry(entry, dest, rel, ensureDir).catch((err: NodeJS.ErrnoException) => {
          entry.resume();
          // EEXIST: the same path twice; ENOTDIR/EISDIR: a file where a folder is (or the reverse)
          if (err.code === "EEXIST" || err.code === "ENOTDIR" || err.code === "EISDIR")
            out.refused.set(rel, "could not be unpacked (its path is taken by another entry)");
          else fail(err);
        }),
      );
    },
  });
  // past the end-of-archive blocks nothing is read (tar buffers trailing bytes, slowly)
  let ended = false;
  parser.on("eof", () => (ended = true));
  parser.on("error", (err: Error) => fail(new BadRequest(`The file is not a readable .tar.gz archive: ${err.message}`)));
  parser.on("warn", (code: string, message: string) => {
    if (code === "TAR_BAD_ARCHIVE" || code === "TAR_ABORT") fail(new BadRequest(`The file is not a readable .tar.gz archive: ${message}`));
  });

  // the decompressed stream may not exceed the entries' sizes plus their headers and some slack:
  // bytes no entry declares (an oversized pax header the parser skips) are stopped here (checked
  // before each chunk, when the parser has taken every earlier one)
  let streamed = 0;
  const feed = async (chunk: Buffer) => {
    if (streamed > Math.min(declared, limits.maxUnpackedBytes) + 2048 * (entries + 2) + STREAM_SLACK_BYTES) {
      fail(
        new ArchiveLimitError(
          `The archive decompresses to over ${streamed} bytes, far more than its entries hold: refused as an archive bomb (ENVFORGE_IMPORT_MAX_UNPACKED_MB).`,
        ),
      );
      return;
    }
    streamed += chunk.byteLength;
    if (!parser.write(chunk)) await once(parser, "drain");
  };

  try {
    for await (const piece of decompressed(source)) {
      await feed(piece);
      if (failure || ended) break;
    }
  } catch (err) {
    fail(new BadRequest(`The file is not a readable .tar.gz archive: ${(err as Error).message}`));
  }
  if (!failure) {
    const ended = once(parser, "end");
    parser.end();
    await Promise.race([ended, once(parser, "error")]).catch(() => undefined);
  }
  await Promise.all(writes);
  if (failure) throw failure;
  if (entries === 0) throw new BadRequest("The file is not a readable .tar.gz archive: it holds no entries.");
  return out;
}

/** The source as tar bytes: gunzipped when it starts with gzip's magic bytes, pulled as the consumer reads. */
async function* decompressed(source: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const head = Buffer.from(first.value);
  async function* whole(): AsyncGenerator<Buffer> {
    yield head;
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      yield Buffer.from(next.value);
    }
  }
  if (head[0] !== 0x1f || head[1] !== 0x8b) {
    yield* whole();
    return;
  }
  const gunzip = zlib.createGunzip();
  pipeline(Readable.from(whole()), gunzip, () => undefined);
  yield* gunzip as AsyncIterable<Buffer>;
}

async function writeEntry(entry: ReadEntry, dest: string, rel: string, ensureDir: (rel: string) => Promise<void>): Promise<void> {
  const dir = path.posix.dirname(rel);
  if (dir !== ".") await ensureDir(dir);
  // wx: never opens an existing path (nor a link planted there); 0600: only this process reads it
  const file = fs.createWriteStream(path.join(dest, rel), { flags: "wx", mode: 0o600 });
  await new Promise<void>((resolve, reject) => {
    file.once("error", reject);
    file.once("close", () => resolve());
    entry.pipe(file);
  });
}

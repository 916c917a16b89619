/**
 * Builds tar archives entry by entry from headers (node-tar's Header), so tests can hold what
 * `tar -c` would never write from a clean folder: links aimed outside, hard links, devices,
 * paths with `..`, and bombs.
 */
import zlib from "node:zlib";
import { Header } from "tar";

export type TarEntry =
  | { path: string; type: "File" | "ExtendedHeader"; body: string | Buffer; size?: number }
  | { path: string; type: "Directory" }
  | { path: string; type: "SymbolicLink" | "Link"; linkpath: string }
  | { path: string; type: "FIFO" | "CharacterDevice" };

/** One pax record: "<length> key=value\n", the length counting itself. */
function paxRecord(key: string, value: string): string {
  const rest = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(rest) + 1;
  while (String(len).length + Buffer.byteLength(rest) !== len) len++;
  return `${len}${rest}`;
}

function header(fields: { path: string; type: string; size: number; linkpath?: string }): Buffer {
  const block = Buffer.alloc(512);
  const h = new Header({
    path: fields.path,
    type: fields.type as never,
    size: fields.size,
    linkpath: fields.linkpath,
    mode: fields.type === "Directory" ? 0o755 : 0o644,
    mtime: new Date(0),
    uid: 0,
    gid: 0,
  });
  const needsPax = h.encode(block, 0);
  if (!needsPax) return block;
  // long path or link target: a pax extended header carries them in full
  const body = Buffer.from(paxRecord("path", fields.path) + (fields.linkpath ? paxRecord("linkpath", fields.linkpath) : ""));
  const pax = Buffer.alloc(512);
  new Header({ path: "PaxHeader", type: "ExtendedHeader", size: body.length, mode: 0o644, mtime: new Date(0), uid: 0, gid: 0 }).encode(
    pax,
    0,
  );
  return Buffer.concat([pax, body, Buffer.alloc((512 - (body.length % 512)) % 512), block]);
}

/** The raw (uncompressed) tar bytes of the entries, closed by two zero blocks. */
export function tarBytes(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    if (e.type === "File" || e.type === "ExtendedHeader") {
      const body = Buffer.isBuffer(e.body) ? e.body : Buffer.from(e.body);
      parts.push(header({ path: e.path, type: e.type, size: e.size ?? body.length }));
      parts.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
    } else if (e.type === "SymbolicLink" || e.type === "Link")
      parts.push(header({ path: e.path, type: e.type, size: 0, linkpath: e.linkpath }));
    else parts.push(header({ path: e.path, type: e.type, size: 0 }));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** The entries as a .tar.gz. */
export function tarGz(entries: TarEntry[]): Buffer {
  return zlib.gzipSync(tarBytes(entries));
}

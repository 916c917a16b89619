/**
 * Reading a job folder without ever leaving it: symbolic links and hard links are never followed
 * (a read that meets one fails with UnsafeEntryError naming the entry), every path is checked to
 * stay under the root, and a file over the per-file limit is refused before it is read. The
 * Harbor reader reads every file through this, for `envforge import harbor <dir>` and for the
 * folder an uploaded archive was unpacked into (see archive.ts).
 */
import fs, { constants } from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const readFd = promisify(fs.readFile) as (fd: number) => Promise<Buffer>;

/**
 * Files up to this size are read with synchronous calls, larger ones through the thread pool. The metadata calls (open,
 * fstat, the opened file's path, close; the parents' lstat) are always synchronous: each is a few microseconds on a
 * local folder, where a promise and a thread-pool round trip cost tens; ten Harbor jobs read ~35,000 files.
 */
const SYNC_READ_BYTES = 1 << 20;

/**
 * Where the opened file really lies, by the kernel's name for the descriptor (Linux's /proc/self/fd); on a system
 * without it, the real path of the folder `abs` names, taken after the open. null: the file was deleted after the open.
 */
function openedPath(fd: number, abs: string): string | null {
  let linked: string | undefined;
  try {
    linked = fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return path.join(fs.realpathSync(path.dirname(abs)), path.basename(abs));
  }
  // the kernel marks a name unlinked since the open; a file whose own name ends so is the path itself
  if (linked === abs) return linked;
  return linked.endsWith(" (deleted)") ? null : linked;
}

/** An entry the reader refuses to read: a link, a device, a file over the size limit, or a path outside the root. */
export class UnsafeEntryError extends Error {
  constructor(
    /** the entry, relative to the tree's root */
    readonly entry: string,
    readonly reason: string,
  ) {
    super(`${entry}: ${reason}`);
    this.name = "UnsafeEntryError";
  }
}

/** Why links are refused, in one wording for every reader. */
export const LINK_REFUSED = "is a symbolic link; links are not followed";
export const HARDLINK_REFUSED = "is a hard link; links are not followed";
export const SPECIAL_REFUSED = "is not a regular file or folder";

export type TreeEntryKind = "dir" | "file" | "link" | "other";

/** One child of a folder, as lstat sees it (a link is never resolved). */
export interface TreeEntry {
  name: string;
  /** absolute path */
  path: string;
  kind: TreeEntryKind;
}

export interface SafeTreeOptions {
  /** largest file read, in bytes */
  maxFileBytes?: number;
  /** entries (relative to the root, `/`-separated) known to be refused: links of an archive that were never written */
  refused?: ReadonlyMap<string, string>;
}

const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;

/** A folder read without following links; every path given to it must lie under its root. */
export class SafeTree {
  /**
   * Folders (relative to the root) an lstat found to be real folders, for readFile only: it checks the folder the
   * opened file really lies in (openedPath), so a folder swapped for a link after it was cached is still caught there.
   * Ten Harbor jobs read ~40,000 files four or five folders deep: the lstats were 11 s of the CLI's 35 s of CPU.
   */
  private readonly folders = new Set<string>();

  private constructor(
    /** the root's real path */
    readonly root: string,
    /** the root as the caller named it (paths under it are taken as under the root) */
    private readonly givenRoot: string,
    private readonly maxFileBytes: number,
    private readonly refused: ReadonlyMap<string, string>,
  ) {}

  /** Open a tree at `root` (the root itself may be reached through a link the caller chose; nothing under it may). */
  static async open(root: string, options: SafeTreeOptions = {}): Promise<SafeTree> {
    const real = await fsp.realpath(root);
    if (!(await fsp.stat(real)).isDirectory()) throw new Error(`${root} is not a folder.`);
    return new SafeTree(real, path.resolve(root), options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, options.refused ?? new Map());
  }

  /** The path relative to the root (`/`-separated, "" for the root); a path outside it throws. */
  relative(p: string): string {
    // a relative path is the caller's, named from the working directory like the root was (`../jobs/x/...`)
    const abs = path.resolve(p);
    const fromGiven = path.relative(this.givenRoot, abs);
    const rel = fromGiven.startsWith("..") || path.isAbsolute(fromGiven) ? path.relative(this.root, abs) : fromGiven;
    if (rel === "") return "";
    if (rel.startsWith("..") || path.isAbsolute(rel)) throw new UnsafeEntryError(p, "lies outside the folder being read");
    return rel.split(path.sep).join("/");
  }

  private refusedReason(rel: string): string | undefined {
    if (!this.refused.size) return undefined;
    const parts = rel.split("/");
    for (let i = 1; i <= parts.length; i++) {
      const reason = this.refused.get(parts.slice(0, i).join("/"));
      if (reason) return reason;
    }
    return undefined;
  }

  private kindOf(st: { isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean }): TreeEntryKind {
    return st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : st.isFile() ? "file" : "other";
  }

  /**
   * Checks every folder between the root and `rel` (exclusive) is a real folder: a link there
   * throws; a missing one returns false.
   */
  private async parentsAreFolders(rel: string, cached = false): Promise<boolean> {
    const parts = rel.split("/");
    let current = this.root;
    for (let i = 0; i < parts.length - 1; i++) {
      current = path.join(current, parts[i]);
      const prefix = parts.slice(0, i + 1).join("/");
      if (cached && this.folders.has(prefix)) continue;
      let st;
      try {
        st = fs.lstatSync(current);
      } catch (e) {
        if (isMissing(e)) return false;
        throw e;
      }
      if (st.isSymbolicLink()) throw new UnsafeEntryError(prefix, LINK_REFUSED);
      if (!st.isDirectory()) return false;
      if (cached) this.folders.add(prefix);
    }
    return true;
  }

  /** What `p` is, without following a link; undefined when it does not exist. */
  async kind(p: string): Promise<TreeEntryKind | undefined> {
    const rel = this.relative(p);
    if (this.refusedReason(rel)) return "link";
    if (rel && !(await this.parentsAreFolders(rel))) return undefined;
    try {
      return this.kindOf(fs.lstatSync(path.join(this.root, rel)));
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  /** The children of a folder, sorted by name; refused archive entries appear as links. */
  async entries(dir: string): Promise<TreeEntry[]> {
    const rel = this.relative(dir);
    const reason = rel ? this.refusedReason(rel) : undefined;
    if (reason) throw new UnsafeEntryError(rel, reason);
    if (rel && !(await this.parentsAreFolders(rel + "/x"))) return [];
    const abs = path.join(this.root, rel);
    const found = await fsp.readdir(abs, { withFileTypes: true });
    const out: TreeEntry[] = found.map((d) => ({ name: d.name, path: path.join(abs, d.name), kind: this.kindOf(d) }));
    const prefix = rel ? `${rel}/` : "";
    for (const key of this.refused.keys()) {
      if (!key.startsWith(prefix)) continue;
      const name = key.slice(prefix.length);
      if (name && !name.includes("/") && !out.some((e) => e.name === name)) out.push({ name, path: path.join(abs, name), kind: "link" });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * The bytes of a regular file under the root, or undefined when it does not exist. A link
   * anywhere on the way, a hard link, a device or a file over the size limit throws
   * UnsafeEntryError; nothing outside the root is ever opened.
   */
  async readFile(p: string): Promise<Buffer | undefined> {
    const rel = this.relative(p);
    if (!rel) throw new UnsafeEntryError(p, "is the folder itself, not a file");
    const reason = this.refusedReason(rel);
    if (reason) throw new UnsafeEntryError(rel, reason);
    if (!(await this.parentsAreFolders(rel, true))) return undefined;
    const abs = path.join(this.root, rel);
    let fd: number;
    try {
      // O_NOFOLLOW: a link as the last component fails (ELOOP) instead of being opened;
      // O_NONBLOCK: a FIFO planted in the folder cannot hang the reader
      fd = fs.openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (e) {
      if (isMissing(e)) return undefined;
      if ((e as NodeJS.ErrnoException).code === "ELOOP") throw new UnsafeEntryError(rel, LINK_REFUSED);
      throw e;
    }
    let async = false;
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new UnsafeEntryError(rel, SPECIAL_REFUSED);
      // a second name for a file elsewhere (e.g. the server's secret key) is as good as a link
      if (st.nlink > 1) throw new UnsafeEntryError(rel, HARDLINK_REFUSED);
      if (st.size > this.maxFileBytes) {
        throw new UnsafeEntryError(
          rel,
          `is ${st.size} bytes, over the limit of ${this.maxFileBytes} bytes a file may have (ENVFORGE_IMPORT_MAX_FILE_MB)`,
        );
      }
      // a folder swapped for a link between the checks above and the open: the opened file's folder must still be ours
      const opened = openedPath(fd, abs);
      if (opened === null) return undefined;
      if (path.dirname(opened) !== path.dirname(abs)) throw new UnsafeEntryError(rel, LINK_REFUSED);
      if (st.size <= SYNC_READ_BYTES) return fs.readFileSync(fd);
      async = true;
      const handle = fd;
      return await readFd(handle).finally(() => fs.closeSync(handle));
    } finally {
      if (!async) fs.closeSync(fd);
    }
  }

  /** A regular file as UTF-8 text (see readFile). */
  async readText(p: string): Promise<string | undefined> {
    const bytes = await this.readFile(p);
    return bytes === undefined ? undefined : bytes.toString("utf8");
  }
}

function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

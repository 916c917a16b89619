/**
 * Paths and commands are the server's decisions, not an API caller's: `export` targets write
 * only under one folder (ENVFORGE_EXPORT_DIR, default <data>/exports), and `local` targets run
 * only where the server allows them (ENVFORGE_LOCAL_TARGETS).
 */
import fs from "node:fs/promises";
import path from "node:path";
import { loadSettings } from "@/lib/config/env";

/** The folder every export target writes under. */
export function exportRoot(): string {
  return loadSettings().exportDir;
}

/** Whether this server runs `local` targets' commands. */
export function localTargetsAllowed(): boolean {
  return loadSettings().localTargets;
}

/** Where `dir` leads once every existing symlink on the way is followed (the part that does not exist yet is kept as written). */
async function physicalPath(dir: string): Promise<string> {
  const missing: string[] = [];
  let existing = dir;
  for (;;) {
    try {
      return path.join(await fs.realpath(existing), ...missing.reverse());
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw e;
      const parent = path.dirname(existing);
      if (parent === existing) return dir;
      missing.push(path.basename(existing));
      existing = parent;
    }
  }
}

function inside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * An export directory resolved under `root`: relative paths resolve against it, absolute ones
 * must lie in it; `..` segments, NUL bytes and symlinks that lead out are refused. Returns the
 * absolute path, or why not (a sentence for the `config.directory` field).
 */
export async function resolveExportDirectory(
  directory: string,
  root = exportRoot(),
): Promise<{ ok: true; path: string } | { ok: false; message: string }> {
  if (directory.includes("\0")) return { ok: false, message: "may not contain NUL bytes" };
  if (directory.split(/[\\/]/).includes(".."))
    return { ok: false, message: `may not contain '..': give a folder under the export folder ${root}` };
  const absolute = path.resolve(root, directory);
  if (!inside(root, absolute))
    return { ok: false, message: `must be inside the export folder ${root} (ENVFORGE_EXPORT_DIR); a relative path is taken from there` };
  await fs.mkdir(root, { recursive: true });
  const [realRoot, realTarget] = await Promise.all([fs.realpath(root), physicalPath(absolute)]);
  if (!inside(realRoot, realTarget)) return { ok: false, message: `leads out of the export folder ${root} through a symlink` };
  return { ok: true, path: absolute };
}

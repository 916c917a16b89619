/**
 * Temporary folders of imports and request bodies. Each is named after the process that owns it
 * (`envforge-<kind>-<pid>-[<import id>-]XXXXXX` in the OS temp folder), so a process starting up
 * can remove the ones whose owner died without cleaning up (kill -9, power loss) and leave those
 * of live processes alone.
 */
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export type TempKind = "import" | "body";

const NAME = /^envforge-(import|body)-(\d{1,10})-(?:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-)?[A-Za-z0-9]{6}$/;
/** folders of the older unnamed form are removed once they are this old */
const UNOWNED_MAX_AGE_MS = 60 * 60 * 1000;

/** A new private (0700) temporary folder owned by this process. */
export async function makeTempDir(kind: TempKind, importId?: string, base = os.tmpdir()): Promise<string> {
  return fsp.mkdtemp(path.join(base, `envforge-${kind}-${process.pid}-${importId ? `${importId}-` : ""}`));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A removed stale folder, with the import it belonged to (when it was an import's). */
export interface SweptTempDir {
  dir: string;
  kind: TempKind;
  importId: string | null;
  /** the process that owned it (null for the older unnamed form) */
  pid: number | null;
}

/** Remove the temporary folders whose owning process is gone; returns what was removed. */
export async function sweepStaleTempDirs(base = os.tmpdir()): Promise<SweptTempDir[]> {
  const removed: SweptTempDir[] = [];
  let names: string[];
  try {
    names = await fsp.readdir(base);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith("envforge-import-") && !name.startsWith("envforge-body-")) continue;
    const dir = path.join(base, name);
    const m = NAME.exec(name);
    let stale: boolean;
    if (m) stale = Number(m[2]) !== process.pid && !alive(Number(m[2]));
    else {
      const st = await fsp.lstat(dir).catch(() => null);
      stale = !!st && Date.now() - st.mtimeMs > UNOWNED_MAX_AGE_MS;
    }
    if (!stale) continue;
    await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    removed.push({
      dir,
      kind: name.startsWith("envforge-import-") ? "import" : "body",
      importId: m?.[3] ?? null,
      pid: m ? Number(m[2]) : null,
    });
  }
  return removed;
}

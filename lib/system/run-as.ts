/**
 * Running child processes as an unprivileged system user when the server runs as root: the
 * embedded PostgreSQL runs as `postgres`, `local` dispatch targets' commands as `envforge-runner`.
 * Such a user can only use paths it can traverse, which excludes anything below a 0700 folder
 * such as /root; callers check with canTraverse and relocate or refuse.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** A system user a child process runs as. */
export interface SystemUser {
  name: string;
  uid: number;
  gid: number;
}

/** The user `local` targets' commands run as when the server runs as root. */
export const LOCAL_RUNNER_USER = "envforge-runner";

/** Whether this process runs as root (POSIX only). */
export function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** True when `uid` (with `gid`) may traverse every ancestor of `target` and read/enter it. */
export function canTraverse(target: string, user: Pick<SystemUser, "uid" | "gid">): boolean {
  let current = path.resolve(target);
  for (;;) {
    let st: fs.Stats;
    try {
      st = fs.statSync(current);
    } catch {
      // a folder that does not exist yet: its parent decides
      const parent = path.dirname(current);
      if (parent === current) return true;
      current = parent;
      continue;
    }
    const mode = st.mode;
    const ok = st.uid === user.uid ? (mode & 0o100) !== 0 : st.gid === user.gid ? (mode & 0o010) !== 0 : (mode & 0o001) !== 0;
    if (!ok) return false;
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** The first folder on the way to `target` that `user` cannot traverse (for messages), or null. */
export function firstClosedFolder(target: string, user: Pick<SystemUser, "uid" | "gid">): string | null {
  const parts = path.resolve(target).split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const prefix = path.sep + parts.slice(0, i).join(path.sep);
    if (!canTraverse(prefix, user)) return prefix;
  }
  return null;
}

/** uid and gid of a user, or null when it does not exist. */
export function lookupSystemUser(name: string): SystemUser | null {
  try {
    const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
    const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { name, uid, gid } : null;
  } catch {
    return null;
  }
}

/** Root only: a system user (with a group of its name, no home, no login shell), created when absent. */
export function ensureSystemUser(name: string, why: string, log: (line: string) => void = () => {}): SystemUser {
  const existing = lookupSystemUser(name);
  if (existing) return existing;
  log(`creating the system user '${name}' ${why}`);
  try {
    execFileSync("groupadd", ["--system", name], { stdio: "ignore" });
  } catch {
    // the group may exist already
  }
  try {
    execFileSync(
      "useradd",
      ["--system", "-g", name, "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", name],
      { stdio: "ignore" },
    );
  } catch {
    // a concurrent start may have created it; the lookup below decides
  }
  const created = lookupSystemUser(name);
  if (!created) throw new Error(`Could not create the system user '${name}' (needed ${why}); create it with useradd --system.`);
  return created;
}

let knownRunner: SystemUser | null = null;

/** Who `local` targets' commands run as: `envforge-runner` (created when absent) when the server is root, else null (the server's own user). */
export function localRunner(log?: (line: string) => void): SystemUser | null {
  if (!isRoot()) return null;
  // looked up once per process: `id` is a blocking child process
  knownRunner ??= ensureSystemUser(LOCAL_RUNNER_USER, "to run local dispatch targets' commands without root", log);
  return knownRunner;
}

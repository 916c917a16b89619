/**
 * `npm start`: embedded Postgres (unless DATABASE_URL), migrations, a build when none is current,
 * the Next.js server and the background worker in one process; Ctrl-C / SIGTERM stops all of it.
 */
import { spawn } from "node:child_process";
import crypto, { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import pg from "pg";
import { loadSettings, SettingsError, type Settings } from "../lib/config/env";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../lib/db/embedded";
import { runMigrations } from "../lib/db/migrate";
import { createDb, WORKER_ACQUIRE_TIMEOUT_MS } from "../lib/db/client";
import { describeError } from "../lib/db/errors";
import { ensureBootstrapKey } from "../lib/auth/keys";
import { DEMO_SLUG, seedDemo } from "../lib/demo/seed";
import { demoLoopJobSchema, queueDemoCycles } from "../lib/demo/loop";
import { enqueue } from "../lib/queue/boss";
import { runWorkers, startBoss } from "../lib/queue/boss";
import { startSearchIndexer } from "../lib/rollouts/search-index";

import { workerHandlers } from "@/lib/worker/handlers";
import { sweepDispatches } from "../lib/dispatch/service";
import { sweepImports } from "../lib/ingest/import-sweep";
import { guardedHandler } from "../lib/http/guard";
import { serverHostPolicy } from "../lib/http/host-check";

const root = path.resolve(import.meta.dirname, "..");
const dev = process.argv.includes("--dev");
const say = (line: string) => console.log(`[envforge] ${line}`);

/** How often the worker looks for rollouts without a search document (a cheap indexed probe when there are none). */
const SEARCH_INDEX_INTERVAL_MS = 1000;
/** While ingest is writing, the search indexer takes one batch per this many ms (it shares the cores with ingest). */
const SEARCH_INDEX_MAX_DEFER_MS = 5000;
const cleanups: (() => Promise<void>)[] = [];
let shuttingDown = false;

let stopped: Promise<never> | null = null;

/** Stop everything once: Ctrl-C signals the whole process group, so a second signal must not cut the first short. */
function shutdown(code: number): Promise<never> {
  if (!stopped) {
    shuttingDown = true;
    stopped = (async () => {
      for (const fn of cleanups.reverse()) {
        await fn().catch((err) => console.error(`[envforge] while stopping: ${describeError(err)}`));
      }
      process.exit(code);
    })();
  }
  return stopped;
}

function fail(message: string): Promise<never> {
  console.error(`[envforge] ${message}`);
  return shutdown(1);
}

/** A fingerprint of everything `next build` reads, so a stale build is rebuilt. */
function sourceFingerprint(): string {
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(tsx?|css|json|mjs|js|svg|png|ico)$/.test(entry.name) && !entry.name.includes(".test.")) {
        hash.update(path.relative(root, full));
        hash.update(fs.readFileSync(full));
      }
    }
  };
  for (const dir of ["app", "components", "lib", "public"]) walk(path.join(root, dir));
  for (const file of ["next.config.ts", "package-lock.json", "tsconfig.json", "postcss.config.mjs"]) {
    const full = path.join(root, file);
    if (fs.existsSync(full)) hash.update(fs.readFileSync(full));
  }
  return hash.digest("hex");
}

/**
 * The embedded default keeps a generated ENVFORGE_SECRET_KEY in the data folder (0600), so target
 * secrets can be stored encrypted without a setup step. Set ENVFORGE_SECRET_KEY yourself when
 * several processes share an external database.
 */
function ensureSecretKey(dataDir: string) {
  if (process.env.ENVFORGE_SECRET_KEY) return;
  const file = path.join(dataDir, "secret-key");
  if (!fs.existsSync(file)) fs.writeFileSync(file, crypto.randomBytes(32).toString("base64url"), { mode: 0o600 });
  process.env.ENVFORGE_SECRET_KEY = fs.readFileSync(file, "utf8").trim();
}

async function ensureBuild(): Promise<void> {
  const marker = path.join(root, ".next", "envforge-source");
  const fingerprint = sourceFingerprint();
  if (fs.existsSync(path.join(root, ".next", "BUILD_ID")) && fs.existsSync(marker) && fs.readFileSync(marker, "utf8") === fingerprint) {
    return;
  }
  say("building the web app (first start or changed sources; this takes a minute or two)");
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", DATABASE_URL: "" },
    });
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
    });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`next build failed (exit ${code})`))));
  });
  fs.writeFileSync(marker, fingerprint);
  say(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (!rowCount) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function listen(server: http.Server, settings: Settings): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EADDRINUSE")
        reject(
          new SettingsError(`Port ${settings.PORT} on ${settings.HOST} is in use: stop what holds it or start with PORT=<another port>.`),
        );
      else if (err.code === "EADDRNOTAVAIL") reject(new SettingsError(`HOST=${settings.HOST} is not an address of this machine.`));
      else if (err.code === "EACCES") reject(new SettingsError(`Port ${settings.PORT} needs privileges: use a port above 1023.`));
      else reject(err);
    });
    server.listen(settings.PORT, settings.HOST, () => resolve());
  });
}

async function main() {
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  // npm does not pass SIGTERM on when it is killed itself: stop when our parent goes away
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent && !shuttingDown) {
      say("the parent process exited; stopping");
      void shutdown(0);
    }
  }, 1000).unref();

  let settings: Settings;
  try {
    settings = loadSettings();
  } catch (err) {
    if (err instanceof SettingsError) return fail(err.message);
    throw err;
  }
  if (settings.ENVFORGE_WEB) {
    // fail fast on a busy port before spending time on the database and build
    const probe = http.createServer();
    await listen(probe, settings).catch((err) => fail(err.message));
    await new Promise((r) => probe.close(r));
  }

  let url = settings.DATABASE_URL;
  let embedded: EmbeddedPostgres | null = null;
  if (!url) {
    try {
      embedded = await startEmbeddedPostgres({ dataDir: settings.dataDir, port: settings.ENVFORGE_PG_PORT, log: say });
    } catch (err) {
      return fail(`The embedded database could not start: ${(err as Error).message}`);
    }
    cleanups.push(() => embedded!.stop());
    url = await ensureDatabase(embedded.url, "envforge");
    ensureSecretKey(settings.dataDir);
  }
  // decisions derived from "is the database embedded" are pinned before DATABASE_URL is set,
  // so every later loadSettings() (web, worker, Next.js) sees the same ones
  process.env.ENVFORGE_LOCAL_TARGETS = settings.localTargets ? "1" : "0";
  process.env.ENVFORGE_EXPORT_DIR = settings.exportDir;
  process.env.DATABASE_URL = url;

  try {
    await runMigrations(url);
  } catch (err) {
    return fail(`Could not prepare the database at ${redact(url)}: ${(err as Error).message}`);
  }
  // the worker's own pool (and the bootstrap and demo seeding before it): background work waits for a connection
  const handle = createDb(url, 4, WORKER_ACQUIRE_TIMEOUT_MS);
  cleanups.push(() => handle.pool.end());
  if (settings.ENVFORGE_BOOTSTRAP_TOKEN) {
    const outcome = await ensureBootstrapKey(handle.db, settings.ENVFORGE_BOOTSTRAP_TOKEN);
    if (outcome === "created") say("created the admin API key from ENVFORGE_BOOTSTRAP_TOKEN");
  }
  if (settings.demo) {
    try {
      const seeded = await seedDemo(handle.db, { root, workDir: path.join(settings.dataDir, "dispatch"), log: say });
      if (seeded) {
        // the first cycles run in the background: dispatch, simulated training, proposal, approval
        await queueDemoCycles(handle.db, seeded, 3, (data) => enqueue("envforge.demo-loop", demoLoopJobSchema, data, { retryLimit: 0 }));
        say(`seeded the demo project '${seeded.slug}'; its first cycles run in the background`);
      }
    } catch (err) {
      say(`the demo project was not seeded: ${(err as Error).message}`);
    }
  }

  if (settings.ENVFORGE_WORKER) {
    const boss = await startBoss(url, { worker: true });
    cleanups.push(() => boss.stop({ graceful: true, timeout: 10_000 }));
    await runWorkers(boss, workerHandlers(handle.db));
    // dispatches a crashed worker left behind are queued again; the lease keeps delivery single
    // imports a dead worker left `running`, and its temporary folders, are failed and removed (never stuck)
    const sweep = () =>
      Promise.all([
        sweepDispatches(handle.db).catch((err) => console.error(`[dispatch] sweep: ${describeError(err)}`)),
        sweepImports(handle.db).catch((err) => console.error(`[import] sweep: ${describeError(err)}`)),
      ]);
    await sweep();
    const sweeper = setInterval(sweep, 30_000);
    cleanups.push(async () => clearInterval(sweeper));
    // search documents are written here, off the ingest path (ADR 0007); the first drain indexes what a seed or a crash left
    const indexer = startSearchIndexer(handle.db, {
      intervalMs: SEARCH_INDEX_INTERVAL_MS,
      maxDeferMs: SEARCH_INDEX_MAX_DEFER_MS,
      onError: (err) => console.error(`[search] indexer: ${describeError(err)}`),
    });
    cleanups.push(() => indexer.stop());
    await indexer.drain().catch((err) => console.error(`[search] indexer: ${describeError(err)}`));
    if (settings.demo && settings.ENVFORGE_DEMO_LOOP_MINUTES > 0) {
      // the demo's loop keeps running: one more cycle every few minutes, up to a dozen generations
      await boss.schedule("envforge.demo-loop", `*/${settings.ENVFORGE_DEMO_LOOP_MINUTES} * * * *`, {
        slug: DEMO_SLUG,
        cycles: 1,
        scheduled: true,
      });
    } else {
      await boss.unschedule("envforge.demo-loop").catch(() => undefined);
    }
    say("worker running");
  }

  if (settings.ENVFORGE_WEB) {
    if (!dev) await ensureBuild();
    const { default: next } = await import("next");
    const app = next({ dev, dir: root, hostname: settings.HOST, port: settings.PORT });
    await app.prepare();
    const handler = app.getRequestHandler();
    // every request passes the Host check and gets the security headers before Next sees it
    const server = http.createServer(guardedHandler(serverHostPolicy(settings), (req, res) => handler(req, res)));
    // Node closes an idle kept-alive socket after 5 s and tells clients so; a client whose event loop is busy (a CLI parsing
    // a Harbor job between uploads) can reuse it just as it closes, and its request dies (UND_ERR_SOCKET, EPIPE). A minute
    // makes that rare; the CLI's ingest also retries a dropped connection (cli/client.ts).
    server.keepAliveTimeout = 60_000;
    server.headersTimeout = 65_000;
    await listen(server, settings).catch((err) => fail(err.message));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    say(`dashboard on http://${settings.HOST}:${settings.PORT}${embedded ? ` (embedded Postgres, data in ${settings.dataDir})` : ""}`);
  }
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}

main().catch((err) => fail(`stopped: ${err?.stack ?? err}`));

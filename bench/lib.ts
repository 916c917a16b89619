/** What every benchmark shares: the real app on a scratch data folder, and recording figures in docs/BENCHMARKS.md. */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRng } from "../lib/families/rng";
import type { FamilyConfig, FamilyDefinition } from "../lib/families/types";

export const root = path.resolve(import.meta.dirname, "..");

/** `--json <file>` from the command line, if given. */
export function jsonTarget(argv = process.argv.slice(2)): string | null {
  const i = argv.indexOf("--json");
  return i >= 0 && argv[i + 1] ? path.resolve(process.cwd(), argv[i + 1]) : null;
}

/**
 * The value after `name` on the command line, or `fallback` when the flag is absent; a flag given last, or followed by
 * another flag, is refused by name rather than read as a missing value.
 */
export function flagValue(name: string, fallback: string, argv = process.argv.slice(2)): string {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const value = argv[i + 1];
  if (value === undefined || value.startsWith("--")) throw new Error(`${name} needs a value`);
  return value;
}

/**
 * `--engineer-seeds a,b,...` (ArenaOptions.engineerSeed, one draw of the heuristic's own randomness each; 0 is the
 * recorded draw): an empty list, or an entry that is not a whole number >= 0, is refused by name.
 */
export function engineerSeedsFlag(fallback: string, argv = process.argv.slice(2)): number[] {
  const seeds = flagValue("--engineer-seeds", fallback, argv)
    .split(",")
    .filter((x) => x !== "")
    .map(Number);
  if (seeds.length === 0) throw new Error("--engineer-seeds: give at least one (0 is the recorded draw)");
  for (const x of seeds) if (!(Number.isInteger(x) && x >= 0)) throw new Error(`--engineer-seeds: ${x} is not a whole number >= 0`);
  return seeds;
}

export interface RunningApp {
  url: string;
  token: string;
  databaseUrl: string;
  /** the server process (its RSS is the app's memory) */
  pid: number;
  /** stop the app and its database; the data folder is removed unless `keepData` (to start again on it) */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/**
 * `BENCH_SERVER_PROF=<dir>`: the app's server writes a V8 CPU profile there when it stops (Node refuses `--cpu-prof` in
 * NODE_OPTIONS). Build with `experimental.serverMinification: false` in next.config.ts to read its function names.
 */
function serverProfileArgs(): string[] {
  const dir = process.env.BENCH_SERVER_PROF;
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(dir)}`] : [];
}

/** `BENCH_SERVER_NODE_ARGS="--flag ..."`: Node flags for the app's server only (the bench's own process keeps its own). */
function serverNodeArgs(): string[] {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
}

/**
 * Start `npm start`'s script on an embedded database (no demo) and wait until it is healthy: a fresh
 * data folder, or `dataDir` to start again on the data of an earlier run (a restart).
 */
export async function startApp(port = 3091, opts: { dataDir?: string } = {}): Promise<RunningApp> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "ef-bench-"));
  fs.chmodSync(dataDir, 0o755);
  const token = "bench-bootstrap-token-0123456789";
  const log = fs.openSync(path.join(dataDir, "server.log"), "a");
  const child: ChildProcess = spawn(
    process.execPath,
    [...serverProfileArgs(), ...serverNodeArgs(), "--import", "tsx", "scripts/start.ts"],
    {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(port),
        ENVFORGE_DATA_DIR: dataDir,
        ENVFORGE_DEMO: "0",
        ENVFORGE_BOOTSTRAP_TOKEN: token,
        DATABASE_URL: "",
      },
      stdio: ["ignore", log, log],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 25 * 60_000; // a first start builds the app: minutes on a loaded machine
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the app exited; see ${path.join(dataDir, "server.log")}`);
    if (
      await fetch(`${url}/api/health`)
        .then((r) => r.ok)
        .catch(() => false)
    )
      break;
    if (Date.now() > deadline) throw new Error("the app did not start in 25 minutes");
    await new Promise((r) => setTimeout(r, 500));
  }
  const text = fs.readFileSync(path.join(dataDir, "server.log"), "utf8");
  // the last start's port: a restart on the same data folder appends to the log
  const pgPort = [...text.matchAll(/embedded PostgreSQL listening on 127\.0\.0\.1:(\d+)/g)].pop()?.[1];
  const password = fs.readFileSync(path.join(dataDir, "pg-password"), "utf8").trim();
  return {
    url,
    token,
    databaseUrl: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/envforge`,
    pid: child.pid!,
    async stop(stopOpts = {}) {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
      if (!stopOpts.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Resident memory of a process in MB (from /proc; 0 once it has exited). */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds (user + system) the process `pid` and every process below it have used so far, by command name (`node`,
 * `postgres`): read from /proc, so it counts what each part did whatever else the machine was running. Linux only; {} elsewhere.
 */
export function treeCpuSeconds(pid: number): Record<string, number> {
  const procs: { pid: number; ppid: number; comm: string; ticks: number }[] = [];
  let entries: string[] = [];
  try {
    entries = fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return {};
  }
  for (const e of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, "utf8");
      // the command sits in parentheses and may hold spaces: the fields after its closing parenthesis are fixed
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const f = stat.slice(close + 2).split(" ");
      // after the command: state(0) ppid(1) ... utime(11) stime(12)
      procs.push({ pid: Number(e), ppid: Number(f[1]), comm, ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // gone between the listing and the read
    }
  }
  const children = new Map<number, typeof procs>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: Record<string, number> = {};
  const walk = (p: (typeof procs)[number]) => {
    out[p.comm] = (out[p.comm] ?? 0) + p.ticks / 100; // USER_HZ is 100 on Linux
    for (const c of children.get(p.pid) ?? []) walk(c);
  };
  const top = procs.find((p) => p.pid === pid);
  if (top) walk(top);
  return out;
}

/** Samples the RSS of the processes it watches every `everyMs` and keeps the maximum. */
export function rssSampler(everyMs = 200) {
  let max = 0;
  const pids = new Set<number>();
  const timer = setInterval(() => {
    for (const pid of pids) max = Math.max(max, rssMb(pid));
  }, everyMs);
  timer.unref();
  return {
    watch(pid: number) {
      pids.clear();
      pids.add(pid);
    },
    maxMb: () => max,
    stop: () => clearInterval(timer),
  };
}

/** A short description of this machine for the record. */
export function machine(): string {
  return `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** Replace (or append) the section under `## <title>` in docs/BENCHMARKS.md. */
/**
 * The benchmark file with a new run recorded under `## title`: the run goes first, right under the heading, and the
 * section's earlier text (earlier runs, their commands and comparisons) stays below it, so a re-run never loses
 * history. A section not there yet is added at the end.
 */
export function withRecordedSection(text: string, title: string, body: string): string {
  const heading = `## ${title}`;
  const start = text.indexOf(`${heading}\n`);
  if (start < 0) return `${text.trimEnd()}\n\n${heading}\n${body.trim()}\n`;
  const bodyStart = start + heading.length + 1;
  const after = text.indexOf("\n## ", bodyStart - 1);
  const earlier = text.slice(bodyStart, after < 0 ? text.length : after + 1).trim();
  const section = `${heading}\n${body.trim()}\n${earlier ? `\n${earlier}\n` : ""}`;
  return (text.slice(0, start) + section + (after < 0 ? "" : "\n" + text.slice(after + 1))).trimEnd() + "\n";
}

/** Record a run in docs/BENCHMARKS.md (see `withRecordedSection`: earlier runs are kept below it). */
export function recordSection(title: string, body: string): void {
  const file = path.join(root, "docs", "BENCHMARKS.md");
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "# Benchmarks\n";
  fs.writeFileSync(file, withRecordedSection(text, title, body));
}

/** `count` frozenlake-mapf environments of varied size, agents, holes and slip (the analytics and scale benches' shapes). */
export function frozenlakeBenchEnvironments(count: number, key: (i: number) => string = (i) => `env-${i}`) {
  return Array.from({ length: count }, (_, i) => ({
    key: key(i),
    config: {
      size: 4 + (i % 20),
      num_agents: 1 + (i % 3),
      obstacle_density: (i % 5) / 20,
      slip_probability: (i % 10) / 40,
      max_steps: 200,
      min_goal_distance: 2,
      collision: i % 2 ? "soft" : "block_both",
      seed: i,
    },
  }));
}

/**
 * bench:engineer's data (and bench/engineer-profile.ts's, which must match it): `count` configs sampled from seeds
 * 1000 + i, and for each of `attempts` attempts whether it succeeds (p = p_max / (1 + e^(2 difficulty))) and, when it
 * fails, whether it timed out (30%), drawn from one stream seeded 42 in environment order.
 */
export function engineerBenchData(family: FamilyDefinition, count: number, attempts: number) {
  const configs = Array.from({ length: count }, (_, i) => family.sample(createRng(1000 + i)) as FamilyConfig);
  const rng = createRng(42);
  function* outcomes() {
    for (const [i, config] of configs.entries()) {
      const d = family.difficulty?.(config);
      const p = d ? d.pMax * (1 / (1 + Math.exp(2 * d.difficulty))) : 0.5;
      const draws: { ok: boolean; timeout: boolean }[] = [];
      for (let a = 0; a < attempts; a++) {
        const ok = rng.next() < p;
        draws.push({ ok, timeout: !ok && rng.next() < 0.3 });
      }
      yield { i, config, draws };
    }
  }
  return { configs, outcomes };
}

/** What every benchmark shares: the real app on a scratch data folder, and recording figures in docs/BENCHMARKS.md. */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "..");

/** `--json <file>` from the command line, if given. */
export function jsonTarget(argv = process.argv.slice(2)): string | null {
  const i = argv.indexOf("--json");
  return i >= 0 && argv[i + 1] ? path.resolve(process.cwd(), argv[i + 1]) : null;
}

export interface RunningApp {
  url: string;
  token: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** Start `npm start`'s script on a fresh embedded database (no demo) and wait until it is healthy. */
export async function startApp(port = 3091): Promise<RunningApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ef-bench-"));
  fs.chmodSync(dataDir, 0o755);
  const token = "bench-bootstrap-token-0123456789";
  const log = fs.openSync(path.join(dataDir, "server.log"), "a");
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
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
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the app exited; see ${path.join(dataDir, "server.log")}`);
    if (
      await fetch(`${url}/api/health`)
        .then((r) => r.ok)
        .catch(() => false)
    )
      break;
    if (Date.now() > deadline) throw new Error("the app did not start in 10 minutes");
    await new Promise((r) => setTimeout(r, 500));
  }
  const text = fs.readFileSync(path.join(dataDir, "server.log"), "utf8");
  const pgPort = /embedded PostgreSQL listening on 127\.0\.0\.1:(\d+)/.exec(text)?.[1];
  const password = fs.readFileSync(path.join(dataDir, "pg-password"), "utf8").trim();
  return {
    url,
    token,
    databaseUrl: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/envforge`,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A short description of this machine for the record. */
export function machine(): string {
  return `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** Replace (or append) the section under `## <title>` in docs/BENCHMARKS.md. */
export function recordSection(title: string, body: string): void {
  const file = path.join(root, "docs", "BENCHMARKS.md");
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "# Benchmarks\n";
  const heading = `## ${title}`;
  const start = text.indexOf(heading);
  const section = `${heading}\n${body.trim()}\n`;
  let next: string;
  if (start < 0) next = `${text.trimEnd()}\n\n${section}`;
  else {
    const after = text.indexOf("\n## ", start + heading.length);
    next = text.slice(0, start) + section + (after < 0 ? "" : "\n" + text.slice(after + 1));
  }
  fs.writeFileSync(file, next.trimEnd() + "\n");
}

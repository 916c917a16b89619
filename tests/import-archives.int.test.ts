/**
 * Hostile Harbor archives and job folders (issue 11, points 1 and 6): links (chained, relative,
 * hard) aimed at a canary and at the data folder's secret-key and pg-password are never
 * followed, by the browser upload nor by `envforge import harbor <dir>`; bombs are stopped by
 * the limits; no temporary folder is left behind.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { freshDatabase } from "./db";
import { call } from "./http";
import { startApiServer } from "./api-server";
import { tarBytes, tarGz, type TarEntry } from "./tar-builder";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { getBoss } from "@/lib/queue/boss";
import { unpackArchive } from "@/lib/ingest/archive";
import { sweepImports } from "@/lib/ingest/import-sweep";
import { EnvForgeClient } from "@/cli/client";
import { importHarbor } from "@/cli/commands/import";
import * as projectsRoute from "@/app/api/v1/projects/route";
import * as importsRoute from "@/app/api/v1/projects/[slug]/imports/route";
import * as importRoute from "@/app/api/v1/imports/[id]/route";
import { startTestWorker, type TestDb, type TestServer } from "./api-harness";
import type PgBoss from "pg-boss";

const TOKEN = "test-bootstrap-token-archives-01";
let db: TestDb;
let worker: PgBoss;
let server: TestServer;
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ef-archives-")));

// what must never leave its file: a canary, and the data folder's secrets
const dataDir = path.join(tmp, "data");
const canary = path.join(tmp, "canary.json");
const secrets = {
  canary: `CANARY-${randomBytes(12).toString("hex")}`,
  secretKey: `SECRETKEY-${randomBytes(12).toString("hex")}`,
  pgPassword: `PGPASSWORD-${randomBytes(12).toString("hex")}`,
};

// everything printed while the tests run, to be searched for the secrets
const printed: string[] = [];
const capture = (...args: unknown[]) => void printed.push(args.map(String).join(" "));

const upload = (slug: string, body: Buffer) =>
  call(importsRoute.POST as never, "POST", `/api/v1/projects/${slug}/imports?kind=harbor&filename=job.tar.gz`, {
    token: TOKEN,
    rawBody: body as unknown as string,
    contentType: "application/octet-stream",
    params: { slug },
  });

async function settled(id: string) {
  for (let i = 0; i < 600; i++) {
    const r = await call(importRoute.GET as never, "GET", `/api/v1/imports/${id}`, { token: TOKEN, params: { id } });
    if (r.json.status === "succeeded" || r.json.status === "failed") return r.json;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error("import did not finish");
}

function trialResult(name: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    id: `${name}-id`,
    task_name: name.split("__")[0],
    trial_name: name,
    agent_info: { name: "agent", model_info: { name: "pol", provider: "x" } },
    verifier_result: { rewards: { reward: 1 } },
    exception_info: null,
    ...extra,
  });
}

/** Every text the database holds (all public tables, and the queue's jobs). */
async function everythingStored(): Promise<string> {
  const tables = await db.pool.query<{ name: string }>(
    "select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
  );
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    const rows = await db.pool.query<{ row: string }>(`select t::text as row from public."${name}" t`);
    parts.push(...rows.rows.map((r) => r.row));
  }
  const jobs = await db.pool
    .query<{ row: string }>("select j::text as row from pgboss.job j")
    .catch(() => ({ rows: [] as { row: string }[] }));
  parts.push(...jobs.rows.map((r) => r.row));
  return parts.join("\n");
}

function expectNoSecret(text: string) {
  for (const [name, value] of Object.entries(secrets)) expect(text.includes(value), `${name} leaked`).toBe(false);
}

/**
 * Entries of a link chain inside `trial` that stays lexically inside the archive but points out
 * physically: `deep/d1/…/d20/top` -> the archive root (lexically inside), then
 * `<file>` -> `../deep/d1/…/d20/top/../…/../<absolute target>`, whose `..`s climb from the
 * root the first link led to, up to `/`.
 */
function chainEntries(trial: string, file: string, target: string): TarEntry[] {
  const dirs = Array.from({ length: 20 }, (_, i) => `d${i + 1}`);
  const entries: TarEntry[] = [];
  for (let i = 1; i <= dirs.length; i++) entries.push({ path: `${trial}/deep/${dirs.slice(0, i).join("/")}/`, type: "Directory" });
  const deepDir = `${trial}/deep/${dirs.join("/")}`;
  const depth = deepDir.split("/").length;
  entries.push({ path: `${deepDir}/top`, type: "SymbolicLink", linkpath: "../".repeat(depth).slice(0, -1) });
  const fileDepth = file.split("/").length - 1;
  const climb = "../".repeat(depth + 1);
  entries.push({
    path: `${trial}/${file}`,
    type: "SymbolicLink",
    linkpath: `${"../".repeat(fileDepth)}deep/${dirs.join("/")}/top/${climb}${target.slice(1)}`,
  });
  return entries;
}

beforeAll(async () => {
  fs.mkdirSync(dataDir);
  fs.writeFileSync(path.join(dataDir, "secret-key"), secrets.secretKey);
  fs.writeFileSync(path.join(dataDir, "pg-password"), secrets.pgPassword);
  // a valid trajectory, so a reader that followed the link would store it
  fs.writeFileSync(canary, JSON.stringify([{ role: "user", content: secrets.canary }]));
  for (const method of ["log", "info", "warn", "error", "debug"] as const) vi.spyOn(console, method).mockImplementation(capture);
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, TOKEN);
  worker = await startTestWorker(db);
  server = await startApiServer();
  await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
    token: TOKEN,
    body: { slug: "tb", name: "TB", family: "terminal-task" },
  });
});
afterEach(() => {
  delete process.env.ENVFORGE_IMPORT_MAX_UNPACKED_MB;
  delete process.env.ENVFORGE_IMPORT_MAX_ENTRIES;
  delete process.env.ENVFORGE_IMPORT_MAX_FILE_MB;
});
afterAll(async () => {
  vi.restoreAllMocks();
  await server?.close();
  await worker?.stop({ graceful: false, wait: true });
  await (await getBoss()).stop({ graceful: false, wait: true });
  await db?.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** This process's import folders in the OS temp folder. */
const importFolders = (importId: string) =>
  fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`envforge-import-${process.pid}-${importId}`));

describe("a Harbor archive cannot reach outside itself", () => {
  it("refuses chained, relative and hard links per trial, imports the rest, and no secret byte is stored or printed", async () => {
    const entries: TarEntry[] = [
      { path: "job/config.json", type: "File", body: JSON.stringify({ job_name: "evil" }) },
      { path: "job/good__1/result.json", type: "File", body: trialResult("good__1") },
      { path: "job/good__1/verifier/test-stdout.txt", type: "File", body: "1 passed" },
      // the trajectory is a chain of links to the canary
      { path: "job/chain__1/result.json", type: "File", body: trialResult("chain__1") },
      ...chainEntries("job/chain__1", "agent/trajectory.json", canary),
      // the verifier output is a chain of links to the data folder's secret key
      { path: "job/key__1/result.json", type: "File", body: trialResult("key__1") },
      ...chainEntries("job/key__1", "verifier/test-stdout.txt", path.join(dataDir, "secret-key")),
      // result.json is a link to the database password (a JSON error would quote it)
      { path: "job/pw__1/config.json", type: "File", body: "{}" },
      ...chainEntries("job/pw__1", "result.json", path.join(dataDir, "pg-password")),
      // a hard link to the secret key, by absolute and by relative path
      { path: "job/hard__1/result.json", type: "File", body: trialResult("hard__1") },
      { path: "job/hard__1/verifier/test-stdout.txt", type: "Link", linkpath: path.join(dataDir, "secret-key") },
      { path: "job/hard__2/result.json", type: "File", body: trialResult("hard__2") },
      { path: "job/hard__2/agent/trajectory.json", type: "Link", linkpath: `../../../../../../../../../../..${canary}` },
      // a folder of a trial through a link to the data folder
      { path: "job/folder__1", type: "SymbolicLink", linkpath: "good__1/../../../../../../../../../../.." + dataDir },
      // an entry whose own path climbs out
      { path: "job/../../escape.txt", type: "File", body: "x" },
    ];
    const created = await upload("tb", tarGz(entries));
    expect(created.status).toBe(202);
    const done = await settled(created.json.id);
    expect(done.status).toBe("succeeded");
    expect(done.summary.accepted).toBe(1);
    const byTrial = Object.fromEntries(done.summary.rejected.map((r: { message: string }) => [r.message.split(":")[0], r.message]));
    expect(byTrial["chain__1"]).toMatch(/agent\/trajectory\.json: is a symbolic link; links are not followed/);
    expect(byTrial["key__1"]).toMatch(/verifier\/test-stdout\.txt: is a symbolic link/);
    expect(byTrial["pw__1"]).toMatch(/result\.json: is a symbolic link/);
    expect(byTrial["hard__1"]).toMatch(/verifier\/test-stdout\.txt: is a hard link/);
    expect(byTrial["hard__2"]).toMatch(/agent\/trajectory\.json: is a hard link/);
    expect(byTrial["folder__1"]).toMatch(/folder__1: is a symbolic link/);
    expect(
      done.summary.rejected.some(
        (r: { code: string; message: string }) => r.code === "unsafe_entry" && /escape\.txt: lies outside/.test(r.message),
      ),
    ).toBe(true);
    expectNoSecret(JSON.stringify(done));
    expectNoSecret(await everythingStored());
    expectNoSecret(printed.join("\n"));
    expect(importFolders(created.json.id)).toEqual([]);
    expect(fs.existsSync(path.join(os.tmpdir(), "escape.txt"))).toBe(false);
  });
});

describe("envforge import harbor <dir> cannot reach outside the job folder", () => {
  it("does not follow symbolic links (chained through folders) nor hard links, and says which trial and file", async () => {
    const job = path.join(tmp, "dirjob");
    const mk = (rel: string, body: string) => {
      fs.mkdirSync(path.dirname(path.join(job, rel)), { recursive: true });
      fs.writeFileSync(path.join(job, rel), body);
    };
    mk("config.json", JSON.stringify({ job_name: "dirjob" }));
    mk("good__1/result.json", trialResult("dgood__1"));
    // chain: agent -> hop (a folder link) -> ../deep/../../.. -> the data folder; the file name reaches secret-key
    mk("key__1/result.json", trialResult("dkey__1"));
    fs.mkdirSync(path.join(job, "key__1", "deep", "a", "b"), { recursive: true });
    fs.symlinkSync("../../..", path.join(job, "key__1", "deep", "a", "b", "up"));
    fs.symlinkSync(`deep/a/b/up/${path.relative(job, dataDir)}`, path.join(job, "key__1", "verifier"));
    fs.symlinkSync(`../deep/a/b/up/../${path.basename(dataDir)}/secret-key`, path.join(job, "key__1", "deep", "stdout"));
    // the trajectory file itself is a relative link to the canary
    mk("chain__1/result.json", trialResult("dchain__1"));
    fs.mkdirSync(path.join(job, "chain__1", "agent"));
    fs.symlinkSync(path.relative(path.join(job, "chain__1", "agent"), canary), path.join(job, "chain__1", "agent", "trajectory.json"));
    // result.json is a link to the database password
    mk("pw__1/config.json", "{}");
    fs.symlinkSync(path.join(dataDir, "pg-password"), path.join(job, "pw__1", "result.json"));
    // a hard link to the secret key (same file system)
    mk("hard__1/result.json", trialResult("dhard__1"));
    fs.mkdirSync(path.join(job, "hard__1", "verifier"));
    fs.linkSync(path.join(dataDir, "secret-key"), path.join(job, "hard__1", "verifier", "test-stdout.txt"));
    // a trial folder that is a link to a trial outside, which quotes the secret
    const outside = path.join(tmp, "outside__1");
    fs.mkdirSync(outside);
    fs.writeFileSync(
      path.join(outside, "result.json"),
      trialResult("outside__1", { exception_info: { exception_type: "X", exception_message: secrets.canary } }),
    );
    fs.symlinkSync(outside, path.join(job, "outside__1"));

    const client = new EnvForgeClient({ server: server.url, token: TOKEN });
    const result = await importHarbor(client, job, { project: "tb", quiet: true });
    expect(result.summary.accepted).toBe(1);
    const byTrial = Object.fromEntries(result.unreadable.map((u) => [u.ref, u.reason]));
    expect(byTrial["key__1"]).toMatch(/key__1\/verifier: is a symbolic link; links are not followed/);
    expect(byTrial["chain__1"]).toMatch(/chain__1\/agent\/trajectory\.json: is a symbolic link/);
    expect(byTrial["pw__1"]).toMatch(/pw__1\/result\.json: is a symbolic link/);
    expect(byTrial["hard__1"]).toMatch(/hard__1\/verifier\/test-stdout\.txt: is a hard link/);
    expect(byTrial["outside__1"]).toMatch(/outside__1: is a symbolic link/);
    expectNoSecret(JSON.stringify(result));
    expectNoSecret(await everythingStored());
    expectNoSecret(printed.join("\n"));
  });
});

describe("archive bombs and leftovers", () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`).join("\n");

  it("stops an archive that unpacks over ENVFORGE_IMPORT_MAX_UNPACKED_MB before writing it, and leaves no folder", async () => {
    process.env.ENVFORGE_IMPORT_MAX_UNPACKED_MB = "1";
    const bomb = tarGz([
      { path: "job/a__1/result.json", type: "File", body: trialResult("a__1") },
      { path: "job/a__1/verifier/test-stdout.txt", type: "File", body: Buffer.alloc(3 * 1024 * 1024) },
    ]);
    expect(bomb.length).toBeLessThan(64 * 1024);
    const created = await upload("tb", bomb);
    const done = await settled(created.json.id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/more than 1048576 bytes \(ENVFORGE_IMPORT_MAX_UNPACKED_MB\)/);
    expect(importFolders(created.json.id)).toEqual([]);

    // checked from the header, before a byte of the entry is written
    const dest = fs.mkdtempSync(path.join(tmp, "unpack-"));
    const limits = { maxUnpackedBytes: 1024 * 1024, maxEntries: 100, maxFileBytes: 10 * 1024 * 1024 };
    await expect(
      unpackArchive(
        (async function* () {
          yield bomb;
        })(),
        dest,
        limits,
      ),
    ).rejects.toThrow(/ENVFORGE_IMPORT_MAX_UNPACKED_MB/);
    expect(fs.existsSync(path.join(dest, "job", "a__1", "verifier", "test-stdout.txt"))).toBe(false);
  });

  it("stops bytes no entry declares (a giant pax header the parser skips), counted on the decompressed stream", async () => {
    process.env.ENVFORGE_IMPORT_MAX_UNPACKED_MB = "1";
    const created = await upload(
      "tb",
      tarGz([
        { path: "job/a__1/result.json", type: "File", body: trialResult("a__1") },
        { path: "PaxHeader", type: "ExtendedHeader", body: Buffer.alloc(40 * 1024 * 1024) },
        { path: "job/b__1/result.json", type: "File", body: trialResult("b__1") },
      ]),
    );
    const done = await settled(created.json.id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/archive bomb \(ENVFORGE_IMPORT_MAX_UNPACKED_MB\)/);
    expect(importFolders(created.json.id)).toEqual([]);
  });

  it("reads no further than the end of the archive (trailing padding is not decompressed)", async () => {
    const raw = Buffer.concat([
      tarBytes([{ path: "job/pad__1/result.json", type: "File", body: trialResult("pad__1") }]),
      Buffer.alloc(40 * 1024 * 1024),
    ]);
    const created = await upload("tb", zlib.gzipSync(raw));
    const done = await settled(created.json.id);
    expect(done.status).toBe("succeeded");
    expect(done.summary.accepted).toBe(1);
    expect(importFolders(created.json.id)).toEqual([]);
  });

  it("stops an archive of too many entries (ENVFORGE_IMPORT_MAX_ENTRIES)", async () => {
    process.env.ENVFORGE_IMPORT_MAX_ENTRIES = "50";
    const many: TarEntry[] = Array.from({ length: 80 }, (_, i) => ({ path: `job/t__${i}/`, type: "Directory" as const }));
    const created = await upload("tb", tarGz(many));
    const done = await settled(created.json.id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/more than 50 entries \(ENVFORGE_IMPORT_MAX_ENTRIES\)/);
    expect(importFolders(created.json.id)).toEqual([]);
  });

  it("does not write a file over ENVFORGE_IMPORT_MAX_FILE_MB and names it for its trial", async () => {
    process.env.ENVFORGE_IMPORT_MAX_FILE_MB = "1";
    const created = await upload(
      "tb",
      tarGz([
        { path: "job/big__1/result.json", type: "File", body: trialResult("big__1") },
        { path: "job/big__1/verifier/test-stdout.txt", type: "File", body: lines(200_000) },
        { path: "job/fine__1/result.json", type: "File", body: trialResult("fine__1") },
      ]),
    );
    const done = await settled(created.json.id);
    expect(done.status).toBe("succeeded");
    expect(done.summary.accepted).toBe(1);
    expect(done.summary.rejected).toEqual([
      expect.objectContaining({
        code: "unreadable_trial",
        message: expect.stringMatching(/^big__1: .*test-stdout\.txt: is \d+ bytes, over the limit .*ENVFORGE_IMPORT_MAX_FILE_MB/),
      }),
    ]);
    expect(importFolders(created.json.id)).toEqual([]);
  });
});

describe("bad bytes in a Harbor trial, and imports that would stay running", () => {
  it("imports the other trials and finishes with the bad trial's error (NUL in its verifier output and exception)", async () => {
    const created = await upload(
      "tb",
      tarGz([
        { path: "job/nul__1/result.json", type: "File", body: trialResult("nul__1") },
        { path: "job/nul__1/verifier/test-stdout.txt", type: "File", body: "collected 3 items\u0000\u0000 binary junk" },
        {
          path: "job/nul__2/result.json",
          type: "File",
          body: trialResult("nul__2", { exception_info: { exception_type: "E", exception_message: "bad\u0000bytes" } }),
        },
        { path: "job/clean__1/result.json", type: "File", body: trialResult("clean__1") },
      ]),
    );
    const done = await settled(created.json.id);
    expect(done.status).toBe("succeeded");
    expect(done.summary.accepted).toBe(1);
    const messages = done.summary.rejected.map((r: { message: string }) => r.message).sort();
    expect(messages).toEqual([
      expect.stringMatching(/^nul__1: verifierOutput: holds a NUL character/),
      expect.stringMatching(/^nul__2: error\.message: holds a NUL character/),
    ]);
  });

  it("fails an import whose worker was killed (kill -9) and removes its temporary folder at the next start", async () => {
    const base = fs.mkdtempSync(path.join(tmp, "tmpdir-"));
    const [row] = (
      await db.pool.query(
        "insert into imports (project_id, kind, filename, status) select id, 'harbor', 'killed.tar.gz', 'running' from projects where slug = 'tb' returning id",
      )
    ).rows;
    // a process that makes the import's temporary folder the way the worker does, half fills it and hangs
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `
      import("${path.resolve(import.meta.dirname, "..", "lib", "ingest", "temp.ts")}").then(async ({ makeTempDir }) => {
        const dir = await makeTempDir("import", "${row.id}");
        require("node:fs").writeFileSync(dir + "/partial", "half an archive");
        console.log("ready " + dir);
        setInterval(() => {}, 1000);
      });`,
      ],
      { cwd: path.resolve(import.meta.dirname, ".."), env: { ...process.env, TMPDIR: base }, stdio: ["ignore", "pipe", "inherit"] },
    );
    const dir = await new Promise<string>((resolve, reject) => {
      child.stdout!.on("data", (d) => {
        const m = /ready (\S+)/.exec(String(d));
        if (m) resolve(m[1]);
      });
      child.on("exit", (code) => reject(new Error(`child exited ${code}`)));
    });
    expect(fs.existsSync(path.join(dir, "partial"))).toBe(true);
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;

    const sweep = await sweepImports(db.db, base);
    expect(sweep.removedFolders).toEqual([dir]);
    expect(fs.readdirSync(base).filter((n) => n.startsWith("envforge-"))).toEqual([]);
    const [after] = (await db.pool.query("select status, error, finished_at from imports where id = $1", [row.id])).rows;
    expect(after.status).toBe("failed");
    expect(after.error).toMatch(new RegExp(`worker process ${child.pid} stopped during the import`));
    expect(after.finished_at).not.toBeNull();
  });

  it("fails an import left running whose queue job is over, and leaves a live one alone", async () => {
    const insert = async (status: string, ageMinutes: number) =>
      (
        await db.pool.query(
          `insert into imports (project_id, kind, filename, status, created_at) select id, 'ndjson', 'x', $1, now() - ` +
            `make_interval(mins => $2) from projects where slug = 'tb' returning id`,
          [status, ageMinutes],
        )
      ).rows[0].id as string;
    const lost = await insert("running", 10);
    const fresh = await insert("queued", 0);
    const sweep = await sweepImports(db.db, fs.mkdtempSync(path.join(tmp, "empty-")));
    expect(sweep.failed.map((f) => f.id)).toContain(lost);
    expect(sweep.failed.map((f) => f.id)).not.toContain(fresh);
    const rows = (await db.pool.query("select id, status, error from imports where id = any($1)", [[lost, fresh]])).rows;
    expect(rows.find((r) => r.id === lost)).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/queue job ended without finishing it \(job gone\)/),
    });
    expect(rows.find((r) => r.id === fresh)).toMatchObject({ status: "queued" });
  });
});

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as tar from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./http";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { getBoss } from "@/lib/queue/boss";
import { EnvForgeClient } from "@/cli/client";
import { importHarbor } from "@/cli/commands/import";
import { importHarborTasks } from "@/cli/commands/import-tasks";
import { sha256Hex, TASK_LIMITS } from "@/lib/tasks/folder";
import * as filesRoute from "@/app/api/v1/projects/[slug]/environments/[key]/files/route";
import * as fileRoute from "@/app/api/v1/projects/[slug]/environments/[key]/files/[...path]/route";
import * as importsRoute from "@/app/api/v1/projects/[slug]/imports/route";
import * as importRoute from "@/app/api/v1/imports/[id]/route";
import { startApi, createProjectWith, startTestWorker, type TestDb, type TestServer } from "./api-harness";
import type PgBoss from "pg-boss";

const TOKEN = "test-bootstrap-token-tasks-01234";
const fixtures = fixturesDir();
if (!fixtures && process.env.CI === "true")
  throw new Error("tests/tasks.int.test.ts needs ../shared/fixtures (harbor-tasks, harbor-tb2): set ENVFORGE_FIXTURES");
const TASKS = fixtures ? path.join(fixtures, "harbor-tasks", "tasks") : "";
let db: TestDb;
let server: TestServer;
let worker: PgBoss;
let client: EnvForgeClient;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ef-tasks-"));

const count = async (sql: string, args: unknown[] = []) => Number((await db.pool.query(sql, args)).rows[0].count);

/** A minimal valid task folder. */
function writeTask(dir: string, name: string, opts: { toml?: string; dockerfile?: string; test?: string } = {}) {
  const t = path.join(dir, name);
  fs.mkdirSync(path.join(t, "environment"), { recursive: true });
  fs.mkdirSync(path.join(t, "tests"), { recursive: true });
  fs.writeFileSync(
    path.join(t, "task.toml"),
    opts.toml ??
      `schema_version = "1.1"\n[metadata]\ndifficulty = "medium"\ncategory = "synthetic"\ntags = ` +
        `["gen"]\n[agent]\ntimeout_sec = 600.0\n[verifier]\ntimeout_sec = 60.0\n[environment]\ncpus = 2\nmemory_mb = 2048\n`,
  );
  fs.writeFileSync(path.join(t, "instruction.md"), `# ${name}\n\nWrite /app/out.txt.\n`);
  fs.writeFileSync(path.join(t, "environment", "Dockerfile"), opts.dockerfile ?? "FROM ubuntu:24.04\nWORKDIR /app\n");
  fs.writeFileSync(
    path.join(t, "tests", "test.sh"),
    opts.test ?? `#!/bin/bash\ntest -f /app/out.txt && echo 1 > /logs/verifier/reward.txt\n`,
    { mode: 0o755 },
  );
  return t;
}

async function uploadArchive(slug: string, file: string) {
  const created = await call(importsRoute.POST as never, "POST", `/api/v1/projects/${slug}/imports?kind=harbor-tasks`, {
    token: TOKEN,
    rawBody: fs.readFileSync(file) as unknown as string,
    contentType: "application/gzip",
    params: { slug },
  });
  expect(created.status).toBe(202);
  for (;;) {
    const r = await call(importRoute.GET as never, "GET", `/api/v1/imports/${created.json.id}`, {
      token: TOKEN,
      params: { id: created.json.id },
    });
    if (r.json.status === "succeeded" || r.json.status === "failed") return r.json;
    await new Promise((res) => setTimeout(res, 100));
  }
}

beforeAll(async () => {
  ({ db, server, admin: client } = await startApi(TOKEN));
  worker = await startTestWorker(db);
  for (const slug of ["tb", "tb2", "scale"])
    await client.request("POST", "/api/v1/projects", { json: { slug, name: slug, family: "terminal-task" } });
  await createProjectWith(client, { slug: "lake" });
});
afterAll(async () => {
  await server?.close();
  await worker?.stop({ graceful: false, wait: true });
  await (await getBoss()).stop({ graceful: false, wait: true });
  await db?.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("envforge import harbor-tasks", () => {
  it("imports the fixture tasks (one environment each, task.toml fields in the config, files content-addressed) and is idempotent", async ({
    skip,
  }) => {
    if (!fixtures) return skip(); // skipped locally without the fixtures (CI=true fails above instead)
    const first = await importHarborTasks(client, TASKS, { project: "tb", quiet: true, pollMs: 50 });
    expect(first.rejected).toEqual([]);
    expect(first.created.sort()).toEqual(fs.readdirSync(TASKS).sort());
    expect(first.generation).toBe(0);
    const envs = await db.pool.query(
      "select key, config from environments e join projects p on p.id = e.project_id where p.slug = 'tb' order by key",
    );
    expect(envs.rows).toHaveLength(7);
    const hello = envs.rows.find((r) => r.key === "hello-world").config;
    expect(hello).toMatchObject({
      task_name: "hello-world",
      package_name: "harbor/hello-world",
      difficulty: "easy",
      category: "programming",
      tags: ["trivial"],
      agent_timeout_sec: 120,
      verifier_timeout_sec: 120,
      cpus: 1,
      memory_mb: 2048,
      storage_mb: 10240,
      gpus: 0,
    });
    const multi = envs.rows.find((r) => r.key === "hello-multi-step-simple").config;
    expect(multi.steps).toEqual(["create-file", "append-content"]);
    const envMulti = envs.rows.find((r) => r.key === "environment-env-multi").config;
    expect(envMulti.agent_timeout_sec).toBe(30);

    const blobsBefore = await count("select count(*) from blobs");
    const filesBefore = await count("select count(*) from environment_files");
    expect(blobsBefore).toBeLessThan(filesBefore); // identical files (Dockerfiles, tests) are stored once
    const again = await importHarborTasks(client, TASKS, { project: "tb", quiet: true, pollMs: 50 });
    expect(again).toMatchObject({ created: [], attached: [], rejected: [], files: { newBlobs: 0 } });
    expect(again.unchanged).toHaveLength(7);
    expect(await count("select count(*) from environment_files")).toBe(filesBefore);
    // another project, another generation: same contents, no new blobs
    const other = await importHarborTasks(client, TASKS, { project: "tb2", generation: 3, quiet: true, pollMs: 50 });
    expect(other.created).toHaveLength(7);
    expect(other.files.newBlobs).toBe(0);
    expect(other.generation).toBe(3);
    expect(await count("select count(*) from blobs")).toBe(blobsBefore);
  });

  it("lists files and serves raw bytes safely (text, binary, traversal refused)", async ({ skip }) => {
    if (!fixtures) return skip(); // skipped locally without the fixtures (CI=true fails above instead)
    const list = await call(filesRoute.GET as never, "GET", "/api/v1/projects/tb/environments/describe-image/files", {
      token: TOKEN,
      params: { slug: "tb", key: "describe-image" },
    });
    expect(list.status).toBe(200);
    const paths = list.json.files.map((f: { path: string }) => f.path);
    expect(paths).toEqual([
      "environment/Dockerfile",
      "environment/image.png",
      "instruction.md",
      "solution/solve.sh",
      "task.toml",
      "tests/test.sh",
    ]);
    const png = fs.readFileSync(path.join(TASKS, "describe-image", "environment", "image.png"));
    expect(list.json.files.find((f: { path: string }) => f.path === "environment/image.png")).toMatchObject({
      size: png.length,
      sha256: sha256Hex(png),
    });

    const get = (p: string, key = "describe-image") =>
      fileRoute.GET(
        new Request(`http://127.0.0.1:3000/api/v1/projects/tb/environments/${key}/files/${p}`, {
          headers: { authorization: `Bearer ${TOKEN}`, host: "127.0.0.1:3000" },
        }),
        {
          params: Promise.resolve({ slug: "tb", key, path: p.split("/") }),
        },
      );
    const image = await get("environment/image.png");
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("application/octet-stream");
    expect(image.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await image.arrayBuffer()).equals(png)).toBe(true);
    const text = await get("instruction.md");
    expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await text.text()).toBe(fs.readFileSync(path.join(TASKS, "describe-image", "instruction.md"), "utf8"));
    expect((await get("../hello-world/task.toml")).status).toBe(400);
    expect((await get("tests/../task.toml")).status).toBe(400);
    expect((await get("tests/nope.sh")).status).toBe(404);
    expect((await get("task.toml", "no-such-task")).status).toBe(404);
  });

  it("rejects a bad task by name and field, imports the rest; refuses links in folders and archives", async () => {
    const ds = path.join(tmp, "mixed");
    writeTask(ds, "good-one");
    writeTask(ds, "bad-toml", { toml: `[agent]\ntimeout_sec = "soon"\n` });
    writeTask(ds, "bad-syntax", { toml: `[agent\ntimeout_sec = 1\n` });
    writeTask(ds, "bad-network", { toml: `[environment]\nnetwork_mode = "public"\nallowed_hosts = ["example.com"]\n` });
    const noTests = writeTask(ds, "no-tests");
    fs.rmSync(path.join(noTests, "tests"), { recursive: true });
    const s = await importHarborTasks(client, ds, { project: "tb", quiet: true, pollMs: 50 });
    expect(s.created).toEqual(["good-one"]);
    const byTask = Object.fromEntries(s.rejected.map((r) => [path.basename(r.task), r.message]));
    expect(byTask["bad-toml"]).toMatch(/agent\.timeout_sec: must be a number/);
    expect(byTask["bad-syntax"]).toMatch(/not valid TOML \(line 1\)/);
    expect(byTask["bad-network"]).toMatch(/environment\.allowed_hosts: is only valid when network_mode = 'allowlist'/);
    expect(byTask["no-tests"]).toMatch(/no-tests: tests\/test\.sh is missing/);

    // a task folder cannot change under the same name
    fs.writeFileSync(path.join(ds, "good-one", "instruction.md"), "changed\n");
    const changed = await importHarborTasks(client, path.join(ds, "good-one"), { project: "tb", quiet: true, pollMs: 50 });
    expect(changed.rejected[0].message).toMatch(/different files; environments are immutable/);

    const linked = path.join(tmp, "linked");
    const t = writeTask(linked, "has-link");
    fs.symlinkSync("/etc/passwd", path.join(t, "environment", "passwd"));
    await expect(importHarborTasks(client, linked, { project: "tb", quiet: true })).rejects.toThrow(
      /has-link\/environment\/passwd: symbolic links are not allowed/,
    );
    // an archive made elsewhere with a link: the server refuses it whole, nothing stored
    const archive = path.join(tmp, "linked.tar.gz");
    await tar.c({ gzip: true, file: archive, cwd: linked, portable: true }, ["has-link"]);
    const done = await uploadArchive("tb", archive);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/has-link\/environment\/passwd: links are not allowed/);
    expect(await count("select count(*) from environments where key = 'has-link'")).toBe(0);

    // oversize: a clear message naming the file and the limit
    const big = path.join(tmp, "big");
    const b = writeTask(big, "too-big");
    fs.writeFileSync(path.join(b, "environment", "blob.bin"), Buffer.alloc(2048, 7));
    const limit = TASK_LIMITS.fileBytes;
    TASK_LIMITS.fileBytes = 1024; // the worker runs in this process
    try {
      const over = await importHarborTasks(client, big, { project: "tb", quiet: true, pollMs: 50 });
      expect(over.rejected[0].message).toMatch(/too-big\/environment\/blob\.bin: 2048 bytes, over the limit of 1024 bytes per file/);
    } finally {
      TASK_LIMITS.fileBytes = limit;
    }
    // wrong family
    await expect(importHarborTasks(client, path.join(ds, "good-one"), { project: "lake", quiet: true, pollMs: 50 })).rejects.toThrow(
      /terminal-task project/,
    );
  });

  it("a task folder named by a Harbor job's trials is the same environment as their rollouts", async ({ skip }) => {
    if (!fixtures) return skip(); // skipped locally without the fixtures (CI=true fails above instead)
    const src = path.join(fixtures, "harbor-tb2", "Qwen3.5-9B", "terminal-bench-2-0");
    const job = path.join(tmp, "job");
    fs.mkdirSync(job);
    for (const name of fs
      .readdirSync(src)
      .filter((n) => n.startsWith("pytorch-model-recovery__"))
      .slice(0, 2))
      fs.cpSync(path.join(src, name), path.join(job, name), { recursive: true });
    const imported = await importHarbor(client, job, { project: "tb2", generation: 3, quiet: true });
    expect(imported.summary.accepted).toBe(2);
    const envId = (
      await db.pool.query(
        "select e.id, e.config from environments e join projects p on p.id = e.project_id where p.slug = 'tb2' and key = 'pytorch-model-recovery'",
      )
    ).rows[0];
    expect(envId.config.git_url).toBe("https://github.com/laude-institute/terminal-bench-2.git");
    expect(envId.config.git_path).toBe("pytorch-model-recovery"); // the trial's task_id.path: where Harbor checks it out

    const ds = path.join(tmp, "tb2-tasks");
    writeTask(ds, "pytorch-model-recovery");
    const s = await importHarborTasks(client, ds, { project: "tb2", generation: 3, quiet: true, pollMs: 50 });
    expect(s.attached).toEqual(["pytorch-model-recovery"]);
    const after = (await db.pool.query("select id, config from environments where id = $1", [envId.id])).rows[0];
    expect(after.config).toMatchObject({
      task_name: "pytorch-model-recovery",
      git_commit: envId.config.git_commit,
      git_url: envId.config.git_url,
      agent_timeout_sec: 600,
      category: "synthetic",
    });
    expect(await count("select count(*) from rollouts where environment_id = $1", [envId.id])).toBe(2);
    expect(await count("select count(*) from environment_files where environment_id = $1", [envId.id])).toBe(4);
    // the job again: duplicates, not an environment conflict
    const again = await importHarbor(client, job, { project: "tb2", generation: 3, quiet: true });
    expect(again.summary).toMatchObject({ accepted: 0, duplicates: 2, rejected: [] });
    expect((await importHarborTasks(client, ds, { project: "tb2", generation: 3, quiet: true, pollMs: 50 })).unchanged).toEqual([
      "pytorch-model-recovery",
    ]);
  });

  it("imports a few hundred synthetic tasks with shared files stored once", async () => {
    const ds = path.join(tmp, "scale");
    const N = 200;
    for (let i = 0; i < N; i++)
      writeTask(ds, `task-${String(i).padStart(4, "0")}`, {
        test: `#!/bin/bash\ngrep -q ${i} /app/out.txt\n`,
        dockerfile: "FROM debian:13\n",
        toml: `[agent]\ntimeout_sec = 300\n`,
      });
    const blobsBefore = await count("select count(*) from blobs");
    const s = await importHarborTasks(client, ds, { project: "scale", quiet: true, pollMs: 100 });
    expect(s.created).toHaveLength(N);
    expect(s.files.total).toBe(N * 4);
    // per task only the instruction and the test differ: 2 new blobs each + one shared task.toml and Dockerfile
    expect(await count("select count(*) from blobs")).toBe(blobsBefore + 2 * N + 2);
    expect((await importHarborTasks(client, ds, { project: "scale", quiet: true, pollMs: 100 })).unchanged).toHaveLength(N);
  });
});

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as tar from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { call } from "./http";
import { ensureBootstrapKey, createApiKey } from "@/lib/auth/keys";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { getBoss, runWorkers, startBoss } from "@/lib/queue/boss";
import { workerHandlers } from "@/lib/worker/handlers";
import * as projectsRoute from "@/app/api/v1/projects/route";
import * as generationsRoute from "@/app/api/v1/projects/[slug]/generations/route";
import * as importsRoute from "@/app/api/v1/projects/[slug]/imports/route";
import * as importRoute from "@/app/api/v1/imports/[id]/route";
import { lake } from "./configs";

const TOKEN = "test-bootstrap-token-imports-0123";
let db: Awaited<ReturnType<typeof freshDatabase>>;
let worker: Awaited<ReturnType<typeof startBoss>>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ef-imports-"));

const upload = (slug: string, query: string, rawBody: string | Buffer, token = TOKEN) =>
  call(importsRoute.POST as never, "POST", `/api/v1/projects/${slug}/imports?${query}`, {
    token,
    rawBody: rawBody as string,
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

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, TOKEN);
  worker = await startBoss(process.env.DATABASE_URL!, { worker: true });
  await runWorkers(worker, workerHandlers(db.db));
  await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
    token: TOKEN,
    body: { slug: "imp", name: "Imp", family: "frozenlake-mapf" },
  });
  const config = lake(1);
  await call(generationsRoute.POST as never, "POST", "/api/v1/projects/imp/generations", {
    token: TOKEN,
    params: { slug: "imp" },
    body: { environments: [{ key: "e1", config }] },
  });
});
afterAll(async () => {
  await worker?.stop({ graceful: false, wait: true });
  await (await getBoss()).stop({ graceful: false, wait: true });
  await db?.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("browser imports (upload, queue, worker)", () => {
  it("ingests an uploaded NDJSON file in the worker and reports the summary by line", async () => {
    const body = [
      JSON.stringify({ externalId: "u1", environmentKey: "e1", policy: "p", reward: 1 }),
      "garbage",
      JSON.stringify({ externalId: "u2", environmentKey: "e1", policy: "p", reward: 0 }),
      JSON.stringify({ externalId: "u1", environmentKey: "e1", policy: "p", reward: 1 }),
    ].join("\n");
    const created = await upload("imp", "kind=ndjson&filename=r.ndjson", body);
    expect(created.status).toBe(202);
    expect(created.json).toMatchObject({ kind: "ndjson", filename: "r.ndjson", status: "queued", bytes: Buffer.byteLength(body) });
    const done = await settled(created.json.id);
    expect(done.status).toBe("succeeded");
    expect(done.summary).toMatchObject({ accepted: 2, duplicates: 1, rejected: [{ line: 2, code: "malformed_json" }] });
    const chunks = await db.pool.query("select count(*) from import_chunks where import_id = $1", [created.json.id]);
    expect(Number(chunks.rows[0].count)).toBe(0);
    const list = await call(importsRoute.GET as never, "GET", "/api/v1/projects/imp/imports", { token: TOKEN, params: { slug: "imp" } });
    expect(list.json.imports[0].id).toBe(created.json.id);
  });

  it("refuses bad uploads clearly", async () => {
    expect((await upload("imp", "kind=zip", "x")).status).toBe(400);
    const empty = await upload("imp", "kind=ndjson", "");
    expect(empty.status).toBe(400);
    const viewer = await createApiKey(db.db, { name: "v", role: "viewer" }, { actor: "test" });
    expect((await upload("imp", "kind=ndjson", "{}", viewer.key)).status).toBe(403);
    const junk = await upload("imp", "kind=harbor&filename=job.tar.gz", "this is not an archive");
    expect(junk.status).toBe(202);
    const failed = await settled(junk.json.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/tar\.gz|Harbor trial/);
  });

  const fixtures = fixturesDir();
  it.skipIf(!fixtures)("ingests a .tar.gz of a Harbor job (three real trials), creating terminal-task environments", async () => {
    await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
      token: TOKEN,
      body: { slug: "tb", name: "TB", family: "terminal-task" },
    });
    const jobDir = path.join(fixtures!, "harbor-tb2", "tmax-9b", "terminal-bench-2-0");
    const trials = fs
      .readdirSync(jobDir)
      .filter((d) => fs.statSync(path.join(jobDir, d)).isDirectory())
      .sort()
      .slice(0, 3);
    const archive = path.join(tmp, "job.tar.gz");
    await tar.c({ gzip: true, file: archive, cwd: path.dirname(jobDir) }, [
      ...["config.json", "result.json"].map((f) => `terminal-bench-2-0/${f}`),
      ...trials.map((t) => `terminal-bench-2-0/${t}`),
    ]);
    const created = await upload("tb", "kind=harbor&filename=job.tar.gz&generation=0", fs.readFileSync(archive));
    expect(created.status).toBe(202);
    const done = await settled(created.json.id);
    expect(done.error).toBeNull();
    expect(done.summary).toMatchObject({ accepted: 3, duplicates: 0, rejected: [] });
    const envs = await db.pool.query("select count(*) from environments e join projects p on p.id = e.project_id where p.slug = 'tb'");
    expect(Number(envs.rows[0].count)).toBeGreaterThanOrEqual(1);
  });
});

import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { harborJobFigures, readHarborJob } from "@/lib/ingest/harbor";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { importHarbor, importNdjson } from "@/cli/commands/import";
import { portFree } from "@/lib/db/embedded";
import { lake } from "./configs";
import { startApi, stopApi, createProjectWith, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-cli-0123456";
let db: TestDb;
let server: TestServer;
let client: EnvForgeClient;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ef-cli-"));

beforeAll(async () => {
  ({ db, server, admin: client } = await startApi(TOKEN));
  await createProjectWith(
    client,
    { slug: "cli", name: "CLI" },
    {
      environments: [
        { key: "e1", config: lake(1) },
        { key: "e2", config: lake(2) },
      ],
    },
  );
});
afterAll(async () => {
  await stopApi({ server, db });
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("envforge import ndjson", () => {
  it("imports valid lines, names bad ones by file line, and is idempotent", async () => {
    const file = path.join(tmp, "r.ndjson");
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ externalId: "a1", environmentKey: "e1", policy: "p", reward: 1 }),
        "",
        "{oops",
        JSON.stringify({ externalId: "a2", environmentKey: "e9", policy: "p", reward: 0 }),
        JSON.stringify({ externalId: "a3", environmentKey: "e2", policy: "p", reward: 0 }),
      ].join("\n"),
    );
    const first = await importNdjson(client, file, { project: "cli", quiet: true });
    expect(first.summary.accepted).toBe(2);
    expect(first.unreadable).toEqual([{ ref: "line 3", reason: expect.stringContaining("not valid JSON") }]);
    expect(first.summary.rejected).toEqual([{ ref: "line 4", code: "unknown_environment", message: expect.stringContaining("e9") }]);
    const again = await importNdjson(client, file, { project: "cli", quiet: true });
    expect(again.summary).toMatchObject({ accepted: 0, duplicates: 2 });
  });

  it("says clearly when the project or the key is wrong", async () => {
    const file = path.join(tmp, "one.ndjson");
    fs.writeFileSync(file, JSON.stringify({ externalId: "b1", environmentKey: "e1", policy: "p", reward: 1 }));
    await expect(importNdjson(client, file, { project: "nope", quiet: true })).rejects.toThrow(/does not exist/);
    const bad = new EnvForgeClient({ server: server.url, token: "efk_wrong" });
    await expect(importNdjson(bad, file, { project: "cli", quiet: true })).rejects.toMatchObject({ status: 401 });
    const down = new EnvForgeClient({ server: "http://127.0.0.1:9", token: TOKEN });
    await expect(importNdjson(down, file, { project: "cli", quiet: true })).rejects.toThrow(/Cannot reach EnvForge/);
  });
});

/**
 * A port that is free now, below Linux's ephemeral range (32768-60999 by default): the server restarts on the same
 * port after it is killed, and a port inside that range can meanwhile be taken as the local end of any outgoing
 * connection (a CI run failed with EADDRINUSE on 36244 once).
 */
async function freePortBelowEphemeral(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (await portFree(port)) return port;
  }
  throw new Error("no free port in 20000-31999");
}

describe("a server killed in the middle of an import", () => {
  let child: ChildProcess | null = null;
  const startChild = async (port: number) => {
    child = spawn(process.execPath, ["--import", "tsx", "tests/api-server.ts"], {
      cwd: path.resolve(import.meta.dirname, ".."),
      env: { ...process.env, PORT: String(port), DATABASE_URL: process.env.DATABASE_URL },
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      child!.stdout!.on("data", (d) => String(d).includes("listening") && resolve());
      child!.on("exit", (code) => reject(new Error(`api server exited ${code}`)));
    });
  };
  afterAll(() => {
    child?.kill("SIGKILL");
  });

  it("loses nothing and duplicates nothing when the import is run again", async () => {
    const file = path.join(tmp, "big.ndjson");
    const total = 12_000;
    const turn = { role: "assistant", content: "x".repeat(1500) };
    fs.writeFileSync(
      file,
      Array.from({ length: total }, (_, i) =>
        JSON.stringify({
          externalId: `k${i}`,
          environmentKey: i % 2 ? "e1" : "e2",
          policy: "p",
          reward: i % 3 ? 0 : 1,
          trajectory: [turn, turn],
        }),
      ).join("\n"),
    );
    const port = await freePortBelowEphemeral();
    await startChild(port);
    const remote = new EnvForgeClient({ server: `http://127.0.0.1:${port}`, token: TOKEN });
    const count = async () => Number((await db.pool.query("select count(*) from rollouts where external_id like 'k%'")).rows[0].count);
    const importing = importNdjson(remote, file, { project: "cli", quiet: true });
    while ((await count()) === 0) await new Promise((r) => setTimeout(r, 20));
    child!.kill("SIGKILL");
    await expect(importing).rejects.toBeInstanceOf(ApiError);
    const partial = await count();
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(total);

    await startChild(port);
    const rerun = await importNdjson(remote, file, { project: "cli", quiet: true });
    expect(rerun.summary.accepted + rerun.summary.duplicates).toBe(total);
    expect(await count()).toBe(total);
    // no half rollouts: every row has its payload
    const orphans = await db.pool.query(
      "select count(*) from rollouts r left join rollout_payloads p on p.rollout_id = r.id where r.external_id like 'k%' and p.rollout_id is null",
    );
    expect(Number(orphans.rows[0].count)).toBe(0);
  });
});

const fixtures = fixturesDir();
describe.skipIf(!fixtures)("envforge import harbor on the real jobs (skipped without ../shared/fixtures)", () => {
  it("imports both policies with every trial accounted for, and per-policy figures equal Harbor's", async () => {
    for (const name of ["tmax-9b", "Qwen3.5-9B"]) {
      const dir = path.join(fixtures!, "harbor-tb2", name, "terminal-bench-2-0");
      const result = await importHarbor(client, dir, { project: "tb2", create: true, generation: 0, quiet: true });
      expect(result.unreadable).toEqual([]);
      expect(result.summary).toMatchObject({ accepted: 445, duplicates: 0, rejected: [] });
      const job = await readHarborJob(dir);
      const figures = harborJobFigures(job.job.result);
      const policy = job.trials[0].rollout.policy;
      const g = await client.request<{ metrics: { meanReward: number; passAtK: Record<string, number>; rollouts: number } }>(
        "GET",
        `/api/v1/projects/tb2/generations/0?policy=${encodeURIComponent(policy)}`,
      );
      expect(g.metrics.rollouts).toBe(445);
      expect(g.metrics.meanReward.toFixed(4)).toBe(figures.mean!.toFixed(4));
      for (const [k, v] of Object.entries(figures.passAtK)) expect(g.metrics.passAtK[k].toFixed(4)).toBe(v.toFixed(4));
    }
    const all = await client.request<{ environments: number; policies: string[] }>("GET", "/api/v1/projects/tb2/generations/0");
    expect(all.environments).toBe(89);
    expect(all.policies).toHaveLength(2);
  });
});

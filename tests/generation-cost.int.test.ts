/**
 * Cost per generation over HTTP on a real Postgres: `cost` of GET .../generations/{index} and .../analytics
 * (total, mean over the priced rollouts, how many had a cost) from what each rollout's source reported,
 * on posted rollouts and on the two real Harbor jobs, whose total must equal the sum of the trials' own
 * `agent_result.cost_usd` in each trial's result.json (harbor-tb2/<job>/terminal-bench-2-0/<trial>/result.json).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { startApiServer } from "./api-server";
import { lake } from "./configs";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { EnvForgeClient } from "@/cli/client";
import { importHarbor } from "@/cli/commands/import";
import type { GenerationAnalytics } from "@/lib/analytics/views";
import type { GenerationCost } from "@/lib/generations/cost";

const TOKEN = "test-bootstrap-token-gen-cost-001";
let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: Awaited<ReturnType<typeof startApiServer>>;
let client: EnvForgeClient;

const get = <T>(p: string) => client.request<T>("GET", p);
const costOf = async (p: string) => (await get<{ cost: GenerationCost }>(p)).cost;

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, TOKEN);
  server = await startApiServer();
  client = new EnvForgeClient({ server: server.url, token: TOKEN });
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe("cost of posted rollouts", () => {
  beforeAll(async () => {
    await client.request("POST", "/api/v1/projects", { json: { slug: "priced", name: "Priced", family: "frozenlake-mapf" } });
    for (const index of [0, 1])
      await client.request("POST", "/api/v1/projects/priced/generations", {
        json: { index, environments: [{ key: "a", config: lake(1) }] },
      });
    const message = (costUsd?: number) => ({
      role: "assistant",
      content: "step",
      ...(costUsd === undefined ? {} : { usage: { costUsd } }),
    });
    const lines = [
      // the source's total wins over its steps
      { externalId: "r1", environmentKey: "a", policy: "p1", reward: 1, metadata: { costUsd: 1.25 }, trajectory: [message(9)] },
      // no total: the sum of the priced steps
      { externalId: "r2", environmentKey: "a", policy: "p1", reward: 0, trajectory: [message(0.5), message(), message(0.25)] },
      // a reported zero is a known cost
      { externalId: "r3", environmentKey: "a", policy: "p2", reward: 0, metadata: { costUsd: 0 } },
      // unknown: left out of the mean
      { externalId: "r4", environmentKey: "a", policy: "p2", reward: 1, trajectory: [message()] },
      { externalId: "r5", environmentKey: "a", policy: "p2", reward: 1, metadata: { costUsd: "3" } },
    ];
    const body = lines.map((l) => JSON.stringify({ ...l, generation: 0 })).join("\n");
    const res = await client.request<{ accepted: number }>("POST", "/api/v1/projects/priced/rollouts", {
      raw: body,
      contentType: "application/x-ndjson",
    });
    expect(res.accepted).toBe(5);
    await client.request("POST", "/api/v1/projects/priced/rollouts", {
      json: [{ externalId: "u1", environmentKey: "a", policy: "p1", reward: 1, generation: 1 }],
    });
  });

  it("totals what was reported, means over the priced rollouts only, and counts them", async () => {
    const all = await costOf("/api/v1/projects/priced/generations/0");
    expect(all.rollouts).toBe(3);
    expect(all.totalUsd).toBeCloseTo(2, 10);
    expect(all.meanUsd).toBeCloseTo(2 / 3, 10);
    const analytics = await get<GenerationAnalytics>("/api/v1/projects/priced/generations/0/analytics");
    expect(analytics.cost).toEqual(all);
  });

  it("per policy", async () => {
    expect(await costOf("/api/v1/projects/priced/generations/0?policy=p1")).toEqual({ rollouts: 2, totalUsd: 2, meanUsd: 1 });
    expect(await costOf("/api/v1/projects/priced/generations/0?policy=p2")).toEqual({ rollouts: 1, totalUsd: 0, meanUsd: 0 });
    const p2 = await get<GenerationAnalytics>("/api/v1/projects/priced/generations/0/analytics?policy=p2");
    expect(p2.cost).toEqual({ rollouts: 1, totalUsd: 0, meanUsd: 0 });
  });

  it("no reported cost is null, not $0", async () => {
    expect(await costOf("/api/v1/projects/priced/generations/1")).toEqual({ rollouts: 0, totalUsd: null, meanUsd: null });
  });
});

const fixtures = fixturesDir();
describe.skipIf(!fixtures)("cost of the two real Harbor jobs (skipped locally without ../shared/fixtures; fails under CI)", () => {
  const jobs = ["tmax-9b", "Qwen3.5-9B"] as const;
  /** per policy: trials whose result.json has agent_result.cost_usd, and the sum of those costs */
  const truth = new Map<string, { n: number; sum: number }>();

  beforeAll(async () => {
    for (const name of jobs) {
      const dir = path.join(fixtures!, "harbor-tb2", name, "terminal-bench-2-0");
      const result = await importHarbor(client, dir, { project: "tb2", create: true, generation: 0, quiet: true });
      expect(result.summary.rejected).toEqual([]);
      let policy = "";
      const t = { n: 0, sum: 0 };
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name, "result.json");
        if (!entry.isDirectory() || !fs.existsSync(file)) continue;
        const trial = JSON.parse(fs.readFileSync(file, "utf8"));
        policy = trial.agent_info.model_info.name;
        const cost = trial.agent_result?.cost_usd;
        if (typeof cost === "number") {
          t.n += 1;
          t.sum += cost;
        }
      }
      truth.set(policy, t);
    }
  }, 600_000);

  it("each job's total equals the sum of its trials' cost_usd, over the trials that reported one", async () => {
    expect(truth.size).toBe(2);
    for (const [policy, t] of truth) {
      const cost = await costOf(`/api/v1/projects/tb2/generations/0?policy=${encodeURIComponent(policy)}`);
      expect(cost.rollouts).toBe(t.n);
      expect(cost.totalUsd).toBeCloseTo(t.sum, 10);
      expect(cost.meanUsd).toBeCloseTo(t.sum / t.n, 10);
    }
    // tmax-9b's write-compressor__pfgE6CB has no agent_result: 444 priced trials of 445; every Qwen3.5-9B trial has one
    expect([...truth.values()].map((t) => t.n).sort()).toEqual([444, 445]);
    const all = await costOf("/api/v1/projects/tb2/generations/0");
    expect(all.rollouts).toBe(444 + 445);
    expect(all.totalUsd).toBeCloseTo(
      [...truth.values()].reduce((a, t) => a + t.sum, 0),
      10,
    );
  });
});

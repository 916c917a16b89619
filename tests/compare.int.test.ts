/**
 * Run comparison over HTTP on a real Postgres: a small synthetic project (verdicts, ordering, pairs,
 * hostile queries, a foreign project's key) and the two shared Harbor jobs imported as one
 * generation, whose improved/regressed counts must equal what the trials' own result.json give.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { importHarbor } from "@/cli/commands/import";
import { fisherExactTwoSided } from "@/lib/analytics/compare-stats";
import { sql } from "drizzle-orm";
import { comparableSides, type RunComparison } from "@/lib/compare/service";
import { getProjectFor } from "@/lib/projects/service";
import { lake } from "./configs";
import { startApi, stopApi, clientWithRole, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-compare-0001";
let db: TestDb;
let server: TestServer;
let client: EnvForgeClient;

const get = <T>(p: string, c = client) => c.request<T>("GET", p);
const failure = (p: string, c = client) =>
  c.request("GET", p).then(
    () => ({ status: 200, body: null as unknown }),
    (e) => (e instanceof ApiError ? { status: e.status, body: e.body as unknown } : Promise.reject(e)),
  );

beforeAll(async () => {
  ({ db, server, admin: client } = await startApi(TOKEN));
});
afterAll(async () => {
  await stopApi({ server, db });
});

describe("comparison on a small synthetic project", () => {
  beforeAll(async () => {
    for (const slug of ["cmp", "other"]) {
      await client.request("POST", "/api/v1/projects", { json: { slug, name: slug, family: "frozenlake-mapf" } });
      await client.request("POST", "/api/v1/projects/" + slug + "/generations", {
        json: { environments: ["up", "down", "same", "solo"].map((key, i) => ({ key, config: lake(i + 1) })) },
      });
    }
    const lines: object[] = [];
    const add = (env: string, policy: string, rewards: number[]) =>
      rewards.forEach((reward, i) => lines.push({ externalId: `${env}-${policy}-${i}`, environmentKey: env, policy, reward }));
    // up: 0/5 -> 5/5 (p = 0.0079, improved); down: 5/5 -> 0/5 (regressed); same: 3/5 -> 1/5 (p = 0.52, unchanged)
    add("up", "old", [0, 0, 0, 0, 0]);
    add("up", "new", [1, 1, 1, 1, 1]);
    add("down", "old", [1, 1, 1, 1, 1]);
    add("down", "new", [0, 0, 0, 0, 0.5]);
    add("same", "old", [1, 1, 1, 0, 0]);
    add("same", "new", [1, 0, 0, 0, 0]);
    add("solo", "old", [1]);
    const res = await client.request<{ accepted: number }>("POST", "/api/v1/projects/cmp/rollouts", { json: lines });
    expect(res.accepted).toBe(lines.length);
  });

  it("gives per-environment figures, verdicts by Fisher's test at 0.05, regressions first, and a pair to look at", async () => {
    const c = await get<RunComparison>("/api/v1/projects/cmp/compare?a=0:old&b=0:new");
    expect(c).toMatchObject({ test: "fisher", alpha: 0.05, improved: 1, regressed: 1, unchanged: 1, onlyA: ["solo"], onlyB: [] });
    expect(c.environments.map((e) => [e.key, e.verdict])).toEqual([
      ["down", "regressed"],
      ["up", "improved"],
      ["same", "unchanged"],
    ]);
    const down = c.environments[0];
    expect(down.a).toEqual({ n: 5, successes: 5, meanReward: 1 });
    expect(down.b).toEqual({ n: 5, successes: 0, meanReward: 0.1 });
    expect(down.delta).toBeCloseTo(-0.9, 12);
    expect(down.pValue).toBeCloseTo(2 / 252, 12);
    expect(down.successDeltaInterval[1]).toBeLessThan(0);
    // the pair: a passing rollout of the better side (a) and a failing one of the worse side (b)
    const ids = await client.request<{ items: { id: number; externalId: string }[] }>(
      "GET",
      "/api/v1/projects/cmp/rollouts?environmentKey=down&limit=100",
    );
    const ext = new Map(ids.items.map((r) => [r.id, r.externalId]));
    expect(ext.get(down.pair!.passing)).toMatch(/^down-old-/);
    expect(ext.get(down.pair!.failing)).toMatch(/^down-new-/);
    // aggregate: mean of the three deltas (1, -0.9, -0.4), the interval around it
    expect(c.aggregate.environments).toBe(3);
    expect(c.aggregate.meanDelta).toBeCloseTo((1 - 0.9 - 0.4) / 3, 12);
    expect(c.aggregate.interval![0]).toBeLessThanOrEqual(c.aggregate.meanDelta!);
    expect(c.aggregate.interval![1]).toBeGreaterThanOrEqual(c.aggregate.meanDelta!);
    // false discovery control over the three shared tasks, each of which could reach 0.05 (3 of 5 against 1 of 5 could
    // be 4/5 against 0/5, p = 0.048): m = 3, so the two p = 2/252 get q = 2/252 * 3/2 and survive; same keeps p = 0.52
    expect(c.falseDiscovery).toEqual({ method: "bh-tarone", testable: 3, improved: 1, regressed: 1 });
    expect(down.qValue).toBeCloseTo(((2 / 252) * 3) / 2, 12);
    expect(c.environments[2].qValue).toBeCloseTo(c.environments[2].pValue, 12);
    // swapping the sides swaps improved and regressed
    const back = await get<RunComparison>("/api/v1/projects/cmp/compare?a=0:new&b=0:old");
    expect([back.improved, back.regressed, back.onlyB]).toEqual([1, 1, ["solo"]]);
  });

  it("offers the (generation, policy) pairs with rollouts, counted from the aggregates, and only this project's", async () => {
    const project = await getProjectFor(db.db, "cmp", null);
    expect(await comparableSides(db.db, project)).toEqual([
      { generation: 0, policy: "new", rollouts: 15 },
      { generation: 0, policy: "old", rollouts: 16 },
    ]);
    // a policy whose rollouts were all deleted is no side
    await client.request("POST", "/api/v1/projects/other/rollouts", {
      json: [{ externalId: "gone", environmentKey: "up", policy: "gone", reward: 1 }],
    });
    await db.db.execute(sql`delete from rollouts where external_id = 'gone'`);
    expect(await comparableSides(db.db, await getProjectFor(db.db, "other", null))).toEqual([]);
  });

  it("refuses bad sides with 400 naming the parameter, unknown ones with 404, and a foreign project's key with 403", async () => {
    const bad = await failure("/api/v1/projects/cmp/compare?a=old&b=0:new");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("a");
    expect((await failure("/api/v1/projects/cmp/compare?a=0:old")).status).toBe(400);
    expect((await failure("/api/v1/projects/cmp/compare?a=0:old&b=0:nobody")).status).toBe(404);
    expect((await failure("/api/v1/projects/cmp/compare?a=7:old&b=0:new")).status).toBe(404);
    expect((await failure("/api/v1/projects/cmp/compare?a=0:old%00&b=0:new")).status).toBe(400);
    const foreign = await clientWithRole(db, server, "viewer", { name: "other-viewer", project: "other" });
    expect((await failure("/api/v1/projects/cmp/compare?a=0:old&b=0:new", foreign)).status).toBe(403);
    expect((await failure("/api/v1/projects/other/compare?a=0:old&b=0:new", foreign)).status).toBe(404);
  });
});

const fixtures = fixturesDir();
describe.skipIf(!fixtures)("comparison of the two real Harbor jobs (skipped locally without ../shared/fixtures; fails under CI)", () => {
  const jobs = ["tmax-9b", "Qwen3.5-9B"] as const;
  /** per job: policy name and, per task, [attempts, successes, reward sum] read straight from the trials' result.json */
  const truth = new Map<string, { policy: string; tasks: Map<string, [number, number, number]> }>();

  beforeAll(async () => {
    for (const name of jobs) {
      const dir = path.join(fixtures!, "harbor-tb2", name, "terminal-bench-2-0");
      const result = await importHarbor(client, dir, { project: "tb2", create: true, generation: 0, quiet: true });
      expect(result.summary.rejected).toEqual([]);
      const tasks = new Map<string, [number, number, number]>();
      let policy = "";
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name, "result.json");
        if (!entry.isDirectory() || !fs.existsSync(file)) continue;
        const trial = JSON.parse(fs.readFileSync(file, "utf8"));
        policy = trial.agent_info.model_info.name;
        const reward = Number(trial.verifier_result?.rewards?.reward ?? 0);
        const t = tasks.get(trial.task_name) ?? [0, 0, 0];
        // the project's success threshold is 1 (the default)
        tasks.set(trial.task_name, [t[0] + 1, t[1] + (reward >= 1 ? 1 : 0), t[2] + reward]);
      }
      truth.set(name, { policy, tasks });
    }
  }, 600_000);

  it("improved/regressed counts equal what the trials' own rewards give", async () => {
    const A = truth.get("tmax-9b")!;
    const B = truth.get("Qwen3.5-9B")!;
    const c = await get<RunComparison>(
      `/api/v1/projects/tb2/compare?a=${encodeURIComponent(`0:${A.policy}`)}&b=${encodeURIComponent(`0:${B.policy}`)}`,
    );
    let improved = 0;
    let regressed = 0;
    let shared = 0;
    for (const [task, [na, sa, ra]] of A.tasks) {
      const b = B.tasks.get(task);
      if (!b) continue;
      shared += 1;
      const [nb, sb, rb] = b;
      const mine = c.environments.find((e) => e.key === task)!;
      expect(mine, task).toBeDefined();
      expect([mine.a.n, mine.a.successes, mine.b.n, mine.b.successes], task).toEqual([na, sa, nb, sb]);
      expect(mine.delta, task).toBeCloseTo(rb / nb - ra / na, 9);
      if (fisherExactTwoSided(sa, na, sb, nb) < 0.05) {
        if (sb / nb > sa / na) improved += 1;
        else regressed += 1;
      }
    }
    expect(shared).toBeGreaterThan(50);
    // scipy.stats.fisher_exact on the same per-task counts gives 1 improved and 3 regressed
    expect([improved, regressed]).toEqual([1, 3]);
    expect(c.environments).toHaveLength(shared);
    expect([c.improved, c.regressed, c.unchanged]).toEqual([improved, regressed, shared - improved - regressed]);
    // the real jobs differ on some tasks in both directions, so the check is not vacuous
    expect(improved + regressed).toBeGreaterThan(0);
    // false discovery control: a task both sides always passed or always failed could never reach 0.05 and is left out;
    // every q is at least its p, and what survives is counted among the per-task verdicts
    const never = c.environments.filter((e) => (e.a.successes + e.b.successes) % (e.a.n + e.b.n) === 0);
    expect(never.length).toBeGreaterThan(0);
    for (const e of never) expect(e.qValue, e.key).toBe(1);
    expect(c.falseDiscovery.testable).toBeLessThanOrEqual(shared - never.length);
    for (const e of c.environments) expect(e.qValue, e.key).toBeGreaterThanOrEqual(e.pValue - 1e-12);
    const survive = (v: string) => c.environments.filter((e) => e.verdict === v && e.qValue <= 0.05).length;
    expect([c.falseDiscovery.improved, c.falseDiscovery.regressed]).toEqual([survive("improved"), survive("regressed")]);
  });
});

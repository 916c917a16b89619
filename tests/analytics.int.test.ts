/**
 * Generation analytics over HTTP on a real Postgres: the real Harbor jobs (figures equal
 * Harbor's own result.json), failure categories and clusters, the environment table, the
 * environment page, policy comparison, and the trajectory endpoints of the viewer.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { harborJobFigures, readHarborJob } from "@/lib/ingest/harbor";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { indexPendingRollouts } from "@/lib/rollouts/search-index";
import { importHarbor } from "@/cli/commands/import";
import type { FailuresView, GenerationAnalytics, PolicyComparison } from "@/lib/analytics/views";
import type { TurnPage, TurnSearchResult, TurnSlice } from "@/lib/rollouts/turn-types";
import { startApi, stopApi, createProjectWith, type TestDb, type TestServer } from "./api-harness";
import { lake } from "./configs";

const TOKEN = "test-bootstrap-token-analytics-01";
let db: TestDb;
let server: TestServer;
let client: EnvForgeClient;

const get = <T>(p: string) => client.request<T>("GET", p);
const status = (p: string) =>
  get(p).then(
    () => 200,
    (e) => (e instanceof ApiError ? e.status : Promise.reject(e)),
  );

beforeAll(async () => {
  ({ db, server, admin: client } = await startApi(TOKEN));
});
afterAll(async () => {
  await stopApi({ server, db });
});

describe("analytics on a small synthetic project", () => {
  beforeAll(async () => {
    await createProjectWith(
      client,
      { slug: "syn", name: "Synthetic" },
      {
        environments: [
          { key: "a", config: lake(1, 4) },
          { key: "b", config: lake(2, 6) },
          { key: "c", config: lake(3, 8) },
          { key: "d", config: lake(4, 8) },
        ],
      },
    );
    const long = "x".repeat(5000) + " NEEDLE in a long tool output " + "y".repeat(5000);
    const lines = [
      // a: p1 passes 2/2, p2 passes 0/2 (verifier failures with the same failing test)
      { externalId: "a1", environmentKey: "a", policy: "p1", reward: 1 },
      { externalId: "a2", environmentKey: "a", policy: "p1", reward: 1 },
      {
        externalId: "a3",
        environmentKey: "a",
        policy: "p2",
        reward: 0,
        verifierOutput: "FAILED tests/test_goal.py::test_reaches_goal - assert 3 == 4\n1 failed",
      },
      {
        externalId: "a4",
        environmentKey: "a",
        policy: "p2",
        reward: 0,
        verifierOutput: "FAILED tests/test_goal.py::test_reaches_goal - assert 1 == 4\n1 failed",
      },
      // b: timeouts for both, one of which still scored
      {
        externalId: "b1",
        environmentKey: "b",
        policy: "p1",
        status: "errored",
        error: { type: "AgentTimeoutError", message: "Agent timed out after 900.0 seconds" },
      },
      {
        externalId: "b2",
        environmentKey: "b",
        policy: "p1",
        reward: 1,
        status: "errored",
        error: { type: "AgentTimeoutError", message: "Agent timed out after 900.0 seconds" },
      },
      {
        externalId: "b3",
        environmentKey: "b",
        policy: "p2",
        status: "errored",
        error: { type: "AgentTimeoutError", message: "Agent timed out after 450.5 seconds" },
      },
      { externalId: "b4", environmentKey: "b", policy: "p2", reward: 1 },
      // c: an infra failure and a pass for p1, p2 passes
      {
        externalId: "c1",
        environmentKey: "c",
        policy: "p1",
        verifierOutput: "bash: curl: command not found\nE: Could not get lock /var/lib/dpkg/lock-frontend",
        reward: 0,
      },
      { externalId: "c2", environmentKey: "c", policy: "p1", reward: 1 },
      { externalId: "c3", environmentKey: "c", policy: "p2", reward: 1 },
      { externalId: "c4", environmentKey: "c", policy: "p2", reward: 1 },
      // d: a long trajectory for the viewer
      {
        externalId: "d1",
        environmentKey: "d",
        policy: "p1",
        reward: 0,
        trajectory: [
          { role: "system", content: "You are an agent." },
          ...Array.from({ length: 1200 }, (_, i) =>
            i % 2 === 0
              ? {
                  role: "assistant",
                  content: `step ${i}`,
                  toolCalls: [{ id: `c${i}`, name: "bash", arguments: JSON.stringify({ cmd: "ls -la " + "z".repeat(400) }) }],
                  tokens: 12,
                }
              : {
                  role: "tool",
                  content: i === 801 ? long : `output ${i}`,
                  toolCallId: `c${i - 1}`,
                  retrievedDocuments:
                    i === 3
                      ? [
                          { id: "d1", title: "Doc", text: "t".repeat(500), relevant: true },
                          { id: "d2", title: "Noise", relevant: false },
                        ]
                      : undefined,
                },
          ),
        ],
      },
    ];
    await client.request("POST", "/api/v1/projects/syn/rollouts", {
      raw: lines.map((l) => JSON.stringify(l)).join("\n"),
      contentType: "application/x-ndjson",
    });
  });

  it("reports categories, clusters with normalized signatures, exceptions and the infra split", async () => {
    const f = await get<FailuresView>("/api/v1/projects/syn/generations/0/failures");
    expect(f.rollouts).toBe(13);
    const byCat = Object.fromEntries(f.categories.map((c) => [c.category, c.count]));
    expect(byCat).toMatchObject({ verifier_failed: 3, agent_timeout: 2, infra_error: 1 });
    expect(f.infraFailures).toBe(1);
    expect(f.policyFailures).toBe(f.failures - 1);
    // the two timeouts differ only in their numbers: one cluster
    const timeouts = f.clusters.filter((c) => c.category === "agent_timeout");
    expect(timeouts).toHaveLength(1);
    expect(timeouts[0]).toMatchObject({ count: 2, environments: 1 });
    const goal = f.clusters.find((c) => c.signature.includes("test_reaches_goal"));
    expect(goal).toMatchObject({ category: "verifier_failed", count: 2, environments: 1 });
    expect(f.clusters.find((c) => c.category === "infra_error")?.infra).toBe(true);
    expect(f.exceptions).toEqual([{ type: "AgentTimeoutError", count: 3, rewarded: 1 }]);

    const one = await get<FailuresView>("/api/v1/projects/syn/generations/0/failures?policy=p2");
    expect(one.rollouts).toBe(6);
    expect(one.categories.find((c) => c.category === "infra_error")).toBeUndefined();
  });

  it("opens a cluster with its environments and rollouts, every exemplar inside it", async () => {
    const f = await get<FailuresView>("/api/v1/projects/syn/generations/0/failures");
    const goal = f.clusters.find((c) => c.signature.includes("test_reaches_goal"))!;
    const detail = await get<{
      cluster: { id: string };
      environments: { key: string; count: number }[];
      rollouts: { id: number; environmentKey: string }[];
    }>(`/api/v1/projects/syn/generations/0/failures/${goal.id}`);
    expect(detail.environments).toEqual([{ key: "a", count: 2 }]);
    expect(detail.rollouts.map((r) => String(r.id)).sort()).toEqual(expect.arrayContaining(goal.exemplarRolloutIds));
    expect(await status(`/api/v1/projects/syn/generations/0/failures/ffffffffffffffff`)).toBe(404);
  });

  it("draws the dashboard data: distribution, tiers, per policy, fields", async () => {
    const a = await get<GenerationAnalytics>("/api/v1/projects/syn/generations/0/analytics");
    expect(a.policies).toEqual(["p1", "p2"]);
    expect(a.metrics.rollouts).toBe(13);
    expect(a.distribution.reduce((acc, b) => acc + b.environments, 0)).toBe(4);
    // best policy decides: a (p1 100%) solved, b (50% both) advanced, c (p2 100%) solved, d (0%) frontier
    expect(a.tiers).toEqual({ frontier: 1, advanced: 1, core: 0, solved: 2 });
    expect(a.perPolicy.map((p) => [p.policy, p.metrics.rollouts])).toEqual([
      ["p1", 7],
      ["p2", 6],
    ]);
    const size = a.fields.find((x) => x.path === "size")!;
    expect(size.direction).toBe("horizon");
    expect(size.buckets.reduce((acc, b) => acc + b.environments, 0)).toBe(4);
    expect(await status("/api/v1/projects/syn/generations/0/analytics?policy=nobody")).toBe(404);
  });

  it("compares two policies environment by environment", async () => {
    const c = await get<PolicyComparison>("/api/v1/projects/syn/generations/0/compare?a=p1&b=p2");
    expect(c.points.map((p) => [p.key, p.delta])).toEqual([
      ["a", -1],
      ["b", 0],
      ["c", 0.5],
      ["d", null],
    ]);
    expect([c.improved, c.regressed, c.unchanged]).toEqual([1, 1, 1]);
    // at margin 0 a tie (b) is still unchanged: it was counted improved and regressed at once, unchanged -1
    const exact = await get<PolicyComparison>("/api/v1/projects/syn/generations/0/compare?a=p1&b=p2&margin=0");
    expect([exact.improved, exact.regressed, exact.unchanged]).toEqual([1, 1, 1]);
    const wide = await get<PolicyComparison>("/api/v1/projects/syn/generations/0/compare?a=p1&b=p2&margin=0.6");
    expect([wide.improved, wide.regressed, wide.unchanged]).toEqual([0, 1, 2]);
    expect(await status("/api/v1/projects/syn/generations/0/compare?a=p1&b=zz")).toBe(404);
  });

  it("gives each environment of the plain listing its own figures", async () => {
    // the listing without a sort or a filter (lib/generations/overview.ts) joins the page's environments to their
    // aggregates by id: ids that arrive as strings (bigint) would find none, and every row would say 0 rollouts
    type Page = { items: { key: string; stats: { rollouts: number; successRate: number | null } }[] };
    const page = await get<Page>("/api/v1/projects/syn/generations/0/environments");
    expect(page.items.map((i) => [i.key, i.stats.rollouts, i.stats.successRate])).toEqual([
      ["a", 4, 0.5],
      ["b", 4, 0.5],
      ["c", 4, 0.75],
      ["d", 1, 0],
    ]);
  });

  it("filters, sorts and pages the environment table with a cursor", async () => {
    type Page = { items: { key: string; tier: string; stats: { successRate: number | null } }[]; nextCursor: string | null; total: number };
    const bySuccess = await get<Page>("/api/v1/projects/syn/generations/0/environments?sort=success&order=desc&limit=3");
    expect(bySuccess.total).toBe(4);
    expect(bySuccess.items.map((i) => i.key)).toEqual(["c", "a", "b"]);
    const rest = await get<Page>(
      `/api/v1/projects/syn/generations/0/environments?sort=success&order=desc&limit=3&cursor=${bySuccess.nextCursor}`,
    );
    expect(rest.items.map((i) => i.key)).toEqual(["d"]);
    expect(rest.nextCursor).toBeNull();
    expect((await get<Page>("/api/v1/projects/syn/generations/0/environments?tier=solved")).items.map((i) => i.key)).toEqual(["a", "c"]);
    expect((await get<Page>("/api/v1/projects/syn/generations/0/environments?category=agent_timeout")).items.map((i) => i.key)).toEqual([
      "b",
    ]);
    expect((await get<Page>("/api/v1/projects/syn/generations/0/environments?field.size=7..8")).items.map((i) => i.key)).toEqual([
      "c",
      "d",
    ]);
    expect(
      (await get<Page>("/api/v1/projects/syn/generations/0/environments?minSuccess=0.5&maxSuccess=0.9&policy=p1")).items.map((i) => i.key),
    ).toEqual(["b", "c"]);
    expect(await status("/api/v1/projects/syn/generations/0/environments?field.nope=1")).toBe(400);
    expect(await status("/api/v1/projects/syn/generations/0/environments?sort=nope")).toBe(400);
    expect(await status("/api/v1/projects/syn/generations/0/environments?sort=key&cursor=garbage")).toBe(400);
  });

  it("shows an environment with its results by policy and the default compare pair", async () => {
    const e = await get<{
      key: string;
      results: { policy: string; rollouts: number }[];
      compareDefault: { passing: number | null; failing: number | null };
    }>("/api/v1/projects/syn/environments/a");
    expect(e.results.map((r) => [r.policy, r.rollouts])).toEqual([
      ["p1", 2],
      ["p2", 2],
    ]);
    expect(e.compareDefault.passing).not.toBeNull();
    expect(e.compareDefault.failing).not.toBeNull();
    expect(await status("/api/v1/projects/syn/environments/zzz")).toBe(404);
  });

  it("serves a long trajectory in pages, one message in slices, and searches it", async () => {
    const list = await get<{ items: { id: number; externalId: string }[] }>("/api/v1/projects/syn/rollouts?environmentKey=d");
    const id = list.items[0].id;
    const first = await get<TurnPage>(`/api/v1/rollouts/${id}/turns?limit=100&preview=100`);
    expect(first.total).toBe(1201);
    expect(first.turns).toHaveLength(100);
    expect(first.turns[1].toolCalls[0]).toMatchObject({ name: "bash", argumentsLength: expect.any(Number) });
    expect(first.turns[1].toolCalls[0].argumentsPreview.length).toBeLessThan(first.turns[1].toolCalls[0].argumentsLength);
    expect(first.turns[4].documents).toEqual([
      expect.objectContaining({ title: "Doc", relevant: true, textLength: 500 }),
      expect.objectContaining({ title: "Noise", relevant: false, textLength: 0 }),
    ]);
    const last = await get<TurnPage>(`/api/v1/rollouts/${id}/turns?from=1150&limit=100`);
    expect(last.turns.map((t) => t.index)).toEqual(Array.from({ length: 51 }, (_, i) => 1150 + i));
    const longTurn = (await get<TurnPage>(`/api/v1/rollouts/${id}/turns?from=802&limit=1&preview=50`)).turns[0];
    expect(longTurn).toMatchObject({ index: 802, role: "tool", length: 10030 });
    expect(longTurn.preview).toHaveLength(50);
    const slice = await get<TurnSlice>(`/api/v1/rollouts/${id}/turns/802?offset=5000&length=40`);
    expect(slice.content).toBe(" NEEDLE in a long tool output " + "y".repeat(10));
    expect(await status(`/api/v1/rollouts/${id}/turns/5000`)).toBe(404);
    const hits = await get<TurnSearchResult>(`/api/v1/rollouts/${id}/search?q=needle`);
    expect(hits.total).toBe(1);
    expect(hits.matches[0]).toMatchObject({ index: 802, snippet: expect.stringContaining("NEEDLE") });
    // LIKE wildcards are searched for literally
    expect((await get<TurnSearchResult>(`/api/v1/rollouts/${id}/search?q=%25%25`)).total).toBe(0);
    expect(await status(`/api/v1/rollouts/${id}/search?q=`)).toBe(400);
    expect(await status(`/api/v1/rollouts/999999/turns`)).toBe(404);
  });
});

// Clustering is SQL's (lib/generations/analytics.ts); these pin what the old in-memory copy promised.
describe("failure clusters in SQL", () => {
  beforeAll(async () => {
    await createProjectWith(
      client,
      { slug: "clu", name: "Clusters" },
      { environments: [1, 2, 3, 4].map((s) => ({ key: `e${s}`, config: lake(s) })) },
    );
    const curl = "bash: curl: command not found\nE: Could not get lock /var/lib/dpkg/lock-frontend";
    const lines = [
      { externalId: "x1", environmentKey: "e2", policy: "p", reward: 0, verifierOutput: curl },
      {
        externalId: "x2",
        environmentKey: "e1",
        policy: "p",
        reward: 0,
        verifierOutput: "FAILED tests/test_a.py::test_a - assert 1 == 2\n1 failed",
      },
      { externalId: "x3", environmentKey: "e3", policy: "p", reward: 0, verifierOutput: curl },
      { externalId: "x4", environmentKey: "e2", policy: "p", reward: 0, verifierOutput: curl },
      { externalId: "x5", environmentKey: "e4", policy: "p", reward: 0, verifierOutput: curl },
      {
        externalId: "x6",
        environmentKey: "e1",
        policy: "p",
        status: "errored",
        error: { type: "AgentTimeoutError", message: "Agent timed out after 900.0 seconds" },
      },
    ];
    await client.request("POST", "/api/v1/projects/clu/rollouts", {
      raw: lines.map((l) => JSON.stringify(l)).join("\n"),
      contentType: "application/x-ndjson",
    });
  });

  it("groups by category and signature, largest first, every failure in one cluster", async () => {
    const f = await get<FailuresView>("/api/v1/projects/clu/generations/0/failures");
    expect(f.clusters[0]).toMatchObject({ category: "infra_error", count: 4, environments: 3 });
    expect(f.clusters.map((c) => c.count)).toEqual([4, 1, 1]);
    expect(f.clusters.reduce((n, c) => n + c.count, 0)).toBe(f.failures);
    expect(Object.fromEntries(f.categories.map((c) => [c.category, c.count]))).toEqual({
      infra_error: 4,
      verifier_failed: 1,
      agent_timeout: 1,
    });
  });

  it("picks exemplars one per environment first, the same on every read", async () => {
    const f = await get<FailuresView>("/api/v1/projects/clu/generations/0/failures");
    const big = f.clusters[0];
    expect(big.exemplarRolloutIds).toHaveLength(3);
    const detail = await get<{ rollouts: { id: number; environmentKey: string }[] }>(
      `/api/v1/projects/clu/generations/0/failures/${big.id}`,
    );
    const envOf = new Map(detail.rollouts.map((r) => [String(r.id), r.environmentKey]));
    expect(new Set(big.exemplarRolloutIds.map((id) => envOf.get(id)))).toEqual(new Set(["e2", "e3", "e4"]));
    expect((await get<FailuresView>("/api/v1/projects/clu/generations/0/failures")).clusters).toEqual(f.clusters);
  });
});

const fixtures = fixturesDir();
describe.skipIf(!fixtures)("analytics on the real Harbor jobs (skipped without ../shared/fixtures)", () => {
  const jobs = ["tmax-9b", "Qwen3.5-9B"];
  const figures = new Map<string, ReturnType<typeof harborJobFigures>>();
  const policyOf = new Map<string, string>();

  beforeAll(async () => {
    for (const name of jobs) {
      const dir = path.join(fixtures!, "harbor-tb2", name, "terminal-bench-2-0");
      const result = await importHarbor(client, dir, { project: "tb2", create: true, generation: 0, quiet: true });
      expect(result.summary.rejected).toEqual([]);
      figures.set(name, harborJobFigures(JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8"))));
      const job = await readHarborJob(dir);
      policyOf.set(name, job.trials[0].rollout.policy);
    }
    await indexPendingRollouts(db.db);
  }, 400_000);

  it("per-policy figures equal Harbor's result.json", async () => {
    const a = await get<GenerationAnalytics>("/api/v1/projects/tb2/generations/0/analytics");
    for (const name of jobs) {
      const f = figures.get(name)!;
      const mine = a.perPolicy.find((p) => p.policy === policyOf.get(name))!;
      expect(mine.metrics.rollouts).toBe(f.nTotalTrials);
      expect(mine.metrics.meanReward!.toFixed(4)).toBe(f.mean!.toFixed(4));
      for (const [k, v] of Object.entries(f.passAtK)) expect(mine.metrics.passAtK[k].toFixed(4)).toBe(Number(v).toFixed(4));
    }
    expect(a.policies).toHaveLength(2);
  });

  it("agent-timeout counts equal Harbor's exception counts, and infra failures are found", async () => {
    for (const name of jobs) {
      const f = figures.get(name)!;
      const view = await get<FailuresView>(`/api/v1/projects/tb2/generations/0/failures?policy=${encodeURIComponent(policyOf.get(name)!)}`);
      // every exception type Harbor counted, we count too
      for (const [type, n] of Object.entries(f.exceptionCounts)) expect(view.exceptions.find((e) => e.type === type)?.count, type).toBe(n);
      // a timeout that still scored is a success, not a failure: the category holds the rest
      const timeouts = view.exceptions.find((e) => e.type === "AgentTimeoutError")!;
      expect(view.categories.find((c) => c.category === "agent_timeout")?.count).toBe(timeouts.count - timeouts.rewarded);
      expect(view.infraFailures).toBeGreaterThan(0);
      expect(view.clusters.filter((c) => c.infra).reduce((acc, c) => acc + c.count, 0)).toBe(view.infraFailures);
      expect(view.policyFailures + view.infraFailures).toBe(view.failures);
      // the clusters account for every failure, and every exemplar resolves
      expect(view.clusters.reduce((acc, c) => acc + c.count, 0)).toBe(view.failures);
      const cluster = view.clusters[0];
      const detail = await get<{ rollouts: { id: number }[] }>(
        `/api/v1/projects/tb2/generations/0/failures/${cluster.id}?policy=${encodeURIComponent(policyOf.get(name)!)}`,
      );
      const ids = new Set(detail.rollouts.map((r) => String(r.id)));
      for (const ex of cluster.exemplarRolloutIds) expect(ids.has(ex)).toBe(true);
    }
  });

  it("blames the agent for the sandboxes it broke and clusters behaviours across tasks", async () => {
    const expected: Record<string, { infra: number; brokenByAgent: number; stepCap: number }> = {
      "tmax-9b": { infra: 6, brokenByAgent: 32, stepCap: 19 },
      "Qwen3.5-9B": { infra: 2, brokenByAgent: 22, stepCap: 99 },
    };
    for (const name of jobs) {
      const policy = policyOf.get(name)!;
      const view = await get<FailuresView>(`/api/v1/projects/tb2/generations/0/failures?policy=${encodeURIComponent(policy)}`);
      expect(view.infraFailures, name).toBe(expected[name].infra);
      const blamed = view.categories.find((c) => c.category === "environment_broken_by_agent")!;
      expect(blamed).toEqual({ category: "environment_broken_by_agent", count: expected[name].brokenByAgent, infra: false });
      const stepCap = view.behaviours.find((b) => b.id === "step_cap")!;
      expect(stepCap).toMatchObject({
        label: "hit the step cap",
        count: expected[name].stepCap,
        perPolicy: { [policy]: expected[name].stepCap },
      });
      expect(stepCap.environments).toBeGreaterThan(0);
      expect(stepCap.exemplarRolloutIds.length).toBeGreaterThan(0);
      // environments, keys and exemplars as the failed step-cap rollouts themselves give them: each environment's
      // first rollout, the three smallest of those, the keys in order
      const listed = await get<{ items: { id: number; environmentKey: string }[] }>(
        `/api/v1/projects/tb2/rollouts?generation=0&policy=${encodeURIComponent(policy)}&behaviour=step_cap&success=false&limit=1000`,
      );
      const firstOf = new Map<string, number>();
      for (const r of listed.items) firstOf.set(r.environmentKey, Math.min(firstOf.get(r.environmentKey) ?? Infinity, Number(r.id)));
      expect(stepCap.environments).toBe(firstOf.size);
      expect(stepCap.environmentKeys).toEqual([...firstOf.keys()].sort().slice(0, 50));
      expect(stepCap.exemplarRolloutIds).toEqual(
        [...firstOf.values()]
          .sort((x, y) => x - y)
          .slice(0, 3)
          .map(String),
      );
      for (const id of ["package_install_timeout", "format_errors", "never_ran_tests", "gave_up_early", "timeout_mid_command"]) {
        expect(view.behaviours.find((b) => b.id === id)?.count ?? 0, `${name} ${id}`).toBeGreaterThan(0);
      }
      // an exemplar of the step cap really hit the agent's 64 steps
      const one = await get<{ turns: number; behaviours: string[]; success: boolean }>(`/api/v1/rollouts/${stepCap.exemplarRolloutIds[0]}`);
      expect(one.turns).toBeGreaterThanOrEqual(64);
      expect(one.behaviours).toContain("step_cap");
      expect(one.success).toBe(false);
    }
  });

  it("gives every rollout its test counts, rewards and trial name, and finds it by trial name", async () => {
    const found = await get<{ items: { id: number; trialName: string; testsPassed: number | null; testsFailed: number | null }[] }>(
      "/api/v1/projects/tb2/rollouts?q=regex-log__4WvQnr5",
    );
    expect(found.items.map((i) => i.trialName)).toEqual(["regex-log__4WvQnr5"]);
    const r = await get<{
      rewards: Record<string, number>;
      testsPassed: number | null;
      failureCategory: string;
      metadata: { environmentDamage: { step: number; exitCode: number }[] };
    }>(`/api/v1/rollouts/${found.items[0].id}`);
    expect(r.rewards).toEqual({ reward: 0 });
    expect(r.testsPassed).toBeNull(); // the verifier never got to run pytest
    expect(r.failureCategory).toBe("environment_broken_by_agent");
    expect(r.metadata.environmentDamage[0]).toMatchObject({ step: 5, exitCode: 124 });
    // pytest's summary on a rollout whose tests ran
    const ran = await get<{ items: { testsPassed: number | null; testsFailed: number | null; success: boolean }[] }>(
      "/api/v1/projects/tb2/rollouts?environmentKey=regex-log&limit=20",
    );
    const withTests = ran.items.filter((i) => i.testsPassed !== null);
    expect(withTests.length).toBeGreaterThan(0);
    for (const i of withTests) expect(i.testsPassed! + i.testsFailed!).toBeGreaterThan(0);
    expect(await status("/api/v1/projects/tb2/rollouts?q=%25_%5C")).toBe(200);
  });

  it("compares the two policies on the same 89 tasks", async () => {
    const c = await get<PolicyComparison>("/api/v1/projects/tb2/generations/0/compare");
    expect(c.points).toHaveLength(89);
    expect(c.improved + c.regressed + c.unchanged).toBe(89);
  });
});

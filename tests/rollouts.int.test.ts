import path from "node:path";
import { indexPendingRollouts } from "@/lib/rollouts/search-index";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { call } from "./http";
import { createApiKey, ensureBootstrapKey } from "@/lib/auth/keys";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { readHarborJob } from "@/lib/ingest/harbor";
import * as projectsRoute from "@/app/api/v1/projects/route";
import * as generationsRoute from "@/app/api/v1/projects/[slug]/generations/route";
import * as generationRoute from "@/app/api/v1/projects/[slug]/generations/[index]/route";
import * as rolloutsRoute from "@/app/api/v1/projects/[slug]/rollouts/route";
import * as rolloutRoute from "@/app/api/v1/rollouts/[id]/route";
import * as timelineRoute from "@/app/api/v1/rollouts/[id]/timeline/route";
import { lake } from "./configs";

const ADMIN = "test-bootstrap-token-rollouts-0123";
let db: Awaited<ReturnType<typeof freshDatabase>>;
const post = (slug: string, rawBody: string, contentType = "application/x-ndjson", query = "") =>
  call(rolloutsRoute.POST as never, "POST", `/api/v1/projects/${slug}/rollouts${query}`, {
    token: ADMIN,
    rawBody,
    contentType,
    params: { slug },
  });

const config = lake(1);

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, ADMIN);
  await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
    token: ADMIN,
    body: { slug: "rr", name: "R", family: "frozenlake-mapf" },
  });
  await call(generationsRoute.POST as never, "POST", "/api/v1/projects/rr/generations", {
    token: ADMIN,
    params: { slug: "rr" },
    body: { environments: [{ key: "e1", config }] },
  });
});
afterAll(async () => {
  await db?.drop();
});

describe("POST rollouts", () => {
  it("stores valid lines, rejects bad ones by line number, and counts duplicates", async () => {
    const lines = [
      JSON.stringify({
        externalId: "x1",
        environmentKey: "e1",
        policy: "p",
        reward: 1,
        trajectory: [{ role: "assistant", content: "go" }],
      }),
      "{not json",
      JSON.stringify({ externalId: "x2", environmentKey: "e1", policy: "p", reward: "high" }),
      JSON.stringify({ externalId: "x3", environmentKey: "nope", policy: "p", reward: 0 }),
      "",
      JSON.stringify({ externalId: "x1", environmentKey: "e1", policy: "p", reward: 1 }),
      JSON.stringify({
        externalId: "x4",
        environmentKey: "e1",
        policy: "p",
        status: "errored",
        error: { type: "AgentTimeoutError", message: "timed out after 900s" },
      }),
      JSON.stringify({ externalId: "x5", environmentKey: "e1", policy: "p", reward: 0, bogus: true }),
      JSON.stringify({ externalId: "x6", environmentKey: "e1", reward: 1 }),
    ].join("\n");
    const r = await post("rr", lines);
    expect(r.status).toBe(200);
    expect(r.json.accepted).toBe(2);
    expect(r.json.duplicates).toBe(1);
    expect(r.json.rejected.map((x: { line: number; code: string }) => [x.line, x.code])).toEqual([
      [2, "malformed_json"],
      [3, "invalid_rollout"],
      [4, "unknown_environment"],
      [8, "invalid_rollout"],
      [9, "invalid_rollout"],
    ]);
    expect(r.json.rejected[3].message).toContain("bogus");
    expect(r.json.rejected[4].message).toMatch(/^policy: /);
    // re-sending is idempotent
    const again = await post("rr", lines);
    expect(again.json.accepted).toBe(0);
    expect(again.json.duplicates).toBe(3);
  });

  it("takes a JSON array, creates environments on request, and refuses bad bodies clearly", async () => {
    const arr = JSON.stringify([
      { externalId: "y1", environmentKey: "e2", environmentConfig: { ...config, seed: 2 }, generation: 0, policy: "p", reward: 0 },
      { externalId: "y2", environmentKey: "e2", policy: "p", reward: 1 },
    ]);
    expect((await post("rr", arr, "application/json")).json.rejected[0].code).toBe("unknown_environment");
    const created = await post("rr", arr, "application/json", "?createEnvironments=1");
    expect(created.json).toMatchObject({ accepted: 2, duplicates: 0, rejected: [] });
    // the new environment is a member of the generation its rollouts landed in, once
    const members = await db.pool.query(`
      select g.index, ge.op from generation_environments ge join generations g on g.id = ge.generation_id
      join environments e on e.id = ge.environment_id join projects p on p.id = e.project_id
      where p.slug = 'rr' and e.key = 'e2'`);
    expect(members.rows).toEqual([{ index: 0, op: "import" }]);
    // several new environments in several generations, in one body: each membership made, none twice
    const many = [1, 2, 3].flatMap((k) =>
      [0, 1].map((g) => ({
        externalId: `m${k}-${g}`,
        environmentKey: `m${k}`,
        environmentConfig: { ...config, seed: 10 + k },
        generation: g,
        policy: "p",
        reward: g,
      })),
    );
    expect((await post("rr", JSON.stringify(many), "application/json", "?createEnvironments=1")).json).toMatchObject({ accepted: 6 });
    const made = await db.pool.query(`
      select e.key, array_agg(g.index order by g.index) as gens from generation_environments ge
      join generations g on g.id = ge.generation_id join environments e on e.id = ge.environment_id
      join projects p on p.id = e.project_id where p.slug = 'rr' and e.key like 'm%' group by e.key order by e.key`);
    expect(made.rows).toEqual([1, 2, 3].map((k) => ({ key: `m${k}`, gens: [0, 1] })));
    expect((await post("rr", "", "application/x-ndjson")).status).toBe(400);
    expect((await post("rr", "{}", "application/json")).status).toBe(400);
    expect((await post("rr", "x", "text/csv")).status).toBe(415);
  });

  it("refuses a key limited to another project (403) and an unknown key (401)", async () => {
    await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
      token: ADMIN,
      body: { slug: "elsewhere", name: "E", family: "search-agent" },
    });
    const limited = await createApiKey(db.db, { name: "elsewhere-ingest", role: "ingest", project: "elsewhere" }, { actor: "test" });
    const body = JSON.stringify({ externalId: "q1", environmentKey: "e1", policy: "p", reward: 1 });
    const forbidden = await call(rolloutsRoute.POST as never, "POST", "/api/v1/projects/rr/rollouts", {
      token: limited.key,
      rawBody: body,
      contentType: "application/x-ndjson",
      params: { slug: "rr" },
    });
    expect(forbidden.status).toBe(403);
    const unknown = await call(rolloutsRoute.POST as never, "POST", "/api/v1/projects/rr/rollouts", {
      token: "efk_unknown",
      rawBody: body,
      contentType: "application/x-ndjson",
      params: { slug: "rr" },
    });
    expect(unknown.status).toBe(401);
  });

  it("answers 413 before storing anything over the limit", async () => {
    const before = Number((await db.pool.query("select count(*) from rollouts")).rows[0].count);
    process.env.ENVFORGE_MAX_BODY_MB = "0.0001"; // ~100 bytes
    try {
      const body = JSON.stringify({ externalId: "z1", environmentKey: "e1", policy: "p", reward: 1, verifierOutput: "x".repeat(500) });
      const r = await post("rr", body);
      expect(r.status).toBe(413);
    } finally {
      delete process.env.ENVFORGE_MAX_BODY_MB;
    }
    expect(Number((await db.pool.query("select count(*) from rollouts")).rows[0].count)).toBe(before);
  });

  it("stores each payload exactly: quotes, backslashes, newlines and astral text survive; a missing field is SQL NULL", async () => {
    const tricky = 'FAILED "quoted" \\ back\\slash\nnew line\ttab \u2028 é 🙂 {"json":"in text"}';
    const lines = [
      {
        externalId: "pl-all",
        environmentKey: "e1",
        policy: "p",
        reward: 0,
        trajectory: [{ role: "tool", content: tricky }],
        verifierOutput: tricky,
        metadata: { note: tricky, n: [1, 2.5, null] },
      },
      { externalId: "pl-verifier", environmentKey: "e1", policy: "p", reward: 1, verifierOutput: "1 passed" },
      { externalId: "pl-none", environmentKey: "e1", policy: "p", reward: 1 },
    ];
    const r = await post("rr", lines.map((l) => JSON.stringify(l)).join("\n"));
    expect(r.json).toMatchObject({ accepted: 3, rejected: [] });
    const rows = (
      await db.pool.query(
        `select r.external_id, p.trajectory, p.verifier_output, p.metadata, p.rollout_id is not null as has_payload,
           p.trajectory is null as tr_null, p.metadata is null as md_null
         from rollouts r left join rollout_payloads p on p.rollout_id = r.id where r.external_id like 'pl-%' order by r.external_id`,
      )
    ).rows;
    expect(rows.map((x) => x.external_id)).toEqual(["pl-all", "pl-none", "pl-verifier"]);
    expect(rows[0]).toMatchObject({ trajectory: lines[0].trajectory, verifier_output: tricky, metadata: lines[0].metadata });
    // nothing to store: no payload row at all
    expect(rows[1]).toMatchObject({ has_payload: false });
    // a verifier output only: the trajectory and metadata are SQL NULL, not the JSON value null
    expect(rows[2]).toMatchObject({ has_payload: true, verifier_output: "1 passed", trajectory: null, tr_null: true, md_null: true });
  });

  it("lists rollouts with filters and returns one with its trajectory", async () => {
    const list = await call(rolloutsRoute.GET as never, "GET", "/api/v1/projects/rr/rollouts?category=agent_timeout", {
      token: ADMIN,
      params: { slug: "rr" },
    });
    expect(list.status).toBe(200);
    expect(list.json.items.map((i: { externalId: string }) => i.externalId)).toEqual(["x4"]);
    const all = await call(rolloutsRoute.GET as never, "GET", "/api/v1/projects/rr/rollouts?success=true", {
      token: ADMIN,
      params: { slug: "rr" },
    });
    const x1 = all.json.items.find((i: { externalId: string }) => i.externalId === "x1");
    const one = await call(rolloutRoute.GET as never, "GET", `/api/v1/rollouts/${x1.id}`, { token: ADMIN, params: { id: String(x1.id) } });
    expect(one.json.trajectory).toEqual([{ role: "assistant", content: "go" }]);
  });

  it("gives a rollout's timeline: the phases, each timed step's duration and cost, the total cost; another project's key gets 403", async () => {
    const line = JSON.stringify({
      externalId: "timed-1",
      environmentKey: "e1",
      policy: "p",
      reward: 0,
      metadata: {
        phases: {
          agentExecution: { startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T00:00:30Z" },
          verifier: { startedAt: "2026-01-01T00:00:31Z", finishedAt: "2026-01-01T00:00:35Z" },
        },
      },
      trajectory: [
        { role: "user", content: "go" },
        { role: "assistant", content: "a", timestamp: "2026-01-01T00:00:01Z", usage: { costUsd: 0.004, promptTokens: 100 } },
        { role: "tool", content: "ok" },
        { role: "assistant", content: "b", timestamp: "2026-01-01T00:00:09Z", usage: { costUsd: 0.001 } },
        { role: "assistant", content: "c", timestamp: "2026-01-01T00:00:21Z" },
      ],
    });
    expect((await post("rr", line)).json.accepted).toBe(1);
    await indexPendingRollouts(db.db);
    const list = await call(rolloutsRoute.GET as never, "GET", "/api/v1/projects/rr/rollouts?q=timed-1", {
      token: ADMIN,
      params: { slug: "rr" },
    });
    const id = String(list.json.items.find((i: { externalId: string }) => i.externalId === "timed-1").id);
    const res = await call(timelineRoute.GET as never, "GET", `/api/v1/rollouts/${id}/timeline`, { token: ADMIN, params: { id } });
    expect(res.status).toBe(200);
    expect(res.json.phases.map((p: { name: string; seconds: number }) => [p.name, p.seconds])).toEqual([
      ["agentExecution", 30],
      ["verifier", 4],
    ]);
    expect(res.json.steps.map((s: { index: number; seconds: number | null }) => [s.index, s.seconds])).toEqual([
      [1, 8],
      [3, 12],
      [4, null],
    ]);
    expect(res.json.steps[0]).toMatchObject({ costUsd: 0.004, promptTokens: 100 });
    expect(res.json.costUsd).toBeCloseTo(0.005, 6);
    const other = await createApiKey(db.db, { name: "elsewhere-viewer", role: "viewer", project: "elsewhere" }, { actor: "test" });
    const denied = await call(timelineRoute.GET as never, "GET", `/api/v1/rollouts/${id}/timeline`, { token: other.key, params: { id } });
    expect(denied.status).toBe(403);
    const missing = await call(timelineRoute.GET as never, "GET", "/api/v1/rollouts/999999/timeline", {
      token: ADMIN,
      params: { id: "999999" },
    });
    expect(missing.status).toBe(404);
  });
});

const fixtures = fixturesDir();
describe.skipIf(!fixtures)("Harbor fixture through the store (skipped without ../shared/fixtures)", () => {
  it("reads the agent's commands from a posted trajectory: what it broke decides the category, and its behaviours", async () => {
    // no reader recorded metadata.environmentDamage here: ingest reads the commands from the trajectory itself
    const trajectory = [
      { role: "user", content: "Install python3, then fetch the page with curl." },
      {
        role: "assistant",
        content: "Installing.",
        toolCalls: [{ id: "k1", name: "bash", arguments: JSON.stringify({ cmd: "apt-get install -y python3" }) }],
      },
      { role: "tool", toolCallId: "k1", content: "Reading package lists...\nCommand timed out (exit_code=124)" },
      { role: "assistant", content: "I am done." },
    ];
    const verifierOutput = "/tests/test.sh: line 8: curl: command not found\n/tests/test.sh: line 19: uvx: command not found\n";
    const body = JSON.stringify({ externalId: "cmd1", environmentKey: "e1", policy: "p", reward: 0, trajectory, verifierOutput });
    expect((await post("rr", body)).json.accepted).toBe(1);
    const list = await call(rolloutsRoute.GET as never, "GET", "/api/v1/projects/rr/rollouts?success=false&limit=1000", {
      token: ADMIN,
      params: { slug: "rr" },
    });
    const id = String(list.json.items.find((i: { externalId: string }) => i.externalId === "cmd1").id);
    const one = await call(rolloutRoute.GET as never, "GET", `/api/v1/rollouts/${id}`, { token: ADMIN, params: { id } });
    // the same verifier output without the timed-out install is the sandbox's fault (infra_error, lib/analytics/failures.test.ts)
    expect(one.json.failureCategory).toBe("environment_broken_by_agent");
    expect(one.json.behaviours).toEqual(expect.arrayContaining(["package_install_timeout", "never_ran_tests"]));
  });

  it("stores no turn count for a trajectory that is an agent's own log, and counts the steps of any other", async () => {
    // the Harbor reader flags agent_log where an agent (aider, pi, ...) wrote only its console log (lib/ingest/harbor-parts.ts)
    const log = [{ role: "tool", content: "[aider.txt: aider's own log]\n> edit app.py\nApplied edit" }];
    const steps = [
      { role: "user", content: "task" },
      { role: "assistant", content: "one" },
      { role: "assistant", content: "two" },
    ];
    const lines = [
      { externalId: "log1", environmentKey: "e1", policy: "p", reward: 0, trajectory: log, metadata: { flags: ["agent_log"] } },
      { externalId: "log2", environmentKey: "e1", policy: "p", reward: 0, trajectory: steps },
      { externalId: "log3", environmentKey: "e1", policy: "p", reward: 0, trajectory: steps, metadata: { flags: ["agent_log"] }, turns: 5 },
    ];
    expect((await post("rr", lines.map((l) => JSON.stringify(l)).join("\n"))).json.accepted).toBe(3);
    const list = await call(rolloutsRoute.GET as never, "GET", "/api/v1/projects/rr/rollouts?limit=1000", {
      token: ADMIN,
      params: { slug: "rr" },
    });
    const turns = (ext: string) => list.json.items.find((i: { externalId: string }) => i.externalId === ext).turns;
    expect([turns("log1"), turns("log2"), turns("log3")]).toEqual([null, 2, 5]);
  });

  it("reproduces Harbor's mean reward and pass@k for tmax-9b", async () => {
    await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
      token: ADMIN,
      body: { slug: "tb2", name: "TB2", family: "terminal-task" },
    });
    const job = await readHarborJob(path.join(fixtures!, "harbor-tb2", "tmax-9b", "terminal-bench-2-0"));
    const body = job.trials.map((t) => JSON.stringify({ ...t.rollout, generation: 0, environmentConfig: t.environment.config })).join("\n");
    const r = await post("tb2", body, "application/x-ndjson", "?createEnvironments=1");
    expect(r.json.rejected).toEqual([]);
    expect(r.json.accepted).toBe(445);
    const g = await call(generationRoute.GET as never, "GET", "/api/v1/projects/tb2/generations/0", {
      token: ADMIN,
      params: { slug: "tb2", index: "0" },
    });
    expect(g.json.metrics.rollouts).toBe(445);
    expect(g.json.metrics.meanReward.toFixed(4)).toBe("0.2719");
    expect(g.json.metrics.passAtK["5"].toFixed(4)).toBe("0.4045");
    expect(g.json.metrics.infraErrorRate).toBeGreaterThan(0);
  });
});

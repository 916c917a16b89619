/**
 * npm run bench:ingest [-- --json <file>] [-- --rollouts N] [-- --port P]
 * 50,000 synthetic rollouts (~4 KB of trajectory each) through the HTTP API by the CLI's client into
 * the real app on its embedded Postgres; in the same run a raw COPY of the same rows into a scratch
 * table and the database's floor (the same writes with no server in front, bench/db-floor.ts); and the
 * tmax-9b Harbor job end to end through `envforge import harbor` when the fixtures exist.
 * `--only harbor` (the Harbor imports alone), `--only harbor-one` (the one tmax-9b job alone) or `--only generic` (the
 * synthetic rollouts and their COPY alone) while iterating: such a partial run prints its figures but records nothing in
 * docs/BENCHMARKS.md.
 */
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { EnvForgeClient } from "../cli/client";
import { importHarbor } from "../cli/commands/import";
import { uploadRollouts } from "../cli/upload";
import { fixturesDir } from "../lib/ingest/fixtures-path";
import { copyText, databaseFloor } from "./db-floor";
import { jsonTarget, machine, recordSection, startApp, treeCpuSeconds, type RunningApp } from "./lib";

const argv = process.argv.slice(2);
const total = Number(argv[argv.indexOf("--rollouts") + 1]) || 50_000;
const ENVIRONMENTS = 1000;
const only = argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : null;
if (only !== null && only !== "harbor" && only !== "harbor-one" && only !== "generic")
  throw new Error("--only takes generic, harbor or harbor-one");

function rolloutLine(i: number): string {
  const filler = "ls -la && cat results.csv | awk -F, '{s+=$3} END {print s}' ".repeat(40);
  const trajectory = [
    { role: "system", content: "You are a terminal agent. Solve the task; run the tests before you finish." },
    { role: "user", content: `Task ${i % ENVIRONMENTS}: aggregate the third column of results.csv and write the sum to out.txt.` },
    {
      role: "assistant",
      content: "I will inspect the file first.",
      toolCalls: [{ id: `c${i}a`, name: "bash", arguments: JSON.stringify({ cmd: "head results.csv" }) }],
    },
    { role: "tool", toolCallId: `c${i}a`, content: filler.slice(0, 1800) },
    {
      role: "assistant",
      content: "Now compute the sum.",
      toolCalls: [{ id: `c${i}b`, name: "bash", arguments: JSON.stringify({ cmd: filler.slice(0, 300) }) }],
    },
    { role: "tool", toolCallId: `c${i}b`, content: filler.slice(0, 1800) },
    { role: "assistant", content: "Done: out.txt holds the sum." },
  ];
  const ok = i % 3 === 0;
  return JSON.stringify({
    externalId: `bench-${i}`,
    environmentKey: `env-${i % ENVIRONMENTS}`,
    generation: 0,
    policy: i % 2 ? "policy-a" : "policy-b",
    reward: ok ? 1 : 0,
    status: i % 17 === 0 ? "errored" : "completed",
    ...(i % 17 === 0 ? { error: { type: "AgentTimeoutError", message: `Agent timed out after 900 seconds (trial ${i})` } } : {}),
    inputTokens: 1800 + (i % 400),
    outputTokens: 200 + (i % 90),
    trajectory,
    verifierOutput: ok ? "1 passed in 0.42s" : `FAILED tests/test_outputs.py::test_sum_${i % 5} - AssertionError`,
  });
}

/**
 * CPU seconds each part used between two readings: the bench's own process (the CLI's client: `client`), the app's
 * server (`node`) and its database (`postgres`).
 */
function cpuSecondsByPart(before: Record<string, number>, after: Record<string, number>, client: NodeJS.CpuUsage) {
  const out: Record<string, number> = { client: (client.user + client.system) / 1e6 };
  for (const [comm, s] of Object.entries(after)) out[comm] = s - (before[comm] ?? 0);
  return out;
}

function describeCpu(parts: Record<string, number>): string {
  return Object.entries(parts)
    .map(([k, v]) => `${k} ${v.toFixed(3)}`)
    .join(", ");
}

/** The generic part: `total` synthetic rollouts through the API, the triggers' time, searchability, and a raw COPY of them. */
async function genericIngest(app: RunningApp, client: EnvForgeClient) {
  await client.request("POST", "/api/v1/projects", { json: { slug: "bench", name: "Bench", family: "frozenlake-mapf" } });
  const environments = Array.from({ length: ENVIRONMENTS }, (_, i) => ({
    key: `env-${i}`,
    config: {
      size: 4 + (i % 20),
      num_agents: 1 + (i % 3),
      obstacle_density: 0.1,
      slip_probability: (i % 10) / 40,
      max_steps: 200,
      min_goal_distance: 2,
      collision: "soft",
      seed: i,
    },
  }));
  await client.request("POST", "/api/v1/projects/bench/generations", { json: { environments } });

  // where the database's write time goes: time spent in each trigger function (self time), counted from here
  const admin = new pg.Client({ connectionString: app.databaseUrl });
  admin.on("error", (err) => console.error(`[bench:ingest] the statistics connection failed: ${err.message}`));
  await admin.connect();
  await admin.query("alter system set track_functions = 'pl'");
  await admin.query("select pg_reload_conf()");
  await admin.query("select pg_stat_reset()");

  const lines = Array.from({ length: total }, (_, i) => rolloutLine(i));
  const bytes = lines.reduce((n, l) => n + l.length + 1, 0);
  console.log(`[bench:ingest] body ${(bytes / 1e6).toFixed(0)} MB, mean ${(bytes / total / 1024).toFixed(1)} KB per rollout`);

  const cpuBefore = treeCpuSeconds(app.pid);
  const clientBefore = process.cpuUsage();
  const t0 = performance.now();
  const summary = await uploadRollouts(
    client,
    "bench",
    lines.map((l, i) => ({ ref: String(i + 1), json: l })),
  );
  const apiSeconds = (performance.now() - t0) / 1000;
  // CPU seconds per 1,000 rollouts by part: what each part costs, apart from what else ran on the machine meanwhile
  const cpu = cpuSecondsByPart(cpuBefore, treeCpuSeconds(app.pid), process.cpuUsage(clientBefore));
  const cpuPerThousand = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, (v / total) * 1000]));
  console.log(`[bench:ingest] CPU seconds per 1,000 rollouts: ${describeCpu(cpuPerThousand)}`);
  if (summary.accepted !== total)
    throw new Error(`accepted ${summary.accepted} of ${total}: ${JSON.stringify(summary.rejected.slice(0, 3))}`);
  const rolloutsPerSecond = total / apiSeconds;
  console.log(`[bench:ingest] API: ${total} rollouts in ${apiSeconds.toFixed(1)} s = ${rolloutsPerSecond.toFixed(0)} rollouts/s`);
  const triggerTimes = (
    await admin.query<{ name: string; seconds: number; calls: number }>(
      "select funcname as name, (self_time / 1000)::float8 as seconds, calls::int from pg_stat_user_functions where " +
        "funcname like 'envforge_%' order by self_time desc",
    )
  ).rows.filter((r) => r.seconds >= 0.05);
  for (const t of triggerTimes)
    console.log(
      `[bench:ingest] in ${t.name}: ${t.seconds.toFixed(1)} s over ${t.calls} calls (${((100 * t.seconds) / apiSeconds).toFixed(0)}% of the API time)`,
    );
  // search documents are written by the app's worker after the write (ADR 0007): how long until every rollout is searchable
  let searchableSeconds: number;
  for (;;) {
    const pending = (await admin.query<{ n: number }>("select count(*)::int as n from rollout_search_pending")).rows[0].n;
    if (pending === 0) {
      searchableSeconds = (performance.now() - t0) / 1000;
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  console.log(`[bench:ingest] every rollout searchable ${searchableSeconds.toFixed(1)} s after the upload started`);
  await admin.query("alter system reset track_functions");
  await admin.query("select pg_reload_conf()");
  await admin.end();

  // the same rows, COPY'd raw into a scratch table shaped like rollouts + payloads
  const db = new pg.Client({ connectionString: app.databaseUrl });
  await db.connect();
  await db.query(`create table bench_copy (external_id text, environment_key text, generation int, policy text, reward float8, success bool,
    status text, error_type text, error_message text, input_tokens int, output_tokens int, trajectory jsonb, verifier_output text)`);
  const rows = lines.map((l) => {
    const r = JSON.parse(l);
    return [
      r.externalId,
      r.environmentKey,
      r.generation,
      r.policy,
      r.reward,
      r.reward >= 1,
      r.status,
      r.error?.type,
      r.error?.message,
      r.inputTokens,
      r.outputTokens,
      JSON.stringify(r.trajectory),
      r.verifierOutput,
    ]
      .map(copyText)
      .join("\t");
  });
  const copyCpuBefore = treeCpuSeconds(app.pid);
  const t1 = performance.now();
  await pipeline(
    Readable.from(
      (function* () {
        for (let i = 0; i < rows.length; i += 500) yield rows.slice(i, i + 500).join("\n") + "\n";
      })(),
    ),
    db.query(copyFrom("copy bench_copy from stdin")),
  );
  const copySeconds = (performance.now() - t1) / 1000;
  const copyDbCpu = (treeCpuSeconds(app.pid).postgres ?? 0) - (copyCpuBefore.postgres ?? 0);
  console.log(`[bench:ingest] COPY: the database's CPU seconds per 1,000 rows: ${((copyDbCpu / total) * 1000).toFixed(3)}`);
  await db.end();
  const copyRowsPerSecond = total / copySeconds;
  const ratioToCopy = rolloutsPerSecond / copyRowsPerSecond;
  console.log(
    `[bench:ingest] COPY: ${total} rows in ${copySeconds.toFixed(1)} s = ${copyRowsPerSecond.toFixed(0)} rows/s; API/COPY = ${ratioToCopy.toFixed(2)}`,
  );
  const copyDbCpuPerThousand = (copyDbCpu / total) * 1000;

  // the database's floor: the same writes with no server in front (bench/db-floor.ts), on the two connections the CLI's two
  // requests in flight keep busy; then the same without the rollouts' triggers (what the exact aggregates cost)
  const externalIds = lines.map((_, i) => `bench-${i}`);
  const floor = await databaseFloor(app.databaseUrl, app.pid, externalIds, lines, { tag: "a", connections: 2 });
  console.log(
    `[bench:ingest] the database's floor (the same writes, parsed beforehand, no server): ${floor.rowsPerSecond.toFixed(0)} rows/s, ` +
      `its CPU seconds per 1,000 rows ${floor.dbCpuPerThousand.toFixed(3)}; API/floor = ${(rolloutsPerSecond / floor.rowsPerSecond).toFixed(2)}`,
  );
  const bare = await databaseFloor(app.databaseUrl, app.pid, externalIds, lines, {
    tag: "b",
    connections: 2,
    withoutTriggers: true,
  });
  console.log(
    `[bench:ingest] the same without the rollouts' triggers: ${bare.rowsPerSecond.toFixed(0)} rows/s, ` +
      `its CPU seconds per 1,000 rows ${bare.dbCpuPerThousand.toFixed(3)}`,
  );
  return {
    bytes,
    rolloutsPerSecond,
    copyRowsPerSecond,
    ratioToCopy,
    apiSeconds,
    triggerTimes,
    searchableSeconds,
    cpuPerThousand,
    copyDbCpuPerThousand,
    floor,
    bare,
  };
}

async function main() {
  const json = jsonTarget(argv);
  console.log(`[bench:ingest] ${machine()}; ${total} rollouts`);
  const portAt = argv.indexOf("--port");
  const app = await startApp(portAt >= 0 ? Number(argv[portAt + 1]) : undefined);
  try {
    const client = new EnvForgeClient({ server: app.url, token: app.token });
    // a partial run (`--only`) leaves the generic part out
    const generic = only === null || only === "generic" ? await genericIngest(app, client) : null;

    let harborImportSeconds: number | null = null;
    let harborTenJobsSeconds: number | null = null;
    let harborTenJobsTrials = 0;
    let harborTenJobsCpu: Record<string, number> | null = null;
    const fixtures = only === "generic" ? null : fixturesDir();
    if (fixtures) {
      const dir = path.join(fixtures, "harbor-tb2", "tmax-9b", "terminal-bench-2-0");
      const t2 = performance.now();
      const r = await importHarbor(client, dir, { project: "bench-harbor", create: true, quiet: true });
      harborImportSeconds = (performance.now() - t2) / 1000;
      console.log(`[bench:ingest] Harbor tmax-9b: ${r.summary.accepted} rollouts in ${harborImportSeconds.toFixed(1)} s`);
    }
    if (fixtures && only !== "harbor-one") {
      const dir = path.join(fixtures, "harbor-tb2", "tmax-9b", "terminal-bench-2-0");
      const jobs = [dir, path.join(fixtures, "harbor-tb2", "Qwen3.5-9B", "terminal-bench-2-0")];
      // ten jobs at once (a team importing a sweep): the two shared jobs five times each, each into its own project, so none
      // is a duplicate of another
      const cpuBefore = treeCpuSeconds(app.pid);
      const clientBefore = process.cpuUsage();
      const t3 = performance.now();
      const ten = await Promise.all(
        Array.from({ length: 10 }, (_, k) =>
          importHarbor(client, jobs[k % 2], { project: `bench-harbor-${k}`, create: true, quiet: true }),
        ),
      );
      harborTenJobsSeconds = (performance.now() - t3) / 1000;
      harborTenJobsTrials = ten.reduce((n, x) => n + x.summary.accepted, 0);
      harborTenJobsCpu = cpuSecondsByPart(cpuBefore, treeCpuSeconds(app.pid), process.cpuUsage(clientBefore));
      console.log(`[bench:ingest] ten Harbor jobs, CPU seconds: ${describeCpu(harborTenJobsCpu)}`);
      console.log(`[bench:ingest] ten Harbor jobs at once: ${harborTenJobsTrials} rollouts in ${harborTenJobsSeconds.toFixed(1)} s`);
    }
    if (!fixtures && only !== "generic") {
      console.log("[bench:ingest] Harbor import skipped: ../shared/fixtures not found (set ENVFORGE_FIXTURES)");
    }

    const round = (parts: Record<string, number> | null) =>
      parts && Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, Number(v.toFixed(3))]));
    const harbor = {
      harborImportSeconds: harborImportSeconds === null ? null : Number(harborImportSeconds.toFixed(2)),
      harborTenJobsSeconds: harborTenJobsSeconds === null ? null : Number(harborTenJobsSeconds.toFixed(2)),
      // CPU seconds of the ten jobs by part (client: the CLI, node: the server, postgres: the database)
      harborTenJobsCpuSeconds: round(harborTenJobsCpu),
    };
    if (!generic) {
      if (json) fs.writeFileSync(json, JSON.stringify(harbor, null, 2) + "\n");
      console.log(JSON.stringify(harbor));
      return;
    }
    const { bytes, rolloutsPerSecond, copyRowsPerSecond, ratioToCopy, apiSeconds, triggerTimes, searchableSeconds } = generic;
    const result = {
      rolloutsPerSecond: Math.round(rolloutsPerSecond),
      copyRowsPerSecond: Math.round(copyRowsPerSecond),
      ratioToCopy: Number(ratioToCopy.toFixed(3)),
      // CPU seconds per 1,000 rollouts by part, and the database's for 1,000 rows of the COPY
      cpuSecondsPerThousand: round(generic.cpuPerThousand),
      copyDbCpuSecondsPerThousand: Number(generic.copyDbCpuPerThousand.toFixed(3)),
      // the same writes with no server (bench/db-floor.ts): with the triggers, and without them
      dbFloorRowsPerSecond: Math.round(generic.floor.rowsPerSecond),
      dbFloorCpuSecondsPerThousand: Number(generic.floor.dbCpuPerThousand.toFixed(3)),
      dbFloorWithoutTriggersRowsPerSecond: Math.round(generic.bare.rowsPerSecond),
      dbFloorWithoutTriggersCpuSecondsPerThousand: Number(generic.bare.dbCpuPerThousand.toFixed(3)),
      ratioToFloor: Number((rolloutsPerSecond / generic.floor.rowsPerSecond).toFixed(3)),
      ...harbor,
      searchableSeconds: Number(searchableSeconds.toFixed(2)),
    };
    if (json) fs.writeFileSync(json, JSON.stringify(result, null, 2) + "\n");
    if (only === "generic") {
      console.log(JSON.stringify(result));
      return;
    }
    recordSection(
      "Ingest (`npm run bench:ingest`)",
      `${new Date().toISOString().slice(0, 10)}, ${machine()}, embedded PostgreSQL, the real app (\`scripts/start.ts\`), ` +
        `the CLI's client (1,000 rollouts a request, 2 in flight).

| measure | figure | goal |
|---|---|---|
| ${total} rollouts, ${(bytes / total / 1024).toFixed(1)} KB each, through \`POST .../rollouts\` | ${result.rolloutsPerSecond} rollouts/s | >= 10,000 |
| every one of them searchable (the worker's search indexer, ADR 0007), from the upload's start | ${searchableSeconds.toFixed(1)} s | |
| raw COPY of the same rows into a scratch table | ${result.copyRowsPerSecond} rows/s | |
| API rate / COPY rate | ${result.ratioToCopy} | >= 0.5 |
| CPU seconds per 1,000 rollouts through the API, by part | ${describeCpu(generic.cpuPerThousand)} | |
| the database's CPU seconds per 1,000 rows of the COPY | ${result.copyDbCpuSecondsPerThousand} | |
| the database's floor: the same writes (payloads, rollouts with their indexes and triggers) by a client that ` +
        `parsed and classified them beforehand, no server, 2 connections | ${result.dbFloorRowsPerSecond} rows/s ` +
        `(database CPU ${result.dbFloorCpuSecondsPerThousand} s per 1,000) | |
| the floor without the rollouts' triggers (no aggregates, parent checks or search queue) | ` +
        `${result.dbFloorWithoutTriggersRowsPerSecond} rows/s (database CPU ${result.dbFloorWithoutTriggersCpuSecondsPerThousand} s per 1,000) | |
| API rate / the floor's | ${result.ratioToFloor} | |
| tmax-9b Harbor job (445 trials, 86 MB) through \`envforge import harbor\` | ${
          harborImportSeconds === null ? "skipped (no fixtures)" : `${result.harborImportSeconds} s`
        } | <= 20 s |
${triggerTimes
  .map(
    (t) =>
      `| of the API time, in the trigger \`${t.name}\` (${t.calls.toLocaleString("en-US")} statements) | ` +
      `${t.seconds.toFixed(1)} s (${((100 * t.seconds) / apiSeconds).toFixed(0)}%) | |`,
  )
  .join("\n")}
| ten Harbor jobs at once (tmax-9b and Qwen3.5-9B five times each, each into its own project, ` +
        `${harborTenJobsTrials.toLocaleString("en-US")} trials) | ${
          harborTenJobsSeconds === null ? "skipped (no fixtures)" : `${result.harborTenJobsSeconds} s`
        } | <= 30 s |
| CPU seconds of the ten jobs, by part | ${harborTenJobsCpu ? describeCpu(harborTenJobsCpu) : "skipped"} | |`,
    );
    console.log(JSON.stringify(result));
  } finally {
    await app.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * npm run bench:scale [-- --rollouts N] [-- --generation-rollouts M] [-- --environments E] [-- --json <file>]
 * A project at scale: N rollouts (default 1,000,000), M of them in the generation asked (default
 * min(N/2, 1,000,000)), the rest spread over earlier generations; environments skewed (a few take
 * most attempts), turns and output tokens long-tailed, failures over categories and a long tail
 * of signatures. Rows are generated here and loaded with COPY into the real app's database (the
 * aggregate triggers run as on any insert). Then p50/p95 of the generation dashboard, failures,
 * environment table and explorer search over HTTP, with a restart of the app (and its Postgres)
 * before each round so the first request of every round is a cold one, and the server's max RSS.
 * `--data-dir <dir>` keeps the loaded database there and reuses it on the next run with the same folder.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { EnvForgeClient } from "../cli/client";
import { jsonTarget, machine, recordSection, rssSampler, startApp, type RunningApp, frozenlakeBenchEnvironments } from "./lib";

const argv = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 && Number(argv[i + 1]) > 0 ? Math.floor(Number(argv[i + 1])) : fallback;
};
const total = flag("--rollouts", 1_000_000);
const inGeneration = Math.min(total, flag("--generation-rollouts", Math.min(Math.floor(total / 2), 1_000_000)));
const ENVIRONMENTS = flag("--environments", 2000);
const RESTARTS = flag("--restarts", 3);
const WARM = flag("--warm", 9);
const POLICIES = ["ckpt-step100", "ckpt-step200", "ckpt-step300", "ckpt-step400"];
const COPY_CHUNK = 250_000;
const PORT = flag("--port", 3093);
// --data-dir <dir>: load into (or reuse, when it holds a finished load) this folder and keep it afterwards, for profiling
const dataDirFlag = (() => {
  const i = argv.indexOf("--data-dir");
  return i >= 0 && argv[i + 1] ? path.resolve(argv[i + 1]) : null;
})();
const LOADED_MARKER = "bench-scale-loaded.json";

/** Deterministic pseudo-random in [0, 1) from an integer and a stream number. */
function rand(i: number, stream: number): number {
  let x = (Math.imul(i, 0x9e3779b1) ^ Math.imul(stream + 1, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
}

/** A standard normal from two uniforms (Box-Muller). */
function normal(i: number, stream: number): number {
  const u = Math.max(rand(i, stream), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand(i, stream + 100));
}

/** Per-environment base success: a third hopeless, a sixth solved, the rest spread (zero-signal environments exist). */
function environmentSuccess(env: number): number {
  const u = rand(env, 7);
  if (u < 0.33) return 0.01;
  if (u < 0.5) return 0.97;
  return rand(env, 8);
}

const SIGNATURES = 400;
const CATEGORY_MIX: [string, number][] = [
  ["verifier_failed", 0.55],
  ["agent_timeout", 0.18],
  ["context_length_exceeded", 0.07],
  ["format_error", 0.06],
  ["infra_error", 0.06],
  ["environment_broken_by_agent", 0.04],
  ["verifier_timeout", 0.02],
  ["errored_other", 0.02],
];
const BEHAVIOURS = ["step_cap", "timeout_mid_command", "package_install_timeout", "format_errors", "never_ran_tests", "gave_up_early"];

/** COPY text format: backslash, tab and newline escaped; null as \N. */
function cell(v: string | number | boolean | null): string {
  if (v === null) return "\\N";
  if (typeof v !== "string") return String(v);
  return v.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");
}

interface Ids {
  projectId: number;
  generationIds: number[];
  environmentIds: number[];
  policyIds: number[];
}

/** Rollout i as one COPY line. The last `inGeneration` rollouts belong to the asked generation. */
function rolloutLine(i: number, ids: Ids): string {
  const gens = ids.generationIds.length;
  const g = i >= total - inGeneration ? gens - 1 : Math.floor((i / Math.max(1, total - inGeneration)) * (gens - 1));
  // skew: environment index ~ E * u^3, so the first tenth of environments take about half of the attempts
  const env = Math.min(ENVIRONMENTS - 1, Math.floor(ENVIRONMENTS * rand(i, 1) ** 3));
  const policy = Math.floor(rand(i, 2) * POLICIES.length);
  const p = Math.min(0.99, environmentSuccess(env) + policy * 0.03 + g * 0.01);
  const success = rand(i, 3) < p;
  // long tails: turns lognormal around 12 (a few in the thousands), output tokens per turn lognormal around 250
  const turns = Math.min(5000, Math.max(1, Math.round(Math.exp(Math.log(12) + 1.1 * normal(i, 4)))));
  const outputTokens = Math.min(2_000_000, Math.round(turns * Math.exp(Math.log(250) + 0.8 * normal(i, 5))));
  const inputTokens = Math.min(2_000_000_000, outputTokens * 6 + 1500);
  let category: string | null = null;
  let signature: string | null = null;
  let errorType: string | null = null;
  let errorMessage: string | null = null;
  let status = "completed";
  let reward: number | null = success ? 1 : 0;
  const behaviours: string[] = [];
  if (!success) {
    let u = rand(i, 6);
    category = CATEGORY_MIX[CATEGORY_MIX.length - 1][0];
    for (const [c, w] of CATEGORY_MIX) {
      if (u < w) {
        category = c;
        break;
      }
      u -= w;
    }
    // Zipf-like tail of signatures, shaped per environment
    const s = Math.floor(SIGNATURES * rand(i, 9) ** 4);
    signature = `${category}:${(env * 7 + s) % SIGNATURES}`;
    if (category === "agent_timeout" || category === "infra_error" || category === "context_length_exceeded") {
      status = "errored";
      errorType =
        category === "agent_timeout"
          ? "AgentTimeoutError"
          : category === "infra_error"
            ? "SandboxStartError"
            : "ContextLengthExceededError";
      errorMessage = `${errorType}: attempt ${i % 97} failed after ${turns} turns`;
      reward = category === "infra_error" && rand(i, 10) < 0.5 ? null : 0;
    }
    if (rand(i, 11) < 0.3) behaviours.push(BEHAVIOURS[Math.floor(rand(i, 12) * BEHAVIOURS.length)]);
  }
  const testsFailed = success ? 0 : 1 + Math.floor(rand(i, 13) * 4);
  const started = Date.UTC(2026, 10, 1) + i * 1000;
  return [
    ids.projectId,
    ids.generationIds[g],
    ids.environmentIds[env],
    ids.policyIds[policy],
    cell(`s-${i}`),
    reward === null ? "\\N" : reward,
    success ? "t" : "f",
    status,
    cell(category),
    cell(signature),
    cell(errorType),
    cell(errorMessage),
    inputTokens,
    outputTokens,
    turns,
    reward === null ? "{no_reward}" : "{}",
    5 - Math.min(5, testsFailed),
    Math.min(5, testsFailed),
    `{${behaviours.join(",")}}`,
    cell(`trial-env-${env}__${(i % 100_000).toString(36)}`),
    new Date(started).toISOString(),
    new Date(started + turns * 20_000).toISOString(),
  ].join("\t");
}

const COPY_COLUMNS =
  "project_id, generation_id, environment_id, policy_id, external_id, reward, success, status, failure_category, failure_signature, " +
  "error_type, error_message, input_tokens, output_tokens, turns, flags, tests_passed, tests_failed, behaviours, trial_name, started_at, finished_at";

/** COPY rollouts [from, to) in one statement. */
async function copyRange(client: pg.Client, from: number, to: number, ids: Ids) {
  const CHUNK = 2000;
  async function* lines() {
    for (let i = from; i < to; i += CHUNK) {
      let text = "";
      for (let k = i; k < Math.min(to, i + CHUNK); k++) text += rolloutLine(k, ids) + "\n";
      yield text;
    }
  }
  await pipeline(Readable.from(lines()), client.query(copyFrom(`COPY rollouts (${COPY_COLUMNS}) FROM STDIN`)));
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

async function setUp(app: RunningApp, generations: number): Promise<Ids> {
  const client = new EnvForgeClient({ server: app.url, token: app.token });
  await client.request("POST", "/api/v1/projects", { json: { slug: "scale", name: "Scale", family: "frozenlake-mapf" } });
  const environments = frozenlakeBenchEnvironments(ENVIRONMENTS, (i) => `env-${String(i).padStart(5, "0")}`);
  for (let g = 0; g < generations; g++) {
    await client.request("POST", "/api/v1/projects/scale/generations", {
      json: { index: g, ...(g > 0 ? { parentIndex: g - 1 } : {}), environments },
    });
  }
  const db = new pg.Client({ connectionString: app.databaseUrl });
  await db.connect();
  try {
    const [project] = (await db.query("select id from projects where slug = 'scale'")).rows;
    await db.query(
      "insert into policies (project_id, name, step) select $1, n, substring(n from '\\d+$')::int from unnest($2::text[]) as n on conflict do nothing",
      [project.id, POLICIES],
    );
    const gens = (await db.query("select id from generations where project_id = $1 order by index", [project.id])).rows;
    const envs = (await db.query("select id from environments where project_id = $1 order by key", [project.id])).rows;
    const pols = (await db.query("select id from policies where project_id = $1 order by name", [project.id])).rows;
    return {
      projectId: project.id,
      generationIds: gens.map((r) => r.id),
      environmentIds: envs.map((r) => Number(r.id)),
      policyIds: pols.map((r) => r.id),
    };
  } finally {
    await db.end();
  }
}

async function main() {
  const json = jsonTarget(argv);
  // the asked generation holds inGeneration; earlier generations hold about as many each, at least one
  const generations = 1 + Math.max(1, Math.ceil((total - inGeneration) / Math.max(1, inGeneration)));
  console.log(
    `[bench:scale] ${machine()}; ${total.toLocaleString("en-US")} rollouts, ${inGeneration.toLocaleString("en-US")} in ` +
      `generation ${generations - 1}, ${ENVIRONMENTS} environments, ${POLICIES.length} policies, ` +
      `${generations} generations`,
  );
  const dataDir = dataDirFlag ?? fs.mkdtempSync(path.join(os.tmpdir(), "ef-bench-scale-"));
  fs.mkdirSync(dataDir, { recursive: true });
  fs.chmodSync(dataDir, 0o755);
  const marker = path.join(dataDir, LOADED_MARKER);
  const reused = fs.existsSync(marker) ? (JSON.parse(fs.readFileSync(marker, "utf8")) as { loadSeconds: number; argv: string }) : null;
  let app = await startApp(PORT, { dataDir });
  const rss = rssSampler();
  rss.watch(app.pid);
  try {
    const db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
    let loadSeconds: number;
    if (reused) {
      loadSeconds = reused.loadSeconds;
      console.log(`[bench:scale] reusing the data loaded in ${dataDir} (${reused.argv})`);
    } else {
      const ids = await setUp(app, generations);
      const t0 = performance.now();
      for (let from = 0; from < total; from += COPY_CHUNK) {
        await copyRange(db, from, Math.min(total, from + COPY_CHUNK), ids);
        const done = Math.min(total, from + COPY_CHUNK);
        const s = (performance.now() - t0) / 1000;
        console.log(`[bench:scale] loaded ${done.toLocaleString("en-US")} rollouts in ${s.toFixed(0)} s (${Math.round(done / s)}/s)`);
      }
      loadSeconds = (performance.now() - t0) / 1000;
      if (dataDirFlag) fs.writeFileSync(marker, JSON.stringify({ loadSeconds, argv: argv.join(" ") }));
    }
    // search documents are written by the app's worker after the load (ADR 0007): wait until every rollout is searchable
    const indexStart = performance.now();
    for (;;) {
      const pending = (await db.query<{ n: number }>("select count(*)::int as n from rollout_search_pending")).rows[0].n;
      if (pending === 0) break;
      console.log(`[bench:scale] search indexer: ${pending.toLocaleString("en-US")} rollouts to go`);
      await new Promise((r) => setTimeout(r, 10_000));
    }
    console.log(`[bench:scale] every rollout searchable ${((performance.now() - indexStart) / 1000).toFixed(0)} s after the load`);
    await db.query("analyze");
    const sizes = (
      await db.query(
        "select pg_size_pretty(pg_total_relation_size('rollouts')) as rollouts, " +
          "pg_size_pretty(pg_database_size(current_database())) as db, (select count(*) from rollout_aggregates)::int as agg",
      )
    ).rows[0];
    await db.end();
    console.log(
      `[bench:scale] rollouts table ${sizes.rollouts}, database ${sizes.db}, ${sizes.agg} aggregate rows; load ${loadSeconds.toFixed(0)} s`,
    );

    const asked = generations - 1;
    const base = `/api/v1/projects/scale`;
    const endpoints = {
      metrics: [
        `${base}/generations/${asked}`,
        `${base}/generations/${asked}?policy=${POLICIES[3]}`,
        `${base}/generations/${asked}/analytics`,
      ],
      failures: [`${base}/generations/${asked}/failures`, `${base}/generations/${asked}/failures?policy=${POLICIES[0]}`],
      environments: [
        `${base}/generations/${asked}/environments?sort=success&order=desc&limit=50`,
        `${base}/generations/${asked}/environments?tier=frontier&sort=learnability&order=desc&limit=50`,
      ],
      search: [
        `${base}/rollouts?generation=${asked}&q=env-1__&limit=50`,
        `${base}/rollouts?generation=${asked}&q=${encodeURIComponent("trial-env-1999__")}&limit=50`,
        `${base}/rollouts?generation=${asked}&category=agent_timeout&sort=-turns&limit=50`,
      ],
    };
    const samples: Record<keyof typeof endpoints, number[]> = { metrics: [], failures: [], environments: [], search: [] };
    const cold: Record<keyof typeof endpoints, number[]> = { metrics: [], failures: [], environments: [], search: [] };
    for (let round = 0; round < RESTARTS; round++) {
      // a restart of the app and its Postgres: empty shared buffers and a new server process (the OS page cache stays)
      await app.stop({ keepData: true });
      app = await startApp(PORT, { dataDir });
      rss.watch(app.pid);
      const client = new EnvForgeClient({ server: app.url, token: app.token });
      for (const [name, paths] of Object.entries(endpoints) as [keyof typeof endpoints, string[]][]) {
        for (let k = 0; k <= WARM; k++) {
          for (const p of paths) {
            const t = performance.now();
            await client.request("GET", p);
            const ms = performance.now() - t;
            samples[name].push(ms);
            if (k === 0) cold[name].push(ms);
          }
        }
      }
      console.log(`[bench:scale] round ${round + 1}/${RESTARTS} done; max server RSS so far ${rss.maxMb()} MB`);
    }
    const stat = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return { p50: Math.round(percentile(s, 0.5)), p95: Math.round(percentile(s, 0.95)), max: Math.round(s[s.length - 1]), n: s.length };
    };
    const figures = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stat(v)])) as Record<
      keyof typeof endpoints,
      ReturnType<typeof stat>
    >;
    const coldFigures = Object.fromEntries(Object.entries(cold).map(([k, v]) => [k, stat(v)])) as Record<
      keyof typeof endpoints,
      ReturnType<typeof stat>
    >;
    const result = {
      rollouts: total,
      generationRollouts: inGeneration,
      metricsP95Ms: figures.metrics.p95,
      failuresP95Ms: figures.failures.p95,
      environmentsP95Ms: figures.environments.p95,
      searchP95Ms: figures.search.p95,
      maxRssMb: rss.maxMb(),
    };
    for (const [k, f] of Object.entries(figures))
      console.log(
        `[bench:scale] ${k}: p50 ${f.p50} ms, p95 ${f.p95} ms, max ${f.max} ms (${f.n} requests, cold max ${coldFigures[k as keyof typeof cold].max} ms)`,
      );
    if (json) fs.writeFileSync(json, JSON.stringify(result, null, 2) + "\n");
    const row = (label: string, k: keyof typeof endpoints) =>
      `| ${label} | ${figures[k].p50} ms | ${figures[k].p95} ms | ${coldFigures[k].p50} ms / ${coldFigures[k].max} ms | p95 <= 300 ms |`;
    recordSection(
      "Scale (`npm run bench:scale`)",
      `${new Date().toISOString().slice(0, 10)}, ${machine()}, shared with other work; embedded PostgreSQL, the real ` +
        `app. Command: \`nice npm run bench:scale -- ${argv.filter((a, i) => a !== "--json" && argv[i - 1] !== "--json").join(" ")}\`.
${total.toLocaleString("en-US")} rollouts (${inGeneration.toLocaleString("en-US")} in the generation asked, ` +
        `${generations} generations, ${ENVIRONMENTS.toLocaleString("en-US")} environments skewed so a tenth of them take ` +
        `about half of the attempts, ${POLICIES.length} policies, turns and output tokens log-normal with long tails, ` +
        `${SIGNATURES} failure signatures in a Zipf-like tail) loaded with COPY in ${loadSeconds.toFixed(0)} s ` +
        `(${Math.round(total / loadSeconds).toLocaleString("en-US")} rollouts/s, aggregate triggers included); rollouts ` +
        `table ${sizes.rollouts}, database ${sizes.db}, ${Number(sizes.agg).toLocaleString("en-US")} aggregate rows. Each ` +
        `endpoint set asked ${WARM + 1} times per path after each of ${RESTARTS} restarts of the app and its Postgres (the ` +
        `first request of every restart is cold: empty shared buffers, new server process; the OS page cache is not dropped ` +
        `on this shared machine).

| endpoint (generation asked) | p50 | p95 (cold included) | cold p50 / max | goal |
|---|---|---|---|---|
${row("generation dashboard (`GET .../generations/{i}`, `?policy=`, `/analytics`)", "metrics")}
${row("failures (`/failures`, `?policy=`)", "failures")}
${row("environment table (`/environments?sort=success`, `?tier=frontier&sort=learnability`)", "environments")}
${row("explorer search (`/rollouts?generation=&q=`, `?category=&sort=-turns`)", "search")}

Max server RSS (the Node process serving the app, sampled every 200 ms): ${result.maxRssMb} MB (goal <= 1,536 MB).`,
    );
    console.log(JSON.stringify(result));
  } finally {
    rss.stop();
    await app.stop({ keepData: dataDirFlag !== null });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

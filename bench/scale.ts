/**
 * npm run bench:scale [-- --rollouts N] [-- --generation-rollouts M] [-- --environments E] [-- --json <file>]
 * A project at scale: N rollouts (default 1,000,000), M of them in the generation asked (default
 * min(N/2, 1,000,000)), the rest spread over earlier generations; environments skewed (a few take
 * most attempts), turns and output tokens long-tailed, failures over categories and a long tail
 * of signatures (bench/scale-data.ts). Rows are loaded into the real app's database by bench/bulk-load.ts: COPY on
 * two connections with the insert triggers off, then the aggregates and search documents built set-based by the
 * migrations' own statements (tests/bulk-load.int.test.ts checks them equal to the triggers'). Then p50/p95 of the generation dashboard, failures,
 * environment table and explorer search over HTTP, with a restart of the app (and its Postgres)
 * before each round so the first request of every round is a cold one, and the server's max RSS.
 * `--data-dir <dir>` keeps the loaded database there and reuses it on the next run with the same folder.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { copyRange, SIGNATURES, type Shape } from "./scale-data";
import { bulkLoadRollouts } from "./bulk-load";
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

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

async function setUp(app: RunningApp, generations: number): Promise<Shape> {
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
      total,
      inGeneration,
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
  const reused = fs.existsSync(marker)
    ? (JSON.parse(fs.readFileSync(marker, "utf8")) as { loadSeconds: number; loadDetail?: string; argv: string })
    : null;
  let app = await startApp(PORT, { dataDir });
  const rss = rssSampler();
  rss.watch(app.pid);
  try {
    const db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
    let loadSeconds: number;
    let loadDetail = "";
    if (reused) {
      loadSeconds = reused.loadSeconds;
      loadDetail = reused.loadDetail ?? "";
      console.log(`[bench:scale] reusing the data loaded in ${dataDir} (${reused.argv})`);
    } else {
      const ids = await setUp(app, generations);
      const times = await bulkLoadRollouts(app.databaseUrl, {
        total,
        chunk: COPY_CHUNK,
        connections: 2,
        // explicit ids 1..N (the database is fresh): two connections number rows as one would
        copy: (client, from, to) => copyRange(client, from, to, { ...ids, firstId: 1 }),
        log: (m) => console.log(`[bench:scale] ${m}`),
      });
      loadSeconds = times.totalSeconds;
      loadDetail =
        `COPY on 2 connections ${times.copySeconds.toFixed(0)} s, aggregates ${times.aggregateSeconds.toFixed(0)} s, ` +
        `search documents ${times.searchSeconds.toFixed(0)} s, indexes ${times.indexSeconds.toFixed(0)} s`;
      console.log(`[bench:scale] loaded in ${loadSeconds.toFixed(0)} s: ${loadDetail}`);
      if (dataDirFlag) fs.writeFileSync(marker, JSON.stringify({ loadSeconds, loadDetail, argv: argv.join(" ") }));
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
        `${SIGNATURES} failure signatures in a Zipf-like tail) loaded in ${loadSeconds.toFixed(0)} s ` +
        `(${Math.round(total / loadSeconds).toLocaleString("en-US")} rollouts/s; ${loadDetail}); rollouts ` +
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

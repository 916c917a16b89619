/**
 * npm run bench:analytics [-- --json <file>] [-- --rollouts N] [-- --port P] [-- --data-dir <dir>]
 * 200,000 rollouts over 1,000 environments, 2 policies, 5 generations (40,000 a generation) posted
 * through the API into the real app; then p50/p95 of the generation metrics and failures endpoints
 * (and, for the record, the dashboard analytics, the sorted environment table and the policy comparison);
 * then p50/p95 of search across all rollouts (GET .../rollouts?q=, full-text and trigram, 50 hits with
 * snippets) for rare, middling and common words, a phrase, an identifier substring and q with filters.
 * `--data-dir` keeps the loaded database in that folder and, when it already holds a finished load, measures on
 * it without posting again (to profile or compare code on the same data).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EnvForgeClient } from "../cli/client";
import { uploadRollouts } from "../cli/upload";
import { jsonTarget, machine, recordSection, startApp, frozenlakeBenchEnvironments } from "./lib";

const argv = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 && Number(argv[i + 1]) > 0 ? Math.floor(Number(argv[i + 1])) : fallback;
};
const total = flag("--rollouts", 200_000);
const PORT = flag("--port", 3092);
const dataDirFlag =
  argv.includes("--data-dir") && argv[argv.indexOf("--data-dir") + 1] ? path.resolve(argv[argv.indexOf("--data-dir") + 1]) : null;
const LOADED_MARKER = "bench-analytics-loaded.json";
const ENVIRONMENTS = 1000;
const GENERATIONS = 5;
const POLICIES = ["qwen3.5-9b", "tmax-9b"];
const ROUNDS = 30;

const TESTS = ["test_outputs_exist", "test_sum_matches", "test_no_extra_files", "test_service_responds", "test_checksum"];
const INFRA = [
  "bash: curl: command not found",
  "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4312",
  "Fatal Python error: Segmentation fault",
];

/** Deterministic pseudo-random in [0, 1) from an integer. */
function hash01(i: number): number {
  let x = (i ^ 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
}

const TOOLS = ["pytest", "pip", "make", "cargo", "npm", "gcc", "curl", "git"];
const WORDS = ["checksum", "parser", "timeout", "fixture", "manifest", "tarball", "socket", "lockfile", "schema", "kernel"];

/**
 * A short trajectory in the API's normalized message format (`toolCalls`, `toolCallId`): the task, one tool call and its
 * output; words of every frequency (common, per-tool, rare ids).
 */
function trajectoryOf(i: number, env: number) {
  const tool = TOOLS[i % TOOLS.length];
  const word = WORDS[Math.floor(hash01(i * 13 + 1) * WORDS.length)];
  return [
    { role: "user", content: `Fix the ${word} handling in task env-${env}; the run id is run_${(i * 7919) % 100_000}.` },
    {
      role: "assistant",
      content: `I will inspect the ${word} first.`,
      toolCalls: [{ id: `c${i}`, name: "bash", arguments: JSON.stringify({ cmd: `${tool} --check src/${word}_${env % 97}.py` }) }],
    },
    { role: "tool", toolCallId: `c${i}`, content: `${tool}: ${i % 3 ? "ok" : "error"} while reading ${word} (exit ${i % 3 ? 0 : 2})` },
  ];
}

function rolloutLine(i: number, perGeneration: number): string {
  const generation = Math.floor(i / perGeneration);
  const within = i % perGeneration;
  const env = within % ENVIRONMENTS;
  const policy = POLICIES[Math.floor(within / ENVIRONMENTS) % 2];
  // harder environments fail more; the stronger policy and later generations pass more
  const p = Math.min(0.95, Math.max(0.02, 1 - env / ENVIRONMENTS + (policy === "tmax-9b" ? 0.1 : 0) + generation * 0.03 - 0.2));
  const r = hash01(i);
  const ok = r < p;
  const base = {
    externalId: `a-${i}`,
    environmentKey: `env-${env}`,
    generation,
    policy,
    inputTokens: 1500 + (i % 700),
    outputTokens: 150 + (i % 120),
    turns: 4 + (i % 30),
    trajectory: trajectoryOf(i, env),
  };
  if (ok) return JSON.stringify({ ...base, reward: 1, verifierOutput: "5 passed in 0.61s" });
  const kind = hash01(i * 7 + 3);
  if (kind < 0.25)
    return JSON.stringify({
      ...base,
      status: "errored",
      error: { type: "AgentTimeoutError", message: `Agent execution timed out after ${600 + (i % 7) * 150}.0 seconds` },
    });
  if (kind < 0.3) return JSON.stringify({ ...base, reward: 0, verifierOutput: INFRA[i % INFRA.length] });
  if (kind < 0.35)
    return JSON.stringify({
      ...base,
      status: "errored",
      error: {
        type: "ContextLengthExceededError",
        message: `This model's maximum context length is 32768 tokens; you requested ${33000 + (i % 900)} tokens`,
      },
    });
  const test = TESTS[(env + (i % 3)) % TESTS.length];
  return JSON.stringify({
    ...base,
    reward: 0,
    verifierOutput: `FAILED tests/test_outputs.py::${test} - AssertionError: expected ${i % 97} got ${i % 89}\n1 failed, 4 passed in 0.7${i % 10}s`,
  });
}

function percentile(sorted: number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

interface Timing {
  p50: number;
  p95: number;
  n: number;
  /** p95 of each path on its own, slowest first */
  slowest: { path: string; p95: number }[];
}

async function timeEndpoint(client: EnvForgeClient, paths: string[]): Promise<Timing> {
  const samples: number[] = [];
  const byPath = new Map<string, number[]>(paths.map((p) => [p, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of paths) {
      const t0 = performance.now();
      await client.request("GET", p);
      const took = performance.now() - t0;
      samples.push(took);
      byPath.get(p)!.push(took);
    }
  }
  samples.sort((a, b) => a - b);
  const slowest = [...byPath].map(([path, xs]) => ({
    path,
    p95: percentile(
      xs.sort((a, b) => a - b),
      0.95,
    ),
  }));
  slowest.sort((a, b) => b.p95 - a.p95);
  return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95), n: samples.length, slowest };
}

/** The 1, 5 and 15 minute load averages, as /proc/loadavg gives them (the machine is shared; they move every figure). */
function loadAverage(): string {
  try {
    return fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" / ");
  } catch {
    return "unknown";
  }
}

/** Create the project and its generations and post every rollout through the API (two requests in flight). */
async function load(client: EnvForgeClient, perGeneration: number): Promise<{ accepted: number; loadSeconds: number }> {
  await client.request("POST", "/api/v1/projects", { json: { slug: "bench", name: "Bench", family: "frozenlake-mapf" } });
  const environments = frozenlakeBenchEnvironments(ENVIRONMENTS);
  for (let g = 0; g < GENERATIONS; g++) {
    await client.request("POST", "/api/v1/projects/bench/generations", {
      json: { index: g, ...(g > 0 ? { parentIndex: g - 1 } : {}), environments },
    });
  }
  const count = perGeneration * GENERATIONS;
  function* items() {
    for (let i = 0; i < count; i++) yield { ref: String(i + 1), json: rolloutLine(i, perGeneration) };
  }
  const t0 = performance.now();
  let reported = 0;
  const summary = await uploadRollouts(client, "bench", items(), {
    onProgress: (s) => {
      if (s.sent - reported < 20_000) return;
      reported = s.sent;
      console.log(`[bench:analytics] posted ${s.sent} rollouts in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    },
  });
  if (summary.accepted !== count) throw new Error(`accepted ${summary.accepted}: ${JSON.stringify(summary.rejected.slice(0, 3))}`);
  const loadSeconds = (performance.now() - t0) / 1000;
  console.log(`[bench:analytics] loaded ${summary.accepted} rollouts in ${loadSeconds.toFixed(1)} s`);
  return { accepted: summary.accepted, loadSeconds };
}

/** Wait until the search indexer has caught up (a search answers `searchPending: 0`); how long that took. */
async function searchableAfter(client: EnvForgeClient): Promise<{ waitedSeconds: number }> {
  const t0 = performance.now();
  let reported = 0;
  for (;;) {
    const { searchPending } = await client.request<{ searchPending?: number }>("GET", "/api/v1/projects/bench/rollouts?q=passed&limit=1");
    if (!searchPending) return { waitedSeconds: (performance.now() - t0) / 1000 };
    if (performance.now() - reported > 10_000) {
      reported = performance.now();
      console.log(`[bench:analytics] search indexer: ${searchPending} rollouts to go`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function main() {
  const json = jsonTarget(argv);
  const perGeneration = Math.floor(total / GENERATIONS);
  console.log(
    `[bench:analytics] ${machine()}; ${total} rollouts, ${ENVIRONMENTS} environments, ${POLICIES.length} policies, ${GENERATIONS} generations`,
  );
  const dataDir = dataDirFlag ?? fs.mkdtempSync(path.join(os.tmpdir(), "ef-bench-analytics-"));
  fs.mkdirSync(dataDir, { recursive: true });
  const marker = path.join(dataDir, LOADED_MARKER);
  const reused = fs.existsSync(marker) ? (JSON.parse(fs.readFileSync(marker, "utf8")) as { accepted: number; loadSeconds: number }) : null;
  if (reused && reused.accepted !== perGeneration * GENERATIONS)
    throw new Error(`${dataDir} holds ${reused.accepted} rollouts, not ${perGeneration * GENERATIONS}: use another --data-dir`);
  const app = await startApp(PORT, { dataDir });
  try {
    const client = new EnvForgeClient({ server: app.url, token: app.token });
    const summary = reused ?? (await load(client, perGeneration));
    if (reused) console.log(`[bench:analytics] reusing the ${reused.accepted} rollouts loaded in ${dataDir}`);
    else if (dataDirFlag) fs.writeFileSync(marker, JSON.stringify(summary));

    // search documents are written by the app's worker after ingest (ADR 0007): measure search once every rollout is searchable
    const indexing = await searchableAfter(client);
    if (indexing.waitedSeconds > 0)
      console.log(`[bench:analytics] every rollout searchable ${indexing.waitedSeconds.toFixed(0)} s after the load finished`);

    // the load average while measuring (after the load), not while posting
    const loadAtStart = loadAverage();
    const startedAt = new Date().toISOString().slice(11, 16);
    const gens = Array.from({ length: GENERATIONS }, (_, g) => g);
    const variants = ["", ...POLICIES.map((p) => `?policy=${encodeURIComponent(p)}`)];
    const at = (suffix: string) => gens.flatMap((g) => variants.map((v) => `/api/v1/projects/bench/generations/${g}${suffix}${v}`));
    // warm the caches once, as a user's first page view would
    for (const p of [...at(""), ...at("/failures")]) await client.request("GET", p);

    const metrics = await timeEndpoint(client, at(""));
    console.log(
      `[bench:analytics] generation metrics: p50 ${metrics.p50.toFixed(0)} ms, p95 ${metrics.p95.toFixed(0)} ms (${metrics.n} requests)`,
    );
    const failures = await timeEndpoint(client, at("/failures"));
    console.log(
      `[bench:analytics] failures: p50 ${failures.p50.toFixed(0)} ms, p95 ${failures.p95.toFixed(0)} ms (${failures.n} requests)`,
    );
    const analytics = await timeEndpoint(client, at("/analytics"));
    console.log(`[bench:analytics] dashboard analytics: p50 ${analytics.p50.toFixed(0)} ms, p95 ${analytics.p95.toFixed(0)} ms`);
    const table = await timeEndpoint(
      client,
      gens.map((g) => `/api/v1/projects/bench/generations/${g}/environments?sort=success&order=desc&limit=50`),
    );
    console.log(`[bench:analytics] environment table sorted by success: p50 ${table.p50.toFixed(0)} ms, p95 ${table.p95.toFixed(0)} ms`);
    const compare = await timeEndpoint(
      client,
      gens.map((g) => `/api/v1/projects/bench/generations/${g}/compare`),
    );
    console.log(`[bench:analytics] policy comparison: p50 ${compare.p50.toFixed(0)} ms, p95 ${compare.p95.toFixed(0)} ms`);

    // search: one page of 50 hits with snippets; from a handful of hits to half of all rollouts
    const SEARCHES = [
      "q=run_4242", // an identifier: ~2 hits, trigram substring
      "q=tarball", // a word in ~10% of rollouts
      "q=pytest", // a tool in 1/8
      "q=passed", // the verifier output of every success
      'q="segmentation fault"', // a phrase in the infra failures
      "q=checksum_4", // a path fragment (substring only)
      "q=timeout&success=false&sort=-reward",
      "q=socket&generation=2&policy=tmax-9b&minTurns=10",
      "q=manifest&sort=tokens",
    ];
    const searchPaths = SEARCHES.map((s) => `/api/v1/projects/bench/rollouts?${s.replace(/"/g, "%22").replace(/ /g, "%20")}&limit=50`);
    for (const p of searchPaths) await client.request("GET", p);
    const search = await timeEndpoint(client, searchPaths);
    console.log(`[bench:analytics] search (q, 50 hits with snippets): p50 ${search.p50.toFixed(0)} ms, p95 ${search.p95.toFixed(0)} ms`);
    for (const { path: p, p95 } of search.slowest) console.log(`[bench:analytics]   p95 ${p95.toFixed(0)} ms  ${decodeURIComponent(p)}`);
    const loadAtEnd = loadAverage();
    const endedAt = new Date().toISOString().slice(11, 16);

    const ms = (x: number) => Math.round(x);
    const result = {
      metricsP50Ms: ms(metrics.p50),
      metricsP95Ms: ms(metrics.p95),
      failuresP50Ms: ms(failures.p50),
      failuresP95Ms: ms(failures.p95),
      searchP50Ms: ms(search.p50),
      searchP95Ms: ms(search.p95),
    };
    if (json) fs.writeFileSync(json, JSON.stringify(result, null, 2) + "\n");
    recordSection(
      "Analytics (`npm run bench:analytics`)",
      `${new Date().toISOString().slice(0, 10)}, ${machine()}, embedded PostgreSQL, the real app. ` +
        `${summary.accepted.toLocaleString("en-US")} rollouts over ${ENVIRONMENTS} environments, ` +
        `${POLICIES.length} policies, ${GENERATIONS} generations (${perGeneration.toLocaleString("en-US")} a generation); ` +
        `each endpoint asked ${ROUNDS} times for every generation, for all policies and for each policy, one request at a ` +
        `time, after one warm-up pass. ${reused ? "Measured on data loaded by an earlier run" : "Loaded"} through ` +
        `\`POST .../rollouts\` (1,000 a request, 2 in flight) in ${summary.loadSeconds.toFixed(0)} s` +
        `${indexing.waitedSeconds >= 1 ? `; every rollout searchable ${indexing.waitedSeconds.toFixed(0)} s later (search indexer)` : ""}. ` +
        `Measured ` +
        `${startedAt}-${endedAt} UTC; load average (1 / 5 / 15 min) ${loadAtStart} at the start, ${loadAtEnd} at the end. ` +
        `Command: \`npm run bench:analytics${argv.length ? ` -- ${argv.join(" ")}` : ""}\`.

| endpoint | p50 | p95 | goal |
|---|---|---|---|
| \`GET .../generations/{index}\` (metrics) | ${result.metricsP50Ms} ms | ${result.metricsP95Ms} ms | p95 <= 400 ms |
| \`GET .../generations/{index}/failures\` | ${result.failuresP50Ms} ms | ${result.failuresP95Ms} ms | p95 <= 400 ms |
| \`GET .../generations/{index}/analytics\` (the dashboard) | ${ms(analytics.p50)} ms | ${ms(analytics.p95)} ms | |
| \`GET .../environments?sort=success\` | ${ms(table.p50)} ms | ${ms(table.p95)} ms | |
| \`GET .../compare\` | ${ms(compare.p50)} ms | ${ms(compare.p95)} ms | |
| \`GET .../rollouts?q=\` (search, ${SEARCHES.length} queries: rare id to every success, phrase, with filters; 50 ` +
        `hits with snippets) | ${ms(search.p50)} ms | ${ms(search.p95)} ms | p95 <= 300 ms |

Search, p95 of each query (${ROUNDS} requests each): ` +
        search.slowest
          .map(
            ({ path: p, p95 }) =>
              `\`${decodeURIComponent(p)
                .replace(/^.*\?/, "")
                .replace(/&limit=50$/, "")}\` ${ms(p95)} ms`,
          )
          .join(", ") +
        ".",
    );
    console.log(JSON.stringify(result));
  } finally {
    await app.stop({ keepData: dataDirFlag !== null });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

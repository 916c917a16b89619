/**
 * npm run bench:engineer [-- --environments E] [-- --rollouts N] [-- --json <file>] [-- --port P] [-- --data-dir <dir>]
 * The heuristic engineer on E (default 1,000) frozenlake-mapf environments with N (default 50,000) rollouts in the real
 * app: the proposal computed against the app's database (summary, engineer, validation of every
 * child), and end to end through the API and the worker. Also the LLM prompt for that case, in
 * tokens, against its budget.
 * `--data-dir` keeps the loaded database in that folder and, when it already holds a finished load of the same
 * size, measures on it without posting again (loading a million rollouts takes minutes).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EnvForgeClient } from "../cli/client";
import { uploadRollouts } from "../cli/upload";
import { createDb } from "../lib/db/client";
import { getBuiltinFamily } from "../lib/families/registry";
import { getProjectFor } from "../lib/projects/service";
import { getGeneration } from "../lib/generations/service";
import { buildEngineerContext } from "../lib/engineer/summary";
import { heuristicEngineer } from "../lib/engineer/heuristic";
import { buildEngineerPrompt } from "../lib/engineer/llm";
import { validateItems } from "../lib/engineer/validate-items";
import type { EngineerInput } from "../lib/engineer/types";
import { withValidationCache } from "../lib/families/validation-cache";
import { helperSession } from "../lib/families/validation-helper";
import { engineerBenchData, jsonTarget, machine, recordSection, rssSampler, startApp } from "./lib";

const argv = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 && Number(argv[i + 1]) > 0 ? Math.floor(Number(argv[i + 1])) : fallback;
};
const ENVIRONMENTS = flag("--environments", 1000);
const ATTEMPTS = Math.max(1, Math.round(flag("--rollouts", 50_000) / ENVIRONMENTS));
const PORT = flag("--port", 3094);
const dataDirFlag =
  argv.includes("--data-dir") && argv[argv.indexOf("--data-dir") + 1] ? path.resolve(argv[argv.indexOf("--data-dir") + 1]) : null;
const LOADED_MARKER = "bench-engineer-loaded.json";
const RUNS = 3;
const PROMPT_BUDGET = 12_000;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The project, its generation of ENVIRONMENTS frozenlake environments and their rollouts, through the API. */
async function load(client: EnvForgeClient, family: NonNullable<ReturnType<typeof getBuiltinFamily>>) {
  await client.request("POST", "/api/v1/projects", { json: { slug: "bench", name: "Bench", family: family.id } });
  const { configs, outcomes } = engineerBenchData(family, ENVIRONMENTS, ATTEMPTS);
  await client.request("POST", "/api/v1/projects/bench/generations", {
    json: { environments: configs.map((config, i) => ({ key: `env-${i}`, config })) },
  });
  // rollouts go up in slices so a million of them never sit in memory at once
  let lines: { ref: string; json: string }[] = [];
  let loaded = 0;
  const flush = async () => {
    const summary = await uploadRollouts(client, "bench", lines);
    if (summary.accepted !== lines.length) throw new Error(`accepted ${summary.accepted} of ${lines.length}`);
    loaded += summary.accepted;
    lines = [];
  };
  for (const { i, config, draws } of outcomes()) {
    for (const [a, { ok, timeout }] of draws.entries()) {
      lines.push({
        ref: String(lines.length + 1),
        json: JSON.stringify({
          externalId: `r-${i}-${a}`,
          environmentKey: `env-${i}`,
          policy: a % 2 ? "policy-a" : "policy-b",
          reward: ok ? 1 : 0,
          turns: 5 + (a % 20),
          outputTokens: 100 + a,
          ...(ok
            ? {}
            : timeout
              ? { status: "errored", error: { type: "AgentTimeoutError", message: `Agent exceeded max_steps=${config.max_steps}` } }
              : { verifierOutput: `FAILED test_goals::agent_${a % 3}_reaches_goal - fell into a hole` }),
        }),
      });
    }
    if (lines.length >= 100_000) await flush();
  }
  await flush();
  console.log(`[bench:engineer] loaded ${loaded} rollouts`);
}

/** The machine's CPU ticks so far from /proc/stat: all, and stolen by the hypervisor (Linux; zeros elsewhere). */
function cpuTicks(): { all: number; steal: number } {
  try {
    const f = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is counted in user already)
    return { all: f.slice(0, 8).reduce((a, b) => a + b, 0), steal: f[7] ?? 0 };
  } catch {
    return { all: 0, steal: 0 };
  }
}

/** The share of the machine's CPU time the hypervisor stole since `from` (a slower machine than its load says). */
function stealSince(from: { all: number; steal: number }): string {
  const now = cpuTicks();
  const all = now.all - from.all;
  return all > 0 ? `${((100 * (now.steal - from.steal)) / all).toFixed(1)}%` : "n/a";
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(", ");
}

async function main() {
  const json = jsonTarget(argv);
  console.log(`[bench:engineer] ${machine()}; ${ENVIRONMENTS} environments, ${ENVIRONMENTS * ATTEMPTS} rollouts`);
  const loadAtStart = loadAverage();
  const dataDir = dataDirFlag ?? fs.mkdtempSync(path.join(os.tmpdir(), "ef-bench-engineer-"));
  fs.mkdirSync(dataDir, { recursive: true });
  const marker = path.join(dataDir, LOADED_MARKER);
  const reused = fs.existsSync(marker) ? (JSON.parse(fs.readFileSync(marker, "utf8")) as { environments: number; rollouts: number }) : null;
  if (reused && (reused.environments !== ENVIRONMENTS || reused.rollouts !== ENVIRONMENTS * ATTEMPTS))
    throw new Error(`${dataDir} holds ${reused.rollouts} rollouts on ${reused.environments} environments: use another --data-dir`);
  const app = await startApp(PORT, { dataDir });
  const rss = rssSampler();
  rss.watch(app.pid);
  try {
    const client = new EnvForgeClient({ server: app.url, token: app.token });
    const family = getBuiltinFamily("frozenlake-mapf")!;
    if (reused) console.log(`[bench:engineer] reusing the ${reused.rollouts} rollouts loaded in ${dataDir}`);
    else {
      await load(client, family);
      if (dataDirFlag) fs.writeFileSync(marker, JSON.stringify({ environments: ENVIRONMENTS, rollouts: ENVIRONMENTS * ATTEMPTS }));
    }

    // in-process against the app's database: what the worker does for one proposal
    const handle = createDb(app.databaseUrl);
    const db = handle.db;
    const project = await getProjectFor(db, "bench", null);
    const g = await getGeneration(db, project, 0);
    const inProcess: number[] = [];
    const phases: { summary: number; engineer: number; validate: number; engineerCpu: number }[] = [];
    const ticksInProcess = cpuTicks();
    let promptTokens = 0;
    let items = 0;
    for (let run = 0; run <= RUNS; run++) {
      const t0 = performance.now();
      const ctx = await buildEngineerContext(db, project, family, g);
      // the validation helper thread, as the worker's job gives the heuristic (lib/proposals/job.ts)
      const helper = helperSession(family, true);
      const input: EngineerInput = {
        family: withValidationCache(helper?.family ?? family),
        ...(helper ? { helper } : {}),
        summary: ctx.summary,
        population: ctx.population,
        options: { seed: run },
        knownHashes: ctx.knownHashes,
        keyPrefix: "g1-bench-",
      };
      const t1 = performance.now();
      const c1 = process.cpuUsage();
      const out = heuristicEngineer(input);
      helper?.close();
      const t2 = performance.now();
      const checked = validateItems(input, out.items);
      const ms = performance.now() - t0;
      const c2 = process.cpuUsage(c1);
      phases.push({ summary: t1 - t0, engineer: t2 - t1, validate: performance.now() - t2, engineerCpu: (c2.user + c2.system) / 1000 });
      if (checked.errors.length) throw new Error(`invalid items: ${JSON.stringify(checked.errors.slice(0, 3))}`);
      items = out.items.length;
      if (run === 0) {
        promptTokens = buildEngineerPrompt(input, PROMPT_BUDGET).tokenEstimate;
        continue; // warm-up
      }
      inProcess.push(ms);
      console.log(
        `[bench:engineer] run ${run}: ${out.items.length} items in ${ms.toFixed(0)} ms ` +
          `(summary from the database ${phases[run].summary.toFixed(0)} ms, heuristic ${phases[run].engineer.toFixed(0)} ms ` +
          `[CPU of both threads ${phases[run].engineerCpu.toFixed(0)} ms, ${helper?.served ?? 0} answers from the helper], ` +
          `validation ${phases[run].validate.toFixed(0)} ms; summary ${ctx.summary.tokenEstimate} tokens)`,
      );
    }

    // end to end: POST -> queue -> worker -> ready; the server's memory from here on is the proposal's
    const loadRssMb = rss.maxMb();
    rss.stop();
    const proposalRss = rssSampler();
    proposalRss.watch(app.pid);
    console.log(`[bench:engineer] in process: ${stealSince(ticksInProcess)} of the machine's CPU time stolen by the hypervisor`);
    const endToEnd: number[] = [];
    const ticksEndToEnd = cpuTicks();
    for (let run = 0; run < RUNS; run++) {
      const t0 = performance.now();
      const { proposalId } = await client.request<{ proposalId: string }>("POST", "/api/v1/projects/bench/generations/0/proposals", {
        json: { engineer: "heuristic", options: { seed: run } },
      });
      let lastGet = 0;
      let stages = "";
      for (;;) {
        const g0 = performance.now();
        const p = await client.request<{
          status: string;
          error?: string;
          progress?: { stageMs?: { summary: number; engineer: number; validating: number; storing: number } };
        }>("GET", `/api/v1/proposals/${proposalId}`);
        lastGet = performance.now() - g0;
        const ms = p.progress?.stageMs;
        if (ms)
          stages = `; the job's stages: summary ${ms.summary}, engineer ${ms.engineer}, validating ${ms.validating}, storing ${ms.storing} ms`;
        if (p.status === "ready") break;
        if (p.status === "failed") throw new Error(`proposal failed: ${p.error}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      endToEnd.push(performance.now() - t0);
      console.log(
        `[bench:engineer] end to end run ${run + 1}: ${endToEnd[run].toFixed(0)} ms, of it ${lastGet.toFixed(0)} ms the GET that said ready` +
          `${stages} (load average ${loadAverage()})`,
      );
    }
    console.log(
      `[bench:engineer] end to end (API, queue, worker): median ${median(endToEnd).toFixed(0)} ms; ` +
        `${stealSince(ticksEndToEnd)} of the machine's CPU time stolen by the hypervisor`,
    );
    console.log(`[bench:engineer] LLM prompt for this case: ${promptTokens} tokens (budget ${PROMPT_BUDGET})`);

    // the goal is end to end (issue 19): the API, the queue, the worker, the summary, the engineer, validation
    const result = {
      heuristicProposalMs: Math.round(median(endToEnd)),
      heuristicInProcessMs: Math.round(median(inProcess)),
      llmPromptTokens: promptTokens,
      maxRssMb: proposalRss.maxMb(),
      loadMaxRssMb: loadRssMb,
    };
    proposalRss.stop();
    if (json) fs.writeFileSync(json, JSON.stringify(result, null, 2) + "\n");
    recordSection(
      "Engineer (`npm run bench:engineer`)",
      [
        `${new Date().toISOString().slice(0, 10)}, ${machine()}, embedded PostgreSQL, the real app. ` +
          `${ENVIRONMENTS.toLocaleString("en-US")} frozenlake-mapf environments, ` +
          `${(ENVIRONMENTS * ATTEMPTS).toLocaleString("en-US")} rollouts of 2 policies; ${items} items a proposal. ` +
          `Median of ${RUNS} runs after a warm-up.`,
        "",
        "| measure | figure | goal |",
        "|---|---|---|",
        `| heuristic proposal in process: summary from the database, engineer, every child validated by the family | ` +
          `${result.heuristicInProcessMs} ms | |`,
        "| the same end to end: `POST .../proposals` until `GET /proposals/{id}` says ready (queue pickup included) | " +
          `${result.heuristicProposalMs} ms | <= 5,000 ms |`,
        `| LLM engineer prompt for this case | ${promptTokens.toLocaleString("en-US")} tokens | ` +
          `<= ${PROMPT_BUDGET.toLocaleString("en-US")} (budget) |`,
        "",
        `Max server RSS (the Node process serving the app and its worker, sampled every 200 ms): ${result.maxRssMb} MB ` +
          `during the proposals, ${result.loadMaxRssMb} MB while the rollouts were loaded (goal <= 1,536 MB). ` +
          `Load average at the start: ${loadAtStart}; at the end: ${loadAverage()}.`,
      ].join("\n"),
    );
    console.log(JSON.stringify(result));
    await handle.pool.end();
  } finally {
    await app.stop({ keepData: dataDirFlag !== null });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

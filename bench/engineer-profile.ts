/**
 * The heuristic engineer in process, without a database: where its time goes at bench:engineer's size.
 * Run: `nice -n 10 node --import tsx bench/engineer-profile.ts [--environments 10000] [--runs 3]`;
 * for a CPU profile add `--cpu-prof --cpu-prof-dir=<dir>` after `node` and open the .cpuprofile in Chrome DevTools.
 * Builds a frozenlake-mapf population like bench/engineer.ts loads (the same configs, 100 attempts each with the
 * same success draws, timeouts and three failure signatures) and a summary like the one buildEngineerContext reads
 * from it (field buckets, two clusters), then runs a warm-up and `--runs` proposals (seeds 0..runs, as bench:engineer):
 * heuristicEngineer + validateItems, printing each phase's wall time, the process CPU time (user + system, all threads:
 * the garbage collector's helpers count too), the medians and the load average.
 */
import os from "node:os";
import { clusterId } from "../lib/analytics/failures";
import { heuristicEngineer } from "../lib/engineer/heuristic";
import type { EngineerInput, PopulationMember, StructuredSummary, SummaryCluster } from "../lib/engineer/types";
import { summaryFields } from "../lib/engineer/summary-fields";
import { validateItems } from "../lib/engineer/validate-items";
import { configHash } from "../lib/families/hash";
import { getBuiltinFamily } from "../lib/families/registry";
import { withValidationCache } from "../lib/families/validation-cache";
import { engineerBenchData } from "./lib";

const argv = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 && Number(argv[i + 1]) > 0 ? Math.floor(Number(argv[i + 1])) : fallback;
};
const ENVIRONMENTS = flag("--environments", 10_000);
const RUNS = flag("--runs", 3);
const ATTEMPTS = 100;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(", ");

/** The population and summary bench:engineer's load gives buildEngineerContext (no history, one generation). */
function buildInput(): { population: PopulationMember[]; summary: StructuredSummary } {
  const family = getBuiltinFamily("frozenlake-mapf")!;
  const timeoutCluster = clusterId("agent_timeout", "AgentTimeoutError: Agent exceeded max_steps=<n>");
  const verifierClusters = [0, 1, 2].map((a) => clusterId("verifier_failed", `FAILED test_goals::agent_${a}_reaches_goal`));
  const population: PopulationMember[] = [];
  const clusterEnvs = new Map<string, { count: number; keys: string[] }>();
  for (const { i, config, draws } of engineerBenchData(family, ENVIRONMENTS, ATTEMPTS).outcomes()) {
    let s = 0;
    const failures = new Map<string, number>();
    for (const [a, { ok, timeout }] of draws.entries()) {
      if (ok) s++;
      else {
        const id = timeout ? timeoutCluster : verifierClusters[a % 3];
        failures.set(id, (failures.get(id) ?? 0) + 1);
      }
    }
    const key = `env-${i}`;
    const clusterIds = [...failures.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).map(([id]) => id);
    for (const [id, count] of failures) {
      const c = clusterEnvs.get(id) ?? { count: 0, keys: [] };
      c.count += count;
      c.keys.push(key);
      clusterEnvs.set(id, c);
    }
    const v = family.validate(config);
    population.push({
      key,
      config,
      configHash: configHash(config),
      parentKey: null,
      op: "seed",
      direction: null,
      validation: { state: v.state, pMax: v.pMax ?? null },
      n: ATTEMPTS,
      s,
      age: 1,
      history: [],
      clusterIds,
    });
  }
  const clusters: SummaryCluster[] = [...clusterEnvs.entries()]
    .sort((x, y) => y[1].count - x[1].count)
    .map(([id, c]) => ({
      id,
      category: id === timeoutCluster ? "agent_timeout" : "verifier_failed",
      signature: id === timeoutCluster ? "AgentTimeoutError: Agent exceeded max_steps=<n>" : "FAILED test_goals::agent_<n>_reaches_goal",
      count: c.count,
      environments: c.keys.length,
      environmentKeys: c.keys.slice(0, 3),
      exemplarRolloutIds: ["1"],
      excerpt: "",
      infra: false,
    }));
  const fields = summaryFields(
    family.fields.filter((f) => f.mutable !== false),
    population.map((m) => ({ config: m.config, env: { n: m.n, s: m.s, rewardSum: m.s } })),
  );
  const rollouts = population.length * ATTEMPTS;
  const successes = population.reduce((a, m) => a + m.s, 0);
  const summary = {
    project: "bench",
    family: family.id,
    generation: 0,
    policy: null,
    successThreshold: 1,
    behaviour: { rollouts, environments: population.length, successRate: successes / rollouts },
    failures: { categories: [], clusters },
    environments: { fields, solved: [], frontier: [], hopeless: [], unvalidated: [], unsolvable: [] },
    history: { proposals: [], predictions: [] },
    tokenEstimate: 0,
    truncated: [],
  } as unknown as StructuredSummary;
  return { population, summary };
}

function main() {
  const family = getBuiltinFamily("frozenlake-mapf")!;
  const t0 = performance.now();
  const { population, summary } = buildInput();
  console.log(
    `[engineer-profile] ${ENVIRONMENTS} frozenlake-mapf members built in ${(performance.now() - t0).toFixed(0)} ms; ` +
      `load average ${loadAverage()}`,
  );
  const totals: number[] = [];
  const cpu: number[] = [];
  const heuristic: number[] = [];
  const validation: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const input: EngineerInput = {
      family: withValidationCache(family),
      summary,
      population,
      options: { seed: run },
      knownHashes: new Set(population.map((m) => m.configHash)),
      keyPrefix: "g1-bench-",
    };
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    const out = heuristicEngineer(input);
    const t2 = performance.now();
    const checked = validateItems(input, out.items);
    const t3 = performance.now();
    const used = process.cpuUsage(c1);
    const cpuMs = (used.user + used.system) / 1000;
    if (checked.errors.length) throw new Error(`invalid items: ${JSON.stringify(checked.errors.slice(0, 3))}`);
    console.log(
      `[engineer-profile] run ${run}${run === 0 ? " (warm-up)" : ""}: ${out.items.length} items, ` +
        `heuristic ${(t2 - t1).toFixed(0)} ms, validation ${(t3 - t2).toFixed(0)} ms, total ${(t3 - t1).toFixed(0)} ms ` +
        `(process CPU ${cpuMs.toFixed(0)} ms)`,
    );
    if (run === 0) continue;
    heuristic.push(t2 - t1);
    validation.push(t3 - t2);
    totals.push(t3 - t1);
    cpu.push(cpuMs);
  }
  console.log(
    `[engineer-profile] median of ${RUNS}: heuristic ${median(heuristic).toFixed(0)} ms, validation ` +
      `${median(validation).toFixed(0)} ms, total ${median(totals).toFixed(0)} ms, process CPU ${median(cpu).toFixed(0)} ms; ` +
      `load average ${loadAverage()}`,
  );
}

main();

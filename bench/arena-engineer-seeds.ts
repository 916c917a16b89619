/**
 * node --import tsx bench/arena-engineer-seeds.ts [--engineer-seeds 0,1,2,3,4] [--seeds 10] [--seed-base 1000]
 *   [--family search-agent,frozenlake-mapf] [--learner default,drift,tangled] [--traps 0.15,0.3] [--jobs 2]
 *   [--baselines <bench:arena JSON>] [--json <file>]
 * How much the arena goal's count depends on the heuristic engineer's own randomness: the same arena, seeds and
 * baselines, the heuristic under several draws of its proposal seeds (ArenaOptions.engineerSeed, XORed into every
 * proposal seed; 0 is the draw every recorded figure used). Prints the checks won under each draw, how many checks
 * are won under k of the n draws, the checks lost under every draw and those that change hands. A measurement, never
 * a place to choose a rule: on the evaluation seeds (the default) nothing may be tuned.
 * The baselines and the oracle run once (they ignore the engineer seed), or come from a `npm run bench:arena -- --json`
 * file of the same seeds, budget and cells (--baselines), which saves their time.
 */
import fs from "node:fs";
import { GOAL_LIMITS, goalChecks, ratioText } from "../lib/arena/goal";
import { DEFAULT_SEED_BASE, defaultWorkers, runArenaMatrix } from "../lib/arena/run";
import type { ArenaReport, LearnerId } from "../lib/arena/types";
import { engineerSeedsFlag, flagValue, jsonTarget, machine } from "./lib";

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => flagValue(name, fallback, argv);
const list = (name: string, fallback: string) =>
  arg(name, fallback)
    .split(",")
    .filter((x) => x !== "");
const engineerSeeds = engineerSeedsFlag("0,1,2,3,4", argv);
const seeds = Number(arg("--seeds", "10"));
const seedBase = Number(arg("--seed-base", String(DEFAULT_SEED_BASE)));
const families = list("--family", "search-agent,frozenlake-mapf");
const learners = list("--learner", "default,drift,tangled") as LearnerId[];
const trapShares = list("--traps", "0.15,0.3").map(Number);
const workers = Number(arg("--jobs", String(defaultWorkers())));
const baselinesFile = arg("--baselines", "");
const quick = argv.includes("--quick");

const cellKey = (r: Pick<ArenaReport, "family" | "learner" | "trapShare">) => `${r.family} · ${r.learner} · traps ${r.trapShare}`;
const common = { seeds, seedBase, quick, families, learners, trapShares, workers };

async function baselineCells(): Promise<Map<string, ArenaReport>> {
  let cells: ArenaReport[];
  if (baselinesFile) {
    const file = JSON.parse(fs.readFileSync(baselinesFile, "utf8")) as { cells?: ArenaReport[] };
    if (!Array.isArray(file.cells))
      throw new Error(`--baselines ${baselinesFile}: no "cells" (write it with npm run bench:arena -- --json <file>)`);
    cells = file.cells;
    const run = (base: number, count: number, short: boolean) => `seeds ${base}-${base + count - 1}${short ? " (quick)" : ""}`;
    for (const c of cells)
      if (c.seeds !== seeds || c.seedBase !== seedBase || c.quick !== quick)
        throw new Error(
          `--baselines ${baselinesFile}: ${cellKey(c)} ran ${run(c.seedBase, c.seeds, c.quick)}, not ${run(seedBase, seeds, quick)}`,
        );
  } else {
    // the goal's baselines and the oracle (whose verdicts the checks carry)
    cells = await runArenaMatrix({ ...common, strategies: [...GOAL_LIMITS.map((g) => g.baseline), "oracle"] });
  }
  const out = new Map(cells.map((c) => [cellKey(c), c]));
  for (const f of families)
    for (const l of learners)
      for (const t of trapShares)
        if (!out.has(cellKey({ family: f, learner: l, trapShare: t }))) throw new Error(`no baselines for ${f} · ${l} · traps ${t}`);
  return out;
}

interface Draw {
  engineerSeed: number;
  won: number;
  total: number;
  /** check id -> [won, ratio as the goal writes it: on the verdict's side of the limit] */
  checks: Map<string, [boolean, string]>;
}

async function main() {
  console.log(
    `[arena-engineer-seeds] ${machine()}; engineer seeds ${engineerSeeds.join(", ")} on seeds ${seedBase}-${seedBase + seeds - 1}`,
  );
  const started = performance.now();
  const base = await baselineCells();
  const draws: Draw[] = [];
  for (const engineerSeed of engineerSeeds) {
    const reports = await runArenaMatrix({ ...common, strategies: ["heuristic"], engineerSeed });
    const draw: Draw = { engineerSeed, won: 0, total: 0, checks: new Map() };
    for (const r of reports) {
      const b = base.get(cellKey(r))!;
      const settings = {
        clean: { ...b.settings.clean, heuristic: r.settings.clean.heuristic },
        traps: { ...b.settings.traps, heuristic: r.settings.traps.heuristic },
      };
      const goal = goalChecks(settings, b.budget.rollouts);
      draw.won += goal.won;
      draw.total += goal.checks.length;
      for (const c of goal.checks) draw.checks.set(`${cellKey(r)} · ${c.setting} · ${c.level}% vs ${c.baseline}`, [c.won, ratioText(c)]);
    }
    draws.push(draw);
    console.log(`engineer seed ${engineerSeed}: ${draw.won} of ${draw.total} won`);
  }
  const ids = [...draws[0].checks.keys()];
  const wonIn = new Map(ids.map((id) => [id, draws.filter((d) => d.checks.get(id)![0]).length]));
  const histogram = Array.from({ length: draws.length + 1 }, (_, k) => ids.filter((id) => wonIn.get(id) === k).length);
  const ratios = (id: string) => draws.map((d) => d.checks.get(id)![1]).join(" / ");
  const wons = draws.map((d) => d.won);
  const mean = wons.reduce((a, b) => a + b, 0) / wons.length;
  console.log(`\nchecks won: ${wons.join(", ")} (mean ${mean.toFixed(1)}, range ${Math.min(...wons)}-${Math.max(...wons)})`);
  console.log(`checks won under k of ${draws.length} draws: ${histogram.map((count, k) => `${k}: ${count}`).join(", ")}`);
  console.log(`\nlost under every draw (${histogram[0]}; ratios per draw):`);
  for (const id of ids) if (wonIn.get(id) === 0) console.log(`  ${id}: ${ratios(id)}`);
  console.log(`\nwon under some draws, lost under others (${ids.length - histogram[0] - histogram[draws.length]}):`);
  for (const id of ids) {
    const k = wonIn.get(id)!;
    if (k > 0 && k < draws.length) console.log(`  ${id}: won ${k} of ${draws.length} (${ratios(id)})`);
  }
  console.log(`\nwall time ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const json = jsonTarget(argv);
  if (json) {
    const out = draws.map((d) => ({ engineerSeed: d.engineerSeed, won: d.won, total: d.total, checks: Object.fromEntries(d.checks) }));
    fs.writeFileSync(json, JSON.stringify({ seeds, seedBase, quick, draws: out }, null, 2));
  }
}

await main();

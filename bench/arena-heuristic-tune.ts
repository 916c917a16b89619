/**
 * node --import tsx bench/arena-heuristic-tune.ts [--seeds 10] [--family search-agent] [--jobs 2] [--traps 0.15,0.3]
 *   [--learner default] [--full] [--engineer-seeds 0]
 * The heuristic against every baseline on the TUNING seeds (seed base 0; the evaluation seeds start
 * at 1000), default learner unless --learner (a check that a rule does not lose on the held-out
 * learners, never a place to tune), quick budget unless --full: the ratios of
 * the goal (heuristic / uniform <= 0.6, heuristic / other <= 1) per setting and level. The
 * baselines' runs are cached in /tmp per family, seeds and trap shares; the heuristic always reruns,
 * once per engineer seed (ArenaOptions.engineerSeed, XORed into its proposal seeds: the tuning protocol
 * judges a rule by the mean over several draws of the heuristic's own randomness, docs/BENCHMARKS.md,
 * "Issue 16, twenty-first round"), and the last line gives the checks won per draw, their mean and the
 * geometric mean of the heuristic's rollouts to 50% and 80% over every cell and draw (a seed that never
 * gets there counts as the budget), the figures a rule is compared by.
 */
import fs from "node:fs";
import { ratioText } from "../lib/arena/goal";
import { runArenaMatrix } from "../lib/arena/run";
import type { ArenaReport, LearnerId } from "../lib/arena/types";
import { flagValue } from "./lib";

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => flagValue(name, fallback, argv);
const seeds = Number(arg("--seeds", "10"));
const family = arg("--family", "search-agent");
const workers = Number(arg("--jobs", "2"));
const trapShares = arg("--traps", "0.15,0.3").split(",").map(Number);
const learner = arg("--learner", "default") as LearnerId;
const quick = !argv.includes("--full");
const engineerSeeds = arg("--engineer-seeds", "0")
  .split(",")
  .filter((x) => x !== "")
  .map(Number);
if (engineerSeeds.length === 0) throw new Error("--engineer-seeds: give at least one (0 is the recorded draw)");
for (const x of engineerSeeds) if (!(Number.isInteger(x) && x >= 0)) throw new Error(`--engineer-seeds: ${x} is not a whole number >= 0`);
const BASELINES = ["uniform", "threshold", "rlve", "sfl", "plr", "accel"] as const;

const run = (strategies: string[], engineerSeed = 0) =>
  runArenaMatrix({ seeds, seedBase: 0, quick, families: [family], learners: [learner], trapShares, strategies, workers, engineerSeed });

const variant = `${learner === "default" ? "" : `-${learner}`}${quick ? "" : "-full"}`;
const cacheFile = `/tmp/arena-tune-baselines-${family}-${seeds}-${trapShares.join("_")}${variant}.json`;
let baselines: ArenaReport[];
if (fs.existsSync(cacheFile)) baselines = JSON.parse(fs.readFileSync(cacheFile, "utf8"));
else {
  baselines = await run([...BASELINES]);
  fs.writeFileSync(cacheFile, JSON.stringify(baselines));
}
const wonPerDraw: number[] = [];
const logs = { 50: [] as number[], 80: [] as number[] };
let total = 0;
for (const engineerSeed of engineerSeeds) {
  const heuristic = await run(["heuristic"], engineerSeed);
  let won = 0;
  total = 0;
  if (engineerSeeds.length > 1) console.log(`engineer seed ${engineerSeed}`);
  for (let i = 0; i < heuristic.length; i++) {
    for (const setting of ["clean", "traps"] as const) {
      if (setting === "clean" && i > 0) continue;
      const h = heuristic[i].settings[setting].heuristic!;
      const label = setting === "clean" ? "clean" : `traps ${heuristic[i].trapShare}`;
      const parts: string[] = [];
      for (const level of [50, 80] as const) {
        const hv = (level === 50 ? h.rolloutsTo50 : h.rolloutsTo80) ?? heuristic[i].budget.rollouts;
        logs[level].push(Math.log(hv));
        parts.push(`${level}%: ${hv} (${level === 50 ? h.reached50 : h.reached80}/${seeds})`);
        for (const b of BASELINES) {
          const r = baselines[i].settings[setting][b]!;
          const bv = (level === 50 ? r.rolloutsTo50 : r.rolloutsTo80) ?? baselines[i].budget.rollouts;
          const limit = b === "uniform" ? 0.6 : 1;
          const ratio = hv / bv;
          total += 1;
          if (ratio <= limit) won += 1;
          else parts.push(`${b} ${ratioText({ heuristic: hv, other: bv, limit, won: false })}`);
        }
      }
      console.log(`${label.padEnd(11)} ${parts.join("  ")}`);
    }
  }
  wonPerDraw.push(won);
  const budget = quick ? "quick" : "full budget";
  console.log(`won ${won}/${total} (tuning seeds 0-${seeds - 1}, ${family}, ${learner} learner, ${budget}, engineer seed ${engineerSeed})`);
}
if (engineerSeeds.length > 1) {
  const mean = wonPerDraw.reduce((a, b) => a + b, 0) / wonPerDraw.length;
  const geo = (xs: number[]) => Math.round(Math.exp(xs.reduce((a, b) => a + b, 0) / xs.length));
  console.log(
    `won ${wonPerDraw.join(", ")} of ${total} under engineer seeds ${engineerSeeds.join(", ")}: mean ${mean.toFixed(1)}; ` +
      `geometric mean rollouts to 50% ${geo(logs[50])}, to 80% ${geo(logs[80])}`,
  );
}

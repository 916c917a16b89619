/**
 * node --import tsx bench/arena-heuristic-tune.ts [--seeds 10] [--family search-agent] [--jobs 2] [--traps 0.15,0.3]
 *   [--learner default] [--full]
 * The heuristic against every baseline on the TUNING seeds (seed base 0; the evaluation seeds start
 * at 1000), default learner unless --learner (a check that a rule does not lose on the held-out
 * learners, never a place to tune), quick budget unless --full: the ratios of
 * the goal (heuristic / uniform <= 0.6, heuristic / other <= 1) per setting and level. The
 * baselines' runs are cached in /tmp per family, seeds and trap shares; the heuristic always reruns.
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
const BASELINES = ["uniform", "threshold", "rlve", "sfl", "plr", "accel"] as const;

const run = (strategies: string[]) =>
  runArenaMatrix({ seeds, seedBase: 0, quick, families: [family], learners: [learner], trapShares, strategies, workers });

const variant = `${learner === "default" ? "" : `-${learner}`}${quick ? "" : "-full"}`;
const cacheFile = `/tmp/arena-tune-baselines-${family}-${seeds}-${trapShares.join("_")}${variant}.json`;
let baselines: ArenaReport[];
if (fs.existsSync(cacheFile)) baselines = JSON.parse(fs.readFileSync(cacheFile, "utf8"));
else {
  baselines = await run([...BASELINES]);
  fs.writeFileSync(cacheFile, JSON.stringify(baselines));
}
const heuristic = await run(["heuristic"]);
let won = 0;
let total = 0;
for (let i = 0; i < heuristic.length; i++) {
  for (const setting of ["clean", "traps"] as const) {
    if (setting === "clean" && i > 0) continue;
    const h = heuristic[i].settings[setting].heuristic!;
    const label = setting === "clean" ? "clean" : `traps ${heuristic[i].trapShare}`;
    const parts: string[] = [];
    for (const level of [50, 80] as const) {
      const hv = (level === 50 ? h.rolloutsTo50 : h.rolloutsTo80) ?? heuristic[i].budget.rollouts;
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
console.log(`won ${won}/${total} (tuning seeds 0-${seeds - 1}, ${family}, ${learner} learner, ${quick ? "quick" : "full budget"})`);

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
import { GOAL_LIMITS, goalChecks, ratioText } from "../lib/arena/goal";
import { runArenaMatrix } from "../lib/arena/run";
import { ARENA_SETTINGS, type ArenaReport, type LearnerId } from "../lib/arena/types";
import { engineerSeedsFlag, flagValue } from "./lib";

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => flagValue(name, fallback, argv);
const seeds = Number(arg("--seeds", "10"));
const family = arg("--family", "search-agent");
const workers = Number(arg("--jobs", "2"));
const trapShares = arg("--traps", "0.15,0.3").split(",").map(Number);
const learner = arg("--learner", "default") as LearnerId;
const quick = !argv.includes("--full");
const engineerSeeds = engineerSeedsFlag("0", argv);
// the goal's own baselines and limits (lib/arena/goal.ts), so this bench judges exactly as bench:arena does
const BASELINES = GOAL_LIMITS.map((g) => g.baseline);

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
    const b = baselines[i];
    const settings = {
      clean: { ...b.settings.clean, heuristic: heuristic[i].settings.clean.heuristic },
      traps: { ...b.settings.traps, heuristic: heuristic[i].settings.traps.heuristic },
    };
    const { checks } = goalChecks(settings, b.budget.rollouts);
    for (const setting of ARENA_SETTINGS) {
      // the clean setting is the same run for every trap share: counted once
      if (setting === "clean" && i > 0) continue;
      const h = heuristic[i].settings[setting].heuristic!;
      const label = setting === "clean" ? "clean" : `traps ${heuristic[i].trapShare}`;
      const parts: string[] = [];
      for (const level of [50, 80] as const) {
        const hv = (level === 50 ? h.rolloutsTo50 : h.rolloutsTo80) ?? heuristic[i].budget.rollouts;
        logs[level].push(Math.log(hv));
        parts.push(`${level}%: ${hv} (${level === 50 ? h.reached50 : h.reached80}/${seeds})`);
        for (const c of checks.filter((x) => x.setting === setting && x.level === level)) {
          total += 1;
          if (c.won) won += 1;
          else parts.push(`${c.baseline} ${ratioText(c)}`);
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

/**
 * npm run bench:arena [-- --json <file>]
 * The curriculum arena with 10 seeds (`envforge arena --seeds 10`, in process, one worker thread per
 * core): every strategy in the clean and the trap setting, the heuristic engineer's goal ratios and
 * the wall time, recorded in docs/BENCHMARKS.md.
 */
import { arenaCommand } from "../cli/commands/arena";
import { ARENA_SETTINGS, defaultWorkers, type ArenaReport, type StrategyResult } from "../lib/arena";
import { jsonTarget, machine, recordSection } from "./lib";

const SEEDS = 10;
const WALL_GOAL_S = 300;

const n = (x: number) => x.toLocaleString("en-US");

function rolloutsCell(value: number | null, ci: [number, number], reached: number): string {
  if (value === null) return `never (0/${SEEDS})`;
  return `${n(value)} [${n(ci[0])}, ${n(ci[1])}]${reached < SEEDS ? ` (${reached}/${SEEDS})` : ""}`;
}

function markdownTable(report: ArenaReport): string {
  const lines = [
    "| strategy | setting | rollouts to 50% | rollouts to 80% | AUC | final | CVaR@10% | zero-signal | invalid | diversity |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const strategy of Object.keys(report.settings.clean)) {
    for (const setting of ARENA_SETTINGS) {
      const r = report.settings[setting][strategy as keyof typeof report.settings.clean] as StrategyResult | undefined;
      if (!r) continue;
      const name = strategy === "heuristic" ? "**heuristic**" : strategy;
      lines.push(
        `| ${name} | ${setting} | ${rolloutsCell(r.rolloutsTo50, r.rolloutsTo50CI, r.reached50)} | ${rolloutsCell(r.rolloutsTo80, r.rolloutsTo80CI, r.reached80)} | ${r.auc.toFixed(3)} [${r.aucCI[0].toFixed(3)}, ${r.aucCI[1].toFixed(3)}] | ${r.finalSuccess.toFixed(3)} | ${r.cvar10.toFixed(3)} | ${r.zeroSignal.toFixed(2)} | ${r.invalidRate.toFixed(3)} | ${r.diversity.toFixed(2)} |`,
      );
    }
  }
  return lines.join("\n");
}

async function main() {
  const json = jsonTarget();
  const workers = defaultWorkers();
  console.log(`[bench:arena] ${machine()}; ${SEEDS} seeds, ${workers} worker threads`);
  const started = performance.now();
  const { cells } = await arenaCommand({ seeds: SEEDS, json: json ?? undefined, workers });
  const report = cells[0];
  const wallS = (performance.now() - started) / 1000;
  const g = report.goal;
  const ratio = (x: number | null) => (x === null ? "n/a" : x.toFixed(2));
  recordSection(
    "Curriculum arena (`npm run bench:arena`)",
    `${new Date().toISOString().slice(0, 10)}, ${machine()}, \`envforge arena --seeds ${SEEDS}\` in process with ${workers} worker threads. Family ${report.family}; a budget of ${n(report.budget.rollouts)} rollouts per run (probes included); target success = mean p / p_max over ${report.family}'s held-out hard end, evaluated after every batch of 32 groups x 8 attempts. Interquartile means over ${SEEDS} seeds with 95% bootstrap intervals; a seed that never reaches a level counts as the budget (the count of seeds that did follows in brackets when it is not all of them).

| goal | clean | traps | goal |
|---|---|---|---|
| heuristic / uniform, rollouts to 50% target success | ${ratio(g.heuristicVsUniform50.clean)} | ${ratio(g.heuristicVsUniform50.traps)} | <= 0.60 |
| heuristic / PLR-rank, rollouts to 50% target success | ${ratio(g.heuristicVsPlr50.clean)} | ${ratio(g.heuristicVsPlr50.traps)} | <= 1.00 |
| goal met | ${g.met ? "yes" : "no"} | | |
| wall time of the whole run | ${wallS.toFixed(1)} s | | <= ${WALL_GOAL_S} s |

${markdownTable(report)}

How it works and what each baseline's defaults are: docs/ARCHITECTURE.md ("Curriculum arena") and lib/arena/strategies.ts.`,
  );
  console.log(`[bench:arena] wall time ${wallS.toFixed(1)} s (goal <= ${WALL_GOAL_S} s); goal ${g.met ? "met" : "not met"}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

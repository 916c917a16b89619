/**
 * node --import tsx bench/arena-tune.ts [--quick] [--seeds 10] [--family search-agent,frozenlake-mapf] [--traps 0.15,0.3]
 * Tunes every baseline's main knob (KNOB_GRID in lib/arena/strategies.ts) on the tuning seeds
 * (seed base 0; the evaluation seeds start at 1000), default learner, validator shared-charged, as
 * the heuristic's own knobs were tuned: by default the full budget, seeds 0-9, search-agent and
 * frozenlake-mapf, clean and traps 0.15 and 0.3. For each value and family, the mean of the IQM
 * rollouts to 50% and to 80% target success over the clean and every traps setting (a seed that
 * never gets there counts as the budget); the score is the geometric mean of those over the families
 * (their rollouts differ in scale), and the lowest wins. `--quick --seeds 5 --family search-agent
 * --traps 0.15` is the first tuning's protocol (2026-12-01 and 12-03 in docs/BENCHMARKS.md).
 */
import { defaultWorkers, KNOB_GRID, runArenaMatrix, type ArenaReport, type StrategyId } from "../lib/arena";
import { flagValue, machine, recordSection } from "./lib";

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => flagValue(name, fallback, argv);
const QUICK = argv.includes("--quick");
const SEEDS = Number(arg("--seeds", "10"));
const FAMILIES = arg("--family", "search-agent,frozenlake-mapf").split(",");
const TRAPS = arg("--traps", "0.15,0.3").split(",").map(Number);
if (!Number.isInteger(SEEDS) || SEEDS < 1) throw new Error(`--seeds must be a whole number >= 1, got "${arg("--seeds", "")}"`);
if (TRAPS.some((t) => !Number.isFinite(t) || t <= 0 || t > 0.3))
  throw new Error(`--traps must be shares in (0, 0.3], got "${arg("--traps", "")}"`);

type Level = "rolloutsTo50" | "rolloutsTo80";

/** One family's figures of one knob value: rollouts to 50% and 80% per setting (clean, then each trap share), and their mean. */
function familyScore(cells: ArenaReport[], baseline: StrategyId) {
  const budget = cells[0].budget.rollouts;
  const r = (cell: ArenaReport, setting: "clean" | "traps", level: Level) => cell.settings[setting][baseline]?.[level] ?? budget;
  const settings = [{ cell: cells[0], setting: "clean" as const }, ...cells.map((cell) => ({ cell, setting: "traps" as const }))];
  const to50 = settings.map((s) => r(s.cell, s.setting, "rolloutsTo50"));
  const to80 = settings.map((s) => r(s.cell, s.setting, "rolloutsTo80"));
  const all = [...to50, ...to80];
  return { to50, to80, mean: all.reduce((a, b) => a + b, 0) / all.length };
}

async function main() {
  const workers = defaultWorkers();
  const started = performance.now();
  const settingsLabel = ["clean", ...TRAPS.map((t) => `traps ${t}`)].join(" / ");
  const lines: string[] = [
    `| baseline | knob | value | ${FAMILIES.map((f) => `${f}: rollouts to 50% (${settingsLabel}) | to 80% | mean`).join(" | ")} | score |`,
    `|---|---|---|${FAMILIES.map(() => "---|---|---").join("|")}|---|`,
  ];
  const chosen: string[] = [];
  for (const [baseline, grid] of Object.entries(KNOB_GRID) as [StrategyId, { knob: string; values: readonly number[] }][]) {
    let best: { value: number; score: number } | null = null;
    for (const value of grid.values) {
      const cells = await runArenaMatrix({
        seeds: SEEDS,
        seedBase: 0,
        quick: QUICK,
        families: FAMILIES,
        learners: ["default"],
        trapShares: TRAPS,
        strategies: [baseline],
        knobs: { [baseline]: { [grid.knob]: value } },
        workers,
      });
      const perFamily = FAMILIES.map((family) =>
        familyScore(
          cells.filter((c) => c.family === family),
          baseline,
        ),
      );
      // a geometric mean over the families: their rollouts differ in scale, and each should weigh alike
      const score = Math.exp(perFamily.reduce((a, f) => a + Math.log(f.mean), 0) / perFamily.length);
      lines.push(
        `| ${baseline} | ${grid.knob} | ${value} | ` +
          perFamily.map((f) => `${f.to50.join(" / ")} | ${f.to80.join(" / ")} | ${Math.round(f.mean)}`).join(" | ") +
          ` | ${Math.round(score)} |`,
      );
      console.log(lines[lines.length - 1]);
      if (!best || score < best.score) best = { value, score };
    }
    chosen.push(`${baseline} ${grid.knob} = ${best!.value}`);
  }
  const minutes = (performance.now() - started) / 60_000;
  console.log(`chosen: ${chosen.join("; ")} (${minutes.toFixed(1)} min)`);
  recordSection(
    "Arena baseline tuning (`node --import tsx bench/arena-tune.ts`)",
    `${new Date().toISOString().slice(0, 10)}, ${machine()}. Each baseline's main knob on the tuning seeds ` +
      `0-${SEEDS - 1} (never the evaluation seeds, which start at 1000), ${QUICK ? "quick" : "full"} budget, ` +
      `${FAMILIES.join(" and ")}, default learner, ${settingsLabel}, validator shared-charged; a family's mean = the mean ` +
      `of the IQM rollouts to 50% and 80% over its settings (never = the budget), score = the geometric mean of the ` +
      `families' means. Chosen: ${chosen.join("; ")}. Wall time ${minutes.toFixed(1)} min.\n\n${lines.join("\n")}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

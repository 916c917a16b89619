/**
 * npm run bench:arena [-- --quick] [-- --seeds N] [-- --json <file>]
 * The arena's goal matrix (issue 16): search-agent and frozenlake-mapf x the default learner and
 * the two held-out ones (drift, tangled) x clean, traps 0.15 and traps 0.3, on the evaluation seeds
 * (from 1000; the tuning seeds are 0-99), validator shared-charged; then the same default cell with
 * no validator for anyone (both modes reported; the goal is judged with the shared one). Records the
 * won and lost cells with their figures and the command in docs/BENCHMARKS.md.
 */
import { arenaCommand } from "../cli/commands/arena";
import {
  DEFAULT_SEED_BASE,
  defaultWorkers,
  type ArenaReport,
  type GoalCheck,
  type LearnerId,
  type StrategyResult,
  oracleMissesToo,
  ratioText,
} from "../lib/arena";
import { flagValue, jsonTarget, machine, recordSection } from "./lib";

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const SEEDS = Number(flagValue("--seeds", "10", argv));
// --family a,b and --no-none narrow the matrix (a loaded machine); the default is the whole goal matrix.
const FAMILIES = flagValue("--family", "search-agent,frozenlake-mapf", argv).split(",");
const NONE_CELL = !argv.includes("--no-none");
const LEARNERS: LearnerId[] = ["default", "drift", "tangled"];
const TRAPS = [0.15, 0.3];
const BASELINES = ["uniform", "threshold", "rlve", "sfl", "plr", "accel", "oracle"] as const;

const n = (x: number) => x.toLocaleString("en-US");
const to = (r: StrategyResult | undefined, level: 50 | 80) => {
  if (!r) return "—";
  const v = level === 50 ? r.rolloutsTo50 : r.rolloutsTo80;
  const reached = level === 50 ? r.reached50 : r.reached80;
  return `${v === null ? "never" : n(v)} (${reached})`;
};

/** The won/lost matrix: one row per family and learner, a column per setting, the lost comparisons named. */
function matrixTable(cells: ArenaReport[]): string {
  const lines = ["| family · learner | clean | traps 15% | traps 30% |", "|---|---|---|---|"];
  for (const family of FAMILIES)
    for (const learner of LEARNERS) {
      const row = cells.filter((c) => c.family === family && c.learner === learner);
      if (row.length === 0) continue;
      const cols = [
        { cell: row[0], setting: "clean" as const },
        ...TRAPS.map((s) => ({ cell: row.find((c) => c.trapShare === s), setting: "traps" as const })),
      ].map(({ cell, setting }) => {
        if (!cell) return "—";
        const checks = cell.goal.checks.filter((c) => c.setting === setting);
        const lost = checks.filter((c) => !c.won);
        if (lost.length === 0) return `**won** ${checks.length}/${checks.length}`;
        const item = (c: GoalCheck) => `${c.level}% vs ${c.baseline} ${ratioText(c)}${oracleMissesToo(c) ? "†" : ""}`;
        return `lost ${checks.length - lost.length}/${checks.length}: ${lost.map(item).join(", ")}`;
      });
      lines.push(`| ${family} · ${learner} | ${cols.join(" | ")} |`);
    }
  return lines.join("\n");
}

/** Rollouts to 50% and 80% (IQM, seeds reached in brackets) of the heuristic and every baseline, per cell and setting. */
function figuresTable(cells: ArenaReport[]): string {
  const lines = [
    `| family · learner · setting | level | heuristic | ${BASELINES.join(" | ")} |`,
    `|---|---|---|${BASELINES.map(() => "---").join("|")}|`,
  ];
  for (const family of FAMILIES)
    for (const learner of LEARNERS) {
      const row = cells.filter((c) => c.family === family && c.learner === learner);
      if (row.length === 0) continue;
      const settings = [
        { label: "clean", cell: row[0], setting: "clean" as const },
        ...row.map((cell) => ({ label: `traps ${cell.trapShare}`, cell, setting: "traps" as const })),
      ];
      for (const { label, cell, setting } of settings)
        for (const level of [50, 80] as const) {
          const s = cell.settings[setting];
          lines.push(
            `| ${family} · ${learner} · ${label} | ${level}% | **${to(s.heuristic, level)}** | ${BASELINES.map((x) => to(s[x], level)).join(" | ")} |`,
          );
        }
    }
  return lines.join("\n");
}

async function main() {
  const json = jsonTarget();
  const workers = defaultWorkers();
  const flags = `--seeds ${SEEDS}${QUICK ? " --quick" : ""}`;
  const command = `envforge arena ${flags} --family ${FAMILIES.join(",")} --learner ${LEARNERS.join(",")} --traps ${TRAPS.join(",")} --jobs ${workers}`;
  console.log(`[bench:arena] ${machine()}; ${command}`);
  const started = performance.now();
  const { cells } = await arenaCommand({
    seeds: SEEDS,
    quick: QUICK,
    families: FAMILIES,
    learners: LEARNERS,
    trapShares: TRAPS,
    json: json ?? undefined,
    workers,
    quiet: true,
  });
  const matrixS = (performance.now() - started) / 1000;
  const noneStarted = performance.now();
  const { cells: none } = NONE_CELL
    ? await arenaCommand({ seeds: SEEDS, quick: QUICK, validator: "none", workers, quiet: true })
    : { cells: [] as ArenaReport[] };
  const noneS = (performance.now() - noneStarted) / 1000;
  const won = cells.reduce((a, c) => a + c.goal.won, 0);
  const total = cells.reduce((a, c) => a + c.goal.checks.length, 0);
  const beyondOracle = cells.reduce((a, c) => a + c.goal.checks.filter(oracleMissesToo).length, 0);
  const noneCell = none[0] as ArenaReport | undefined;
  const defaultCell = cells.find((c) => c.family === "search-agent" && c.learner === "default" && c.trapShare === 0.15);
  const ratio = (cell: ArenaReport, setting: "clean" | "traps", baseline: string, level: 50 | 80) =>
    cell.goal.checks.find((c) => c.setting === setting && c.baseline === baseline && c.level === level)?.ratio.toFixed(2) ?? "—";
  recordSection(
    "Curriculum arena goal matrix (`npm run bench:arena`)",
    `${new Date().toISOString().slice(0, 10)}, ${machine()}. Command: \`${command}\` (validator shared-charged, 1 ` +
      `rollout a first call; evaluation seeds ${DEFAULT_SEED_BASE}-${DEFAULT_SEED_BASE + SEEDS - 1}; the heuristic and ` +
      `every baseline knob were tuned on seeds 0-99)${QUICK ? "; **quick** budget (a quarter of the rollouts at four times the learning rate)" : ""}. ` +
      `Wall time ${matrixS.toFixed(0)} s for the matrix, ${noneS.toFixed(0)} s for the validator-none cell.

**Goal**: to 50% and to 80% target success, the heuristic needs at most 0.6x uniform's rollouts and at most each ` +
      `of threshold, RLVE, SFL, PLR and ACCEL's (IQM over ${SEEDS} seeds; a seed that never gets there counts as the ` +
      `budget, ${n(cells[0].budget.rollouts)} rollouts). **${won} of ${total} comparisons won.** Of the ${total - won} lost, ` +
      `${beyondOracle} (marked †) the oracle misses too: it reads the learner (the upper bound), so no strategy of this arena ` +
      `is known to meet them; the clean setting's checks count once per trap share.

${matrixTable(cells)}

Rollouts to 50% and 80% target success (IQM; seeds of ${SEEDS} that got there in brackets; oracle = upper bound, not in the goal):

${figuresTable(cells)}

${
  noneCell && defaultCell
    ? `Both validator modes (search-agent, default learner, traps 0.15): heuristic/uniform to 50% ` +
      `${ratio(defaultCell, "clean", "uniform", 50)} clean, ${ratio(defaultCell, "traps", "uniform", 50)} traps with the validator ` +
      `shared and charged; ${ratio(noneCell, "clean", "uniform", 50)} clean, ${ratio(noneCell, "traps", "uniform", 50)} traps ` +
      `with no validator for anyone (${noneCell.goal.won}/${noneCell.goal.checks.length} comparisons won without one).`
    : "The validator-none cell was not run (--no-none)."
}`,
  );
  console.log(`[bench:arena] ${won}/${total} comparisons won; matrix ${matrixS.toFixed(0)} s`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

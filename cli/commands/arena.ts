/** `envforge arena`: the curriculum arena, in this process (no server needed). */
import fs from "node:fs";
import path from "node:path";
import {
  ARENA_SETTINGS,
  DEFAULT_ARENA_FAMILY,
  DEFAULT_TRAP_SHARE,
  defaultWorkers,
  oracleMissesToo,
  ratioText,
  runArenaMatrix,
  type ArenaMatrixReport,
  type ArenaReport,
  type LearnerId,
  type StrategyResult,
  type ValidatorMode,
} from "@/lib/arena";
import { Progress } from "../progress";

export interface ArenaCommandOptions {
  seeds: number;
  seedBase?: number;
  quick?: boolean;
  json?: string;
  /** one family, or several for a matrix */
  family?: string;
  families?: string[];
  learners?: LearnerId[];
  trapShares?: number[];
  validator?: ValidatorMode;
  validatorCost?: number;
  strategies?: string[];
  workers?: number;
  quiet?: boolean;
}

const fmtRollouts = (value: number | null, ci: [number, number], reached: number, seeds: number) =>
  value === null
    ? `never (0/${seeds})`
    : `${value.toLocaleString("en-US")} [${ci[0].toLocaleString("en-US")}, ${ci[1].toLocaleString("en-US")}]${reached < seeds ? ` (${reached}/${seeds})` : ""}`;

/** The strategy x setting table: rollouts to 50% and 80% target success, AUC and final success (IQMs, 95% intervals). */
export function arenaTable(report: ArenaReport): string {
  const header = ["strategy", "setting", "rollouts to 50%", "rollouts to 80%", "AUC", "final"];
  const rows: string[][] = [];
  const strategies = Object.keys(report.settings.clean);
  for (const strategy of strategies) {
    for (const setting of ARENA_SETTINGS) {
      const r = report.settings[setting][strategy as keyof typeof report.settings.clean] as StrategyResult | undefined;
      if (!r) continue;
      rows.push([
        strategy,
        setting,
        fmtRollouts(r.rolloutsTo50, r.rolloutsTo50CI, r.reached50, report.seeds),
        fmtRollouts(r.rolloutsTo80, r.rolloutsTo80CI, r.reached80, report.seeds),
        `${r.auc.toFixed(3)} [${r.aucCI[0].toFixed(3)}, ${r.aucCI[1].toFixed(3)}]`,
        r.finalSuccess.toFixed(3),
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** The goal checks a report lost, one line each ("" when none was lost). */
export function lostChecks(report: ArenaReport): string {
  return (report.goal.checks ?? [])
    .filter((c) => !c.won)
    .map(
      (c) =>
        `  lost: ${c.setting} to ${c.level}%: heuristic ${c.heuristic} vs ${c.baseline} ${c.other} (ratio ${ratioText(c)}, goal <= ${c.limit})` +
        (oracleMissesToo(c) ? `; the oracle misses it too (${c.oracle})` : ""),
    )
    .join("\n");
}

/** One line: the cell, the goal checks won and lost, and the headline ratios. */
export function arenaSummaryLine(report: ArenaReport): string {
  const r = (x: number | null) => (x === null ? "n/a" : x.toFixed(2));
  const g = report.goal;
  const cell = [
    report.family,
    report.learner ? `learner ${report.learner}` : null,
    report.trapShare !== undefined ? `traps ${report.trapShare}` : null,
  ]
    .filter(Boolean)
    .join(", ");
  const checks = g.checks ? `${g.won}/${g.checks.length} goal checks won` : `goal ${g.met ? "met" : "not met"}`;
  return (
    `arena (${cell}, ${report.seeds} seeds${report.seedBase !== undefined ? ` from ${report.seedBase}` : ""}${report.quick ? ", quick" : ""}): ` +
    `heuristic/uniform rollouts to 50% ${r(g.heuristicVsUniform50.clean)} clean, ${r(g.heuristicVsUniform50.traps)} ` +
    `traps (goal <= 0.60); heuristic/PLR ${r(g.heuristicVsPlr50.clean)} clean, ${r(g.heuristicVsPlr50.traps)} traps ` +
    `(goal <= 1.00); ${checks}; goal ${g.met ? "met" : "not met"} in ${(report.durationMs / 1000).toFixed(1)} s`
  );
}

/** A matrix of reports as one JSON document (several families, learners or trap shares). */
export function matrixReport(cells: ArenaReport[], durationMs: number): ArenaMatrixReport {
  const won = cells.reduce((a, c) => a + c.goal.won, 0);
  const lost = cells.reduce((a, c) => a + c.goal.lost, 0);
  const first = cells[0];
  return {
    version: 1,
    kind: "matrix",
    createdAt: new Date().toISOString(),
    seeds: first.seeds,
    seedBase: first.seedBase,
    quick: first.quick,
    validator: first.validator,
    budget: first.budget,
    cells,
    goal: { won, lost, met: lost === 0 && won > 0 },
    durationMs,
  };
}

/** Run the arena (one cell, or a matrix) with progress on stderr, print the tables and summary lines, write the JSON report when asked. */
export async function arenaCommand(
  opts: ArenaCommandOptions,
): Promise<{ report: ArenaReport | ArenaMatrixReport; cells: ArenaReport[]; code: number }> {
  let progress: Progress | null = null;
  const started = Date.now();
  const cells = await runArenaMatrix({
    seeds: opts.seeds,
    seedBase: opts.seedBase,
    quick: opts.quick,
    families: opts.families ?? [opts.family ?? DEFAULT_ARENA_FAMILY],
    learners: opts.learners ?? ["default"],
    trapShares: opts.trapShares ?? [DEFAULT_TRAP_SHARE],
    validator: opts.validator,
    validatorCost: opts.validatorCost,
    strategies: opts.strategies,
    workers: opts.workers ?? defaultWorkers(),
    onProgress(done, total, label) {
      progress ??= new Progress("arena", total, opts.quiet);
      progress.update(done, label);
    },
  });
  (progress as Progress | null)?.done();
  for (const cell of cells) {
    if (cells.length > 1) console.log(`\n${cell.family}, learner ${cell.learner}, traps ${cell.trapShare}`);
    console.log(arenaTable(cell));
  }
  const report = cells.length === 1 ? cells[0] : matrixReport(cells, Date.now() - started);
  if (opts.json) {
    const file = path.resolve(process.cwd(), opts.json);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(report, null, 2) + "\n");
    console.log(`wrote ${file}`);
  }
  for (const cell of cells) {
    console.log(arenaSummaryLine(cell));
    const lost = lostChecks(cell);
    if (lost) console.log(lost);
  }
  return { report, cells, code: 0 };
}

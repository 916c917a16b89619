/** `envforge arena`: the curriculum arena, in this process (no server needed). */
import fs from "node:fs";
import path from "node:path";
import { ARENA_SETTINGS, defaultWorkers, runArena, type ArenaReport, type StrategyResult } from "@/lib/arena";
import { Progress } from "../progress";

export interface ArenaCommandOptions {
  seeds: number;
  quick?: boolean;
  json?: string;
  family?: string;
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

/** One line: the goal ratios and whether the goal was met. */
export function arenaSummaryLine(report: ArenaReport): string {
  const r = (x: number | null) => (x === null ? "n/a" : x.toFixed(2));
  const g = report.goal;
  return `arena (${report.family}, ${report.seeds} seeds${report.quick ? ", quick" : ""}): heuristic/uniform rollouts to 50% ${r(g.heuristicVsUniform50.clean)} clean, ${r(g.heuristicVsUniform50.traps)} traps (goal <= 0.60); heuristic/PLR ${r(g.heuristicVsPlr50.clean)} clean, ${r(g.heuristicVsPlr50.traps)} traps (goal <= 1.00); goal ${g.met ? "met" : "not met"} in ${(report.durationMs / 1000).toFixed(1)} s`;
}

/** Run the arena with progress on stderr, print the table and the summary line, write the JSON report when asked. */
export async function arenaCommand(opts: ArenaCommandOptions): Promise<{ report: ArenaReport; code: number }> {
  let progress: Progress | null = null;
  const report = await runArena({
    seeds: opts.seeds,
    quick: opts.quick,
    family: opts.family,
    strategies: opts.strategies,
    workers: opts.workers ?? defaultWorkers(),
    onProgress(done, total, label) {
      progress ??= new Progress("arena", total, opts.quiet);
      progress.update(done, label);
    },
  });
  (progress as Progress | null)?.done();
  console.log(arenaTable(report));
  if (opts.json) {
    const file = path.resolve(process.cwd(), opts.json);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(report, null, 2) + "\n");
    console.log(`wrote ${file}`);
  }
  console.log(arenaSummaryLine(report));
  return { report, code: 0 };
}

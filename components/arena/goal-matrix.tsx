"use client";

import { oracleMissesToo, ratioText } from "@/lib/arena/goal";
import type { ArenaReport, GoalCheck } from "@/lib/arena/types";
import { count } from "@/components/ui/format";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/shell";
import { Table, type Column } from "@/components/ui/table";

/** The goal in words a user understands (issue 16). */
export function GoalExplanation() {
  return (
    <div className="max-w-4xl space-y-1 text-sm text-zinc-700" data-testid="arena-goal-text">
      <p>
        <strong>The goal.</strong> A curriculum is good when the learner gets good at the hard tasks quickly. We count the rollouts
        (attempts, including every check a strategy pays for) each strategy needs until the simulated learner succeeds on half, and then on
        four fifths, of a held-out set of hard tasks. The heuristic engineer wins a comparison when it needs at most 60% of what plain
        random sampling (uniform) needs, and no more than each of the other published curricula (threshold stepping, RLVE, SFL, PLR, ACCEL).
      </p>
      <p>
        It has to win on every cell: two task families, three simulated learners (the one it was tuned on and two it never saw), and with
        0%, 15% or 30% of the task space turned into traps (tasks nobody can solve, tasks whose success is a coin toss that looks like
        progress, tasks that teach the wrong thing). Every strategy gets the same validator at the same price; only the oracle, which reads
        the learner&apos;s mind, is shown as an upper bound. Figures are interquartile means (the mean of the middle half) over 10
        evaluation seeds that no rule was tuned on; a seed that never gets there counts as the whole budget.
      </p>
      <details className="text-zinc-600">
        <summary className="cursor-pointer text-zinc-700">What the strategies are</summary>
        <ul className="mt-1 list-disc space-y-0.5 pl-5" data-testid="arena-strategies">
          {STRATEGY_WORDS.map(([name, words]) => (
            <li key={name}>
              <strong className="font-medium text-zinc-800">{name}</strong>: {words}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

/** The strategies in a sentence each (lib/arena/strategies.ts has their sources and knobs). */
const STRATEGY_WORDS: [string, string][] = [
  [
    "heuristic",
    "EnvForge's environment engineer: keeps the most learnable tasks (of two that teach alike, the harder, and less " +
      "of a task passed half the time where the learner passes most tasks as hard), " +
      "drops a task whose success stands still together with its offspring, makes solved ones harder and failing ones " +
      "easier, and adds one fresh task from the generator a generation.",
  ],
  ["uniform", "plain random sampling: every batch drawn fresh from the task generator."],
  ["threshold", "threshold stepping: one difficulty level, raised when the learner passes over 70% of a batch, lowered below 30%."],
  [
    "RLVE",
    "adaptive difficulty (from RL with verifiable environments): a window of levels that moves up once the learner is accurate enough.",
  ],
  ["SFL", "Sampling For Learnability: tries many candidate tasks and trains on those the learner passes about half the time."],
  ["PLR", "Prioritized Level Replay: replays the tasks with the most to learn from, kept in a buffer."],
  ["ACCEL", "PLR that also trains on small edits of the tasks it replays."],
  ["oracle", "reads the learner's true state to pick the best batch; not a real strategy, it shows how good a curriculum could be."],
];

interface MatrixColumn {
  cell: ArenaReport;
  setting: "clean" | "traps";
}

/** One row of the matrix: a family and learner, with its cells (one per trap share). */
interface MatrixRow {
  label: string;
  cells: ArenaReport[];
}

function checksOf(column: MatrixColumn): GoalCheck[] {
  return (column.cell.goal.checks ?? []).filter((c) => c.setting === column.setting);
}

function CellBadge({ checks }: { checks: GoalCheck[] }) {
  if (checks.length === 0) return <span className="text-zinc-500">—</span>;
  const lost = checks.filter((c) => !c.won);
  const won = checks.length - lost.length;
  return (
    <div>
      <span
        className={`rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ${
          lost.length === 0 ? "bg-green-100 text-green-800" : "bg-amber-100 text-amber-800"
        }`}
        data-testid="arena-matrix-cell"
        title={`the heuristic won ${won} of ${checks.length} comparisons`}
      >
        {lost.length === 0 ? `won all ${checks.length}` : `lost ${lost.length} of ${checks.length}`}
      </span>
      {lost.length > 0 && (
        <ul className="mt-1 space-y-0.5 text-xs text-zinc-600">
          {lost.map((c) => (
            <li key={`${c.level}-${c.baseline}`} data-testid="arena-matrix-lost">
              to {c.level}%: {count(c.heuristic)} vs {c.baseline}&apos;s {count(c.other)} rollouts ({ratioText(c)}×, needs ≤ {c.limit}
              ×)
              {oracleMissesToo(c) && (
                <span className="text-zinc-500" data-testid="arena-matrix-beyond-oracle">
                  {" "}
                  · the oracle misses it too ({(c.oracle / Math.max(1, c.other)).toFixed(2)}×)
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The name of a trap-share column: 0% traps is the clean setting of every cell. */
const shareLabel = (share: number) => `${Math.round(share * 100)}% traps`;

/**
 * The goal matrix: family x learner rows, a column per trap share (0% is the clean setting), each cell won or lost with the
 * comparisons it lost. A table from 768 px up; below, one block per row with its cells stacked, so a phone shows the
 * lost comparisons without scrolling sideways.
 */
export function GoalMatrix({ cells, onPick }: { cells: ArenaReport[]; onPick?: (index: number) => void }) {
  const byLabel = new Map<string, ArenaReport[]>();
  for (const cell of cells) {
    const key = `${cell.family} · ${cell.learner ?? "default"}`;
    byLabel.set(key, [...(byLabel.get(key) ?? []), cell]);
  }
  const rows: MatrixRow[] = [...byLabel].map(([label, row]) => ({ label, cells: row }));
  const shares = [...new Set(cells.map((c) => c.trapShare ?? 0.15))].sort((a, b) => a - b);
  const won = cells.reduce((a, c) => a + (c.goal.checks ?? []).filter((x) => x.won).length, 0);
  const total = cells.reduce((a, c) => a + (c.goal.checks ?? []).length, 0);
  const withOracle = cells.some((c) => (c.goal.checks ?? []).some((x) => x.oracleWon !== undefined));
  const beyondOracle = cells.reduce((a, c) => a + (c.goal.checks ?? []).filter(oracleMissesToo).length, 0);
  const perCell = cells[0]?.goal.checks?.filter((c) => c.setting === "clean").length ?? 0;
  const rivals = new Set((cells[0]?.goal.checks ?? []).map((c) => c.baseline)).size;
  const badge = (column: MatrixColumn | null) =>
    column ? <CellBadge checks={checksOf(column)} /> : <span className="text-zinc-500">—</span>;
  /** the row's cells in column order: the clean setting (0% traps), then one per trap share */
  const columnsOf = (row: MatrixRow): { header: string; column: MatrixColumn | null }[] => [
    { header: shareLabel(0), column: { cell: row.cells[0], setting: "clean" } },
    ...shares.map((share) => {
      const cell = row.cells.find((c) => (c.trapShare ?? 0.15) === share);
      return { header: shareLabel(share), column: cell ? { cell, setting: "traps" as const } : null };
    }),
  ];
  const rowName = (row: MatrixRow) =>
    onPick ? (
      <Button variant="link" onClick={() => onPick(cells.indexOf(row.cells[0]))}>
        {row.label}
      </Button>
    ) : (
      row.label
    );
  const columns: Column<MatrixRow>[] = [
    { key: "label", header: "Family · learner", rowHeader: true, className: "whitespace-nowrap", cell: rowName },
    ...columnsOf(rows[0] ?? { label: "", cells: [] }).map(({ header }, i): Column<MatrixRow> => ({
      key: header,
      header,
      cell: (row) => badge(columnsOf(row)[i].column),
    })),
  ];
  return (
    <Panel
      className="mb-3"
      title={`Goal matrix: ${won} of ${total} comparisons won${beyondOracle > 0 ? `; ${beyondOracle} of the lost the oracle misses too` : ""}`}
    >
      <p className="mb-2 max-w-4xl text-xs text-zinc-600" data-testid="arena-matrix-legend">
        Each cell is one family, learner and share of traps. In it the heuristic engineer is compared with {rivals} rival
        {rivals === 1 ? "" : "s"} to 50% and to 80% target success ({perCell} comparisons); the cell is won when every comparison is. Lost
        ones are listed: the rollouts the heuristic needed against the rival&apos;s, their ratio and the most it may be (0.6×
        uniform&apos;s, 1× any other&apos;s).
        {withOracle
          ? " A lost one the oracle misses too (it reads the learner's true state: the best curriculum this arena knows) asks for more " +
            "than any strategy here is known to give; the others are where the heuristic falls short."
          : ""}
        {shares.length > 1
          ? ` Each share of traps is run beside its own clean run (the same seeds, so the same figures): the ${shareLabel(0)} ` +
            "column shows it once, and the totals above count its comparisons once per share."
          : ""}
        {cells[0]?.quick ? " This report is a quick run (fewer seeds, a quarter of the budget), so it only hints at the goal." : ""}
        {onPick ? " Pick a family · learner for its curves and tables below." : ""}
      </p>
      <div className="hidden md:block">
        <Table
          columns={columns}
          rows={rows}
          rowKey={(row) => row.label}
          size="sm"
          testId="arena-matrix"
          caption="Goal matrix"
          empty={false}
        />
      </div>
      <ul className="space-y-3 md:hidden" data-testid="arena-matrix-stacked" aria-label="Goal matrix">
        {rows.map((row) => (
          <li key={row.label} className="border-t border-zinc-100 pt-2 first:border-t-0 first:pt-0">
            <div className="mb-1 text-sm font-medium">{rowName(row)}</div>
            <dl className="space-y-1.5 text-sm">
              {columnsOf(row).map(({ header, column }) => (
                <div key={header} className="grid grid-cols-[5.5rem_1fr] gap-2">
                  <dt className="text-xs text-zinc-500">{header}</dt>
                  <dd>{badge(column)}</dd>
                </div>
              ))}
            </dl>
          </li>
        ))}
      </ul>
    </Panel>
  );
}

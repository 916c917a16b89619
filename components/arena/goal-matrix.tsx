"use client";

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
        0%, 15% or 30% of the task space turned into traps (tasks nobody can solve, coins that look like progress, tasks that teach the
        wrong thing). Every strategy gets the same validator at the same price; only the oracle, which reads the learner&apos;s mind, is
        shown as an upper bound. Figures are interquartile means over 10 evaluation seeds that no rule was tuned on; a seed that never gets
        there counts as the whole budget.
      </p>
    </div>
  );
}

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
        className={`rounded px-1.5 py-0.5 text-xs font-medium ${lost.length === 0 ? "bg-green-100 text-green-800" : "bg-amber-100 text-amber-800"}`}
        data-testid="arena-matrix-cell"
      >
        {lost.length === 0 ? "won" : "lost"} · {won}/{checks.length}
      </span>
      {lost.length > 0 && (
        <ul className="mt-1 space-y-0.5 text-xs text-zinc-600">
          {lost.map((c) => (
            <li key={`${c.level}-${c.baseline}`}>
              to {c.level}%: {count(c.heuristic)} vs {c.baseline} {count(c.other)} ({c.ratio.toFixed(2)}, ≤ {c.limit})
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The goal matrix: family x learner rows, clean / traps columns, each cell won or lost with the comparisons it lost. */
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
  const badge = (column: MatrixColumn | null) =>
    column ? <CellBadge checks={checksOf(column)} /> : <span className="text-zinc-500">—</span>;
  const columns: Column<MatrixRow>[] = [
    {
      key: "label",
      header: "Family · learner",
      rowHeader: true,
      className: "whitespace-nowrap",
      cell: (row) =>
        onPick ? (
          <Button variant="link" onClick={() => onPick(cells.indexOf(row.cells[0]))}>
            {row.label}
          </Button>
        ) : (
          row.label
        ),
    },
    { key: "clean", header: "Clean", cell: (row) => badge({ cell: row.cells[0], setting: "clean" }) },
    ...shares.map((share): Column<MatrixRow> => ({
      key: `traps-${share}`,
      header: `Traps ${Math.round(share * 100)}%`,
      cell: (row) => {
        const cell = row.cells.find((c) => (c.trapShare ?? 0.15) === share);
        return badge(cell ? { cell, setting: "traps" } : null);
      },
    })),
  ];
  return (
    <Panel className="mb-3" title={`Goal matrix: ${won} of ${total} comparisons won`}>
      <Table
        columns={columns}
        rows={rows}
        rowKey={(row) => row.label}
        size="sm"
        testId="arena-matrix"
        caption="Goal matrix"
        empty={false}
      />
    </Panel>
  );
}

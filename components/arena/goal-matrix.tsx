"use client";

import type { ArenaReport, GoalCheck } from "@/lib/arena/types";
import { count } from "@/components/ui/format";
import { Panel } from "@/components/ui/shell";

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
  label: string;
  cell: ArenaReport;
  setting: "clean" | "traps";
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
  const rows = new Map<string, ArenaReport[]>();
  for (const cell of cells) {
    const key = `${cell.family} · ${cell.learner ?? "default"}`;
    rows.set(key, [...(rows.get(key) ?? []), cell]);
  }
  const shares = [...new Set(cells.map((c) => c.trapShare ?? 0.15))].sort((a, b) => a - b);
  const won = cells.reduce((a, c) => a + (c.goal.checks ?? []).filter((x) => x.won).length, 0);
  const total = cells.reduce((a, c) => a + (c.goal.checks ?? []).length, 0);
  return (
    <Panel className="mb-3" title={`Goal matrix: ${won} of ${total} comparisons won`}>
      <div className="overflow-x-auto">
        <table className="w-full text-sm" data-testid="arena-matrix">
          <thead>
            <tr className="text-left text-xs text-zinc-500">
              <th className="py-1 pr-3 font-medium">Family · learner</th>
              <th className="py-1 pr-3 font-medium">Clean</th>
              {shares.map((s) => (
                <th key={s} className="py-1 pr-3 font-medium">
                  Traps {Math.round(s * 100)}%
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {[...rows].map(([label, row]) => {
              const columns: (MatrixColumn | null)[] = [
                { label: "clean", cell: row[0], setting: "clean" },
                ...shares.map((s) => {
                  const cell = row.find((c) => (c.trapShare ?? 0.15) === s);
                  return cell ? ({ label: `traps ${s}`, cell, setting: "traps" } as MatrixColumn) : null;
                }),
              ];
              return (
                <tr key={label} className="border-t border-zinc-100 align-top">
                  <th scope="row" className="py-1.5 pr-3 text-left font-normal whitespace-nowrap">
                    {onPick ? (
                      <button type="button" className="underline decoration-dotted" onClick={() => onPick(cells.indexOf(row[0]))}>
                        {label}
                      </button>
                    ) : (
                      label
                    )}
                  </th>
                  {columns.map((col, i) => (
                    <td key={i} className="py-1.5 pr-3">
                      {col ? <CellBadge checks={checksOf(col)} /> : <span className="text-zinc-500">—</span>}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}

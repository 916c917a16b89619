"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useState } from "react";
import type { ArenaCurve, ArenaMatrixReport, ArenaReport, ArenaSetting, StrategyResult } from "@/lib/arena/types";
import { GoalExplanation, GoalMatrix } from "./goal-matrix";
import type { ArenaRunView } from "@/lib/arena-runs/service";
import { apiFetch } from "@/components/ui/api-client";
import { count, fixed, pct, dateTime } from "@/components/ui/format";
import { Panel } from "@/components/ui/shell";
import { Button } from "@/components/ui/button";
import { Table } from "@/components/ui/table";

const COLORS: Record<string, string> = {
  uniform: "#a1a1aa",
  threshold: "#f59e0b",
  rlve: "#84cc16",
  sfl: "#06b6d4",
  plr: "#8b5cf6",
  accel: "#ec4899",
  heuristic: "#1d4ed8",
  llm: "#0f766e",
  oracle: "#18181b",
};

type RunView = ArenaRunView;

/** Target success against rollouts, one line per strategy, on a common grid. */
function Curves({ curves, budget }: { curves: Partial<Record<string, ArenaCurve>>; budget: number }) {
  const strategies = Object.keys(curves);
  const grid = new Map<number, Record<string, number>>();
  for (const s of strategies) {
    const c = curves[s]!;
    c.rollouts.forEach((r, i) => {
      const row = grid.get(r) ?? { rollouts: r };
      row[s] = +(c.success[i] * 100).toFixed(1);
      grid.set(r, row);
    });
  }
  const data = [...grid.values()].sort((a, b) => a.rollouts - b.rollouts);
  return (
    <div className="h-72 w-full">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: -8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
          <XAxis
            dataKey="rollouts"
            type="number"
            domain={[0, budget]}
            tick={{ fontSize: 12 }}
            tickFormatter={(v) => (v >= 1000 ? `${Math.round(v / 1000)}k` : String(v))}
          />
          <YAxis domain={[0, 100]} tick={{ fontSize: 12 }} unit="%" />
          <Tooltip
            formatter={(v, name) => [`${v}%`, name]}
            labelFormatter={(v) => `${count(Number(v))} rollouts`}
            contentStyle={{ fontSize: 12 }}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <ReferenceLine y={50} stroke="#71717a" strokeDasharray="4 4" />
          <ReferenceLine y={80} stroke="#d4d4d8" strokeDasharray="4 4" />
          {strategies.map((s) => (
            <Line
              key={s}
              dataKey={s}
              name={s}
              stroke={COLORS[s] ?? "#52525b"}
              strokeWidth={s === "heuristic" ? 3 : 1.5}
              dot={false}
              isAnimationActive={false}
              connectNulls
              type="monotone"
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

function ci(c: [number, number] | undefined) {
  return c ? (
    <span className="text-xs text-zinc-500">
      {" "}
      [{count(Math.round(c[0]))}–{count(Math.round(c[1]))}]
    </span>
  ) : null;
}

function ResultTable({ results, seeds }: { results: Partial<Record<string, StrategyResult>>; seeds: number }) {
  const rows = Object.entries(results).sort((a, b) => (a[1]!.rolloutsTo50 ?? Infinity) - (b[1]!.rolloutsTo50 ?? Infinity));
  return (
    <Table
      size="sm"
      numeric
      testId="arena-table"
      rows={rows}
      rowKey={([s]) => s}
      rowClassName={([s]) => (s === "heuristic" ? "bg-blue-50 font-medium" : "")}
      columns={[
        {
          key: "strategy",
          header: "Strategy",
          className: "whitespace-nowrap",
          cell: ([s]) => (
            <>
              <span className="mr-1.5 inline-block h-2 w-2 rounded-full" style={{ background: COLORS[s] ?? "#52525b" }} />
              {s}
            </>
          ),
        },
        {
          key: "to50",
          header: "Rollouts to 50%",
          align: "right",
          className: "whitespace-nowrap",
          cell: ([, r]) => (
            <>
              {r!.rolloutsTo50 === null ? "—" : count(Math.round(r!.rolloutsTo50))}
              {ci(r!.rolloutsTo50CI)}
            </>
          ),
        },
        {
          key: "to80",
          header: "Rollouts to 80%",
          align: "right",
          className: "whitespace-nowrap",
          cell: ([, r]) => (
            <>
              {r!.rolloutsTo80 === null ? "—" : count(Math.round(r!.rolloutsTo80))}
              {ci(r!.rolloutsTo80CI)}
            </>
          ),
        },
        { key: "auc", header: "AUC", align: "right", cell: ([, r]) => fixed(r!.auc, 3) },
        { key: "final", header: "Final", align: "right", cell: ([, r]) => pct(r!.finalSuccess) },
        { key: "reached", header: "Reached 50%", align: "right", cell: ([, r]) => `${r!.reached50}/${seeds}` },
        { key: "zero", header: "Zero-signal", align: "right", cell: ([, r]) => pct(r!.zeroSignal) },
        { key: "invalid", header: "Invalid", align: "right", cell: ([, r]) => pct(r!.invalidRate) },
      ]}
    />
  );
}

/** The arena page: the latest report's curves and tables, and a button that runs a quick arena on a worker. */
export function ArenaView({ latest, canRun, active }: { latest: RunView | null; canRun: boolean; active: RunView | null }) {
  const router = useRouter();
  const run = useMutation({
    mutationFn: () => apiFetch<RunView>("/api/v1/arena/runs", { method: "POST", body: JSON.stringify({ quick: true, seeds: 3 }) }),
  });
  const activeId = run.data?.id ?? active?.id;
  const { data: progress } = useQuery({
    queryKey: ["arena-run", activeId],
    enabled: activeId !== undefined,
    queryFn: () => apiFetch<RunView>(`/api/v1/arena/runs/${activeId}`),
    refetchInterval: (q) => {
      const s = q.state.data?.status;
      if (s === "succeeded" || s === "failed") {
        router.refresh();
        return false;
      }
      return 1500;
    },
  });
  const stored = (latest?.report ?? null) as ArenaReport | ArenaMatrixReport | null;
  const cells: ArenaReport[] = stored ? ("cells" in stored ? stored.cells : [stored]) : [];
  const [picked, setPicked] = useState(0);
  const report = cells[Math.min(picked, cells.length - 1)] ?? null;
  const busy = progress ? progress.status === "queued" || progress.status === "running" : false;
  return (
    <div>
      <div className="mb-3 flex flex-wrap items-center gap-3">
        {canRun && (
          <Button variant="primary" onClick={() => run.mutate()} disabled={busy} busy={run.isPending} data-testid="arena-run">
            Run a quick arena (3 seeds)
          </Button>
        )}
        {progress && (
          <span className="text-sm text-zinc-600" data-testid="arena-progress">
            run {progress.id}: {progress.status}
            {progress.progress?.total ? ` · ${progress.progress.done}/${progress.progress.total}` : ""}
            {progress.error ? ` · ${progress.error}` : ""}
          </span>
        )}
        {run.error && <span className="text-sm text-red-700">{(run.error as Error).message}</span>}
        <span className="ml-auto text-xs text-zinc-500">
          The full matrix:{" "}
          <code>npx envforge arena --family search-agent,frozenlake-mapf --learner default,drift,tangled --traps 0.15,0.3 --upload</code>
        </span>
      </div>
      <GoalExplanation />
      <div className="mb-3" />
      {cells.some((c) => c.goal.checks) && <GoalMatrix cells={cells} onPick={cells.length > 1 ? setPicked : undefined} />}
      {!report ? (
        <Panel>
          <p className="text-zinc-600">No arena report yet. Run a quick arena here, or the full one from the command line with --upload.</p>
        </Panel>
      ) : (
        <>
          <div className="mb-3 flex flex-wrap items-center gap-3 text-sm" data-testid="arena-goal">
            <span
              className={`rounded px-2 py-0.5 font-medium ${report.goal.met ? "bg-green-100 text-green-800" : "bg-amber-100 text-amber-800"}`}
            >
              {report.goal.checks
                ? `${report.goal.won}/${report.goal.checks.length} comparisons won`
                : `goal ${report.goal.met ? "met" : "not met"}`}
            </span>
            {report.quick && (
              <span className="text-xs text-zinc-500">
                (a quick run: a quarter of the budget; the goal is judged on the full 10-seed run)
              </span>
            )}
            {(["clean", "traps"] as ArenaSetting[]).map((s) => (
              <span key={s} className="text-zinc-700">
                {s}: heuristic/uniform {fixed(report.goal.heuristicVsUniform50[s], 2)} (≤ 0.6), heuristic/PLR{" "}
                {fixed(report.goal.heuristicVsPlr50[s], 2)} (≤ 1)
              </span>
            ))}
            <span className="text-xs text-zinc-500">
              {report.family}
              {report.learner ? ` · learner ${report.learner}` : ""}
              {report.trapShare !== undefined ? ` · traps ${Math.round(report.trapShare * 100)}%` : ""}
              {report.seedBase !== undefined ? ` · seeds ${report.seedBase}–${report.seedBase + report.seeds - 1}` : ""}
              {report.validator ? ` · validator ${report.validator.mode}` : ""} · {report.seeds} seeds{report.quick ? " (quick)" : ""} ·
              budget {count(report.budget.rollouts)} rollouts · {dateTime(report.createdAt)} · {Math.round(report.durationMs / 1000)} s
            </span>
          </div>
          <div className="mb-3 grid grid-cols-1 gap-3 xl:grid-cols-2">
            {(["clean", "traps"] as ArenaSetting[]).map((s) => (
              <Panel key={s} title={`Target success against rollouts · ${s === "clean" ? "clean" : "with traps"}`}>
                <div data-testid={`arena-curves-${s}`}>
                  <Curves curves={report.curves[s]} budget={report.budget.rollouts} />
                </div>
              </Panel>
            ))}
          </div>
          {(["clean", "traps"] as ArenaSetting[]).map((s) => (
            <Panel
              key={s}
              className="mb-3"
              title={`${s === "clean" ? "Clean" : "With traps"}: interquartile means over ${report.seeds} seeds, 95% bootstrap intervals`}
            >
              <ResultTable results={report.settings[s]} seeds={report.seeds} />
            </Panel>
          ))}
          <p className="mb-3 max-w-4xl text-xs text-zinc-600" data-testid="arena-columns-legend">
            <strong className="font-medium">Columns.</strong> Rollouts to 50% / 80%: what a strategy spent until the learner succeeded on
            half / four fifths of the hard target tasks, with its 95% interval in brackets (— when most seeds never got there). AUC: the
            area under the success curve over the budget, from 0 to 1 (higher: learned sooner). Final: target success when the budget was
            spent. Reached 50%: seeds that got there. Zero-signal: groups of attempts on one task that all passed or all failed, so the
            learner had nothing to learn from them. Invalid: tasks proposed that were invalid.
          </p>
          {report.notes.length > 0 && (
            <Panel title="How these figures were made" className="mt-3">
              <ul className="list-disc space-y-1 pl-5 text-xs text-zinc-600">
                {report.notes.map((n, i) => (
                  <li key={i}>{n}</li>
                ))}
              </ul>
            </Panel>
          )}
        </>
      )}
    </div>
  );
}

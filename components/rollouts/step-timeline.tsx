"use client";

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { RolloutTimeline } from "@/lib/rollouts/timeline";
import { count } from "@/components/ui/format";

const PHASE_COLOURS: Record<string, string> = {
  environmentSetup: "bg-zinc-400",
  agentSetup: "bg-amber-400",
  agentExecution: "bg-blue-500",
  verifier: "bg-green-500",
};

function seconds(s: number): string {
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

function usd(v: number): string {
  return v >= 0.01 || v === 0 ? `$${v.toFixed(2)}` : `$${v.toPrecision(2)}`;
}

/** Harbor's phases as one bar drawn to scale, and the time (and cost) of each timed step as a chart. */
export function StepTimeline({ timeline }: { timeline: RolloutTimeline }) {
  const total = timeline.phases.reduce((a, p) => a + p.seconds, 0);
  const timed = timeline.steps.filter((s) => s.seconds !== null || s.costUsd !== null);
  const data = timed.map((s) => ({
    step: s.index,
    seconds: s.seconds === null ? 0 : +s.seconds.toFixed(2),
    cost: s.costUsd,
    role: s.role,
  }));
  const anyCost = timed.some((s) => s.costUsd !== null);
  return (
    <div className="space-y-3 text-sm" data-testid="step-timeline">
      {timeline.phases.length > 0 && (
        <div>
          <div className="flex h-4 w-full overflow-hidden rounded" role="img" aria-label="phases of the run, drawn to scale">
            {timeline.phases.map((p) => (
              <div
                key={p.name}
                className={PHASE_COLOURS[p.name]}
                style={{ width: `${total > 0 ? Math.max(0.5, (p.seconds / total) * 100) : 25}%` }}
                title={`${p.label}: ${seconds(p.seconds)}`}
              />
            ))}
          </div>
          <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-600" data-testid="timeline-phases">
            {timeline.phases.map((p) => (
              <li key={p.name}>
                <span className={`mr-1 inline-block h-2 w-2 rounded-sm ${PHASE_COLOURS[p.name]}`} aria-hidden />
                {p.label} {seconds(p.seconds)}
              </li>
            ))}
          </ul>
        </div>
      )}
      {data.length > 1 ? (
        <div>
          <div className="text-xs text-zinc-500">
            time of each step until the next one{anyCost ? "; its LLM call's cost in the tooltip" : ""} ({count(data.length)} steps
            {timeline.truncated ? ", the first ones" : ""})
          </div>
          <div className="h-40 w-full" data-testid="timeline-steps">
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={data} margin={{ top: 8, right: 4, bottom: 0, left: -12 }}>
                <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
                <XAxis dataKey="step" tick={{ fontSize: 11 }} />
                <YAxis tick={{ fontSize: 11 }} unit=" s" />
                <Tooltip
                  formatter={(v, _name, item) => {
                    const cost = (item?.payload as { cost: number | null } | undefined)?.cost;
                    return [`${v} s${cost !== null && cost !== undefined ? `, ${usd(cost)}` : ""}`, "step"];
                  }}
                  labelFormatter={(l) => `message #${l}`}
                />
                <Bar dataKey="seconds" fill="#2563eb" />
              </BarChart>
            </ResponsiveContainer>
          </div>
        </div>
      ) : (
        timeline.phases.length === 0 && <p className="text-zinc-500">The source recorded no step times for this rollout.</p>
      )}
      {timeline.costUsd !== null && (
        <div className="text-xs text-zinc-600" data-testid="timeline-cost">
          cost of this rollout: <span className="font-mono">{usd(timeline.costUsd)}</span>
          {timeline.costUsd === 0 && " (as the source reported it: a self-hosted model is often priced at nothing)"}
        </div>
      )}
    </div>
  );
}

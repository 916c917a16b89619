"use client";

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { fixed, LEARNABILITY_HELP } from "@/components/ui/format";

export interface TrendPoint {
  index: number;
  successRate: number | null;
  learnability: number | null;
  zeroSignalFraction: number | null;
}

/** Success rate and zero-signal share (percent, left axis) and learnability (its own 0–0.25 axis, right) across generations. */
export function GenerationTrend({ points }: { points: TrendPoint[] }) {
  const data = points.map((p) => ({
    generation: `G${p.index}`,
    success: p.successRate === null ? null : +(p.successRate * 100).toFixed(1),
    zeroSignal: p.zeroSignalFraction === null ? null : +(p.zeroSignalFraction * 100).toFixed(1),
    learnability: p.learnability === null ? null : +p.learnability.toFixed(3),
  }));
  return (
    <div className="h-56 w-full" data-testid="generation-trend" title={LEARNABILITY_HELP}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ top: 8, right: 4, bottom: 0, left: -12 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
          <XAxis dataKey="generation" tick={{ fontSize: 12 }} />
          <YAxis yAxisId="pct" domain={[0, 100]} tick={{ fontSize: 12 }} unit="%" />
          {/* learnability lives in [0, 0.25]: its own axis, never rescaled onto percentages */}
          <YAxis
            yAxisId="learn"
            orientation="right"
            domain={[0, 0.25]}
            ticks={[0, 0.05, 0.1, 0.15, 0.2, 0.25]}
            tick={{ fontSize: 12, fill: "#2563eb" }}
            width={44}
          />
          <Tooltip formatter={(v, name) => (name === "learnability (right axis)" ? [fixed(Number(v)), "learnability"] : [`${v}%`, name])} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Line
            yAxisId="pct"
            type="monotone"
            dataKey="success"
            name="success rate"
            stroke="#18181b"
            strokeWidth={2}
            dot
            isAnimationActive={false}
            connectNulls
          />
          <Line
            yAxisId="pct"
            type="monotone"
            dataKey="zeroSignal"
            name="zero-signal envs"
            stroke="#d97706"
            strokeWidth={2}
            dot
            isAnimationActive={false}
            connectNulls
          />
          <Line
            yAxisId="learn"
            type="monotone"
            dataKey="learnability"
            name="learnability (right axis)"
            stroke="#2563eb"
            strokeWidth={2}
            dot
            isAnimationActive={false}
            connectNulls
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

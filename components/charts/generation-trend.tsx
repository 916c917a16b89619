"use client";

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export interface TrendPoint {
  index: number;
  successRate: number | null;
  learnability: number | null;
  zeroSignalFraction: number | null;
}

/** Success rate, zero-signal share and learnability across generations. */
export function GenerationTrend({ points }: { points: TrendPoint[] }) {
  const data = points.map((p) => ({
    generation: `G${p.index}`,
    success: p.successRate === null ? null : +(p.successRate * 100).toFixed(1),
    zeroSignal: p.zeroSignalFraction === null ? null : +(p.zeroSignalFraction * 100).toFixed(1),
    learnability: p.learnability === null ? null : +(p.learnability * 400).toFixed(1),
  }));
  return (
    <div className="h-56 w-full" data-testid="generation-trend">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: -12 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
          <XAxis dataKey="generation" tick={{ fontSize: 12 }} />
          <YAxis domain={[0, 100]} tick={{ fontSize: 12 }} unit="%" />
          <Tooltip formatter={(v, name) => (name === "learnability (×400)" ? [`${(Number(v) / 400).toFixed(3)}`, "learnability"] : [`${v}%`, name])} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Line type="monotone" dataKey="success" name="success rate" stroke="#18181b" strokeWidth={2} dot isAnimationActive={false} connectNulls />
          <Line type="monotone" dataKey="zeroSignal" name="zero-signal envs" stroke="#d97706" strokeWidth={2} dot isAnimationActive={false} connectNulls />
          <Line type="monotone" dataKey="learnability" name="learnability (×400)" stroke="#2563eb" strokeWidth={2} dot isAnimationActive={false} connectNulls />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

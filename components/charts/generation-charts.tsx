"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
  pattern,
  patterns,
  type RechartsFill,
} from "recharts";
import type { DifficultyTier } from "@/lib/analytics/metrics";
import type { ComparisonPoint, FieldBreakdownView, PolicyComparison, SuccessBin } from "@/lib/analytics/views";
import { defaultBreakdownField } from "@/lib/analytics/field-choice";
import { count, pct } from "@/components/ui/format";
import { fieldClass } from "@/components/ui/form";
import { Table } from "@/components/ui/table";
import { Button } from "@/components/ui/button";

const AXIS_TICK = { fontSize: 12 };
const GRID_STROKE = "#e4e4e7";
const INK = "#3f3f46";
const PERCENT_TICKS = [0, 0.25, 0.5, 0.75, 1];
const MARGIN = { top: 8, right: 16, bottom: 0, left: -12 };
const TOOLTIP_STYLE = { fontSize: 12, padding: "4px 8px" };
const BAR_CURSOR = { fill: "#f4f4f5" };

const TIER_COLOURS: Record<DifficultyTier, string> = {
  frontier: "#dc2626",
  advanced: "#d97706",
  core: "#2563eb",
  solved: "#16a34a",
};
// Hardest first, as DIFFICULTY_TIERS in lib/analytics/metrics (only types are imported from there).
const TIER_ORDER: DifficultyTier[] = ["frontier", "advanced", "core", "solved"];

const SERIES_COLOURS = ["#18181b", "#2563eb", "#d97706", "#16a34a", "#dc2626", "#7c3aed", "#0891b2", "#db2777"];

const INFRA_FILL: RechartsFill = { color: "#a1a1aa", definition: pattern(patterns.diagonal) };
const INFRA_SWATCH = "repeating-linear-gradient(45deg, #a1a1aa 0 3px, #e4e4e7 3px 5px)";

const CHANGE_COLOURS = { improved: "#16a34a", regressed: "#dc2626", unchanged: "#a1a1aa" };

function percentTick(value: number): string {
  return `${Math.round(value * 100)}%`;
}

/** A signed difference of two rates in percentage points, one decimal. */
function percentPoints(delta: number): string {
  if (Number.isNaN(delta)) return "—";
  return `${delta > 0 ? "+" : ""}${(delta * 100).toFixed(1)} pp`;
}

function NoData() {
  return <div className="flex h-56 items-center justify-center text-xs text-zinc-500">No data</div>;
}

function TooltipBox({ children }: { children: ReactNode }) {
  return <div className="rounded border border-zinc-200 bg-white px-2 py-1 text-xs text-zinc-700 shadow-sm">{children}</div>;
}

/** How many environments fall in each success-rate bin. */
export function SuccessHistogram({ bins }: { bins: SuccessBin[] }) {
  const data = bins.map((b) => ({ label: `${Math.round(b.lo * 100)}–${Math.round(b.hi * 100)}%`, environments: b.environments }));
  const total = bins.reduce((sum, b) => sum + b.environments, 0);
  return (
    <div className="h-56 w-full" data-testid="chart-success-distribution">
      {total === 0 ? (
        <NoData />
      ) : (
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={MARGIN}>
            <CartesianGrid strokeDasharray="3 3" stroke={GRID_STROKE} vertical={false} />
            <XAxis dataKey="label" tick={AXIS_TICK} interval={0} />
            <YAxis tick={AXIS_TICK} allowDecimals={false} />
            <Tooltip
              cursor={BAR_CURSOR}
              contentStyle={TOOLTIP_STYLE}
              labelFormatter={(label) => `success ${label}`}
              formatter={(v) => [count(Number(v)), "environments"]}
            />
            <Bar dataKey="environments" name="environments" fill={INK} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      )}
    </div>
  );
}

/** pass@k against k, one line per series (e.g. per policy). */
export function PassAtKCurve({ series }: { series: { name: string; passAtK: Record<string, number> }[] }) {
  const ks = [...new Set(series.flatMap((s) => Object.keys(s.passAtK)))]
    .map(Number)
    .filter((k) => Number.isFinite(k))
    .sort((x, y) => x - y);
  // Series are keyed by position: a policy name with a dot would read as a nested path.
  const data = ks.map((k) => {
    const row: Record<string, number | null> = { k };
    series.forEach((s, i) => {
      const v = s.passAtK[String(k)];
      row[`s${i}`] = typeof v === "number" && Number.isFinite(v) ? v : null;
    });
    return row;
  });
  return (
    <div className="h-56 w-full" data-testid="chart-pass-at-k">
      {data.length === 0 ? (
        <NoData />
      ) : (
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={data} margin={MARGIN}>
            <CartesianGrid strokeDasharray="3 3" stroke={GRID_STROKE} />
            <XAxis dataKey="k" tick={AXIS_TICK} />
            <YAxis domain={[0, 1]} ticks={PERCENT_TICKS} tickFormatter={percentTick} tick={AXIS_TICK} />
            <Tooltip
              contentStyle={TOOLTIP_STYLE}
              labelFormatter={(k) => `pass@${k}`}
              formatter={(v) => pct(Number(v))}
              itemSorter={(item) => -Number(item.value)}
            />
            {series.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />}
            {series.map((s, i) => (
              <Line
                key={i}
                type="monotone"
                dataKey={`s${i}`}
                name={s.name}
                stroke={SERIES_COLOURS[i % SERIES_COLOURS.length]}
                strokeWidth={2}
                dot={ks.length <= 16}
                connectNulls
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      )}
    </div>
  );
}

/** Environments per difficulty tier; grouped by policy when there are two or more policies. */
export function TierBars({
  tiers,
  perPolicy,
}: {
  tiers: Record<DifficultyTier, number>;
  perPolicy?: { policy: string; tiers: Record<DifficultyTier, number> }[];
}) {
  const grouped = perPolicy !== undefined && perPolicy.length >= 2;
  const total = grouped
    ? perPolicy.reduce((sum, p) => sum + TIER_ORDER.reduce((s, t) => s + (p.tiers[t] ?? 0), 0), 0)
    : TIER_ORDER.reduce((sum, t) => sum + (tiers[t] ?? 0), 0);
  return (
    <div className="h-56 w-full" data-testid="chart-tiers">
      {total === 0 ? (
        <NoData />
      ) : (
        <ResponsiveContainer width="100%" height="100%">
          {grouped ? (
            <BarChart data={perPolicy.map((p) => ({ policy: p.policy, ...p.tiers }))} margin={MARGIN}>
              <CartesianGrid strokeDasharray="3 3" stroke={GRID_STROKE} vertical={false} />
              <XAxis dataKey="policy" tick={AXIS_TICK} />
              <YAxis tick={AXIS_TICK} allowDecimals={false} />
              <Tooltip
                cursor={BAR_CURSOR}
                contentStyle={TOOLTIP_STYLE}
                formatter={(v, name) => [count(Number(v)), name]}
                itemSorter={(item) => TIER_ORDER.indexOf(item.name as DifficultyTier)}
              />
              <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
              {TIER_ORDER.map((t) => (
                <Bar key={t} dataKey={t} name={t} fill={TIER_COLOURS[t]} isAnimationActive={false} />
              ))}
            </BarChart>
          ) : (
            <BarChart data={TIER_ORDER.map((t) => ({ tier: t, environments: tiers[t] ?? 0, fill: TIER_COLOURS[t] }))} margin={MARGIN}>
              <CartesianGrid strokeDasharray="3 3" stroke={GRID_STROKE} vertical={false} />
              <XAxis dataKey="tier" tick={AXIS_TICK} />
              <YAxis tick={AXIS_TICK} allowDecimals={false} />
              <Tooltip cursor={BAR_CURSOR} contentStyle={TOOLTIP_STYLE} formatter={(v) => [count(Number(v)), "environments"]} />
              <Bar dataKey="environments" name="environments" isAnimationActive={false} />
            </BarChart>
          )}
        </ResponsiveContainer>
      )}
    </div>
  );
}

/** Failures per category as horizontal bars; infra categories hatched grey; a click selects a category. */
export function FailureCategoryBars({
  categories,
  onSelect,
}: {
  categories: { category: string; count: number; infra: boolean }[];
  onSelect?: (category: string) => void;
}) {
  const data = categories.map((c) => ({ ...c, fill: c.infra ? INFRA_FILL : INK }));
  const total = categories.reduce((sum, c) => sum + c.count, 0);
  return (
    <div className="w-full" data-testid="chart-failure-categories">
      {total === 0 ? (
        <NoData />
      ) : (
        <>
          <div className="h-56 w-full">
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={data} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" stroke={GRID_STROKE} horizontal={false} />
                <XAxis type="number" tick={AXIS_TICK} allowDecimals={false} />
                <YAxis type="category" dataKey="category" tick={AXIS_TICK} width={180} interval={0} />
                <Tooltip
                  cursor={BAR_CURSOR}
                  contentStyle={TOOLTIP_STYLE}
                  formatter={(v, _name, item) => [
                    count(Number(v)),
                    (item.payload as { infra?: boolean } | undefined)?.infra ? "rollouts (infra)" : "rollouts",
                  ]}
                />
                <Bar
                  dataKey="count"
                  name="rollouts"
                  minPointSize={3}
                  cursor={onSelect ? "pointer" : undefined}
                  onClick={(item) => onSelect?.((item.payload as { category: string }).category)}
                  isAnimationActive={false}
                />
              </BarChart>
            </ResponsiveContainer>
          </div>
          {onSelect && (
            // the bars take clicks only: the same choice as buttons, for a keyboard
            <div
              className="mt-1 flex flex-wrap items-center gap-1 text-xs text-zinc-600"
              role="group"
              aria-label="Inspect a failure category"
            >
              Inspect:
              {categories.map((c) => (
                <Button key={c.category} size="xs" onClick={() => onSelect(c.category)} data-testid="failure-category-button">
                  {c.category} ({count(c.count)})
                </Button>
              ))}
            </div>
          )}
          {categories.some((c) => c.infra) && (
            <p className="mt-1 flex items-center gap-1.5 text-xs text-zinc-500">
              <span className="inline-block h-2.5 w-2.5 rounded-sm" style={{ background: INFRA_SWATCH }} />
              infra: not counted against the policy
            </p>
          )}
        </>
      )}
    </div>
  );
}

/** Success rate per value of one config field, with a picker for the field. */
export function FieldBreakdownChart({ fields }: { fields: FieldBreakdownView[] }) {
  // a field that varies over the measured environments, never one every environment lacks (imports often leave fields unset)
  const preferred = defaultBreakdownField(fields);
  const [chosen, setChosen] = useState<string | undefined>(preferred?.path);
  const field = fields.find((f) => f.path === chosen) ?? preferred;
  if (!field) {
    return (
      <div className="w-full" data-testid="chart-field-breakdown">
        <NoData />
      </div>
    );
  }
  const data = field.buckets.map((b) => ({
    label: b.label,
    successRate: b.successRate,
    environments: b.environments,
    rollouts: b.rollouts,
  }));
  const hasRates = field.buckets.some((b) => b.successRate !== null);
  return (
    <div className="w-full" data-testid="chart-field-breakdown">
      <div className="mb-2 flex flex-wrap items-center gap-2 text-xs">
        <label className="flex items-center gap-1.5 text-zinc-500">
          Field
          <select className={`${fieldClass} text-xs text-zinc-900`} value={field.path} onChange={(e) => setChosen(e.target.value)}>
            {fields.map((f) => (
              <option key={f.path} value={f.path}>
                {f.path}
              </option>
            ))}
          </select>
        </label>
        {field.direction && <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-zinc-600">{field.direction}</span>}
        {field.difficulty && (
          <span className="text-zinc-500">
            {field.difficulty === "up" ? "↑ raising it makes the task harder" : "↓ raising it makes the task easier"}
          </span>
        )}
      </div>
      {!hasRates ? (
        <NoData />
      ) : (
        <>
          <div className="h-56 w-full">
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={data} margin={MARGIN}>
                <CartesianGrid strokeDasharray="3 3" stroke={GRID_STROKE} vertical={false} />
                <XAxis dataKey="label" tick={AXIS_TICK} />
                <YAxis domain={[0, 1]} ticks={PERCENT_TICKS} tickFormatter={percentTick} tick={AXIS_TICK} />
                <Tooltip
                  cursor={BAR_CURSOR}
                  content={({ active, payload }) => {
                    const row = payload?.[0]?.payload as (typeof data)[number] | undefined;
                    if (!active || !row) return null;
                    return (
                      <TooltipBox>
                        <div className="font-medium text-zinc-900">{row.label}</div>
                        <div className="num">success {pct(row.successRate)}</div>
                        <div className="num">
                          {count(row.environments)} environments · {count(row.rollouts)} rollouts
                        </div>
                      </TooltipBox>
                    );
                  }}
                />
                <Bar dataKey="successRate" name="success rate" fill={INK} isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </div>
          <Table
            size="xs"
            numeric
            className="mt-2 text-zinc-700"
            rows={field.buckets}
            rowKey={(_, i) => i}
            columns={[
              { key: "label", header: field.path, cell: (b) => b.label, className: "normal-case" },
              { key: "success", header: "success", align: "right", cell: (b) => pct(b.successRate) },
              { key: "environments", header: "environments", align: "right", cell: (b) => count(b.environments) },
              { key: "rollouts", header: "rollouts", align: "right", cell: (b) => count(b.rollouts) },
            ]}
          />
        </>
      )}
    </div>
  );
}

type Change = keyof typeof CHANGE_COLOURS;
type ScatterPoint = { key: string; x: number; y: number; delta: number };

/** Where b beats a (or a beats b) by at least the comparison's margin; ties and small moves are unchanged. */
function changeOf(delta: number, margin: number): Change {
  if (delta > 0 && delta >= margin) return "improved";
  if (delta < 0 && -delta >= margin) return "regressed";
  return "unchanged";
}

/** Per-environment success of policy a (x) against policy b (y), with the biggest movers listed beside. */
export function PolicyScatter({
  comparison,
  hrefFor,
}: {
  comparison: PolicyComparison & { unchangedDrawn?: { shown: number; of: number } };
  hrefFor?: (key: string) => string;
}) {
  const router = useRouter();
  const groups: Record<Change, ScatterPoint[]> = { improved: [], regressed: [], unchanged: [] };
  let oneSided = 0;
  for (const p of comparison.points) {
    if (!bothRan(p)) {
      oneSided += 1;
      continue;
    }
    const delta = p.b.rate - p.a.rate;
    groups[changeOf(delta, comparison.margin)].push({ key: p.key, x: p.a.rate, y: p.b.rate, delta });
  }
  const plotted = groups.improved.length + groups.regressed.length + groups.unchanged.length;
  const byMagnitude = (list: ScatterPoint[]) => [...list].sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta)).slice(0, 8);
  const open = (item: unknown) => {
    const key = (item as { payload?: ScatterPoint } | undefined)?.payload?.key;
    if (hrefFor && key !== undefined) router.push(hrefFor(key));
  };

  if (plotted === 0) {
    return (
      <div className="w-full" data-testid="chart-policy-scatter">
        <NoData />
      </div>
    );
  }
  return (
    <div className="flex w-full flex-col gap-4 lg:flex-row" data-testid="chart-policy-scatter">
      <div className="h-64 min-w-0 flex-1">
        <ResponsiveContainer width="100%" height="100%">
          <ScatterChart margin={{ top: 8, right: 16, bottom: 16, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke={GRID_STROKE} />
            <XAxis
              type="number"
              dataKey="x"
              name={comparison.a}
              domain={[0, 1]}
              ticks={PERCENT_TICKS}
              tickFormatter={percentTick}
              tick={AXIS_TICK}
              label={{ value: comparison.a, position: "insideBottom", offset: -12, fontSize: 12, fill: "#71717a" }}
            />
            <YAxis
              type="number"
              dataKey="y"
              name={comparison.b}
              domain={[0, 1]}
              ticks={PERCENT_TICKS}
              tickFormatter={percentTick}
              tick={AXIS_TICK}
              label={{ value: comparison.b, angle: -90, position: "insideLeft", offset: 16, fontSize: 12, fill: "#71717a" }}
            />
            <ReferenceLine
              segment={[
                { x: 0, y: 0 },
                { x: 1, y: 1 },
              ]}
              stroke="#a1a1aa"
              strokeDasharray="4 4"
            />
            <Tooltip
              cursor={{ strokeDasharray: "3 3" }}
              content={({ active, payload }) => {
                const point = payload?.[0]?.payload as ScatterPoint | undefined;
                if (!active || !point) return null;
                return (
                  <TooltipBox>
                    <div className="font-medium text-zinc-900">{point.key}</div>
                    <div className="num">
                      {comparison.a} {pct(point.x)} → {comparison.b} {pct(point.y)} ({percentPoints(point.delta)})
                    </div>
                  </TooltipBox>
                );
              }}
            />
            {(Object.keys(groups) as Change[]).map((change) => (
              <Scatter
                key={change}
                name={change}
                data={groups[change]}
                fill={CHANGE_COLOURS[change]}
                fillOpacity={0.75}
                cursor={hrefFor ? "pointer" : undefined}
                onClick={open}
                isAnimationActive={false}
              />
            ))}
          </ScatterChart>
        </ResponsiveContainer>
      </div>
      <div className="w-full text-xs lg:w-64">
        <dl className="num grid grid-cols-3 gap-2">
          {(Object.keys(groups) as Change[]).map((change) => (
            <div key={change}>
              <dt className="flex items-center gap-1 text-zinc-500">
                <span className="inline-block h-2 w-2 rounded-full" style={{ background: CHANGE_COLOURS[change] }} />
                {change}
              </dt>
              <dd className="text-base font-semibold text-zinc-900" data-testid={`compare-${change}`}>
                {count(comparison[change])}
              </dd>
            </div>
          ))}
        </dl>
        <p className="mt-1 text-zinc-500">
          {comparison.margin > 0 && <span>A change counts from {(comparison.margin * 100).toFixed(1)} pp. </span>}
          {oneSided > 0 && <span>{count(oneSided)} ran under one policy only. </span>}
          {comparison.unchangedDrawn && comparison.unchangedDrawn.shown < comparison.unchangedDrawn.of && (
            <span data-testid="compare-unchanged-drawn">
              {count(comparison.unchangedDrawn.shown)} of the {count(comparison.unchangedDrawn.of)} unchanged are drawn, spread over their
              cloud.
            </span>
          )}
        </p>
        <MoverList title="Most improved" items={byMagnitude(groups.improved)} colour={CHANGE_COLOURS.improved} hrefFor={hrefFor} />
        <MoverList title="Most regressed" items={byMagnitude(groups.regressed)} colour={CHANGE_COLOURS.regressed} hrefFor={hrefFor} />
      </div>
    </div>
  );
}

function bothRan(p: ComparisonPoint): p is ComparisonPoint & { a: { rate: number }; b: { rate: number } } {
  return p.a.rate !== null && p.b.rate !== null && !Number.isNaN(p.a.rate) && !Number.isNaN(p.b.rate);
}

function MoverList({
  title,
  items,
  colour,
  hrefFor,
}: {
  title: string;
  items: ScatterPoint[];
  colour: string;
  hrefFor?: (key: string) => string;
}) {
  return (
    <div className="mt-3">
      <h3 className="mb-1 font-medium text-zinc-700">{title}</h3>
      {items.length === 0 ? (
        <p className="text-zinc-500">None</p>
      ) : (
        <ul className="space-y-0.5">
          {items.map((it) => (
            <li key={it.key} className="flex items-center gap-2">
              {hrefFor ? (
                <Link
                  href={hrefFor(it.key)}
                  className="min-w-0 flex-1 truncate text-zinc-700 hover:text-zinc-900 hover:underline"
                  title={it.key}
                >
                  {it.key}
                </Link>
              ) : (
                <span className="min-w-0 flex-1 truncate text-zinc-700" title={it.key}>
                  {it.key}
                </span>
              )}
              <span className="num shrink-0" style={{ color: colour }}>
                {percentPoints(it.delta)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

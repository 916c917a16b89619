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
import type { ComparisonPoint, FieldBreakdownView, SuccessBin } from "@/lib/analytics/views";
import { changeOf, type Change, type ChartComparison, type ScatterStack } from "@/lib/analytics/comparison-chart";
import { defaultBreakdownField } from "@/lib/analytics/field-choice";
import { CATEGORY_AXIS_WIDTH, categoryLines } from "@/components/charts/axis-labels";
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
            {/* every label where they fit; on a phone every other one (the bars keep their tooltips) */}
            <XAxis dataKey="label" tick={AXIS_TICK} interval="preserveStartEnd" minTickGap={2} />
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

/** A category axis tick: the name in one or two lines, whole in its tooltip. */
function CategoryTick(props: unknown) {
  const { x, y, payload } = props as { x?: number; y?: number; payload?: { value?: unknown } };
  if (x === undefined || y === undefined) return <g />;
  const label = String(payload?.value ?? "");
  const lines = categoryLines(label);
  return (
    <text x={x} y={y} textAnchor="end" fontSize={AXIS_TICK.fontSize} fill="#666" data-testid="category-tick">
      <title>{label}</title>
      {lines.map((line, i) => (
        <tspan key={i} x={x} dy={i === 0 ? (lines.length === 1 ? "0.35em" : "-0.25em") : "1.15em"}>
          {line}
        </tspan>
      ))}
    </text>
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
                <YAxis type="category" dataKey="category" tick={CategoryTick} width={CATEGORY_AXIS_WIDTH} interval={0} />
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

type ScatterPoint = { key: string; x: number; y: number; delta: number };

/** A little room around 0% and 100%, so the marks there are not cut in half by the plot's edge. */
const SCATTER_DOMAIN: [number, number] = [-0.04, 1.04];

/** A mark's radius: its area grows with the environments under it, up to 16 of them. */
function stackRadius(n: number): number {
  return 4.5 * Math.sqrt(Math.min(n, 16));
}

/** One stack of the scatter: a circle sized by its environments, their number written in it from 4 on. */
function StackMark(props: unknown) {
  const { cx, cy, fill, payload } = props as { cx?: number; cy?: number; fill?: string; payload?: ScatterStack };
  if (cx === undefined || cy === undefined || !payload) return <g />;
  const r = stackRadius(payload.n);
  return (
    <g data-testid="scatter-mark" data-n={payload.n}>
      <circle cx={cx} cy={cy} r={r} fill={fill} fillOpacity={0.75} stroke="#fff" strokeWidth={1} />
      {payload.n >= 4 && (
        <text x={cx} y={cy} dy="0.35em" textAnchor="middle" fontSize={payload.n >= 100 ? 9 : 10} fill="#fff" pointerEvents="none">
          {payload.n}
        </text>
      )}
    </g>
  );
}

function stackTitle(comparison: { a: string; b: string }, stack: ScatterStack): string {
  return `${comparison.a} ${pct(stack.x)} → ${comparison.b} ${pct(stack.y)} (${percentPoints(stack.y - stack.x)})`;
}

/** Per-environment success of policy a (x) against policy b (y), with the biggest movers listed beside. */
export function PolicyScatter({ comparison, hrefFor }: { comparison: ChartComparison; hrefFor?: (key: string) => string }) {
  const router = useRouter();
  const [chosen, setChosen] = useState<ScatterStack | null>(null);
  const groups: Record<Change, ScatterStack[]> = { improved: [], regressed: [], unchanged: [] };
  for (const s of comparison.stacks) groups[s.change].push(s);
  const movers: Record<"improved" | "regressed", ScatterPoint[]> = { improved: [], regressed: [] };
  let oneSided = 0;
  for (const p of comparison.points) {
    if (!bothRan(p)) {
      oneSided += 1;
      continue;
    }
    const delta = p.b.rate - p.a.rate;
    const change = changeOf(delta, comparison.margin);
    if (change !== "unchanged") movers[change].push({ key: p.key, x: p.a.rate, y: p.b.rate, delta });
  }
  const byMagnitude = (list: ScatterPoint[]) => [...list].sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta)).slice(0, 8);
  const open = (item: unknown) => {
    const stack = (item as { payload?: ScatterStack } | undefined)?.payload;
    if (!stack) return;
    // one environment opens; several are listed under the chart to choose from
    if (stack.n === 1 && hrefFor) router.push(hrefFor(stack.keys[0]));
    else setChosen(stack);
  };

  if (comparison.stacks.length === 0) {
    return (
      <div className="w-full" data-testid="chart-policy-scatter">
        <NoData />
      </div>
    );
  }
  return (
    <div className="flex w-full flex-col gap-4 lg:flex-row" data-testid="chart-policy-scatter">
      <div className="min-w-0 flex-1">
        <div className="h-64">
          <ResponsiveContainer width="100%" height="100%">
            <ScatterChart margin={{ top: 8, right: 16, bottom: 16, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke={GRID_STROKE} />
              <XAxis
                type="number"
                dataKey="x"
                name={comparison.a}
                domain={SCATTER_DOMAIN}
                ticks={PERCENT_TICKS}
                tickFormatter={percentTick}
                tick={AXIS_TICK}
                label={{ value: comparison.a, position: "insideBottom", offset: -12, fontSize: 12, fill: "#71717a" }}
              />
              <YAxis
                type="number"
                dataKey="y"
                name={comparison.b}
                domain={SCATTER_DOMAIN}
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
                  const stack = payload?.[0]?.payload as ScatterStack | undefined;
                  if (!active || !stack) return null;
                  return (
                    <TooltipBox>
                      <div className="font-medium text-zinc-900">{stack.n === 1 ? stack.keys[0] : `${count(stack.n)} environments`}</div>
                      <div className="num">{stackTitle(comparison, stack)}</div>
                      {stack.n > 1 && (
                        <div className="max-w-64 text-zinc-500">
                          {stack.keys.slice(0, 4).join(", ")}
                          {stack.n > 4 ? ` and ${count(stack.n - 4)} more; click to list` : ""}
                        </div>
                      )}
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
                  shape={StackMark}
                  cursor="pointer"
                  onClick={open}
                  isAnimationActive={false}
                />
              ))}
            </ScatterChart>
          </ResponsiveContainer>
        </div>
        {chosen && (
          <div className="mt-2 rounded border border-zinc-200 bg-zinc-50 p-2 text-xs" data-testid="scatter-chosen">
            <div className="mb-1 flex items-center gap-2">
              <span className="font-medium text-zinc-800">
                {count(chosen.n)} environments at {stackTitle(comparison, chosen)}
              </span>
              <Button size="xs" className="ml-auto" onClick={() => setChosen(null)}>
                Close
              </Button>
            </div>
            <ul className="flex flex-wrap gap-x-3 gap-y-0.5">
              {chosen.keys.map((key) => (
                <li key={key}>
                  {hrefFor ? (
                    <Link href={hrefFor(key)} className="text-zinc-700 hover:text-zinc-900 hover:underline">
                      {key}
                    </Link>
                  ) : (
                    key
                  )}
                </li>
              ))}
              {chosen.n > chosen.keys.length && <li className="text-zinc-500">and {count(chosen.n - chosen.keys.length)} more</li>}
            </ul>
          </div>
        )}
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
          <span>A mark&apos;s size and number: environments with the same two rates. </span>
          {oneSided > 0 && <span>{count(oneSided)} ran under one policy only. </span>}
          {comparison.unchangedDrawn.shown < comparison.unchangedDrawn.of && (
            <span data-testid="compare-unchanged-drawn">
              {count(comparison.unchangedDrawn.shown)} of the {count(comparison.unchangedDrawn.of)} unchanged are drawn, spread over their
              cloud.
            </span>
          )}
        </p>
        <MoverList title="Most improved" items={byMagnitude(movers.improved)} colour={CHANGE_COLOURS.improved} hrefFor={hrefFor} />
        <MoverList title="Most regressed" items={byMagnitude(movers.regressed)} colour={CHANGE_COLOURS.regressed} hrefFor={hrefFor} />
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

"use client";

import { useRouter } from "next/navigation";
import type { GenerationAnalytics } from "@/lib/analytics/views";
import type { ChartComparison } from "@/lib/analytics/comparison-chart";
import {
  FailureCategoryBars,
  FieldBreakdownChart,
  PassAtKCurve,
  PolicyScatter,
  SuccessHistogram,
  TierBars,
} from "@/components/charts/generation-charts";
import { GenerationTrend, type TrendPoint } from "@/components/charts/generation-trend";
import { Panel } from "@/components/ui/shell";

/** The generation dashboard's charts; clicks lead to the failure inspector or an environment. */
export function GenerationDashboard({
  slug,
  index,
  analytics,
  comparison,
  trend,
}: {
  slug: string;
  index: number;
  analytics: GenerationAnalytics;
  comparison: ChartComparison | null;
  trend: TrendPoint[];
}) {
  const router = useRouter();
  const base = `/projects/${encodeURIComponent(slug)}`;
  const policyQuery = analytics.policy ? `&policy=${encodeURIComponent(analytics.policy)}` : "";
  const series =
    analytics.perPolicy.length > 1 && !analytics.policy
      ? analytics.perPolicy.map((p) => ({ name: p.policy, passAtK: p.metrics.passAtK }))
      : [{ name: analytics.policy ?? "all rollouts", passAtK: analytics.metrics.passAtK }];
  const infra = analytics.categories.filter((c) => c.infra).reduce((acc, c) => acc + c.count, 0);
  return (
    <div className="grid grid-cols-1 gap-3 lg:grid-cols-2" data-testid="generation-dashboard">
      <Panel title="Success over environments" right={<span className="text-xs text-zinc-500">environments per success-rate bin</span>}>
        <SuccessHistogram bins={analytics.distribution} />
      </Panel>
      <Panel title="pass@k" right={<span className="text-xs text-zinc-500">unbiased estimator, averaged over environments</span>}>
        <PassAtKCurve series={series} />
      </Panel>
      <Panel
        title="Difficulty tiers"
        right={<span className="text-xs text-zinc-500">{analytics.policy ? analytics.policy : "best policy decides"}</span>}
      >
        <TierBars tiers={analytics.tiers} perPolicy={analytics.policy ? undefined : analytics.perPolicy} />
      </Panel>
      <Panel
        title="Failure categories"
        right={
          <span className="text-xs text-zinc-500">
            {infra > 0 ? `${infra} infra failures shown apart, not counted against the policy · ` : ""}click a bar or a button to inspect
          </span>
        }
      >
        <FailureCategoryBars
          categories={analytics.categories}
          onSelect={(category) =>
            router.push(`${base}/generations/${index}/failures?category=${encodeURIComponent(category)}${policyQuery}`)
          }
        />
      </Panel>
      <Panel title="Success by config field">
        <FieldBreakdownChart fields={analytics.fields} />
      </Panel>
      <Panel title="Across generations">
        <GenerationTrend points={trend} />
      </Panel>
      {comparison && (
        <Panel
          className="lg:col-span-2"
          title={`Policy comparison: ${comparison.a} → ${comparison.b}`}
          right={
            <span className="text-xs text-zinc-500">
              same environments; improved or regressed by at least {Math.round(comparison.margin * 100)} points
            </span>
          }
        >
          <PolicyScatter comparison={comparison} hrefFor={(key) => `${base}/environments/${encodeURIComponent(key)}`} />
        </Panel>
      )}
    </div>
  );
}

import Link from "next/link";
import { notFound } from "next/navigation";
import { orNotFound, projectPage } from "@/lib/api/page-guard";
import { getFamily } from "@/lib/family-store";
import { getGeneration } from "@/lib/generations/service";
import { projectSettings } from "@/lib/projects/service";
import { listGenerationsWithMetrics } from "@/lib/generations/overview";
import { generationAnalytics, generationExceptions } from "@/lib/generations/analytics";
import { resolvePolicy } from "@/lib/generations/overview";
import { FAILURE_CATEGORIES } from "@/lib/analytics/failures";
import { chartComparison } from "@/lib/analytics/comparison-chart";
import { Panel, Shell } from "@/components/ui/shell";
import { Tile } from "@/components/ui/tile";
import { count, fixed, pct, usd, LEARNABILITY_HELP } from "@/components/ui/format";
import { GenerationDashboard } from "@/components/generations/dashboard";
import { EnvironmentTable } from "@/components/generations/environment-table";
import { ShortcutHelp } from "@/components/ui/shortcuts";
import { ProposePanel } from "@/components/proposals/propose-panel";
import { llmEngineerAvailable } from "@/lib/proposals";
import { hasScope } from "@/lib/auth/roles";
import { listDispatches, listTargets } from "@/lib/dispatch/service";
import { DispatchPanel, DispatchTimeline } from "@/components/dispatch/dispatch-panel";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ slug: string; index: string }> }) {
  const p = await params;
  return { title: `${p.slug} G${p.index}` };
}

const SHORTCUTS = [
  { keys: "j / k", description: "next / previous environment" },
  { keys: "Enter", description: "open the selected environment" },
  { keys: "/", description: "filter environments by key" },
  { keys: "?", description: "this list" },
];

export default async function GenerationPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string; index: string }>;
  searchParams: Promise<{ policy?: string }>;
}) {
  const { slug, index } = await params;
  const { policy: asked } = await searchParams;
  const gi = Number(index);
  if (!Number.isInteger(gi) || gi < 0) notFound();
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/generations/${index}`);
  const generation = await orNotFound(getGeneration(db, project, gi));
  // no ?policy: the project's default policy when it has one (?policy= with nothing asks for all policies)
  const fallback = asked === undefined ? (projectSettings(project).defaultPolicy ?? undefined) : undefined;
  const fallbackOk = fallback
    ? await resolvePolicy(db, project.id, fallback).then(
        () => true,
        () => false,
      )
    : false;
  const policy = asked ?? (fallbackOk ? fallback : undefined);
  const family = await getFamily(db, project.familyId);
  const policyRow = policy ? resolvePolicy(db, project.id, policy).catch(() => undefined) : Promise.resolve(undefined);
  // the generation's analytics and the project's trend each take a few hundred ms at 10,000,000 rollouts: side by side
  const [analytics, trend, { targets }, { dispatches }, exceptions] = await Promise.all([
    orNotFound(generationAnalytics(db, project, family, generation, policy || undefined)),
    listGenerationsWithMetrics(db, project),
    listTargets(db, project, user.role),
    listDispatches(db, project),
    policyRow.then((row) => generationExceptions(db, generation.id, row?.id)),
  ]);
  const exceptionTotal = exceptions.reduce((n, e) => n + e.count, 0);
  const ownDispatches = dispatches.filter((d) => d.generation === gi).slice(0, 5);
  const dispatchedBefore: Record<string, number> = {};
  for (const d of dispatches)
    if (d.generation === gi && d.status !== "cancelled") dispatchedBefore[d.target] = (dispatchedBefore[d.target] ?? 0) + 1;
  const dispatchable = generation.status === "approved" || generation.status === "materialized";
  const m = analytics.metrics;
  // the generation's members, measured or not (a freshly materialized generation has no rollouts yet)
  const members = trend.find((t) => t.index === gi)?.environments ?? m.environments;
  const base = `/projects/${encodeURIComponent(slug)}/generations/${gi}`;
  const withPolicy = (p: string | null) => `${base}?policy=${p ? encodeURIComponent(p) : ""}`;
  const ks = Object.keys(m.passAtK).sort((a, b) => Number(a) - Number(b));
  return (
    <Shell
      user={user}
      crumbs={[{ href: "/", label: "Projects" }, { href: `/projects/${slug}`, label: project.name }, { label: `Generation ${gi}` }]}
      actions={<ShortcutHelp shortcuts={SHORTCUTS} />}
    >
      <div className="mb-3 flex flex-wrap items-baseline gap-3">
        <h1 className="text-xl font-semibold">Generation {gi}</h1>
        <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-600">{generation.status}</span>
        <span className="text-zinc-500">source {generation.source}</span>
        {generation.parentIndex !== null && (
          <Link className="text-zinc-500 hover:underline" href={`/projects/${slug}/generations/${generation.parentIndex}`}>
            parent G{generation.parentIndex}
          </Link>
        )}
        <span className="ml-auto" />
        {hasScope(user.role, "proposals:create") && m.rollouts > 0 && (
          <ProposePanel
            slug={slug}
            index={gi}
            policies={analytics.policies}
            llmAvailable={llmEngineerAvailable()}
            populationSize={m.environments}
          />
        )}
        <Link
          href={`${base}/failures${policy ? `?policy=${encodeURIComponent(policy)}` : ""}`}
          className="rounded bg-zinc-900 px-2.5 py-1 text-xs font-medium text-white hover:bg-zinc-700"
          data-testid="open-failures"
        >
          Failure inspector →
        </Link>
      </div>
      {analytics.policies.length > 0 && (
        <nav className="mb-3 flex flex-wrap items-center gap-1 text-xs" aria-label="Policy">
          <span className="mr-1 text-zinc-500">Policy</span>
          {[null, ...analytics.policies].map((p) => {
            const active = (p ?? null) === (analytics.policy ?? null);
            return (
              <Link
                key={p ?? "(all)"}
                href={withPolicy(p)}
                className={`rounded px-2 py-0.5 ${active ? "bg-zinc-900 text-white" : "bg-zinc-100 text-zinc-700 hover:bg-zinc-200"}`}
                aria-current={active ? "page" : undefined}
              >
                {p ?? "all policies"}
              </Link>
            );
          })}
        </nav>
      )}
      <div className="mb-3 grid grid-cols-2 gap-2 md:grid-cols-5 xl:grid-cols-10">
        <Tile
          label="Environments"
          value={count(members)}
          hint={`environments in this generation; ${count(m.environments)} of them have rollouts${analytics.policy ? ` of ${analytics.policy}` : ""}`}
          description={members !== m.environments ? `${count(m.environments)} with rollouts` : undefined}
        />
        <Tile label="Rollouts" value={count(m.rollouts)} />
        <Tile label="Success rate" value={pct(m.successRate)} hint="reward >= the project's success threshold" />
        <Tile label="Mean reward" value={fixed(m.meanReward, 4)} hint="over all rollouts, errored ones included (Harbor's convention)" />
        <Tile
          label={ks.length ? `pass@${ks[ks.length - 1]}` : "pass@k"}
          value={ks.length ? fixed(m.passAtK[ks[ks.length - 1]], 4) : "—"}
          hint="unbiased estimator averaged over environments"
        />
        <Tile label="Learnability" value={fixed(m.learnability)} hint={LEARNABILITY_HELP} />
        <Tile label="Zero-signal" value={pct(m.zeroSignalFraction)} hint="environments whose attempts all passed or all failed" />
        <Tile
          label="Infra errors"
          value={pct(m.infraErrorRate)}
          description="of rollouts"
          hint={
            "share of rollouts whose sandbox or harness failed on its own (no verdict, setup errors the agent did not cause); " +
            "not Harbor's n_errors, which counts trials with any exception"
          }
        />
        <Tile
          label="Exceptions"
          value={count(exceptionTotal)}
          description="Harbor's n_errors"
          hint={
            exceptions.length
              ? exceptions.map((e) => `${e.type}: ${e.count}${e.rewarded ? ` (${e.rewarded} still passed)` : ""}`).join("; ")
              : "no rollout reported an exception"
          }
        />
        <Tile
          label="Cost"
          testId="generation-cost"
          value={analytics.cost.totalUsd === null ? "no cost reported" : usd(analytics.cost.totalUsd)}
          hint="what the rollouts' sources reported they cost (Harbor's cost_usd, ATIF step metrics); rollouts without a reported cost are left out"
          description={
            analytics.cost.meanUsd === null
              ? undefined
              : `${usd(analytics.cost.meanUsd)} a rollout, ${count(analytics.cost.rollouts)} of ${count(m.rollouts)} priced`
          }
        />
      </div>
      <details className="mb-3 text-xs text-zinc-500" data-testid="learnability-help">
        <summary className="cursor-pointer">What is learnability?</summary>
        <p className="mt-1 max-w-3xl">{LEARNABILITY_HELP}</p>
      </details>
      {m.rollouts === 0 ? (
        <Panel className="mb-3">
          <p className="text-zinc-600">
            No rollouts in this generation yet. Post them to <code>/api/v1/projects/{slug}/rollouts</code> or import a Harbor job with{" "}
            <code>npx envforge import harbor</code>.
          </p>
        </Panel>
      ) : (
        <div className="mb-3">
          <GenerationDashboard
            slug={slug}
            index={gi}
            // the scatter's points once, thinned to what it draws (5,000 environments: 633 KB, twice, and a dot each)
            analytics={{ ...analytics, comparison: null }}
            comparison={analytics.comparison && chartComparison(analytics.comparison)}
            trend={trend.map((g) => ({
              index: g.index,
              successRate: g.metrics.successRate,
              learnability: g.metrics.learnability,
              zeroSignalFraction: g.metrics.zeroSignalFraction,
            }))}
          />
        </div>
      )}
      {(dispatchable || ownDispatches.length > 0) && hasScope(user.role, "dispatch:create") && (
        <Panel
          title="Dispatch"
          className="mb-3"
          right={
            hasScope(user.role, "targets:manage") ? (
              <Link href={`/projects/${slug}/targets`} className="text-xs text-blue-700 hover:underline">
                Targets
              </Link>
            ) : undefined
          }
        >
          <DispatchPanel
            slug={slug}
            index={gi}
            targets={targets.map((t) => ({ name: t.name, adapter: t.adapter, kind: t.kind }))}
            dispatchable={dispatchable}
            status={generation.status}
            dispatchedBefore={dispatchedBefore}
          />
          {ownDispatches.length > 0 && (
            <div className="mt-2 space-y-2">
              <div className="text-xs text-zinc-500">Earlier dispatches of this generation</div>
              {ownDispatches.map((d) => (
                <DispatchTimeline key={d.id} id={d.id} slug={slug} />
              ))}
            </div>
          )}
        </Panel>
      )}
      <Panel title="Environments">
        <EnvironmentTable
          slug={slug}
          index={gi}
          policy={analytics.policy}
          fields={family.fields.map((f) => ({ path: f.path, kind: f.kind, levels: f.levels }))}
          categories={FAILURE_CATEGORIES.filter((c) => analytics.categories.some((x) => x.category === c))}
        />
      </Panel>
    </Shell>
  );
}

import Link from "next/link";
import { projectPage } from "@/lib/api/page-guard";
import { listGenerationsWithMetrics } from "@/lib/generations/overview";
import { Panel, Shell } from "@/components/ui/shell";
import { Tile } from "@/components/ui/tile";
import { Table } from "@/components/ui/table";
import { count, fixed, pct, LEARNABILITY_HELP, dateTime } from "@/components/ui/format";
import { GenerationTrend } from "@/components/charts/generation-trend";
import { ImportPanel } from "@/components/imports/import-panel";
import { hasScope } from "@/lib/auth/roles";
import { listProposals } from "@/lib/proposals";
import { DemoLoopPanel } from "@/components/demo/loop-panel";
import { ProjectSettingsForm } from "@/components/projects/project-forms";
import { projectSettings } from "@/lib/projects/service";
import { listPolicyNames } from "@/lib/generations/overview";
import type { DemoState } from "@/lib/demo/loop";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ slug: string }> }) {
  return { title: (await params).slug };
}

export default async function ProjectPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { user, db, project } = await projectPage(slug, `/projects/${slug}`);
  const [gens, { proposals }] = await Promise.all([listGenerationsWithMetrics(db, project), listProposals(db, project)]);
  // the newest generation with results: a freshly materialized one has none yet and would hide the last figures
  const latest = [...gens].reverse().find((g) => g.rollouts > 0) ?? gens[gens.length - 1];
  const newest = gens[gens.length - 1];
  const settings = projectSettings(project);
  const canManage = hasScope(user.role, "projects:manage");
  const policyNames = canManage ? await listPolicyNames(db, project.id) : [];
  const latestLabel = latest ? `G${latest.index}` : "latest";
  return (
    <Shell user={user} crumbs={[{ href: "/", label: "Projects" }, { label: project.name }]}>
      <div className="mb-4 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="text-xl font-semibold">{project.name}</h1>
        <Link href={`/families/${project.familyId}`} className="text-zinc-500 hover:underline">
          {project.familyId}
        </Link>
        <span className="text-zinc-500">success threshold {project.successThreshold}</span>
        {settings.archivedAt && <span className="rounded bg-zinc-200 px-1.5 py-0.5 text-xs text-zinc-700">archived</span>}
        {settings.defaultPolicy && <span className="text-zinc-500">default policy {settings.defaultPolicy}</span>}
        <span className="ml-auto flex gap-3 text-sm">
          <Link href={`/projects/${slug}/rollouts`} className="text-zinc-600 hover:underline">
            Rollouts
          </Link>
          <Link href={`/projects/${slug}/compare`} className="text-zinc-600 hover:underline">
            Compare runs
          </Link>
          <Link href={`/projects/${slug}/audit`} className="text-zinc-600 hover:underline">
            Audit log
          </Link>
          <Link href={`/projects/${slug}/dispatches`} className="text-zinc-600 hover:underline">
            Dispatches
          </Link>
          {hasScope(user.role, "targets:manage") && (
            <Link href={`/projects/${slug}/targets`} className="text-zinc-600 hover:underline">
              Targets
            </Link>
          )}
        </span>
      </div>
      {project.isDemo && (
        <DemoLoopPanel
          slug={slug}
          initial={(project.demoState as DemoState | null) ?? null}
          canRun={hasScope(user.role, "proposals:review")}
        />
      )}
      <div className="mb-4 grid grid-cols-2 gap-2 md:grid-cols-6">
        <Tile label="Generations" value={count(gens.length)} />
        <Tile label={`Environments (${latestLabel})`} value={count(latest?.environments)} />
        <Tile label={`Rollouts (${latestLabel})`} value={count(latest?.rollouts)} />
        <Tile label={`Success (${latestLabel})`} value={pct(latest?.metrics.successRate)} />
        <Tile label={`Learnability (${latestLabel})`} value={fixed(latest?.metrics.learnability)} hint={LEARNABILITY_HELP} />
        <Tile
          label={`Zero-signal (${latestLabel})`}
          value={pct(latest?.metrics.zeroSignalFraction)}
          hint="environments whose attempts all passed or all failed"
        />
      </div>
      {latest && newest && latest.index !== newest.index && (
        <p className="-mt-2 mb-4 text-xs text-zinc-500" data-testid="latest-note">
          Figures from G{latest.index}, the newest generation with rollouts; G{newest.index} ({newest.status}) has none yet.
        </p>
      )}
      {gens.length > 1 && (
        <Panel title="Across generations" className="mb-4">
          {/* the chart's three figures only: the metrics carry each generation's whole pass@k curve (7 MB of page at 10M rollouts) */}
          <GenerationTrend
            points={gens.map((g) => ({
              index: g.index,
              successRate: g.metrics.successRate,
              learnability: g.metrics.learnability,
              zeroSignalFraction: g.metrics.zeroSignalFraction,
            }))}
          />
        </Panel>
      )}
      {hasScope(user.role, "rollouts:write") && (
        <Panel title="Import rollouts" className="mb-4">
          <ImportPanel project={project.slug} />
        </Panel>
      )}
      <Panel title="Generations">
        {gens.length === 0 ? (
          <p className="text-zinc-500">No generations yet: POST /api/v1/projects/{project.slug}/generations creates one.</p>
        ) : (
          <Table
            numeric
            testId="generations-table"
            rows={[...gens].reverse()}
            rowKey={(g) => g.index}
            rowClassName={() => "hover:bg-zinc-50"}
            columns={[
              {
                key: "gen",
                header: "Gen",
                cell: (g) => (
                  <Link href={`/projects/${project.slug}/generations/${g.index}`} className="font-medium hover:underline">
                    G{g.index}
                  </Link>
                ),
              },
              { key: "status", header: "Status", cell: (g) => g.status },
              { key: "source", header: "Source", cell: (g) => g.source, className: "text-zinc-500" },
              { key: "envs", header: "Envs", align: "right", cell: (g) => count(g.environments) },
              { key: "rollouts", header: "Rollouts", align: "right", cell: (g) => count(g.rollouts) },
              { key: "success", header: "Success", align: "right", cell: (g) => pct(g.metrics.successRate) },
              { key: "reward", header: "Mean reward", align: "right", cell: (g) => fixed(g.metrics.meanReward, 4) },
              { key: "pass1", header: "pass@1", align: "right", cell: (g) => pct(g.metrics.passAtK["1"]) },
              { key: "learnability", header: "Learnability", align: "right", cell: (g) => fixed(g.metrics.learnability) },
              { key: "zero", header: "Zero-signal", align: "right", cell: (g) => pct(g.metrics.zeroSignalFraction) },
              { key: "infra", header: "Infra errors", align: "right", cell: (g) => pct(g.metrics.infraErrorRate) },
            ]}
          />
        )}
      </Panel>
      {proposals.length > 0 && (
        <Panel title="Proposals" className="mt-4">
          <Table
            testId="proposals-table"
            rows={proposals}
            rowKey={(p) => p.id}
            columns={[
              {
                key: "id",
                header: "Proposal",
                className: "font-mono text-xs",
                cell: (p) => (
                  <Link href={`/projects/${slug}/proposals/${p.id}`} className="text-blue-700 hover:underline">
                    {p.id.slice(0, 8)}
                  </Link>
                ),
              },
              { key: "from", header: "From", cell: (p) => `G${p.baseGeneration}` },
              { key: "engineer", header: "Engineer", cell: (p) => p.engineer },
              {
                key: "status",
                header: "Status",
                className: "whitespace-nowrap",
                cell: (p) =>
                  p.materializedGeneration !== null ? (
                    <Link href={`/projects/${slug}/generations/${p.materializedGeneration}`} className="hover:underline">
                      materialized → G{p.materializedGeneration}
                    </Link>
                  ) : (
                    p.status
                  ),
              },
              { key: "by", header: "By", cell: (p) => p.createdBy, className: "text-zinc-500" },
              {
                key: "created",
                header: "Created",
                cell: (p) => dateTime(p.createdAt),
                className: "whitespace-nowrap text-zinc-500",
              },
            ]}
          />
        </Panel>
      )}
      {canManage && (
        <Panel title="Project settings" className="mt-4">
          <ProjectSettingsForm
            project={{
              slug: project.slug,
              name: project.name,
              successThreshold: project.successThreshold,
              defaultPolicy: settings.defaultPolicy ?? null,
              archivedAt: settings.archivedAt ?? null,
            }}
            policies={policyNames}
          />
        </Panel>
      )}
    </Shell>
  );
}

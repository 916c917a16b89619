import Link from "next/link";
import { projectPage } from "@/lib/api/page-guard";
import { listGenerationsWithMetrics } from "@/lib/generations/overview";
import { Panel, Shell, Stat } from "@/components/ui/shell";
import { count, fixed, pct, LEARNABILITY_HELP } from "@/components/ui/format";
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
      <div className="mb-4 flex items-baseline gap-3">
        <h1 className="text-xl font-semibold">{project.name}</h1>
        <Link href={`/families/${project.familyId}`} className="text-zinc-500 hover:underline">
          {project.familyId}
        </Link>
        <span className="text-zinc-400">success threshold {project.successThreshold}</span>
        {settings.archivedAt && <span className="rounded bg-zinc-200 px-1.5 py-0.5 text-xs text-zinc-700">archived</span>}
        {settings.defaultPolicy && <span className="text-zinc-400">default policy {settings.defaultPolicy}</span>}
        <span className="ml-auto flex gap-3 text-sm">
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
        <DemoLoopPanel slug={slug} initial={(project.demoState as DemoState | null) ?? null} canRun={hasScope(user.role, "proposals:review")} />
      )}
      <div className="mb-4 grid grid-cols-2 gap-2 md:grid-cols-6">
        <Stat label="Generations" value={count(gens.length)} />
        <Stat label={`Environments (${latestLabel})`} value={count(latest?.environments)} />
        <Stat label={`Rollouts (${latestLabel})`} value={count(latest?.rollouts)} />
        <Stat label={`Success (${latestLabel})`} value={pct(latest?.metrics.successRate)} />
        <Stat label={`Learnability (${latestLabel})`} value={fixed(latest?.metrics.learnability)} hint={LEARNABILITY_HELP} />
        <Stat label={`Zero-signal (${latestLabel})`} value={pct(latest?.metrics.zeroSignalFraction)} hint="environments whose attempts all passed or all failed" />
      </div>
      {latest && newest && latest.index !== newest.index && (
        <p className="-mt-2 mb-4 text-xs text-zinc-500" data-testid="latest-note">
          Figures from G{latest.index}, the newest generation with rollouts; G{newest.index} ({newest.status}) has none yet.
        </p>
      )}
      {gens.length > 1 && (
        <Panel title="Across generations" className="mb-4">
          <GenerationTrend points={gens.map((g) => ({ index: g.index, ...g.metrics }))} />
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
          <table className="w-full" data-testid="generations-table">
            <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
              <tr>
                <th className="py-1.5">Gen</th>
                <th>Status</th>
                <th>Source</th>
                <th className="text-right">Envs</th>
                <th className="text-right">Rollouts</th>
                <th className="text-right">Success</th>
                <th className="text-right">Mean reward</th>
                <th className="text-right">pass@1</th>
                <th className="text-right">Learnability</th>
                <th className="text-right">Zero-signal</th>
                <th className="text-right">Infra errors</th>
              </tr>
            </thead>
            <tbody>
              {[...gens].reverse().map((g) => (
                <tr key={g.index} className="num border-t border-zinc-100 hover:bg-zinc-50">
                  <td className="py-1.5">
                    <Link href={`/projects/${project.slug}/generations/${g.index}`} className="font-medium hover:underline">
                      G{g.index}
                    </Link>
                  </td>
                  <td>{g.status}</td>
                  <td className="text-zinc-500">{g.source}</td>
                  <td className="text-right">{count(g.environments)}</td>
                  <td className="text-right">{count(g.rollouts)}</td>
                  <td className="text-right">{pct(g.metrics.successRate)}</td>
                  <td className="text-right">{fixed(g.metrics.meanReward, 4)}</td>
                  <td className="text-right">{pct(g.metrics.passAtK["1"])}</td>
                  <td className="text-right">{fixed(g.metrics.learnability)}</td>
                  <td className="text-right">{pct(g.metrics.zeroSignalFraction)}</td>
                  <td className="text-right">{pct(g.metrics.infraErrorRate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
      {proposals.length > 0 && (
        <Panel title="Proposals" className="mt-4">
          <table className="w-full" data-testid="proposals-table">
            <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
              <tr>
                <th className="py-1.5">Proposal</th>
                <th>From</th>
                <th>Engineer</th>
                <th>Status</th>
                <th>By</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {proposals.map((p) => (
                <tr key={p.id} className="border-t border-zinc-100">
                  <td className="py-1.5 font-mono text-xs">
                    <Link href={`/projects/${slug}/proposals/${p.id}`} className="text-blue-700 hover:underline">
                      {p.id.slice(0, 8)}
                    </Link>
                  </td>
                  <td>G{p.baseGeneration}</td>
                  <td>{p.engineer}</td>
                  <td>
                    {p.materializedGeneration !== null ? (
                      <Link href={`/projects/${slug}/generations/${p.materializedGeneration}`} className="hover:underline">
                        materialized → G{p.materializedGeneration}
                      </Link>
                    ) : (
                      p.status
                    )}
                  </td>
                  <td className="text-zinc-500">{p.createdBy}</td>
                  <td className="text-zinc-500">{p.createdAt.slice(0, 16).replace("T", " ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Panel>
      )}
      {canManage && (
        <Panel title="Project settings" className="mt-4">
          <ProjectSettingsForm
            project={{ slug: project.slug, name: project.name, successThreshold: project.successThreshold, defaultPolicy: settings.defaultPolicy ?? null, archivedAt: settings.archivedAt ?? null }}
            policies={policyNames}
          />
        </Panel>
      )}
    </Shell>
  );
}

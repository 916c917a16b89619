import Link from "next/link";
import { notFound } from "next/navigation";
import { getDb } from "@/lib/db/client";
import { orNotFound, requireUser } from "@/lib/auth/page";
import { getProjectFor } from "@/lib/projects/service";
import { getGeneration } from "@/lib/generations/service";
import { generationDetail, generationEnvironmentsPage } from "@/lib/generations/overview";
import { Panel, Shell, Stat } from "@/components/ui/shell";
import { count, fixed, pct } from "@/components/ui/format";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ slug: string; index: string }> }) {
  const p = await params;
  return { title: `${p.slug} G${p.index}` };
}

function configSummary(config: unknown): string {
  return Object.entries(config as Record<string, unknown>)
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join("  ");
}

export default async function GenerationPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string; index: string }>;
  searchParams: Promise<{ cursor?: string }>;
}) {
  const { slug, index } = await params;
  const { cursor } = await searchParams;
  const user = await requireUser(`/projects/${slug}/generations/${index}`);
  const db = getDb();
  const gi = Number(index);
  if (!Number.isInteger(gi) || gi < 0) notFound();
  const project = await orNotFound(getProjectFor(db, slug, user));
  const generation = await orNotFound(getGeneration(db, project, gi));
  const [detail, page] = await Promise.all([
    generationDetail(db, project, generation),
    generationEnvironmentsPage(db, project, generation, cursor, 100),
  ]);
  const m = detail.metrics;
  const ks = Object.keys(m.passAtK).sort((a, b) => Number(a) - Number(b));
  return (
    <Shell user={user} crumbs={[{ href: "/", label: "Projects" }, { href: `/projects/${slug}`, label: project.name }, { label: `Generation ${gi}` }]}>
      <div className="mb-4 flex items-baseline gap-3">
        <h1 className="text-xl font-semibold">Generation {gi}</h1>
        <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-600">{detail.status}</span>
        <span className="text-zinc-500">source {detail.source}</span>
        {detail.parentIndex !== null && (
          <Link className="text-zinc-500 hover:underline" href={`/projects/${slug}/generations/${detail.parentIndex}`}>
            parent G{detail.parentIndex}
          </Link>
        )}
        {detail.policies.length > 0 && <span className="text-zinc-500">policies: {detail.policies.join(", ")}</span>}
      </div>
      <div className="mb-4 grid grid-cols-2 gap-2 md:grid-cols-7">
        <Stat label="Environments" value={count(detail.environments)} />
        <Stat label="Rollouts" value={count(m.rollouts)} />
        <Stat label="Success rate" value={pct(m.successRate)} />
        <Stat label="Mean reward" value={fixed(m.meanReward, 4)} hint="over all rollouts, errored ones included" />
        <Stat label="Learnability" value={fixed(m.learnability)} />
        <Stat label="Zero-signal" value={pct(m.zeroSignalFraction)} />
        <Stat label="Infra errors" value={pct(m.infraErrorRate)} />
      </div>
      {ks.length > 0 && (
        <Panel title="pass@k" className="mb-4">
          <div className="flex flex-wrap gap-4 num">
            {ks.map((k) => (
              <span key={k}>
                <span className="text-zinc-500">pass@{k}</span> <span className="font-medium">{fixed(m.passAtK[k], 4)}</span>
              </span>
            ))}
          </div>
        </Panel>
      )}
      <Panel title={`Environments (${count(detail.environments)})`}>
        <table className="w-full" data-testid="environments-table">
          <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th className="py-1.5">Key</th>
              <th>Op</th>
              <th>Direction</th>
              <th>Parent</th>
              <th>Validation</th>
              <th className="text-right">Rollouts</th>
              <th className="text-right">Success</th>
              <th className="text-right">Learnability</th>
              <th className="pl-3">Config</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((e) => (
              <tr key={e.key} className="num border-t border-zinc-100 align-top hover:bg-zinc-50">
                <td className="py-1.5 font-mono text-xs">{e.key}</td>
                <td>{e.op}</td>
                <td className="text-zinc-500">{e.direction ?? ""}</td>
                <td className="font-mono text-xs text-zinc-500">{e.parentKey ?? ""}</td>
                <td>
                  {e.validation.state}
                  {e.validation.pMax !== null && <span className="text-zinc-400"> p_max {fixed(e.validation.pMax, 2)}</span>}
                </td>
                <td className="text-right">{count(e.stats.rollouts)}</td>
                <td className="text-right">{pct(e.stats.successRate)}</td>
                <td className="text-right">{fixed(e.stats.learnability)}</td>
                <td className="max-w-md truncate pl-3 font-mono text-xs text-zinc-600" title={JSON.stringify(e.config)}>
                  {configSummary(e.config)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {page.nextCursor && (
          <Link href={`?cursor=${encodeURIComponent(page.nextCursor)}`} className="mt-3 inline-block text-zinc-700 underline">
            Next page
          </Link>
        )}
      </Panel>
    </Shell>
  );
}

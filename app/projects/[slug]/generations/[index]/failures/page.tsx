import Link from "next/link";
import { notFound } from "next/navigation";
import { orNotFound, projectPage } from "@/lib/api/page-guard";
import { getGeneration } from "@/lib/generations/service";
import { failureClusterDetail, generationFailures } from "@/lib/generations/analytics";
import { Panel, Shell } from "@/components/ui/shell";
import { Tile } from "@/components/ui/tile";
import { Table } from "@/components/ui/table";
import { count, fixed, pct } from "@/components/ui/format";
import { ClusterDetailAnchor, ClusterList, type ClusterRow } from "@/components/failures/cluster-list";
import { ShortcutHelp } from "@/components/ui/shortcuts";
import { WordBreaks } from "@/components/ui/word-breaks";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ slug: string; index: string }> }) {
  const p = await params;
  return { title: `Failures · ${p.slug} G${p.index}` };
}

/**
 * Clusters listed at first, and added per "Show more" (`?rows=`): a generation of 1,000,000 rollouts has 3,200 clusters,
 * and listing them all made a 3.1 MB page that took 1.0-1.8 s to load and 1.6-2.5 s to answer keys (issue 19).
 */
const CLUSTERS_PAGE = 200;

const SHORTCUTS = [
  { keys: "j / k", description: "next / previous cluster" },
  { keys: "Enter", description: "open the selected cluster" },
  { keys: "?", description: "this list" },
];

/** The failure inspector: categories -> clusters -> exemplar rollouts. */
export default async function FailuresPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string; index: string }>;
  searchParams: Promise<{ policy?: string; category?: string; cluster?: string; rows?: string }>;
}) {
  const { slug, index } = await params;
  const sp = await searchParams;
  const gi = Number(index);
  if (!Number.isInteger(gi) || gi < 0) notFound();
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/generations/${index}/failures`);
  const generation = await orNotFound(getGeneration(db, project, gi));
  const view = await orNotFound(generationFailures(db, project, generation, sp.policy || undefined));
  const clusters = sp.category ? view.clusters.filter((c) => c.category === sp.category) : view.clusters;
  const selectedId = sp.cluster ?? clusters[0]?.id ?? null;
  // a link to a cluster further down the list opens the list down to it
  const selectedAt = clusters.findIndex((c) => c.id === selectedId);
  const asked = Math.max(CLUSTERS_PAGE, Number.parseInt(sp.rows ?? "", 10) || CLUSTERS_PAGE);
  const rows = Math.max(asked, Math.ceil((selectedAt + 1) / CLUSTERS_PAGE) * CLUSTERS_PAGE);
  const listed: ClusterRow[] = clusters
    .slice(0, rows)
    .map((c) => ({ id: c.id, category: c.category, infra: c.infra, signature: c.signature, count: c.count, environments: c.environments }));
  const detail = selectedId
    ? await failureClusterDetail(db, project, generation, selectedId, sp.policy || undefined).catch(() => null)
    : null;

  const base = `/projects/${encodeURIComponent(slug)}`;
  const here = (q: { category?: string | null; cluster?: string | null; rows?: number }) => {
    const u = new URLSearchParams();
    if (sp.policy) u.set("policy", sp.policy);
    const category = q.category === undefined ? sp.category : q.category;
    if (category) u.set("category", category);
    if (q.cluster) u.set("cluster", q.cluster);
    if (q.rows && q.rows > CLUSTERS_PAGE) u.set("rows", String(q.rows));
    const s = u.toString();
    return `${base}/generations/${gi}/failures${s ? `?${s}` : ""}`;
  };
  const policyCats = view.categories.filter((c) => !c.infra);
  const infraCats = view.categories.filter((c) => c.infra);
  // a cluster picked from a longer list keeps the list as long
  const hrefFor = Object.fromEntries(listed.map((c) => [c.id, here({ cluster: c.id, rows })]));

  return (
    <Shell
      user={user}
      crumbs={[
        { href: "/", label: "Projects" },
        { href: `/projects/${slug}`, label: project.name },
        { href: `${base}/generations/${gi}${sp.policy ? `?policy=${encodeURIComponent(sp.policy)}` : ""}`, label: `Generation ${gi}` },
        { label: "Failures" },
      ]}
      actions={<ShortcutHelp shortcuts={SHORTCUTS} />}
    >
      <div className="mb-3 flex flex-wrap items-baseline gap-3">
        <h1 className="text-xl font-semibold">Failure inspector</h1>
        <span className="text-zinc-500">{view.policy ? `policy ${view.policy}` : "all policies"}</span>
      </div>
      <div className="mb-3 grid grid-cols-2 gap-2 md:grid-cols-5">
        <Tile label="Rollouts" value={count(view.rollouts)} />
        <Tile label="Failures" value={count(view.failures)} />
        <Tile label="Policy failures" value={count(view.policyFailures)} hint="failures the policy is answerable for" />
        <Tile
          label="Infra failures"
          value={count(view.infraFailures)}
          hint={
            "the sandbox or harness failed on its own (no verdict, setup errors the agent did not cause): left out of the " +
            "policy's figures. A sandbox the agent broke counts as the policy's (environment_broken_by_agent)."
          }
        />
        <Tile label="Clusters" value={count(view.clusters.length)} />
      </div>
      <div className="grid grid-cols-1 gap-3 lg:grid-cols-[15rem_minmax(0,1fr)_minmax(0,1.4fr)]">
        <Panel title="Categories">
          <ul className="space-y-0.5" data-testid="category-list">
            <li>
              <Link
                href={here({ category: null })}
                className={`flex justify-between rounded px-1.5 py-1 ${!sp.category ? "bg-zinc-900 text-white" : "hover:bg-zinc-100"}`}
              >
                <span>all</span>
                <span className="num">{count(view.failures)}</span>
              </Link>
            </li>
            {policyCats.map((c) => (
              <li key={c.category}>
                <Link
                  href={here({ category: c.category })}
                  className={`flex justify-between rounded px-1.5 py-1 ${sp.category === c.category ? "bg-zinc-900 text-white" : "hover:bg-zinc-100"}`}
                >
                  <span className="min-w-0 [overflow-wrap:anywhere]">
                    <WordBreaks text={c.category} />
                  </span>
                  <span className="num shrink-0 pl-2">{count(c.count)}</span>
                </Link>
              </li>
            ))}
          </ul>
          {infraCats.length > 0 && (
            <div className="mt-3 border-t border-dashed border-zinc-300 pt-2">
              <div className="mb-1 text-xs text-zinc-500" data-testid="infra-note">
                Infrastructure, not the policy&apos;s doing: left out of the policy-failure count. Success rate, mean reward and pass@k
                still count these attempts as failed, as Harbor does, so the headline figures stay comparable with Harbor&apos;s.
              </div>
              {infraCats.map((c) => (
                <Link
                  key={c.category}
                  href={here({ category: c.category })}
                  className={`flex justify-between rounded px-1.5 py-1 ${
                    sp.category === c.category ? "bg-zinc-900 text-white" : "bg-zinc-50 hover:bg-zinc-100"
                  }`}
                >
                  <span className="min-w-0 [overflow-wrap:anywhere]">
                    <WordBreaks text={c.category} />
                  </span>
                  <span className="num shrink-0 pl-2">{count(c.count)}</span>
                </Link>
              ))}
            </div>
          )}
          {view.exceptions.length > 0 && (
            <div className="mt-3 border-t border-zinc-100 pt-2 text-xs">
              <div className="mb-1 text-zinc-500">Exceptions (all rollouts)</div>
              <Table
                numeric
                size="xs"
                testId="exceptions"
                rows={view.exceptions}
                rowKey={(e) => e.type}
                columns={[
                  { key: "type", header: "Exception", cell: (e) => <WordBreaks text={e.type} />, className: "[overflow-wrap:anywhere]" },
                  { key: "count", header: "Rollouts", align: "right", cell: (e) => count(e.count) },
                  {
                    key: "rewarded",
                    header: "Passed",
                    align: "right",
                    className: "text-zinc-500",
                    cell: (e) => (e.rewarded ? <span title="rewarded despite the exception">{e.rewarded} passed</span> : ""),
                  },
                ]}
              />
            </div>
          )}
        </Panel>
        <Panel title={`Clusters${sp.category ? ` · ${sp.category}` : ""} (${clusters.length})`}>
          <ClusterList clusters={listed} selectedId={selectedId} hrefFor={hrefFor} />
          {clusters.length > rows && (
            <p className="mt-2 flex flex-wrap items-center gap-3 text-xs text-zinc-500" data-testid="clusters-more">
              <span>
                Showing {count(rows)} of {count(clusters.length)} clusters, the largest first.
              </span>
              <Link
                href={here({ cluster: sp.cluster, rows: rows + CLUSTERS_PAGE })}
                scroll={false}
                className="text-blue-700 hover:underline"
              >
                Show {count(Math.min(CLUSTERS_PAGE, clusters.length - rows))} more
              </Link>
              <Link href={here({ cluster: sp.cluster, rows: clusters.length })} scroll={false} className="text-blue-700 hover:underline">
                Show all
              </Link>
            </p>
          )}
        </Panel>
        <Panel title={detail ? `Cluster · ${count(detail.cluster.count)} rollouts` : "Cluster"}>
          {!detail ? (
            <p className="text-zinc-500">Pick a cluster.</p>
          ) : (
            <div data-testid="cluster-detail">
              <ClusterDetailAnchor clusterId={detail.cluster.id} />
              <div className="mb-2 text-xs text-zinc-500">
                {detail.cluster.category}
                {detail.cluster.infra ? " (infrastructure)" : ""} · {count(detail.cluster.environments)} environments
              </div>
              <pre
                tabIndex={0}
                className="mb-3 max-h-40 overflow-auto whitespace-pre-wrap [overflow-wrap:anywhere] rounded bg-zinc-50 p-2 font-mono text-xs"
              >
                {detail.cluster.signature || "(no message)"}
              </pre>
              <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">Exemplars</h3>
              <ul className="mb-3 space-y-1">
                {detail.cluster.exemplarRolloutIds.map((id) => {
                  const r = detail.rollouts.find((x) => String(x.id) === id);
                  return (
                    <li key={id}>
                      <Link
                        href={`${base}/rollouts/${id}`}
                        className="font-mono text-xs text-blue-700 hover:underline"
                        data-testid="exemplar-link"
                      >
                        rollout {id}
                      </Link>{" "}
                      {r && (
                        <span className="text-xs text-zinc-500">
                          {r.environmentKey} · {r.policy} · {r.turns ?? "?"} turns
                          {r.errorMessage ? ` · ${r.errorMessage.slice(0, 120)}` : ""}
                        </span>
                      )}
                    </li>
                  );
                })}
              </ul>
              <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">Environments</h3>
              <Table
                numeric
                size="xs"
                className="mb-3"
                rows={detail.environments.slice(0, 50)}
                rowKey={(e) => e.key}
                columns={[
                  {
                    key: "key",
                    header: "Environment",
                    className: "font-mono",
                    cell: (e) => (
                      <Link href={`${base}/environments/${encodeURIComponent(e.key)}`} className="hover:underline">
                        {e.key}
                      </Link>
                    ),
                  },
                  { key: "count", header: "Failures", align: "right", cell: (e) => count(e.count) },
                  {
                    key: "compare",
                    header: "Compare",
                    hideHeader: true,
                    align: "right",
                    className: "whitespace-nowrap",
                    cell: (e) => (
                      <Link href={`${base}/environments/${encodeURIComponent(e.key)}/compare`} className="text-blue-700 hover:underline">
                        compare pass/fail
                      </Link>
                    ),
                  },
                ]}
              />
              <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">
                Rollouts{detail.truncated ? ` (first ${detail.rollouts.length})` : ""}
              </h3>
              <Table
                numeric
                size="xs"
                rows={detail.rollouts}
                rowKey={(r) => r.id}
                columns={[
                  {
                    key: "id",
                    header: "Rollout",
                    cell: (r) => (
                      <Link href={`${base}/rollouts/${r.id}`} className="font-mono text-blue-700 hover:underline">
                        {r.id}
                      </Link>
                    ),
                  },
                  // one line a rollout: at 390 px a policy name stood over three lines; a long one is cut, whole in its title
                  { key: "environment", header: "Environment", cell: (r) => r.environmentKey, className: "font-mono whitespace-nowrap" },
                  {
                    key: "policy",
                    header: "Policy",
                    cell: (r) => (
                      <span className="block max-w-[12rem] truncate" title={r.policy}>
                        {r.policy}
                      </span>
                    ),
                  },
                  { key: "reward", header: "Reward", align: "right", cell: (r) => fixed(r.reward, 2) },
                  { key: "turns", header: "Turns", align: "right", cell: (r) => r.turns ?? "" },
                ]}
              />
            </div>
          )}
        </Panel>
      </div>
      {view.behaviours.length > 0 && (
        <Panel title="Behaviours across tasks" className="mt-3">
          <Table
            numeric
            size="sm"
            testId="behaviours"
            rows={view.behaviours}
            rowKey={(b) => b.id}
            rowProps={(b) => ({ "data-testid": `behaviour-${b.id}` })}
            columns={[
              { key: "label", header: "Behaviour", cell: (b) => b.label },
              { key: "count", header: "Failures", align: "right", cell: (b) => count(b.count) },
              { key: "environments", header: "Environments", align: "right", cell: (b) => count(b.environments) },
              {
                key: "policy",
                header: "Per policy",
                className: "text-xs",
                cell: (b) =>
                  Object.entries(b.perPolicy)
                    .map(([p, n]) => `${p}: ${n}`)
                    .join(", "),
              },
              {
                key: "exemplars",
                header: "Exemplars",
                className: "text-xs",
                cell: (b) =>
                  b.exemplarRolloutIds.map((id) => (
                    <Link key={id} href={`${base}/rollouts/${id}`} className="mr-2 font-mono text-blue-700 hover:underline">
                      {id}
                    </Link>
                  )),
              },
              {
                key: "tasks",
                header: "Tasks",
                className: "font-mono text-xs text-zinc-500",
                cell: (b) => `${b.environmentKeys.slice(0, 6).join(", ")}${b.environments > 6 ? ` +${b.environments - 6}` : ""}`,
              },
            ]}
          />
        </Panel>
      )}
      <p className="mt-3 text-xs text-zinc-500">
        Infra errors are {pct(view.rollouts ? view.infraFailures / view.rollouts : null)} of rollouts.
      </p>
    </Shell>
  );
}

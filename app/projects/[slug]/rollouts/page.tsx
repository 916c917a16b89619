import Link from "next/link";
import { projectPage } from "@/lib/api/page-guard";
import { DomainError } from "@/lib/errors";
import { generationsOfProject } from "@/lib/generations/repository";
import { listPolicyNames } from "@/lib/generations/overview";
import { explorerFilters, listRollouts } from "@/lib/rollouts/list";
import { listSavedViews } from "@/lib/rollouts/saved-views";
import { listLabels } from "@/lib/annotations/service";
import { FAILURE_CATEGORIES } from "@/lib/analytics/failures";
import { Shell } from "@/components/ui/shell";
import { buttonClass } from "@/components/ui/button";
import { ExplorerTable, type ExplorerRow } from "@/components/explorer/explorer-table";
import { ExplorerFilters } from "@/components/explorer/explorer-filters";
import { SavedViews } from "@/components/explorer/saved-views";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ slug: string }> }) {
  return { title: `Rollouts · ${(await params).slug}` };
}

const PAGE_SIZE = 50;

/** The rollout explorer: every rollout of the project across generations and policies, filtered, searched and sorted by the URL. */
export default async function RolloutExplorerPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { slug } = await params;
  const raw = await searchParams;
  const filters = explorerFilters(raw, ["limit", "format"]);
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/rollouts`);
  const [gens, pols, labels, views] = await Promise.all([
    generationsOfProject(db, project.id),
    listPolicyNames(db, project.id),
    listLabels(db, project),
    listSavedViews(db, project, user),
  ]);
  let page: { items: ExplorerRow[]; nextCursor: string | null; searchPending?: number } = { items: [], nextCursor: null };
  let problem: string | null = null;
  try {
    page = await listRollouts(db, project, { ...filters, limit: String(PAGE_SIZE) });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    problem = err.details[0]?.path ? `${err.details[0].path.replace(/^query\./, "")}: ${err.details[0].message}` : err.message;
  }
  const base = `/projects/${encodeURIComponent(slug)}`;
  const { cursor: _c, ...kept } = filters;
  const keptQuery = new URLSearchParams(kept).toString();
  const next = page.nextCursor ? `${base}/rollouts?${new URLSearchParams({ ...kept, cursor: page.nextCursor })}` : null;
  const download = (format: string) => `/api/v1/projects/${encodeURIComponent(slug)}/rollouts?${new URLSearchParams({ ...kept, format })}`;
  return (
    <Shell user={user} crumbs={[{ href: "/", label: "Projects" }, { href: base, label: project.name }, { label: "Rollouts" }]}>
      <div className="mb-3 flex flex-wrap items-end gap-3">
        <h1 className="text-lg font-semibold">Rollouts</h1>
        <span className="text-sm text-zinc-500">across every generation and policy</span>
        <span className="ml-auto flex gap-2 text-sm">
          <Link
            href={`${base}/rollouts/queue${keptQuery ? `?${keptQuery}` : ""}`}
            className={buttonClass("primary", "sm")}
            data-testid="explorer-queue"
            title="Review these rollouts one at a time with the keyboard; each is locked to you while you are on it"
          >
            Annotate these
          </Link>
          <a href={download("csv")} className={buttonClass("secondary", "sm")} data-testid="explorer-csv">
            CSV
          </a>
          <a href={download("parquet")} className={buttonClass("secondary", "sm")} data-testid="explorer-parquet">
            Parquet
          </a>
        </span>
      </div>
      <div className="mb-3 grid gap-3">
        <ExplorerFilters
          values={kept}
          generations={gens.map((g) => g.index)}
          policies={pols}
          labels={labels.labels.map((l) => l.name)}
          categories={[...FAILURE_CATEGORIES]}
        />
        <SavedViews slug={slug} views={views.views} />
      </div>
      {problem && (
        <p
          role="alert"
          className="mb-3 rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900"
          data-testid="explorer-problem"
        >
          {problem}
        </p>
      )}
      {(page.searchPending ?? 0) > 0 && (
        <p role="status" className="mb-3 text-sm text-zinc-600" data-testid="explorer-indexing">
          Indexing {page.searchPending!.toLocaleString("en-US")} rollouts: they are stored but not searchable yet, so not among these hits.
        </p>
      )}
      <ExplorerTable slug={slug} rows={page.items} />
      <nav className="mt-3 flex items-center gap-3 text-sm" aria-label="Pages">
        <span className="text-zinc-500" data-testid="explorer-count">
          {page.items.length} rollouts on this page{filters.cursor ? " (not the first)" : ""}
        </span>
        {filters.cursor && (
          <Link href={`${base}/rollouts${keptQuery ? `?${keptQuery}` : ""}`} className={buttonClass("secondary", "sm")}>
            First page
          </Link>
        )}
        {next && (
          <Link href={next} className={buttonClass("secondary", "sm")} data-testid="explorer-next">
            Next page
          </Link>
        )}
      </nav>
    </Shell>
  );
}

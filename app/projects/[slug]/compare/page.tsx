import Link from "next/link";
import { projectPage } from "@/lib/api/page-guard";
import { DomainError } from "@/lib/errors";
import { comparableSides, compareQuery, compareRuns, type RunComparison } from "@/lib/compare/service";
import { Panel, Shell } from "@/components/ui/shell";
import { Tile } from "@/components/ui/tile";
import { Table } from "@/components/ui/table";
import { Button } from "@/components/ui/button";
import { Field, fieldClass } from "@/components/ui/form";
import { count } from "@/components/ui/format";

export const dynamic = "force-dynamic";

// whole percents, but a bound just below zero keeps a decimal ("-0.4%", not "-0%": the interval does reach below 0)
const pct = (x: number) => {
  const whole = (x * 100).toFixed(0);
  return `${whole === "-0" ? (x * 100).toFixed(1) : whole}%`;
};
/**
 * Rows rendered at first, and added per "Show more" (`?rows=`): two runs of a 5,000-environment generation rendered every
 * row, a 15 MB page that loaded in 6.4-7.3 s (issue 19). Regressions and improvements come first, so they are rarely cut.
 */
const ROWS_PAGE = 200;
const signed = (x: number, digits = 3) => `${x > 0 ? "+" : ""}${x.toFixed(digits)}`;
const VERDICT_STYLE = {
  regressed: "bg-red-100 text-red-800",
  improved: "bg-emerald-100 text-emerald-800",
  unchanged: "text-zinc-500",
} as const;

/** Two runs of a project, task by task: regressions and improvements first, each with a pass/fail pair to open. */
export default async function RunComparePage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<{ a?: string; b?: string; rows?: string }>;
}) {
  const { slug } = await params;
  const sp = await searchParams;
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/compare`);
  const sides = await comparableSides(db, project);
  const value = (s: { generation: number; policy: string }) => `${s.generation}:${s.policy}`;
  const a = sp.a ?? (sides[0] ? value(sides[0]) : "");
  const b = sp.b ?? (sides[1] ? value(sides[1]) : a);
  let comparison: RunComparison | null = null;
  let problem: string | null = null;
  if (a && b) {
    const parsed = compareQuery.safeParse({ a, b });
    if (!parsed.success) problem = "Pick two runs as <generation>:<policy>.";
    else {
      try {
        comparison = await compareRuns(db, project, parsed.data);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        problem = err.message;
      }
    }
  }
  const base = `/projects/${encodeURIComponent(slug)}`;
  const rows = Math.max(ROWS_PAGE, Number.parseInt(sp.rows ?? "", 10) || ROWS_PAGE);
  const rowsHref = (n: number) => `${base}/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}&rows=${n}`;
  const csvHref = `/api/v1/projects/${encodeURIComponent(slug)}/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}&format=csv`;
  return (
    <Shell user={user} crumbs={[{ href: "/", label: "Projects" }, { href: base, label: project.name }, { label: "Compare runs" }]}>
      <div className="mb-3 flex flex-wrap items-end gap-3">
        <h1 className="text-lg font-semibold">Compare runs, task by task</h1>
        <form className="ml-auto flex flex-wrap items-end gap-2 text-xs" action={`${base}/compare`}>
          {(["a", "b"] as const).map((side) => (
            <Field key={side} label={side === "a" ? "A (before)" : "B (after)"}>
              <select
                name={side}
                defaultValue={side === "a" ? a : b}
                className={`${fieldClass} max-w-full text-zinc-900`}
                data-testid={`side-${side}`}
              >
                {sides.map((s) => (
                  <option key={value(s)} value={value(s)}>
                    G{s.generation} · {s.policy} ({s.rollouts} rollouts)
                  </option>
                ))}
              </select>
            </Field>
          ))}
          <Button type="submit" variant="primary" size="sm">
            Compare
          </Button>
        </form>
      </div>
      {sides.length === 0 && <p className="text-sm text-zinc-500">This project has no rollouts yet.</p>}
      {problem && <p className="mb-3 rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900">{problem}</p>}
      {comparison && (
        <>
          <div className="mb-3 grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-6">
            <Tile label="Regressed" value={comparison.regressed} />
            <Tile label="Improved" value={comparison.improved} />
            <Tile label="Unchanged" value={comparison.unchanged} />
            <Tile
              label="Mean reward Δ (B − A)"
              value={comparison.aggregate.meanDelta === null ? "—" : signed(comparison.aggregate.meanDelta)}
              hint={
                comparison.aggregate.interval
                  ? `95% bootstrap interval ${signed(comparison.aggregate.interval[0])} … ${signed(comparison.aggregate.interval[1])} ` +
                    `over ${comparison.aggregate.environments} shared environments`
                  : undefined
              }
            />
            <Tile label="Test" value={`Fisher, α = ${comparison.alpha}`} hint="two-sided exact test on each environment's successes" />
            <Tile
              label={`Beyond chance (FDR ${Math.round(comparison.alpha * 100)}%)`}
              testId="compare-fdr"
              value={`${comparison.falseDiscovery.regressed} regressed, ${comparison.falseDiscovery.improved} improved`}
              description={
                `of ${comparison.regressed + comparison.improved} at p < ${comparison.alpha}; ` +
                `${comparison.falseDiscovery.testable} tasks could reach it`
              }
              hint={
                "Each task's own test at p < α finds about α of the tested tasks changed by chance alone. Benjamini-Hochberg " +
                "q-values keep the expected share of chance findings among those listed here at most α; tasks whose attempts could " +
                "never reach α (too few, or all passed or all failed on both sides) are left out of the correction."
              }
            />
          </div>
          {(comparison.onlyA.length > 0 || comparison.onlyB.length > 0) && (
            <p className="mb-2 text-xs text-zinc-500">
              Left out (attempted by one side only): {comparison.onlyA.length} only in A, {comparison.onlyB.length} only in B.
            </p>
          )}
          <Panel
            title="Environments"
            right={
              <a href={csvHref} className="text-xs text-blue-700 hover:underline" data-testid="compare-csv">
                Download CSV
              </a>
            }
          >
            <Table
              size="xs"
              numeric
              testId="compare-table"
              rows={comparison.environments.slice(0, rows)}
              rowKey={(e) => e.key}
              empty="No environment was attempted by both sides."
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
                { key: "as", header: "A successes", cell: (e) => `${e.a.successes}/${e.a.n}` },
                { key: "bs", header: "B successes", cell: (e) => `${e.b.successes}/${e.b.n}` },
                { key: "am", header: "A mean", cell: (e) => e.a.meanReward?.toFixed(3) },
                { key: "bm", header: "B mean", cell: (e) => e.b.meanReward?.toFixed(3) },
                {
                  key: "delta",
                  header: "Δ reward",
                  cell: (e) => (
                    <span className={e.delta > 0 ? "text-emerald-700" : e.delta < 0 ? "text-red-700" : ""}>{signed(e.delta)}</span>
                  ),
                },
                {
                  key: "sdelta",
                  header: "Δ success (95% Newcombe)",
                  className: "whitespace-nowrap",
                  cell: (e) => `${signed(e.successDelta, 2)} [${pct(e.successDeltaInterval[0])}, ${pct(e.successDeltaInterval[1])}]`,
                },
                { key: "p", header: "p", cell: (e) => (e.pValue < 0.001 ? "<0.001" : e.pValue.toFixed(3)) },
                { key: "q", header: "q (BH)", cell: (e) => (e.qValue < 0.001 ? "<0.001" : e.qValue.toFixed(3)) },
                {
                  key: "verdict",
                  header: "Verdict",
                  cell: (e) => <span className={`rounded px-1.5 py-0.5 ${VERDICT_STYLE[e.verdict]}`}>{e.verdict}</span>,
                },
                {
                  key: "pair",
                  header: "Pair",
                  className: "whitespace-nowrap",
                  cell: (e) =>
                    e.pair ? (
                      <Link
                        href={`${base}/environments/${encodeURIComponent(e.key)}/compare?a=${e.pair.passing}&b=${e.pair.failing}`}
                        className="text-blue-700 hover:underline"
                      >
                        pass vs fail
                      </Link>
                    ) : (
                      <span className="text-zinc-500">—</span>
                    ),
                },
              ]}
            />
            {comparison.environments.length > rows && (
              <p className="mt-2 flex flex-wrap items-center gap-3 text-xs text-zinc-500" data-testid="compare-more">
                <span>
                  Showing {count(rows)} of {count(comparison.environments.length)} environments, regressed and improved first.
                </span>
                <Link href={rowsHref(rows + ROWS_PAGE)} scroll={false} className="text-blue-700 hover:underline">
                  Show {count(Math.min(ROWS_PAGE, comparison.environments.length - rows))} more
                </Link>
                <Link href={rowsHref(comparison.environments.length)} scroll={false} className="text-blue-700 hover:underline">
                  Show all
                </Link>
                <a href={csvHref} className="text-blue-700 hover:underline">
                  Download CSV
                </a>
              </p>
            )}
          </Panel>
        </>
      )}
    </Shell>
  );
}

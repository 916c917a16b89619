"use client";
/** The explorer's rollout table: sortable headers that rewrite the URL (the server reads the order from it), snippets under each hit. */
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Table, type Column } from "@/components/ui/table";
import type { SortState } from "@/components/ui/table-sort";
import { count, num } from "@/components/ui/format";
import { Snippet } from "./snippet";

export interface ExplorerRow {
  id: number;
  externalId: string;
  trialName: string | null;
  environmentKey: string;
  generation: number;
  policy: string;
  reward: number | null;
  success: boolean;
  status: string;
  failureCategory: string | null;
  turns: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  testsPassed: number | null;
  testsFailed: number | null;
  durationSeconds: number | null;
  snippet?: { text: string; highlights: [number, number][] } | null;
}

/** Header key -> the list's sort value for ascending; "rollout" sorts by id (oldest/newest). */
const SORT_OF: Record<string, [asc: string, desc: string]> = {
  rollout: ["oldest", "newest"],
  reward: ["reward", "-reward"],
  turns: ["turns", "-turns"],
  tokens: ["tokens", "-tokens"],
  duration: ["duration", "-duration"],
};

function sortStateOf(sort: string | null): SortState {
  const value = sort ?? "newest";
  for (const [key, [asc, desc]] of Object.entries(SORT_OF)) {
    if (value === asc) return { key, direction: "asc" };
    if (value === desc) return { key, direction: "desc" };
  }
  return { key: "rollout", direction: "desc" };
}

const duration = (s: number | null) => (s === null ? "—" : s < 90 ? `${s.toFixed(0)} s` : `${(s / 60).toFixed(1)} min`);

export function ExplorerTable({ slug, rows }: { slug: string; rows: ExplorerRow[] }) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const sort = sortStateOf(params.get("sort"));
  const onSort = (key: string) => {
    const [asc, desc] = SORT_OF[key];
    // a new column starts with its largest values first (most tokens, longest), the sorted one flips
    const next = sort.key === key ? (sort.direction === "asc" ? desc : asc) : desc;
    const query = new URLSearchParams(params.toString());
    query.delete("cursor");
    if (next === "newest") query.delete("sort");
    else query.set("sort", next);
    router.push(`${pathname}${query.size ? `?${query}` : ""}`);
  };
  const base = `/projects/${encodeURIComponent(slug)}`;
  const columns: Column<ExplorerRow>[] = [
    {
      key: "rollout",
      header: "Rollout",
      sortable: true,
      cell: (r) => (
        <div className="min-w-48">
          <Link href={`${base}/rollouts/${r.id}`} className="font-medium text-blue-700 hover:underline" data-testid="rollout-link">
            {r.trialName ?? r.externalId}
          </Link>
          {r.snippet && <Snippet snippet={r.snippet} />}
        </div>
      ),
    },
    { key: "environment", header: "Environment", cell: (r) => <span className="break-all">{r.environmentKey}</span> },
    { key: "run", header: "Run", cell: (r) => <span className="whitespace-nowrap">{`G${r.generation} · ${r.policy}`}</span> },
    {
      key: "reward",
      header: "Reward",
      sortable: true,
      align: "right",
      cell: (r) => (
        <span className={r.success ? "text-emerald-700" : "text-zinc-700"} title={r.success ? "success" : "failure"}>
          {num(r.reward)} {r.success ? "✓" : "✗"}
        </span>
      ),
    },
    { key: "turns", header: "Turns", sortable: true, align: "right", cell: (r) => count(r.turns) },
    {
      key: "tokens",
      header: "Tokens",
      sortable: true,
      align: "right",
      cell: (r) => (r.inputTokens === null && r.outputTokens === null ? "—" : count((r.inputTokens ?? 0) + (r.outputTokens ?? 0))),
    },
    { key: "duration", header: "Duration", sortable: true, align: "right", cell: (r) => duration(r.durationSeconds) },
    {
      key: "tests",
      header: "Tests",
      align: "right",
      cell: (r) =>
        r.testsPassed === null && r.testsFailed === null ? "—" : `${r.testsPassed ?? 0}/${(r.testsPassed ?? 0) + (r.testsFailed ?? 0)}`,
    },
    {
      key: "category",
      header: "Failure",
      cell: (r) => (
        <span className="text-xs text-zinc-600">
          {r.status === "errored" ? `errored · ${r.failureCategory ?? ""}` : (r.failureCategory ?? "")}
        </span>
      ),
    },
  ];
  return (
    <Table
      columns={columns}
      rows={rows}
      rowKey={(r) => r.id}
      sort={sort}
      onSort={onSort}
      numeric
      size="sm"
      framed
      testId="explorer-table"
      caption="Rollouts matching the filters"
      empty="No rollout matches these filters."
    />
  );
}

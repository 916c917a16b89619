"use client";

import Link from "next/link";
import { Table } from "@/components/ui/table";
import { useTableSort } from "@/components/ui/use-table-sort";
import { dateTime } from "@/components/ui/format";

/** One dispatch as the Dispatches page lists it. */
export interface DispatchRow {
  id: string;
  status: string;
  attempts: number;
  target: string;
  adapter: string;
  generation: number;
  createdAt: string;
  lastError?: string;
}

const STATUS_STYLE: Record<string, string> = {
  failed: "bg-red-100 text-red-800",
  succeeded: "bg-green-200 text-green-900",
  delivered: "bg-green-100 text-green-800",
  cancelled: "bg-zinc-200 text-zinc-600",
};

/** A project's dispatches, newest first, sortable by any column. */
export function DispatchTable({ slug, dispatches }: { slug: string; dispatches: DispatchRow[] }) {
  const base = `/projects/${encodeURIComponent(slug)}`;
  const sorted = useTableSort(dispatches, (d, key) => d[key as keyof DispatchRow]);
  return (
    <Table
      size="sm"
      testId="dispatches-table"
      rows={sorted.rows}
      rowKey={(d) => d.id}
      sort={sorted.sort}
      onSort={sorted.onSort}
      empty="Nothing dispatched yet: dispatch an approved or materialized generation from its page."
      columns={[
        {
          key: "id",
          header: "Dispatch",
          className: "font-mono text-xs",
          cell: (d) => (
            <Link href={`${base}/dispatches/${d.id}`} className="text-blue-700 hover:underline">
              {d.id.slice(0, 8)}
            </Link>
          ),
        },
        {
          key: "generation",
          header: "Generation",
          sortable: true,
          cell: (d) => (
            <Link href={`${base}/generations/${d.generation}`} className="hover:underline">
              G{d.generation}
            </Link>
          ),
        },
        {
          key: "target",
          header: "Target",
          sortable: true,
          cell: (d) => (
            <>
              {d.target} <span className="text-xs text-zinc-500">({d.adapter})</span>
            </>
          ),
        },
        {
          key: "status",
          header: "Status",
          sortable: true,
          cell: (d) => (
            <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLE[d.status] ?? "bg-zinc-100 text-zinc-700"}`}>
              {d.status}
            </span>
          ),
        },
        { key: "attempts", header: "Attempts", sortable: true, align: "right", className: "num", cell: (d) => d.attempts },
        {
          key: "createdAt",
          header: "Created",
          sortable: true,
          className: "num text-xs text-zinc-500",
          cell: (d) => dateTime(d.createdAt),
        },
        { key: "lastError", header: "Last error", className: "max-w-md break-all text-xs text-red-700", cell: (d) => d.lastError },
      ]}
    />
  );
}

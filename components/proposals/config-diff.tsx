"use client";

import { diffConfigs, showValue } from "@/lib/review/config-diff";
import { Table, type Column } from "@/components/ui/table";

/** A config against what it replaces (or alone), optionally only the changed fields. */
export function ConfigDiff({ before, after, changedOnly = false }: { before: unknown | null; after: unknown; changedOnly?: boolean }) {
  const hasBefore = before !== null && before !== undefined;
  const rows = hasBefore ? diffConfigs(before, after) : diffConfigs(after, after);
  const shown = changedOnly && hasBefore ? rows.filter((r) => r.changed) : rows;
  if (shown.length === 0) return <p className="text-xs text-zinc-500">No field changed.</p>;
  type Row = (typeof shown)[number];
  const columns: Column<Row>[] = [
    { key: "path", header: "Field", cell: (r) => r.path, className: "font-mono text-zinc-500" },
    ...(hasBefore
      ? [
          {
            key: "before",
            header: "Before",
            cell: (r: Row) => (
              <span className={r.changed ? "text-red-700 line-through decoration-red-300" : "text-zinc-500"}>{showValue(r.before)}</span>
            ),
            className: "break-all font-mono",
          },
        ]
      : []),
    {
      key: "after",
      header: hasBefore ? "After" : "Value",
      cell: (r) => <span className={r.changed ? "font-semibold text-green-800" : ""}>{showValue(r.after)}</span>,
      className: "break-all font-mono",
    },
  ];
  return (
    <Table
      size="xs"
      testId="config-diff"
      rows={shown}
      rowKey={(r) => r.path}
      rowProps={(r) => ({ "data-changed": r.changed })}
      rowClassName={(r) => (r.changed ? "bg-amber-50" : "")}
      columns={columns}
    />
  );
}

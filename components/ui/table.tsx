import type { ReactNode } from "react";
import { ariaSort, type SortState } from "@/components/ui/table-sort";

/** One column of a data table: its header, how a row's cell is drawn, and whether it sorts. */
export interface Column<T> {
  key: string;
  header: ReactNode;
  cell: (row: T, index: number) => ReactNode;
  align?: "left" | "right";
  /** the header becomes a sort button (needs `onSort` on the table) */
  sortable?: boolean;
  /** the header is read by assistive tech but not shown (e.g. an actions column) */
  hideHeader?: boolean;
  className?: string;
  headerClassName?: string;
  /** data-testid of this column's cells */
  cellTestId?: string;
  /** this column names its row: its cells are <th scope="row"> (e.g. the first column of a matrix) */
  rowHeader?: boolean;
}

/** Extra attributes for a <tr>: test ids, data-*, and useListNavigation's rowProps (ref, aria-current, onClick). */
export type RowAttributes = Record<string, unknown>;

const TEXT = { xs: "text-xs", sm: "text-sm", base: "" } as const;

/**
 * A data table. Sortable headers are <button>s inside <th aria-sort>; `sort`/`onSort` are
 * controlled by the caller (URL state, useTableSort, …). With no rows it says `empty`. It scrolls
 * sideways inside its own box (focusable, named by `caption`), so a wide table never widens the page.
 * `compact` draws a dense table only as wide as its content (a few key/value rows, rows of form
 * controls). It uses no hooks, so server pages render it too (without sorting).
 */
export function Table<T>({
  columns,
  rows,
  rowKey,
  sort,
  onSort,
  empty = "Nothing here yet.",
  rowProps,
  rowClassName,
  testId,
  size = "base",
  framed = false,
  numeric = false,
  compact = false,
  caption,
  showCaption = false,
  className = "",
}: {
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T, index: number) => string | number;
  sort?: SortState | null;
  onSort?: (key: string) => void;
  /** what an empty table says; false shows nothing (e.g. while loading) */
  empty?: ReactNode | false;
  rowProps?: (row: T, index: number) => RowAttributes;
  rowClassName?: (row: T, index: number) => string;
  testId?: string;
  size?: keyof typeof TEXT;
  /** a white box with a border, for tables that are not inside a Panel */
  framed?: boolean;
  /** tabular figures for every cell */
  numeric?: boolean;
  /** dense cells, and the table only as wide as its content */
  compact?: boolean;
  /** names the table for assistive tech (and its scroll box) */
  caption?: string;
  /** shows the caption above the table instead of only to assistive tech */
  showCaption?: boolean;
  className?: string;
}) {
  const edge = framed ? "first:pl-3 last:pr-3" : "";
  const pad = compact ? { head: "py-1 pr-2", cell: "py-1 pr-2" } : { head: "py-2 pr-3", cell: "py-1.5 pr-3" };
  return (
    // focusable so a keyboard can scroll a table wider than a phone (axe: scrollable-region-focusable)
    <div
      tabIndex={0}
      role="region"
      aria-label={caption ?? testId?.replace(/-/g, " ") ?? "table"}
      className={
        `relative max-w-full overflow-x-auto focus-visible:outline-2 focus-visible:outline-zinc-400 ` +
        `${framed ? "rounded-md border border-zinc-200 bg-white" : ""} ${className}`
      }
    >
      <table className={`${compact ? "" : "w-full"} ${TEXT[size]} ${numeric ? "num" : ""}`} data-testid={testId}>
        {caption && <caption className={showCaption ? "mb-1 text-left font-medium text-zinc-700" : "sr-only"}>{caption}</caption>}
        <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
          <tr>
            {columns.map((c) => {
              const sortable = c.sortable && onSort;
              const align = c.align === "right" ? "text-right" : "text-left";
              return (
                <th
                  key={c.key}
                  scope="col"
                  aria-sort={sortable ? ariaSort(sort, c.key) : undefined}
                  className={`${pad.head} font-medium whitespace-nowrap last:pr-0 ${align} ${edge} ${c.headerClassName ?? ""}`}
                >
                  {c.hideHeader ? (
                    <span className="sr-only">{c.header}</span>
                  ) : sortable ? (
                    <button
                      type="button"
                      onClick={() => onSort(c.key)}
                      className={
                        `inline-flex w-full items-center gap-0.5 tracking-wide uppercase hover:text-zinc-900 ` +
                        `${c.align === "right" ? "justify-end" : ""}`
                      }
                    >
                      {c.header}
                      <span aria-hidden className="w-3 text-zinc-500">
                        {sort?.key === c.key ? (sort.direction === "asc" ? "↑" : "↓") : ""}
                      </span>
                    </button>
                  ) : (
                    c.header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr
              key={rowKey(row, i)}
              {...rowProps?.(row, i)}
              className={`border-t border-zinc-100 align-top data-[selected=true]:bg-amber-50 ${rowClassName?.(row, i) ?? ""}`}
            >
              {columns.map((c) => {
                const Cell = c.rowHeader ? "th" : "td";
                return (
                  <Cell
                    key={c.key}
                    scope={c.rowHeader ? "row" : undefined}
                    data-testid={c.cellTestId}
                    className={
                      `${pad.cell} last:pr-0 ${c.rowHeader ? "text-left font-normal" : ""} ${c.align === "right" ? "text-right" : ""} ` +
                      `${edge} ${c.className ?? ""}`
                    }
                  >
                    {c.cell(row, i)}
                  </Cell>
                );
              })}
            </tr>
          ))}
          {rows.length === 0 && empty !== false && (
            <tr>
              <td colSpan={columns.length} className="py-4 text-center text-zinc-500" data-testid="table-empty">
                {empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

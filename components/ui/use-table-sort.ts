"use client";

import { useMemo, useState } from "react";
import { nextSort, sortRows, type SortState } from "@/components/ui/table-sort";

/** Client-side sorting for a Table: returns the sorted rows and the `sort`/`onSort` props to pass on. */
export function useTableSort<T>(
  rows: readonly T[],
  value: (row: T, key: string) => string | number | boolean | null | undefined,
  initial: SortState | null = null,
) {
  const [sort, setSort] = useState<SortState | null>(initial);
  // `value` is usually an inline function; the rows and the sort decide the order
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const sorted = useMemo(() => sortRows(rows, sort, value), [rows, sort]);
  return { rows: sorted, sort, onSort: (key: string) => setSort((s) => nextSort(s, key)) };
}

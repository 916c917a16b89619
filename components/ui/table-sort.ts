/** Sort state of a data table, and the pure rules for changing it and applying it. */

export type SortDirection = "asc" | "desc";
export interface SortState {
  key: string;
  direction: SortDirection;
}

/** Clicking a header: a new column sorts ascending; the sorted column flips its direction. */
export function nextSort(current: SortState | null | undefined, key: string): SortState {
  if (current?.key === key) return { key, direction: current.direction === "asc" ? "desc" : "asc" };
  return { key, direction: "asc" };
}

/** The aria-sort value of a header: only the sorted column says ascending/descending. */
export function ariaSort(current: SortState | null | undefined, key: string): "ascending" | "descending" | "none" {
  if (current?.key !== key) return "none";
  return current.direction === "asc" ? "ascending" : "descending";
}

type SortValue = string | number | boolean | null | undefined;

/**
 * A sorted copy of `rows` by `value(row)` (numbers numerically, strings by locale with numeric
 * parts compared as numbers); empty values go last in either direction; equal rows keep their order.
 */
export function sortRows<T>(rows: readonly T[], sort: SortState | null | undefined, value: (row: T, key: string) => SortValue): T[] {
  if (!sort) return [...rows];
  const sign = sort.direction === "asc" ? 1 : -1;
  return rows
    .map((row, i) => ({ row, i, v: value(row, sort.key) }))
    .sort((a, b) => {
      const ea = a.v === null || a.v === undefined || a.v === "";
      const eb = b.v === null || b.v === undefined || b.v === "";
      if (ea || eb) return ea === eb ? a.i - b.i : ea ? 1 : -1;
      const c =
        typeof a.v === "string" || typeof b.v === "string"
          ? String(a.v).localeCompare(String(b.v), undefined, { numeric: true })
          : Number(a.v) - Number(b.v);
      return c === 0 ? a.i - b.i : sign * c;
    })
    .map((x) => x.row);
}

/** Leaf-by-leaf config diffs for proposal review (pure). */

/** One leaf of a config diff: a dotted path and its value before and after. */
export interface DiffRow {
  path: string;
  before: unknown;
  after: unknown;
  changed: boolean;
}

/** Marks a key present on one side only. */
export const ABSENT = Symbol("absent");

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Diff of two configs: nested keys joined with dots, arrays compared whole, key order of `before` then new keys. */
export function diffConfigs(before: unknown, after: unknown, prefix = ""): DiffRow[] {
  if (isPlainObject(before) || isPlainObject(after)) {
    const b = isPlainObject(before) ? before : {};
    const a = isPlainObject(after) ? after : {};
    const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
    return keys.flatMap((k) => diffConfigs(k in b ? b[k] : ABSENT, k in a ? a[k] : ABSENT, prefix ? `${prefix}.${k}` : k));
  }
  const same = before === ABSENT || after === ABSENT ? before === after : JSON.stringify(before) === JSON.stringify(after);
  return [{ path: prefix || "(root)", before, after, changed: !same }];
}

/** A value as itself: false, 0 and "" are shown as such, an absent key is marked. */
export function showValue(v: unknown): string {
  if (v === ABSENT) return "(absent)";
  if (v === "") return '""';
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

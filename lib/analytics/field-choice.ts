/** Which config field the "Success by config field" chart opens on. */
import type { FieldBreakdownView } from "./views";

/** Environments of a field's breakdown that have a value (not in the "(missing)" bucket). */
function withValue(f: FieldBreakdownView): number {
  return f.buckets.filter((b) => b.value !== null).reduce((n, b) => n + b.environments, 0);
}

/** Measured buckets with a value: a field varies when it has two or more. */
function valuedBuckets(f: FieldBreakdownView): number {
  return f.buckets.filter((b) => b.environments > 0 && b.value !== null).length;
}

/**
 * The field to open on: one that varies across the measured environments (an evolution direction
 * first, then the most environments with a value); else the field most environments have; never one
 * every environment lacks while another field has values (Harbor tasks leave most fields unset).
 */
export function defaultBreakdownField(fields: readonly FieldBreakdownView[]): FieldBreakdownView | undefined {
  const byCoverage = [...fields].sort((a, b) => withValue(b) - withValue(a));
  return (
    byCoverage.find((f) => valuedBuckets(f) >= 2 && f.direction !== null) ??
    byCoverage.find((f) => valuedBuckets(f) >= 2) ??
    byCoverage.find((f) => withValue(f) > 0) ??
    fields[0]
  );
}

/** The structured summary's success by field value (StructuredSummary.environments.fields), from members and their counts. */
import { fieldBreakdown, type EnvironmentAggregate } from "@/lib/analytics/metrics";
import { getFieldValue } from "@/lib/families/field-path";
import type { FieldSpec } from "@/lib/families/types";
import type { SummaryField } from "./types";

/** One bucketed breakdown per field of `fields` (the caller picks which), over members with their attempts. */
export function summaryFields(
  fields: readonly FieldSpec[],
  items: readonly { config: unknown; env: Pick<EnvironmentAggregate, "n" | "s" | "rewardSum"> }[],
): SummaryField[] {
  return fields.map((f) => ({
    path: f.path,
    kind: f.kind,
    direction: f.direction ?? null,
    difficulty: f.difficulty ?? null,
    buckets: fieldBreakdown(
      items.map((x) => ({ value: getFieldValue(x.config, f.path), env: x.env })),
      { kind: f.kind, levels: f.levels },
    ).buckets.map((b) => ({ label: b.label, environments: b.environments, rollouts: b.rollouts, successRate: b.successRate })),
  }));
}

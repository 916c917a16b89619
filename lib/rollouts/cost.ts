/**
 * What a rollout cost, where its source said: the source's own total (`metadata.costUsd`: Harbor's
 * agent_result.cost_usd, an ATIF trajectory's final_metrics.total_cost_usd), else the sum of its messages'
 * LLM-call costs (`usage.costUsd`, ATIF step metrics), else unknown. Stored in rollouts.cost_usd at ingest
 * (drizzle/0019_rollout_cost.sql backfills older rows by the same rule) and summed per generation.
 */

function price(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null;
}

/** The rollout's cost in USD by the rule above; null when the source reported none. */
export function rolloutCostUsd(
  metadata: Record<string, unknown> | null | undefined,
  trajectory: readonly { usage?: { costUsd?: number } }[] | null | undefined,
): number | null {
  const total = price(metadata?.costUsd);
  if (total !== null) return total;
  let sum: number | null = null;
  for (const m of trajectory ?? []) {
    const c = price(m.usage?.costUsd);
    if (c !== null) sum = (sum ?? 0) + c;
  }
  return sum;
}

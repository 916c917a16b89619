/** What a generation's rollouts cost: total, mean per priced rollout, and how many had a known cost (rollouts.cost_usd). */
import type { Db } from "@/lib/db/client";
import { pricedRolloutTotals } from "./analytics-repository";

/** A generation's cost (API: `cost` of GET .../generations/{index} and .../analytics); USD figures are null when no rollout had a cost. */
export interface GenerationCost {
  /** rollouts whose source reported a cost (a reported 0 counts) */
  rollouts: number;
  totalUsd: number | null;
  /** total / rollouts: the mean over the priced rollouts, never over unknown ones */
  meanUsd: number | null;
}

/** The cost of one generation (optionally one policy), read from the partial index rollouts_generation_cost_idx. */
export async function generationCost(db: Db, generationId: number, policyId?: number): Promise<GenerationCost> {
  const row = await pricedRolloutTotals(db, generationId, policyId);
  const n = row.n;
  const total = n > 0 && row.total !== null ? Number(row.total) : null;
  return { rollouts: n, totalUsd: total, meanUsd: total === null ? null : total / n };
}

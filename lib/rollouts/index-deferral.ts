/**
 * When the search indexer (ADR 0007) leaves the cores to ingest: ingest is writing when notes newer than
 * the indexer's last look have appeared in rollout_search_pending. Then it defers, but takes one batch
 * every `maxDeferMs` all the same, so documents keep arriving during an endless stream of uploads; once
 * no new notes appear it indexes the backlog batch after batch.
 */
export interface DeferralState {
  /** the newest pending rollout id at the last look (0: none) */
  lastNewest: number;
  /** since when the indexer has been deferring to ingest (null: it is not) */
  deferringSince: number | null;
}

export const NO_DEFERRAL: DeferralState = { lastNewest: 0, deferringSince: null };

/** Whether to index a batch now, given the newest pending rollout id seen now (0: none pending). */
export function deferralStep(
  state: DeferralState,
  newest: number,
  now: number,
  maxDeferMs: number,
): { run: boolean; state: DeferralState } {
  const busy = newest > state.lastNewest;
  if (!busy) return { run: true, state: { lastNewest: newest, deferringSince: null } };
  if (state.deferringSince === null) return { run: false, state: { lastNewest: newest, deferringSince: now } };
  if (now - state.deferringSince >= maxDeferMs) return { run: true, state: { lastNewest: newest, deferringSince: now } };
  return { run: false, state: { lastNewest: newest, deferringSince: state.deferringSince } };
}

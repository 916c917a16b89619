/**
 * When the search indexer (ADR 0007) leaves the cores to ingest: ingest is writing when notes newer than
 * the indexer's last look have appeared in rollout_search_pending. Then it defers, but takes one batch
 * all the same once `maxDeferMs` have passed and the last batch's time is at most `share` of the time since
 * the one before it started, so documents keep arriving during an endless stream of uploads without taking
 * more than that share of the machine from them (a batch of 500 Harbor trials, 256 KB of text each, runs for
 * seconds); once no new notes appear it indexes the backlog batch after batch.
 */
export interface DeferralState {
  /** the newest pending rollout id at the last look (0: none) */
  lastNewest: number;
  /** since when the indexer has been deferring to ingest, or when its last batch while deferring started (null: it is not deferring) */
  deferringSince: number | null;
  /** how long the last batch taken while deferring ran, in ms (0: none yet) */
  lastBatchMs: number;
}

export const NO_DEFERRAL: DeferralState = { lastNewest: 0, deferringSince: null, lastBatchMs: 0 };

/** The part of the time the indexer may take while ingest is writing. */
export const INDEXER_SHARE_WHILE_INGESTING = 0.1;

/** Whether to index a batch now, given the newest pending rollout id seen now (0: none pending). */
export function deferralStep(
  state: DeferralState,
  newest: number,
  now: number,
  maxDeferMs: number,
  share = INDEXER_SHARE_WHILE_INGESTING,
): { run: boolean; state: DeferralState } {
  const busy = newest > state.lastNewest;
  if (!busy) return { run: true, state: { lastNewest: newest, deferringSince: null, lastBatchMs: 0 } };
  if (state.deferringSince === null) return { run: false, state: { lastNewest: newest, deferringSince: now, lastBatchMs: 0 } };
  const wait = Math.max(maxDeferMs, state.lastBatchMs / share);
  if (now - state.deferringSince >= wait) return { run: true, state: { ...state, lastNewest: newest, deferringSince: now } };
  return { run: false, state: { ...state, lastNewest: newest } };
}

/** The state after a batch that ran `ms`: while deferring, the next batch waits in proportion to it. */
export function batchRan(state: DeferralState, ms: number): DeferralState {
  return state.deferringSince === null ? state : { ...state, lastBatchMs: ms };
}

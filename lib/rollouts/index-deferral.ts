/**
 * When the search indexer (ADR 0007) leaves the cores to ingest: ingest is writing while notes newer than
 * any the indexer saw before keep appearing in rollout_search_pending, that is until none has appeared for
 * `quietMs`. Then it defers, but takes one batch all the same once `maxDeferMs` have passed and the last
 * batch's time is at most `share` of the time since the one before it started, so documents keep arriving
 * during an endless stream of uploads without taking more than that share of the machine from them (a batch of
 * Harbor trials, up to 256 KB of text each, runs for seconds); once ingest has been quiet for `quietMs` it
 * indexes the backlog batch after batch.
 *
 * Why a quiet time and not "new notes since the last look": the indexer looks every second, and ten Harbor jobs
 * at once commit a batch of large trials every one to three seconds, so a look often fell between two commits;
 * each such look ended the deferral and the indexer took batch after batch during the import (2026-12-03: the
 * database's CPU for ten jobs 38-52 s with the worker, 23 s without it).
 */
export interface DeferralState {
  /** the newest pending rollout id at the last look (0: none; -1: no look yet) */
  lastNewest: number;
  /** when a look last saw a newer pending rollout than before (null: never) */
  lastNewAt: number | null;
  /** since when the indexer has been deferring to ingest, or when its last batch while deferring started (null: it is not deferring) */
  deferringSince: number | null;
  /** how long the last batch taken while deferring ran, in ms (0: none yet) */
  lastBatchMs: number;
}

export const NO_DEFERRAL: DeferralState = { lastNewest: -1, lastNewAt: null, deferringSince: null, lastBatchMs: 0 };

/** The part of the time the indexer may take while ingest is writing. */
export const INDEXER_SHARE_WHILE_INGESTING = 0.1;

/**
 * Whether to index a batch now, given the newest pending rollout id seen now (0: none pending). Ingest counts as
 * writing until no newer note has appeared for `quietMs` (default: `maxDeferMs`).
 */
export function deferralStep(
  state: DeferralState,
  newest: number,
  now: number,
  maxDeferMs: number,
  share = INDEXER_SHARE_WHILE_INGESTING,
  quietMs = maxDeferMs,
): { run: boolean; state: DeferralState } {
  // the first look has nothing to compare with: a backlog it finds (a restart, a seed) is not taken for ingest writing
  const lastNewAt = state.lastNewest >= 0 && newest > state.lastNewest ? now : state.lastNewAt;
  // nothing pending is not ingest, however recent the last note
  const busy = newest > 0 && lastNewAt !== null && now - lastNewAt < quietMs;
  if (!busy) return { run: true, state: { lastNewest: newest, lastNewAt, deferringSince: null, lastBatchMs: 0 } };
  if (state.deferringSince === null) return { run: false, state: { lastNewest: newest, lastNewAt, deferringSince: now, lastBatchMs: 0 } };
  const wait = Math.max(maxDeferMs, state.lastBatchMs / share);
  if (now - state.deferringSince >= wait) return { run: true, state: { ...state, lastNewest: newest, lastNewAt, deferringSince: now } };
  return { run: false, state: { ...state, lastNewest: newest, lastNewAt } };
}

/** The state after a batch that ran `ms`: while deferring, the next batch waits in proportion to it. */
export function batchRan(state: DeferralState, ms: number): DeferralState {
  return state.deferringSince === null ? state : { ...state, lastBatchMs: ms };
}

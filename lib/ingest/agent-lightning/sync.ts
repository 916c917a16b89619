/**
 * Sync from an Agent Lightning store: pages of finished rollouts after a cursor, each converted,
 * one page at a time so the caller stores it before saving the cursor.
 */
import type { RolloutInput } from "../normalized";
import { type ToNormalizedOptions, toNormalizedRollout } from "./conversion";
import { AgentLightningClient, AgentLightningError } from "./client";

/** One converted page of a sync. */
export interface SyncPage {
  /** 1-based page number within this sync */
  page: number;
  rollouts: RolloutInput[];
  /** rollouts that could not be converted, with why */
  skipped: { rolloutId: string; message: string }[];
  /** save this once `rollouts` are stored; the next sync starts after it */
  cursor: string | null;
  /**
   * set on the first page after the saved cursor turned out to be past the store's end (the store
   * was restarted or emptied): this sync re-reads it from the start; `message` says so to the user
   */
  storeReset?: { cursor: string; total: number; message: string };
}

/** Options of {@link syncPages}. */
export interface SyncOptions extends ToNormalizedOptions {
  /** cursor saved by a previous sync */
  after?: string | null;
  /** rollouts per page, default 100 */
  limit?: number;
  /** event requests in flight at once, default 4 */
  concurrency?: number;
  /** called with each page before it is yielded (progress) */
  onPage?: (page: SyncPage) => void;
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return out;
}

/**
 * Pages through finished rollouts after `after`, fetching each one's events and converting it;
 * yields one page at a time and fetches the next only when asked, so a caller stores a page and
 * then saves its `cursor` (a rerun from that cursor fetches only what is new).
 */
export async function* syncPages(client: AgentLightningClient, opts: SyncOptions = {}): AsyncGenerator<SyncPage, void, undefined> {
  let cursor: string | null = opts.after ?? null;
  const limit = opts.limit ?? 100;
  let storeReset: SyncPage["storeReset"];
  for (let page = 1; ; page++) {
    let res = await client.terminalRollouts(cursor ?? undefined, limit);
    if (res.pastEnd && cursor !== null) {
      // what the store holds now was never read under this cursor: read it from the start (known externalIds are duplicates)
      storeReset = {
        cursor,
        total: res.pastEnd.total,
        message:
          `the Agent Lightning store at ${client.url} holds ${res.pastEnd.total} finished rollouts, fewer than the saved cursor ` +
          `(${cursor}): it was restarted or emptied, so it is read again from the start (rollouts already imported count as duplicates)`,
      };
      cursor = null;
      res = await client.terminalRollouts(undefined, limit);
    }
    const next = res.nextCursor ?? cursor;
    // numeric cursors (1.0's next_after, agl-v1 offsets) start at 0, which no cursor means
    const moved = next !== cursor && !(cursor === null && next === "0");
    // nothing new; after a reset the new cursor is saved all the same, or every sync would find the old one past the end
    if (res.items.length === 0 && !moved && !storeReset) return;
    const converted = await mapLimit(res.items, opts.concurrency ?? 4, async (r) => {
      // 1.0's terminal page holds ids only ({ rollout_id, state, data_id, is_train }): read the rollout itself
      const full = r.input === undefined && "data_id" in r ? { ...(await client.rolloutDetail(r.rollout_id)), status: r.status } : r;
      const events = await client.events(r.rollout_id); // transport errors end the sync before the cursor moves
      try {
        return { ok: true as const, rollout: toNormalizedRollout(full, events, opts) };
      } catch (err) {
        return { ok: false as const, rolloutId: r.rollout_id, message: err instanceof Error ? err.message : String(err) };
      }
    });
    if (res.hasMore && next === cursor) {
      throw new AgentLightningError(
        `the store at ${client.url} did not advance its cursor past ${JSON.stringify(cursor)}`,
        client.url,
        undefined,
        "format",
      );
    }
    const out: SyncPage = {
      page,
      rollouts: converted.flatMap((c) => (c.ok ? [c.rollout] : [])),
      skipped: converted.flatMap((c) => (c.ok ? [] : [{ rolloutId: c.rolloutId, message: c.message }])),
      cursor: next,
    };
    if (storeReset) out.storeReset = storeReset;
    storeReset = undefined;
    opts.onPage?.(out);
    yield out;
    cursor = next;
    if (!res.hasMore) return;
  }
}

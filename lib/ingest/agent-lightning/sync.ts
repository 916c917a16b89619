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
  for (let page = 1; ; page++) {
    const res = await client.terminalRollouts(cursor ?? undefined, limit);
    if (res.items.length === 0) return;
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
    const next = res.nextCursor ?? cursor;
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
    opts.onPage?.(out);
    yield out;
    cursor = next;
    if (!res.hasMore) return;
  }
}

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
  /** save this once `rollouts` are stored; the next sync starts after it (the store's cursor and an anchor, syncCursor) */
  cursor: string | null;
  /**
   * set on the first page after the saved cursor turned out not to be this store's any more: past the store's end
   * (restarted or emptied; `total` is what it holds now), or a position that no longer holds the rollout read there
   * last (restarted and refilled past the cursor, or an earlier rollout finished out of order): this sync re-reads the
   * store from the start; `message` says so to the user
   */
  storeReset?: { cursor: string; total?: number; message: string };
}

/** Longest rollout id kept in a saved cursor as its anchor (a longer one is not kept: the cursor has a size limit). */
const MAX_ANCHOR_CHARS = 200;

/**
 * The cursor a sync saves: the store's own cursor and the id of the last rollout read before it (the anchor), so the
 * next sync can tell whether the store still holds that rollout there. JSON, so no store's cursor can be mistaken for it.
 */
export function syncCursor(after: string, last: string | null): string {
  return last === null || last.length > MAX_ANCHOR_CHARS ? JSON.stringify({ after }) : JSON.stringify({ after, last });
}

/** A store's rollout id as a message shows it: quoted and escaped (no control characters reach a terminal), at most 200 characters. */
function shownId(id: string): string {
  return JSON.stringify(id.length > MAX_ANCHOR_CHARS ? `${id.slice(0, MAX_ANCHOR_CHARS)}…` : id);
}

/** A saved cursor read back; one saved before anchors (the store's cursor alone) has none. */
export function readSyncCursor(saved: string): { after: string; last: string | null } {
  if (saved.startsWith('{"after":')) {
    try {
      const v = JSON.parse(saved) as { after?: unknown; last?: unknown };
      if (typeof v.after === "string") return { after: v.after, last: typeof v.last === "string" ? v.last : null };
    } catch {
      // not ours: the store's own cursor
    }
  }
  return { after: saved, last: null };
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
  const saved = opts.after ? readSyncCursor(opts.after) : null;
  let cursor: string | null = saved?.after ?? null;
  let last: string | null = saved?.last ?? null;
  const limit = opts.limit ?? 100;
  let storeReset: SyncPage["storeReset"];
  // A position cursor (1.0's next_after, an offset) that is not past the store's end may still be another store's: an
  // in-memory store restarted by the next training run and refilled beyond it would have its first rollouts skipped.
  // The rollout read last must still be just before it; a store that cannot show it (an empty answer) is trusted.
  if (cursor !== null && last !== null && /^[1-9]\d{0,14}$/.test(cursor)) {
    const probe = await client.terminalRollouts(String(Number(cursor) - 1), 1);
    const there = probe.items[0]?.rollout_id;
    if (there !== undefined && there !== last) {
      storeReset = {
        cursor,
        message:
          `the Agent Lightning store at ${client.url} no longer holds the rollout read last (${shownId(last)}) before the saved ` +
          `cursor (${cursor}), but ${shownId(there)}: it was restarted or replaced (or a rollout finished out of order), so it is read again ` +
          `from the start (rollouts already imported count as duplicates)`,
      };
      cursor = null;
      last = null;
    }
  }
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
      last = null;
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
    // the anchor: the last rollout of this page; a page of none that moved the cursor (deleted rollouts) leaves none
    if (res.items.length) last = res.items[res.items.length - 1].rollout_id;
    else if (moved) last = null;
    const out: SyncPage = {
      page,
      rollouts: converted.flatMap((c) => (c.ok ? [c.rollout] : [])),
      skipped: converted.flatMap((c) => (c.ok ? [] : [{ rolloutId: c.rolloutId, message: c.message }])),
      cursor: next === null ? null : syncCursor(next, last),
    };
    if (storeReset) out.storeReset = storeReset;
    storeReset = undefined;
    opts.onPage?.(out);
    yield out;
    cursor = next;
    if (!res.hasMore) return;
  }
}

"use client";

import { useMemo, useState, useSyncExternalStore } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { TURNS_PER_REQUEST, type TurnOutline, type TurnPage } from "@/lib/rollouts/turn-types";

/** Turns fetched per request once the list leaves the server-rendered first page: one stored page, so "Last" reads only the last. */
export const TURN_PAGE_SIZE = TURNS_PER_REQUEST;
/** Characters of each string the outline carries (the endpoint's default). */
export const TURN_PREVIEW_CHARS = 600;

interface Chunk {
  from: number;
  turns: TurnOutline[];
}

/**
 * The loaded outline of one trajectory: the server-rendered first page plus pages of TURN_PAGE_SIZE fetched on
 * demand, keyed by page number. Lives outside React so lookups cost O(1) and never copy arrays.
 */
export class TurnStore {
  readonly pages = new Map<number, Chunk>();
  private readonly inflight = new Map<number, Promise<void>>();
  private readonly errors = new Map<number, string>();
  private readonly listeners = new Set<() => void>();
  version = 0;

  constructor(
    readonly rolloutId: number,
    readonly initial: TurnPage,
  ) {}

  get total(): number {
    return this.initial.total;
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  getVersion = () => this.version;

  private changed() {
    this.version++;
    for (const l of this.listeners) l();
  }

  get = (index: number): TurnOutline | undefined => {
    const init = this.initial;
    if (index >= init.from && index < init.from + init.turns.length) return init.turns[index - init.from];
    const chunk = this.pages.get(Math.floor(index / TURN_PAGE_SIZE));
    if (chunk && index >= chunk.from && index < chunk.from + chunk.turns.length) return chunk.turns[index - chunk.from];
    return undefined;
  };

  error = (index: number): string | undefined => this.errors.get(Math.floor(index / TURN_PAGE_SIZE));

  /** Start loading the page holding `index` unless it is loaded, in flight or failed (see `retry`). */
  ensure = (index: number): void => {
    if (index < 0 || index >= this.total || this.get(index)) return;
    const page = Math.floor(index / TURN_PAGE_SIZE);
    if (this.inflight.has(page) || this.errors.has(page)) return;
    const promise = this.fetchPage(page).finally(() => this.inflight.delete(page));
    this.inflight.set(page, promise);
  };

  /** `ensure` for every page that rows first..last touch (a handful, whatever the range). */
  ensureRange = (first: number, last: number): void => {
    if (last < first) return;
    const firstPage = Math.floor(first / TURN_PAGE_SIZE);
    const lastPage = Math.floor(last / TURN_PAGE_SIZE);
    for (let p = firstPage; p <= lastPage; p++) {
      this.ensure(this.firstMissing(p, first, last));
    }
  };

  retry = (index: number): void => {
    this.errors.delete(Math.floor(index / TURN_PAGE_SIZE));
    this.changed();
    this.ensure(index);
  };

  /** A row of page p within first..last that is not loaded yet (the server-rendered head of page 0 may cover part of it). */
  private firstMissing(page: number, first: number, last: number): number {
    const start = Math.max(first, page * TURN_PAGE_SIZE);
    const end = Math.min(last, (page + 1) * TURN_PAGE_SIZE - 1);
    if (!this.get(start)) return start;
    if (!this.get(end)) return end;
    return start;
  }

  private async fetchPage(page: number): Promise<void> {
    const pageStart = page * TURN_PAGE_SIZE;
    const pageEnd = Math.min(this.total, pageStart + TURN_PAGE_SIZE);
    const init = this.initial;
    const initEnd = init.from + init.turns.length;
    // the server-rendered page usually covers the head of page 0: fetch only the rest
    let from = init.from <= pageStart && initEnd > pageStart ? initEnd : pageStart;
    const chunk: Chunk = { from, turns: [] };
    try {
      while (from < pageEnd) {
        const res = await apiFetch<TurnPage>(
          `/api/v1/rollouts/${this.rolloutId}/turns?from=${from}&limit=${pageEnd - from}&preview=${TURN_PREVIEW_CHARS}`,
        );
        if (res.turns.length === 0) throw new Error(`The server returned no turns from #${from}; reload the page.`);
        for (const t of res.turns) chunk.turns.push(t);
        from += res.turns.length; // a server that caps `limit` lower gets asked for the rest
      }
      this.pages.set(page, chunk);
    } catch (e) {
      this.errors.set(page, e instanceof Error ? e.message : String(e));
    }
    this.changed();
  }
}

/** The outline of one trajectory as the lists read it. */
export interface TurnPages {
  rolloutId: number;
  /** messages in the whole trajectory */
  total: number;
  /** changes whenever a page arrives or fails: a dependency for values derived from `get` */
  version: number;
  get(index: number): TurnOutline | undefined;
  /** Fetch the page holding `index` unless it is loaded or already on its way. */
  ensure(index: number): void;
  /** `ensure` for the pages rows first..last touch. */
  ensureRange(first: number, last: number): void;
  /** why the page holding `index` failed to load, if it did */
  error(index: number): string | undefined;
  retry(index: number): void;
}

/**
 * Paged access to a trajectory's outline: `initial` (rendered on the server) answers at once, other
 * pages of TURN_PAGE_SIZE are fetched when `ensure` asks for them, each once. Nothing loads the whole trajectory.
 */
export function useTurnPages(rolloutId: number, initial: TurnPage): TurnPages {
  const [created, setStore] = useState(() => new TurnStore(rolloutId, initial));
  let store = created;
  if (store.rolloutId !== rolloutId) {
    // another rollout: start over (setState during render is React's pattern for derived state)
    store = new TurnStore(rolloutId, initial);
    setStore(store);
  }
  const version = useSyncExternalStore(store.subscribe, store.getVersion, store.getVersion);
  return useMemo(
    () => ({
      rolloutId: store.rolloutId,
      total: store.total,
      version,
      get: store.get,
      ensure: store.ensure,
      ensureRange: store.ensureRange,
      error: store.error,
      retry: store.retry,
    }),
    [store, version],
  );
}

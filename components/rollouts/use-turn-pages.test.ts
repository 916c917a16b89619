import { afterEach, describe, expect, it, vi } from "vitest";
import { TRAJECTORY_PAGE_MESSAGES } from "@/lib/db/schema";
import type { TurnOutline, TurnPage } from "@/lib/rollouts/turn-types";
import { TURN_PAGE_SIZE, TurnStore } from "./use-turn-pages";

const TOTAL = 50_000;

function outline(index: number): TurnOutline {
  return { index, role: "tool", length: 1, preview: "x", toolCalls: [], documents: [] };
}

function turns(from: number, count: number): TurnOutline[] {
  return Array.from({ length: count }, (_, i) => outline(from + i));
}

/** A store over a 50,000-message trajectory whose server-rendered head is turns 0..head-1; fetch answers from the URL. */
function storeWith(head: number) {
  const urls: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      urls.push(url);
      const q = new URL(url, "http://x").searchParams;
      const from = Number(q.get("from"));
      const limit = Number(q.get("limit"));
      const page: TurnPage = { rolloutId: 1, total: TOTAL, from, turns: turns(from, Math.min(limit, TOTAL - from)) };
      return new Response(JSON.stringify(page), { status: 200, headers: { "content-type": "application/json" } });
    }),
  );
  const initial: TurnPage = { rolloutId: 1, total: TOTAL, from: 0, turns: turns(0, head) };
  return { store: new TurnStore(1, initial), urls };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("TurnStore requests", () => {
  it("asks for one stored page of a long trajectory at a time", () => {
    expect(TURN_PAGE_SIZE).toBe(TRAJECTORY_PAGE_MESSAGES);
  });

  it("'Last' fetches only the stored page holding the last message", async () => {
    const { store, urls } = storeWith(TURN_PAGE_SIZE);
    store.ensure(TOTAL - 1);
    await settle();
    expect(urls).toEqual([`/api/v1/rollouts/1/turns?from=${TOTAL - TURN_PAGE_SIZE}&limit=${TURN_PAGE_SIZE}&preview=600`]);
    await vi.waitFor(() => expect(store.get(TOTAL - 1)?.index).toBe(TOTAL - 1));
    expect(store.get(TOTAL - TURN_PAGE_SIZE - 1)).toBeUndefined();
  });

  it("fetches nothing for rows the server-rendered page holds, and only the next page past it", async () => {
    const { store, urls } = storeWith(TURN_PAGE_SIZE);
    store.ensureRange(0, 20);
    await settle();
    expect(urls).toEqual([]);
    store.ensureRange(TURN_PAGE_SIZE - 5, TURN_PAGE_SIZE + 10);
    await settle();
    expect(urls).toEqual([`/api/v1/rollouts/1/turns?from=${TURN_PAGE_SIZE}&limit=${TURN_PAGE_SIZE}&preview=600`]);
  });

  it("fetches only the rest of a page the server-rendered head covers in part", async () => {
    const { store, urls } = storeWith(40);
    store.ensureRange(30, 50);
    await settle();
    expect(urls).toEqual([`/api/v1/rollouts/1/turns?from=40&limit=${TURN_PAGE_SIZE - 40}&preview=600`]);
    await vi.waitFor(() => expect(store.get(50)?.index).toBe(50));
  });
});

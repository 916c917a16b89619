"use client";

import { useVirtualizer, type ScrollToOptions } from "@tanstack/react-virtual";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { fieldClass } from "@/components/ui/form";
import { useShortcuts } from "@/components/ui/shortcuts";
import { useTurnHash, writeTurnHash } from "./turn-navigation";
import type { TurnPages } from "./use-turn-pages";
import { Button } from "@/components/ui/button";

type Align = NonNullable<ScrollToOptions["align"]>;

/** Estimated height of a row before it is measured: a skeleton (88) plus the gap below it (8). */
const ROW_ESTIMATE = 96;
const estimateSize = () => ROW_ESTIMATE;
/** j/k keep re-revealing the selected row until it has not moved for this many frames, for at most the second. */
const REVEAL_STILL_FRAMES = 3;
const REVEAL_MAX_FRAMES = 60;

/**
 * A virtual list of `count` rows over one or more paged trajectories (`sources`): loads the pages of the
 * rows on screen, jumps to a row (and again once its page arrives and the heights are real), keeps the
 * selected row, follows `#turn-N` links and moves the selection with j / k.
 */
export function useTurnList({ count, sources }: { count: number; sources: TurnPages[] }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // TanStack Virtual keeps its state outside React by design; the React Compiler leaves this hook alone
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize,
    overscan: 8,
    paddingStart: 8,
    // rows on the server and in the first client render (no element measured yet): the first screen
    initialRect: { width: 0, height: 720 },
  });
  const items = virtualizer.getVirtualItems();
  const first = items.length > 0 ? items[0].index : 0;
  const last = items.length > 0 ? items[items.length - 1].index : -1;
  const [selected, setSelected] = useState<number | null>(null);

  const latest = useRef(sources);
  useEffect(() => {
    latest.current = sources;
  });
  const storesKey = sources.map((s) => s.rolloutId).join(",");
  useEffect(() => {
    for (const s of latest.current) s.ensureRange(first, Math.min(last, s.total - 1));
  }, [first, last, storesKey]);

  // A jump lands on estimated heights; once the target's page is in, the real rows may push it away.
  const pending = useRef<{ index: number; align: Align } | null>(null);
  const settled = (index: number) =>
    latest.current.every((s) => index >= s.total || s.get(index) !== undefined || s.error(index) !== undefined);
  const versions = sources.map((s) => s.version).join(",");
  useEffect(() => {
    const p = pending.current;
    if (!p || !settled(p.index)) return;
    pending.current = null;
    virtualizer.scrollToIndex(p.index, { align: p.align });
  }, [versions, virtualizer]);

  const go = useCallback(
    (index: number, align: Align = "start") => {
      if (count === 0 || !Number.isFinite(index)) return;
      const i = Math.max(0, Math.min(count - 1, Math.floor(index)));
      for (const s of latest.current) s.ensure(i); // start the fetch now, not after the scroll event
      setSelected(i);
      pending.current = settled(i) ? null : { index: i, align };
      virtualizer.scrollToIndex(i, { align });
    },
    [count, virtualizer],
  );
  /** The user scrolls by hand: forget the jump waiting for its page. */
  const userScrolled = useRef(false);
  const cancelJump = useCallback(() => {
    pending.current = null;
    userScrolled.current = true;
  }, []);

  const pick = useCallback((index: number) => {
    writeTurnHash(index);
    setSelected(index);
  }, []);

  // j/k: once the row is rendered and measured, bring all of it into view, inside the list and on the page
  const reveal = useRef(false);
  useEffect(() => {
    if (selected === null || !reveal.current) return;
    reveal.current = false;
    // Rows above may still be measured (a new page, a narrower window) and push the row away after the
    // first scroll: keep it in view until its place has held for a few frames, or the user scrolls.
    let frame = 0;
    let frames = 0;
    let still = 0;
    let lastTop: number | null = null;
    const settle = () => {
      const box = scrollRef.current;
      const row = box?.querySelector<HTMLElement>(`[data-index="${selected}"]`);
      if (box && row) {
        const top = row.getBoundingClientRect().top;
        if (lastTop === null || Math.abs(top - lastTop) > 1) {
          const tall = row.offsetHeight > Math.min(box.clientHeight, window.innerHeight);
          row.scrollIntoView({ block: tall ? "start" : "nearest" });
          still = 0;
        } else still++;
        lastTop = row.getBoundingClientRect().top;
      }
      if (still < REVEAL_STILL_FRAMES && ++frames < REVEAL_MAX_FRAMES && !userScrolled.current) frame = requestAnimationFrame(settle);
    };
    userScrolled.current = false;
    frame = requestAnimationFrame(settle);
    return () => cancelAnimationFrame(frame);
  }, [selected, versions]);

  function step(delta: number) {
    if (count === 0) return;
    // nothing selected yet: j and k both start at the top row on screen
    const top = virtualizer.range?.startIndex ?? first;
    reveal.current = true;
    go((selected ?? top - delta) + delta, "auto");
  }
  useShortcuts({ j: () => step(1), k: () => step(-1) });
  useTurnHash((index) => go(index, "start"));

  return { scrollRef, virtualizer, items, selected, go, pick, cancelJump };
}

export type TurnList = ReturnType<typeof useTurnList>;

/** The scroll container of a turn list and the sized, translated block its rows sit in. */
// The frame reads the virtualizer (sizes, offsets) and the scroll ref while rendering, as TanStack Virtual is meant to be used.
/* eslint-disable react-hooks/refs */
export function TurnListFrame({ list, testId, children }: { list: TurnList; testId: string; children: ReactNode }) {
  return (
    <div
      ref={list.scrollRef}
      data-testid={testId}
      className="h-[70vh] overflow-auto rounded-md border border-zinc-200 bg-zinc-50 [contain:strict] [overflow-anchor:none]"
      onWheel={list.cancelJump}
      onTouchStart={list.cancelJump}
      onPointerDown={list.cancelJump}
    >
      <div className="relative w-full" style={{ height: list.virtualizer.getTotalSize() }}>
        <div className="absolute left-0 top-0 w-full" style={{ transform: `translateY(${list.items[0]?.start ?? 0}px)` }}>
          {children}
        </div>
      </div>
    </div>
  );
}
/* eslint-enable react-hooks/refs */

/** First / Last buttons and a "Go to #" field. */
export function JumpControls({
  total,
  go,
  testIdPrefix,
}: {
  total: number;
  go: (index: number, align?: Align) => void;
  testIdPrefix: string;
}) {
  const [target, setTarget] = useState("");
  return (
    <div className="flex items-center gap-1">
      <Button size="sm" data-testid={`${testIdPrefix}-first`} disabled={total === 0} onClick={() => go(0, "start")}>
        First
      </Button>
      <Button size="sm" data-testid={`${testIdPrefix}-last`} disabled={total === 0} onClick={() => go(total - 1, "end")}>
        Last
      </Button>
      <form
        className="flex items-center gap-1"
        onSubmit={(e) => {
          e.preventDefault();
          const n = Number.parseInt(target, 10);
          if (Number.isFinite(n)) go(n, "start");
        }}
      >
        <label className="flex items-center gap-1 text-xs text-zinc-500">
          Go to #
          <input
            type="number"
            inputMode="numeric"
            min={0}
            max={Math.max(0, total - 1)}
            value={target}
            onChange={(e) => setTarget(e.target.value)}
            data-testid={`${testIdPrefix}-goto`}
            className={`${fieldClass} num w-20 py-0.5 text-xs`}
          />
        </label>
      </form>
    </div>
  );
}

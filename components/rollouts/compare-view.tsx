"use client";

import { useEffect, useMemo, useState } from "react";
import { count } from "@/components/ui/format";
import { Button } from "@/components/ui/button";
import type { TurnOutline, TurnPage } from "@/lib/rollouts/turn-types";
import { findDivergence, sameTurn, type Divergence } from "@/lib/rollouts/divergence";
import { TurnCard, TurnSkeleton, TurnUiMemory } from "./turn-card";
import { JumpControls, TurnListFrame, useTurnList, type TurnList } from "./turn-list";
import { useTurnPages, type TurnPages } from "./use-turn-pages";

/** One of the two rollouts compared. */
export interface CompareSide {
  rolloutId: number;
  label: string;
  success: boolean;
  /** its first page, rendered on the server */
  initial: TurnPage;
}

/** A turn of one side: `null` when that side has no row i, `undefined` while its page loads. */
function sideTurn(pages: TurnPages, i: number): TurnOutline | null | undefined {
  return i >= pages.total ? null : pages.get(i);
}

/**
 * Two trajectories side by side, row i holding turn i of each; rows whose turns differ (role, content or tool calls) or where one side
 * has ended are marked, and the header names the first such row. Each side loads its own pages.
 */
export function CompareView({ left, right }: { left: CompareSide; right: CompareSide }) {
  return (
    <TurnUiMemory key={`${left.rolloutId}-${right.rolloutId}`}>
      <Compare left={left} right={right} />
    </TurnUiMemory>
  );
}

function Compare({ left, right }: { left: CompareSide; right: CompareSide }) {
  const a = useTurnPages(left.rolloutId, left.initial);
  const b = useTurnPages(right.rolloutId, right.initial);
  const rows = Math.max(a.total, b.total);
  const list = useTurnList({ count: rows, sources: [a, b] });

  // O(loaded prefix), once per arriving page: not per render
  const divergence = useMemo(
    () =>
      findDivergence(
        a.total,
        b.total,
        (i) => a.get(i),
        (i) => b.get(i),
      ),
    [a, b],
  );
  // "Find" walks the pages forward until the divergence (or the end) is loaded
  const [scanning, setScanning] = useState(false);
  const scanStuck =
    divergence.kind === "unknown" && (a.error(divergence.scanned) !== undefined || b.error(divergence.scanned) !== undefined);
  const scanActive = scanning && divergence.kind === "unknown" && !scanStuck;
  useEffect(() => {
    if (!scanActive || divergence.kind !== "unknown") return;
    a.ensure(divergence.scanned);
    b.ensure(divergence.scanned);
  }, [scanActive, divergence, a, b]);

  return (
    <div data-testid="compare-view">
      <div className="mb-2 flex flex-wrap items-center gap-2">
        <span className="num text-zinc-600">{count(rows)} rows</span>
        <DivergenceNote
          divergence={divergence}
          total={rows}
          scanning={scanActive}
          onJump={(i) => list.go(i, "start")}
          onScan={() => setScanning(true)}
        />
        <div className="ml-auto">
          <JumpControls total={rows} go={list.go} testIdPrefix="compare" />
        </div>
      </div>
      <div className="mb-1 grid grid-cols-2 gap-2 pl-2.5 pr-2">
        <SideHeader side={left} total={a.total} testId="compare-left-header" />
        <SideHeader side={right} total={b.total} testId="compare-right-header" />
      </div>
      <TurnListFrame list={list} testId="compare-scroll">
        {list.items.map((item) => {
          const i = item.index;
          const x = sideTurn(a, i);
          const y = sideTurn(b, i);
          const diverged = x === null || y === null || (x !== undefined && y !== undefined && !sameTurn(x, y));
          return (
            <div
              key={item.key}
              ref={list.virtualizer.measureElement}
              data-index={i}
              id={`turn-${i}`}
              data-row-index={i}
              data-testid="compare-row"
              data-diverged={diverged || undefined}
              className={`grid grid-cols-2 gap-2 border-l-2 pb-2 pl-2 pr-2 ${diverged ? "border-amber-400" : "border-transparent"}`}
            >
              <Cell pages={a} turn={x} index={i} list={list} side="left" />
              <Cell pages={b} turn={y} index={i} list={list} side="right" />
            </div>
          );
        })}
      </TurnListFrame>
    </div>
  );
}

function Cell({
  pages,
  turn,
  index,
  list,
  side,
}: {
  pages: TurnPages;
  turn: TurnOutline | null | undefined;
  index: number;
  list: TurnList;
  side: "left" | "right";
}) {
  if (turn === null) {
    return (
      <div
        className="rounded-md border border-dashed border-zinc-200 px-3 py-2 text-xs text-zinc-500"
        data-testid={`compare-${side}-empty`}
      >
        no turn #{index}
      </div>
    );
  }
  return (
    <div className="min-w-0" data-testid={`compare-${side}`} data-turn-index={turn ? index : undefined}>
      {turn ? (
        <TurnCard rolloutId={pages.rolloutId} turn={turn} selected={list.selected === index} onPick={list.pick} />
      ) : (
        <TurnSkeleton index={index} error={pages.error(index)} onRetry={() => pages.retry(index)} />
      )}
    </div>
  );
}

function SideHeader({ side, total, testId }: { side: CompareSide; total: number; testId: string }) {
  return (
    <div className="flex min-w-0 items-center gap-2 rounded-md border border-zinc-200 bg-white px-3 py-1.5" data-testid={testId}>
      <span className="truncate font-medium text-zinc-900" title={side.label}>
        {side.label}
      </span>
      <span
        className={`rounded px-1.5 py-0.5 text-xs font-semibold ${side.success ? "bg-emerald-100 text-emerald-800" : "bg-red-100 text-red-800"}`}
      >
        {side.success ? "PASS" : "FAIL"}
      </span>
      <span className="num ml-auto shrink-0 text-xs text-zinc-500">
        {count(total)} {total === 1 ? "message" : "messages"}
      </span>
    </div>
  );
}

function DivergenceNote({
  divergence,
  total,
  scanning,
  onJump,
  onScan,
}: {
  divergence: Divergence;
  total: number;
  scanning: boolean;
  onJump: (index: number) => void;
  onScan: () => void;
}) {
  if (divergence.kind === "at") {
    return (
      <span className="flex items-center gap-2 text-xs text-amber-800" data-testid="compare-divergence">
        <span className="num">First divergence at #{divergence.index}</span>
        <Button size="sm" onClick={() => onJump(divergence.index)} data-testid="compare-jump-divergence">
          Jump there
        </Button>
      </span>
    );
  }
  if (divergence.kind === "none") {
    return (
      <span className="num text-xs text-zinc-500" data-testid="compare-divergence">
        Roles match in all {count(total)} rows
      </span>
    );
  }
  return (
    <span className="flex items-center gap-2 text-xs text-zinc-500" data-testid="compare-divergence">
      <span className="num">
        {scanning
          ? `Looking for the first divergence… (#${count(divergence.scanned)})`
          : `Roles match in the first ${count(divergence.scanned)} loaded rows`}
      </span>
      {!scanning && (
        <Button size="sm" onClick={onScan} data-testid="compare-find-divergence">
          Find divergence
        </Button>
      )}
    </span>
  );
}

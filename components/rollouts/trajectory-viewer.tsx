"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { fieldClass } from "@/components/ui/form";
import { count } from "@/components/ui/format";
import { useSearchShortcut } from "@/components/ui/shortcuts";
import type { TurnPage, TurnSearchResult } from "@/lib/rollouts/turn-types";
import { TurnCard, TurnSkeleton, TurnUiMemory } from "./turn-card";
import { JumpControls, TurnListFrame, useTurnList } from "./turn-list";
import { useDebounced } from "./turn-navigation";
import { useTurnPages } from "./use-turn-pages";
import type { AnnotationView } from "./annotation-panel";
import { TurnAnnotations } from "@/components/annotations/turn-annotations";

const NO_MATCHES: TurnSearchResult["matches"] = [];

/**
 * One trajectory as a virtual list of its messages: the server-rendered first page shows at once, other
 * pages load as they scroll into view. Search, First / Last / Go to #, `#turn-N` links, j / k and `/`.
 * Annotations on a turn show beside that turn.
 */
export function TrajectoryViewer({
  rolloutId,
  initial,
  turnAnnotations = NO_ANNOTATIONS,
}: {
  rolloutId: number;
  initial: TurnPage;
  turnAnnotations?: AnnotationView[];
}) {
  return (
    <TurnUiMemory key={rolloutId}>
      <Trajectory rolloutId={rolloutId} initial={initial} turnAnnotations={turnAnnotations} />
    </TurnUiMemory>
  );
}

const NO_ANNOTATIONS: AnnotationView[] = [];

function Trajectory({ rolloutId, initial, turnAnnotations }: { rolloutId: number; initial: TurnPage; turnAnnotations: AnnotationView[] }) {
  const byTurn = useMemo(() => {
    const map = new Map<number, AnnotationView[]>();
    for (const a of turnAnnotations) if (a.turn !== null) map.set(a.turn, [...(map.get(a.turn) ?? []), a]);
    return map;
  }, [turnAnnotations]);
  const pages = useTurnPages(rolloutId, initial);
  const list = useTurnList({ count: pages.total, sources: [pages] });
  const searchInput = useRef<HTMLInputElement>(null);
  useSearchShortcut(searchInput);

  const [text, setText] = useState("");
  const settled = useDebounced(text.trim(), 250);
  const query = settled.length >= 2 ? settled : "";
  const search = useQuery({
    queryKey: ["rollout-search", rolloutId, query],
    queryFn: () => apiFetch<TurnSearchResult>(`/api/v1/rollouts/${rolloutId}/search?q=${encodeURIComponent(query)}&limit=200`),
    enabled: query !== "",
    staleTime: 60_000,
  });
  const result = query ? search.data : undefined;
  const matches = result?.matches ?? NO_MATCHES;
  const matchSet = useMemo(() => new Set(matches.map((m) => m.index)), [matches]);
  // the cursor belongs to one result: a new result starts again at its first match
  const [position, setPosition] = useState<{ of: TurnSearchResult | undefined; at: number }>({ of: undefined, at: 0 });
  const cursor = position.of === result ? position.at : 0;

  const { go } = list;
  useEffect(() => {
    if (result && result.matches.length > 0) go(result.matches[0].index, "start");
  }, [result, go]);

  function step(delta: number) {
    if (matches.length === 0) return;
    const at = (((cursor + delta) % matches.length) + matches.length) % matches.length;
    setPosition({ of: result, at });
    go(matches[at].index, "start");
  }

  let status = "";
  if (query && search.isFetching && !result) status = "Searching…";
  else if (query && search.error) status = search.error.message;
  else if (result) status = result.total === 0 ? "No matches" : `${count(cursor + 1)} of ${count(result.total)}`;

  return (
    <div data-testid="trajectory-viewer">
      <div className="mb-2 flex flex-wrap items-center gap-2">
        <span className="num text-zinc-600" data-testid="trajectory-total">
          {count(pages.total)} {pages.total === 1 ? "message" : "messages"}
        </span>
        <input
          ref={searchInput}
          type="text"
          data-testid="trajectory-search"
          placeholder="Search in trajectory  /"
          aria-label="Search in trajectory"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              step(e.shiftKey ? -1 : 1);
            } else if (e.key === "Escape") {
              e.currentTarget.blur();
            }
          }}
          className={`${fieldClass} w-64 bg-white py-0.5`}
        />
        <span
          className={`num min-w-16 text-xs ${search.error && query ? "text-red-700" : "text-zinc-500"}`}
          data-testid="trajectory-search-status"
          title={result && result.total > matches.length ? `Prev / next go through the first ${count(matches.length)} matches` : undefined}
        >
          {status}
        </span>
        <Button
          size="sm"
          disabled={matches.length === 0}
          onClick={() => step(-1)}
          aria-label="Previous match"
          title="Previous match (Shift+Enter)"
        >
          ↑
        </Button>
        <Button size="sm" disabled={matches.length === 0} onClick={() => step(1)} aria-label="Next match" title="Next match (Enter)">
          ↓
        </Button>
        <div className="ml-auto">
          <JumpControls total={pages.total} go={go} testIdPrefix="trajectory" />
        </div>
      </div>
      <TurnListFrame list={list} testId="trajectory-scroll">
        {list.items.map((item) => {
          const i = item.index;
          const turn = pages.get(i);
          return (
            <div
              key={item.key}
              ref={list.virtualizer.measureElement}
              data-index={i}
              id={`turn-${i}`}
              // only real rows carry the turn's marks: a skeleton is not the turn yet
              data-turn-index={turn ? i : undefined}
              data-testid={turn ? "turn" : undefined}
              className="px-2 pb-2"
            >
              {turn ? (
                <>
                  <TurnCard
                    rolloutId={rolloutId}
                    turn={turn}
                    query={query || undefined}
                    selected={list.selected === i}
                    matched={matchSet.has(i)}
                    onPick={list.pick}
                  />
                  {byTurn.has(i) && <TurnAnnotations annotations={byTurn.get(i)!} />}
                </>
              ) : (
                <TurnSkeleton index={i} error={pages.error(i)} onRetry={() => pages.retry(i)} />
              )}
            </div>
          );
        })}
      </TurnListFrame>
    </div>
  );
}

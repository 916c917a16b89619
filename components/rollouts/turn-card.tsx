"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { createContext, Fragment, memo, useCallback, useContext, useState, type MouseEvent, type ReactNode } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { count } from "@/components/ui/format";
import type { DocumentOutline, ToolCallOutline, TurnOutline, TurnSlice } from "@/lib/rollouts/turn-types";

/** Characters of a message fetched and rendered per "Show all" / "Show more" step. */
export const SLICE_CHARS = 20_000;
/** Tool output longer than this starts folded to a few lines. */
const FOLD_TOOL_CHARS = 400;
const FOLD_TOOL_LINES = 8;

const TEXT = "whitespace-pre-wrap break-words font-mono text-xs text-zinc-800";

// Expansion state outlives the row: virtual rows unmount when scrolled away and must come back as they were.
const TurnUiContext = createContext<Map<string, unknown>>(new Map());

/** Remembers which parts of which turns are expanded for the lists inside it. */
export function TurnUiMemory({ children }: { children: ReactNode }) {
  const [memory] = useState(() => new Map<string, unknown>());
  return <TurnUiContext value={memory}>{children}</TurnUiContext>;
}

function useRemembered<T>(key: string, initial: T): [T, (value: T) => void] {
  const memory = useContext(TurnUiContext);
  const [value, setValue] = useState<T>(() => (memory.has(key) ? (memory.get(key) as T) : initial));
  const set = useCallback(
    (next: T) => {
      memory.set(key, next);
      setValue(next);
    },
    [memory, key],
  );
  return [value, set];
}

/** One message in full, its content in 20,000-character slices fetched one "Show more" at a time. */
export function useTurnSlices(rolloutId: number, index: number, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: ["rollout-turn", rolloutId, index],
    queryFn: ({ pageParam }) =>
      apiFetch<TurnSlice>(`/api/v1/rollouts/${rolloutId}/turns/${index}?offset=${pageParam}&length=${SLICE_CHARS}`),
    initialPageParam: 0,
    getNextPageParam: (last: TurnSlice) => {
      const next = last.offset + last.content.length;
      return last.content.length > 0 && next < last.length ? next : undefined;
    },
    enabled,
    staleTime: Infinity,
  });
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `text` with every case-insensitive occurrence of `query` in a <mark>. */
export function highlight(text: string, query: string | undefined): ReactNode {
  if (!query || query.length < 2 || !text) return text;
  const parts = text.split(new RegExp(`(${escapeRegExp(query)})`, "gi"));
  if (parts.length === 1) return text;
  // split with a capture group alternates: text, match, text, match, ...
  return parts.map((part, i) =>
    i % 2 === 1 ? (
      <mark key={i} className="rounded-sm bg-yellow-200 text-inherit">
        {part}
      </mark>
    ) : (
      <Fragment key={i}>{part}</Fragment>
    ),
  );
}

const ROLE_STYLE: Record<string, string> = {
  system: "bg-zinc-200 text-zinc-800",
  user: "bg-sky-100 text-sky-800",
  assistant: "bg-violet-100 text-violet-800",
  tool: "bg-amber-100 text-amber-800",
};

/** The role of a message in its colour; `label` names it otherwise (a subagent's prompt is not the user's). */
export function RoleBadge({ role, label }: { role: string; label?: string }) {
  return (
    <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${ROLE_STYLE[role] ?? "bg-zinc-100 text-zinc-600"}`}>{label ?? role}</span>
  );
}

/** Marks a message that is not the main agent's own: a subagent's (sidechain) or copied from an earlier segment. */
function OriginBadges({ turn }: { turn: TurnOutline }) {
  return (
    <>
      {turn.sidechain && (
        <span
          className="max-w-48 truncate rounded border border-dashed border-violet-300 px-1.5 py-0.5 font-mono text-violet-800"
          title="a subagent's step, merged into this trajectory; not counted as a turn of the main agent"
          data-testid="sidechain-badge"
        >
          subagent{turn.sidechain.agentId ? ` ${turn.sidechain.agentId}` : ""}
        </span>
      )}
      {turn.copiedContext && (
        <span
          className="rounded border border-dashed border-zinc-300 px-1.5 py-0.5 text-zinc-600"
          title="copied from an earlier segment of this run for context; not counted again as a turn"
          data-testid="copied-context-badge"
        >
          copied context
        </span>
      )}
    </>
  );
}

/** Placeholder of a turn whose page is not loaded yet: as tall as a row is estimated (88 + 8 padding). */
export function TurnSkeleton({ index, error, onRetry }: { index: number; error?: string; onRetry?: () => void }) {
  return (
    <div
      className="h-[88px] overflow-hidden rounded-md border border-zinc-200 bg-white px-3 py-2"
      data-testid="turn-skeleton"
      aria-busy={!error}
    >
      <div className="flex items-center gap-2">
        <span className="num font-mono text-xs text-zinc-500">#{index}</span>
        {!error && <span className="h-4 w-16 animate-pulse rounded bg-zinc-200" />}
      </div>
      {error ? (
        <div className="mt-2 text-xs text-red-700">
          {error}{" "}
          {onRetry && (
            <Button variant="link" size="sm" onClick={onRetry}>
              Retry
            </Button>
          )}
        </div>
      ) : (
        <>
          <div className="mt-2 h-3 w-3/4 animate-pulse rounded bg-zinc-100" />
          <div className="mt-1.5 h-3 w-1/2 animate-pulse rounded bg-zinc-100" />
        </>
      )}
    </div>
  );
}

function lineCount(s: string, stopAt: number): number {
  let n = 1;
  for (let i = s.indexOf("\n"); i !== -1 && n <= stopAt; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

/** The content of a message: the preview, folded for long tool output, and the full text slice by slice on request. */
function TurnContent({ rolloutId, turn, query }: { rolloutId: number; turn: TurnOutline; query?: string }) {
  const key = `${rolloutId}:${turn.index}`;
  const truncated = turn.length > turn.preview.length;
  const foldable = turn.role === "tool" && (turn.length > FOLD_TOOL_CHARS || lineCount(turn.preview, FOLD_TOOL_LINES) > FOLD_TOOL_LINES);
  const [unfolded, setUnfolded] = useRemembered(`${key}:unfolded`, false);
  const [full, setFull] = useRemembered(`${key}:full`, false);
  const slices = useTurnSlices(rolloutId, turn.index, full);

  if (turn.length === 0) {
    return turn.toolCalls.length === 0 ? <div className="mt-1 text-xs italic text-zinc-500">(empty)</div> : null;
  }

  if (full) {
    const pages = slices.data?.pages ?? [];
    const shown = pages.reduce((n, p) => n + p.content.length, 0);
    return (
      <div className="mt-1">
        <div className="max-h-[60vh] overflow-auto rounded border border-zinc-100 bg-zinc-50 p-2" data-testid="turn-full">
          <div className={TEXT}>
            {pages.map((p) => (
              // one node per slice: the browser never lays out the whole string in one piece
              <span key={p.offset}>{highlight(p.content, query)}</span>
            ))}
            {slices.hasNextPage && <span className="text-zinc-500">…</span>}
          </div>
          {slices.isPending && <div className="text-xs text-zinc-500">Loading…</div>}
          {slices.error && <div className="text-xs text-red-700">{slices.error.message}</div>}
        </div>
        <div className="mt-1 flex items-center gap-3">
          {slices.hasNextPage && (
            <>
              <Button variant="link" size="sm" disabled={slices.isFetchingNextPage} onClick={() => slices.fetchNextPage()}>
                {slices.isFetchingNextPage ? "Loading…" : "Show more"}
              </Button>
              <span className="num text-xs text-zinc-500">
                {count(shown)} of {count(turn.length)} chars
              </span>
            </>
          )}
          <Button variant="link" size="sm" onClick={() => setFull(false)}>
            Show preview
          </Button>
        </div>
      </div>
    );
  }

  const folded = foldable && !unfolded;
  return (
    <div className="mt-1">
      <div className={`${TEXT} ${folded ? "max-h-20 overflow-hidden [mask-image:linear-gradient(to_bottom,black_60%,transparent)]" : ""}`}>
        {highlight(turn.preview, query)}
        {truncated && <span className="text-zinc-500">…</span>}
      </div>
      {(foldable || truncated) && (
        <div className="mt-1 flex items-center gap-3">
          {foldable && (
            <Button variant="link" size="sm" aria-expanded={!folded} onClick={() => setUnfolded(!unfolded)}>
              {folded ? "Expand" : "Fold"}
            </Button>
          )}
          {truncated && (
            <Button variant="link" size="sm" onClick={() => setFull(true)}>
              Show all ({count(turn.length)} chars)
            </Button>
          )}
        </div>
      )}
    </div>
  );
}

/** The model's reasoning, apart from what it said and folded until asked for; the full text comes with the message's slice. */
function Reasoning({ rolloutId, turn, query }: { rolloutId: number; turn: TurnOutline; query?: string }) {
  const [open, setOpen] = useRemembered(`${rolloutId}:${turn.index}:reasoning`, false);
  const length = turn.reasoningLength ?? 0;
  const cut = length > (turn.reasoningPreview?.length ?? 0);
  const slices = useTurnSlices(rolloutId, turn.index, open && cut);
  if (length === 0) return null;
  const text = cut ? slices.data?.pages[0]?.reasoning : turn.reasoningPreview;
  return (
    <div className="mt-1" data-testid="turn-reasoning">
      <Button variant="ghost" size="sm" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="reasoning-toggle">
        <span>
          {open ? "▾" : "▸"} Reasoning <span className="num">({count(length)} chars)</span>
        </span>
      </Button>
      {open && (
        <div
          className="mt-1 max-h-[40vh] overflow-auto rounded border-l-2 border-violet-200 bg-violet-50/40 py-1 pl-2 pr-1"
          data-testid="reasoning-text"
        >
          {text !== undefined ? (
            <div className={`${TEXT} italic text-zinc-600`}>{highlight(text, query)}</div>
          ) : slices.error ? (
            <div className="text-xs text-red-700">{slices.error.message}</div>
          ) : (
            <div className="text-xs text-zinc-500">Loading…</div>
          )}
        </div>
      )}
    </div>
  );
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, " ");
  return flat.length > max ? flat.slice(0, max) : flat;
}

/** The shell command of a tool call's arguments (`command`, `cmd` or `keystrokes` as a string), and the other arguments. */
export function commandOf(args: unknown): { command: string; rest: Record<string, unknown> } | null {
  if (!args || typeof args !== "object" || Array.isArray(args)) return null;
  const record = args as Record<string, unknown>;
  const key = ["command", "cmd", "keystrokes"].find((k) => typeof record[k] === "string");
  if (!key) return null;
  const { [key]: command, ...rest } = record;
  return { command: command as string, rest };
}

/** A shell command as a code block. */
function CommandBlock({ command, query }: { command: string; query?: string }) {
  return (
    // focusable: a long command scrolls sideways, and a keyboard must be able to scroll it (axe scrollable-region-focusable)
    <pre
      tabIndex={0}
      className="overflow-x-auto rounded bg-zinc-900 px-2 py-1.5 font-mono text-xs text-zinc-100"
      data-testid="tool-command"
    >
      <code>
        <span className="select-none text-zinc-500">$ </span>
        {highlight(command, query)}
      </code>
    </pre>
  );
}

/** Arguments of a tool call: a command as a code block, JSON pretty-printed when small enough, long text shown 20,000 characters at a time. */
function ArgumentsText({ text, query }: { text: string; query?: string }) {
  const [shown, setShown] = useState(SLICE_CHARS);
  let pretty = text;
  let command: string | null = null;
  if (text.length <= 100_000) {
    try {
      const parsed = JSON.parse(text) as unknown;
      const split = commandOf(parsed);
      if (split) {
        command = split.command;
        pretty = Object.keys(split.rest).length ? JSON.stringify(split.rest, null, 2) : "";
      } else pretty = JSON.stringify(parsed, null, 2);
    } catch {
      // not JSON (or cut): show as sent
    }
  }
  return (
    <>
      {command !== null && <CommandBlock command={command} query={query} />}
      <div className={TEXT}>
        {highlight(pretty.slice(0, shown), query)}
        {pretty.length > shown && <span className="text-zinc-500">…</span>}
      </div>
      {pretty.length > shown && (
        <div className="mt-1 flex items-center gap-3">
          <Button variant="link" size="sm" onClick={() => setShown(shown + SLICE_CHARS)}>
            Show more
          </Button>
          <span className="num text-xs text-zinc-500">
            {count(shown)} of {count(pretty.length)} chars
          </span>
        </div>
      )}
    </>
  );
}

/** The tool calls of an assistant message as `name(arguments…)` chips; one opens at a time, fetched in full when cut. */
function ToolCalls({ rolloutId, turn, query }: { rolloutId: number; turn: TurnOutline; query?: string }) {
  const [openId, setOpenId] = useRemembered<string | null>(`${rolloutId}:${turn.index}:call`, null);
  const openIndex = openId === null ? -1 : turn.toolCalls.findIndex((c, i) => callKey(c, i) === openId);
  const call: ToolCallOutline | undefined = turn.toolCalls[openIndex];
  const cut = !!call && call.argumentsLength > call.argumentsPreview.length;
  const slices = useTurnSlices(rolloutId, turn.index, cut);
  const full = cut
    ? slices.data?.pages[0]?.toolCalls.find((c, i) => (call.id ? c.id === call.id : i === openIndex))?.arguments
    : call?.argumentsPreview;

  return (
    <div className="mt-1.5">
      <div className="flex flex-wrap gap-1">
        {turn.toolCalls.map((c, i) => {
          const open = i === openIndex;
          const args = oneLine(c.argumentsPreview, 120);
          return (
            <Button
              key={callKey(c, i)}
              variant="toggle"
              size="xs"
              data-testid="tool-call"
              aria-expanded={open}
              title={`${c.name} · ${count(c.argumentsLength)} chars of arguments`}
              onClick={() => setOpenId(open ? null : callKey(c, i))}
              className="max-w-full font-mono"
            >
              <span className="truncate">
                <span className="font-semibold">{c.name}</span>({highlight(args, query)}
                {c.argumentsLength > args.length ? "…" : ""})
              </span>
            </Button>
          );
        })}
      </div>
      {!call && <InlineCommands calls={turn.toolCalls} query={query} />}
      {call && (
        <div className="mt-1 max-h-[50vh] overflow-auto rounded border border-zinc-100 bg-zinc-50 p-2" data-testid="tool-call-arguments">
          <div className="mb-1 text-xs text-zinc-500">
            <span className="font-mono">{call.name}</span> {call.id && <span className="font-mono">· {call.id}</span>} ·{" "}
            <span className="num">{count(call.argumentsLength)} chars</span>
          </div>
          {full !== undefined ? (
            <ArgumentsText key={callKey(call, openIndex)} text={full} query={query} />
          ) : slices.error ? (
            <div className="text-xs text-red-700">{slices.error.message}</div>
          ) : (
            <div className="text-xs text-zinc-500">Loading…</div>
          )}
        </div>
      )}
    </div>
  );
}

/** The commands of a message's tool calls shown as code right away, when the outline carries them whole. */
function InlineCommands({ calls, query }: { calls: ToolCallOutline[]; query?: string }) {
  const commands = calls.flatMap((c) => {
    if (c.argumentsLength > c.argumentsPreview.length) return [];
    try {
      const split = commandOf(JSON.parse(c.argumentsPreview));
      return split ? [{ key: c.id, command: split.command }] : [];
    } catch {
      return [];
    }
  });
  if (commands.length === 0) return null;
  return (
    <div className="mt-1 space-y-1">
      {commands.map((c, i) => (
        <CommandBlock key={c.key || i} command={c.command} query={query} />
      ))}
    </div>
  );
}

function callKey(c: ToolCallOutline, i: number): string {
  return c.id || `#${i}`;
}

function Relevance({ relevant }: { relevant?: boolean }) {
  const [cls, label] =
    relevant === true
      ? ["bg-emerald-500", "relevant"]
      : relevant === false
        ? ["bg-red-500", "distractor"]
        : ["bg-zinc-300", "not labelled"];
  return <span className={`mt-1 inline-block h-2 w-2 shrink-0 rounded-full ${cls}`} title={label} aria-label={label} />;
}

/** The documents retrieved in a turn, relevant ones marked green and distractors red. */
function DocumentList({ documents, query }: { documents: DocumentOutline[]; query?: string }) {
  return (
    <ul className="mt-1.5 space-y-1.5 rounded border border-zinc-100 bg-zinc-50 p-2" data-testid="turn-documents">
      {documents.map((d, i) => (
        <li key={d.id ?? i} className="flex gap-2" data-relevant={d.relevant === undefined ? undefined : String(d.relevant)}>
          <Relevance relevant={d.relevant} />
          <div className="min-w-0 flex-1">
            <div className="flex items-baseline gap-2">
              <span className="truncate text-xs font-medium text-zinc-800">{d.title ?? d.id ?? `Document ${i + 1}`}</span>
              <span className="num ml-auto shrink-0 text-xs text-zinc-500">{count(d.textLength)} chars</span>
            </div>
            {d.url && (
              <a href={d.url} target="_blank" rel="noreferrer noopener" className="block truncate text-xs text-sky-700 hover:underline">
                {d.url}
              </a>
            )}
            <div className={`${TEXT} line-clamp-3 text-zinc-600`}>
              {highlight(d.textPreview, query)}
              {d.textLength > d.textPreview.length && "…"}
            </div>
          </div>
        </li>
      ))}
    </ul>
  );
}

/** The "N documents" badge: how many were retrieved, how many relevant and how many distractors. */
function DocumentsBadge({ documents, open, onToggle }: { documents: DocumentOutline[]; open: boolean; onToggle: () => void }) {
  let relevant = 0;
  let distractors = 0;
  for (const d of documents) {
    if (d.relevant === true) relevant++;
    else if (d.relevant === false) distractors++;
  }
  return (
    <Button variant="toggle" size="xs" data-testid="documents-badge" aria-expanded={open} onClick={onToggle} className="num">
      <span>
        {documents.length} {documents.length === 1 ? "document" : "documents"}
        {(relevant > 0 || distractors > 0) && (
          <>
            {" · "}
            <span className="text-emerald-700">{relevant} relevant</span>
            {" · "}
            <span className="text-red-700">
              {distractors} {distractors === 1 ? "distractor" : "distractors"}
            </span>
          </>
        )}
      </span>
    </Button>
  );
}

/**
 * One message of a trajectory: index (a `#turn-N` link), role, tokens, content preview, tool calls and
 * retrieved documents. Memoized: a list re-renders only the rows whose props change.
 */
export const TurnCard = memo(function TurnCard({
  rolloutId,
  turn,
  query,
  selected = false,
  matched = false,
  onPick,
}: {
  rolloutId: number;
  turn: TurnOutline;
  /** search text to mark in the content */
  query?: string;
  /** the turn the user is on (j/k, search, link) */
  selected?: boolean;
  /** one of the search matches */
  matched?: boolean;
  /** the index link was clicked */
  onPick?: (index: number) => void;
}) {
  const [docsOpen, setDocsOpen] = useRemembered(`${rolloutId}:${turn.index}:docs`, false);
  function pick(e: MouseEvent<HTMLAnchorElement>) {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return; // let the browser open or copy the link
    e.preventDefault();
    onPick?.(turn.index);
  }
  const frame = selected ? "border-sky-400 ring-2 ring-sky-400" : matched ? "border-yellow-300" : "border-zinc-200";
  return (
    <article
      className={`min-w-0 rounded-md border bg-white px-3 py-2 ${frame}`}
      data-role={turn.role}
      data-selected={selected || undefined}
      data-sidechain={turn.sidechain ? "" : undefined}
    >
      <header className="flex flex-wrap items-center gap-2 text-xs text-zinc-500">
        <a
          href={`#turn-${turn.index}`}
          onClick={pick}
          className="num font-mono text-zinc-500 hover:text-zinc-900 hover:underline"
          title="Link to this turn"
        >
          #{turn.index}
        </a>
        <RoleBadge role={turn.role} label={turn.sidechain && turn.role === "user" ? "prompt" : undefined} />
        <OriginBadges turn={turn} />
        {turn.toolCallId && (
          <span className="max-w-48 truncate font-mono text-zinc-500" title={`answers tool call ${turn.toolCallId}`}>
            ↳ {turn.toolCallId}
          </span>
        )}
        {turn.documents.length > 0 && <DocumentsBadge documents={turn.documents} open={docsOpen} onToggle={() => setDocsOpen(!docsOpen)} />}
        <span className="ml-auto flex items-center gap-2">
          {turn.tokens !== undefined && turn.tokens !== null && <span className="num">{count(turn.tokens)} tokens</span>}
          <span className="num text-zinc-500">{count(turn.length)} chars</span>
        </span>
      </header>
      <Reasoning rolloutId={rolloutId} turn={turn} query={query} />
      <TurnContent rolloutId={rolloutId} turn={turn} query={query} />
      {turn.toolCalls.length > 0 && <ToolCalls rolloutId={rolloutId} turn={turn} query={query} />}
      {docsOpen && turn.documents.length > 0 && <DocumentList documents={turn.documents} query={query} />}
    </article>
  );
});

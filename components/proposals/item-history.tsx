"use client";

import { useQuery } from "@tanstack/react-query";
import type { itemHistory } from "@/lib/review/history";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { ConfigDiff } from "./config-diff";
import { dateTime } from "@/components/ui/format";

type HistoryData = Awaited<ReturnType<typeof itemHistory>>;
type HistoryEvent = HistoryData["events"][number];

const ACTION_TEXT: Record<string, string> = {
  approve: "approved",
  reject: "rejected",
  pending: "took the decision back",
  edit: "edited the config",
  undo: "undid",
};

function describe(e: HistoryEvent, byId: Map<number, HistoryEvent>): string {
  if (e.action === "undo") {
    const undone = e.revertsEventId !== undefined ? byId.get(e.revertsEventId) : undefined;
    return `undid ${undone ? `"${ACTION_TEXT[undone.action] ?? undone.action}" by ${undone.actor}` : "a change"}`;
  }
  const text = ACTION_TEXT[e.action] ?? e.action;
  return e.action === "edit" ? `${text} (now ${e.after.decision})` : text;
}

/**
 * One item's decision history from the server (every decision, edit and undo, with actor and time;
 * an edit's config change on demand) and "undo last change", which works after a reload too.
 */
export function ItemHistory({
  proposalId,
  itemId,
  version,
  canUndo,
  onUndo,
  undoing,
}: {
  proposalId: string;
  itemId: string;
  /** the item's change count: a new change refetches the history */
  version: number;
  canUndo: boolean;
  onUndo: () => void;
  undoing: boolean;
}) {
  const { data, error, isLoading } = useQuery({
    queryKey: ["item-history", itemId, version],
    queryFn: () => apiFetch<HistoryData>(`/api/v1/proposals/${proposalId}/items/${itemId}/history`),
  });
  if (isLoading) return <p className="mt-2 text-xs text-zinc-500">Loading history…</p>;
  if (error) return <p className="mt-2 text-xs text-red-700">{(error as Error).message}</p>;
  const events = data?.events ?? [];
  const byId = new Map(events.map((e) => [e.id, e]));
  const undoable = events.some((e) => e.action !== "undo" && !e.undoneAt);
  return (
    <div className="mt-2 rounded border border-zinc-100 bg-zinc-50 p-2 text-xs" data-testid="item-history">
      {events.length === 0 ? (
        <p className="text-zinc-500">No decision or edit yet.</p>
      ) : (
        <ol className="space-y-1">
          {events.map((e) => {
            const configChanged = JSON.stringify(e.before.editedConfig) !== JSON.stringify(e.after.editedConfig);
            return (
              <li key={e.id} data-testid="history-event" data-action={e.action} className={e.undoneAt ? "text-zinc-500" : ""}>
                <span className="font-medium">{e.actor}</span> {describe(e, byId)} <span className="text-zinc-500">{dateTime(e.at)}</span>
                {e.undoneAt && <span className="ml-1 rounded bg-zinc-200 px-1 text-zinc-600">undone by {e.undoneBy}</span>}
                {configChanged && (
                  <details className="mt-0.5">
                    <summary className="cursor-pointer text-zinc-600">config before and after</summary>
                    <ConfigDiff
                      before={e.before.editedConfig ?? data?.proposedConfig ?? null}
                      after={e.after.editedConfig ?? data?.proposedConfig ?? null}
                      changedOnly
                    />
                  </details>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {canUndo && undoable && (
        <Button size="xs" className="mt-2" onClick={onUndo} busy={undoing} data-testid="item-undo">
          Undo last change
        </Button>
      )}
    </div>
  );
}

"use client";

import Link from "next/link";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { apiFetch } from "@/components/ui/api-client";
import { pct, dateTime } from "@/components/ui/format";
import { useShortcuts } from "@/components/ui/shortcuts";
import { ConfigDiff } from "./config-diff";
import { TaskFilesReview } from "./task-files-review";
import { ItemHistory } from "./item-history";
import { CommentForm } from "./comment-form";
import { filterWords } from "./review-filters";
import { ITEMS_PAGE, isFullItem, mergeProposal, reviewOrder, type ReviewFilters } from "./review-order";
import type { ProposalData } from "./proposal-view";
import { Button } from "@/components/ui/button";

type Item = ProposalData["items"][number];
type FullItem = Extract<Item, { config: unknown }>;
type Decision = "approve" | "reject" | "pending";
/** Item ids in one request for details (`?ids=`): 100 uuids keep the URL under 4 KB. */
const DETAILS_CHUNK = 100;
/** A bulk decision on more items than this is answered with the index of every item rather than the items in full. */
const CHANGED_IN_FULL = ITEMS_PAGE;
const OP_STYLE: Record<string, string> = {
  keep: "bg-zinc-100 text-zinc-700",
  mutate: "bg-blue-50 text-blue-700",
  add: "bg-green-50 text-green-700",
  retire: "bg-red-50 text-red-700",
};
const DECISION_STYLE: Record<string, string> = {
  approved: "border-l-4 border-l-green-500",
  rejected: "border-l-4 border-l-red-500 opacity-70",
  pending: "border-l-4 border-l-transparent",
};

/** An item's decision and who made it, coloured by the decision; the same on rows with and without their details. */
function DecisionBadge({ item, className = "" }: { item: Pick<Item, "decision" | "decidedBy">; className?: string }) {
  const colour =
    item.decision === "approved"
      ? "bg-green-100 text-green-800"
      : item.decision === "rejected"
        ? "bg-red-100 text-red-800"
        : "bg-zinc-100 text-zinc-600";
  return (
    <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${colour} ${className}`} data-testid="item-decision">
      {item.decision}
      {item.decidedBy ? ` by ${item.decidedBy}` : ""}
    </span>
  );
}

function EvidenceLink({ slug, base, e }: { slug: string; base: number; e: { kind: string; ref: string; note?: string } }) {
  const root = `/projects/${encodeURIComponent(slug)}`;
  let href: string | null = null;
  let label = e.ref;
  if (e.kind === "cluster") {
    href = `${root}/generations/${base}/failures?cluster=${encodeURIComponent(e.ref)}`;
    label = `cluster ${e.ref.slice(0, 8)}`;
  } else if (e.kind === "rollout") {
    href = `${root}/rollouts/${encodeURIComponent(e.ref)}`;
    label = `rollout ${e.ref}`;
  } else if (e.ref.startsWith("env:")) {
    href = `${root}/environments/${encodeURIComponent(e.ref.slice(4))}`;
  }
  const body = (
    <>
      <span className="text-zinc-500">{e.kind}</span> {label}
      {e.note ? <span className="text-zinc-500"> · {e.note}</span> : null}
    </>
  );
  return href ? (
    <Link href={href} className="rounded bg-zinc-50 px-1.5 py-0.5 text-blue-700 hover:underline" data-testid="evidence-link">
      {body}
    </Link>
  ) : (
    <span className="rounded bg-zinc-50 px-1.5 py-0.5">{body}</span>
  );
}

/** A JSON editor for a config, validated against the family as you type (debounced, on the server). */
function ConfigEditor({
  slug,
  item,
  onSave,
  onCancel,
  saving,
  error,
}: {
  slug: string;
  item: FullItem;
  onSave: (config: Record<string, unknown>, decision: "approve" | "pending") => void;
  onCancel: () => void;
  saving: boolean;
  error: string | null;
}) {
  const [text, setText] = useState(() => JSON.stringify(item.editedConfig ?? item.config, null, 2));
  const [check, setCheck] = useState<{ valid: boolean; errors: { path: string; message: string }[] } | null>(null);
  // the text parses or it does not: derived while rendering, the server check follows in an effect
  const parsed = useMemo(() => {
    try {
      return { value: JSON.parse(text) as unknown, error: null };
    } catch (e) {
      return { value: undefined, error: (e as Error).message };
    }
  }, [text]);
  const parseError = parsed.error;
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => area.current?.focus(), []);
  useEffect(() => {
    if (parsed.error !== null) return;
    const t = setTimeout(() => {
      apiFetch<{ valid: boolean; errors: { path: string; message: string }[] }>(
        `/api/v1/projects/${encodeURIComponent(slug)}/validate-config`,
        { method: "POST", body: JSON.stringify({ config: parsed.value }) },
      )
        .then(setCheck)
        .catch(() => setCheck(null));
    }, 250);
    return () => clearTimeout(t);
  }, [parsed, slug]);
  const save = (decision: "approve" | "pending") => {
    try {
      onSave(JSON.parse(text), decision);
    } catch {
      // the parse error is on screen already
    }
  };
  return (
    <div className="mt-2" data-testid="config-editor">
      <textarea
        ref={area}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) save("approve");
          if (e.key === "Escape") onCancel();
        }}
        rows={Math.min(16, text.split("\n").length + 1)}
        spellCheck={false}
        className="w-full rounded border border-zinc-300 p-2 font-mono text-xs"
        aria-label="Edit config"
      />
      <div className="mt-1 flex flex-wrap items-center gap-2 text-xs">
        <span
          data-testid="config-check"
          className={parseError || (check && !check.valid) ? "text-red-700" : check?.valid ? "text-green-700" : "text-zinc-500"}
        >
          {parseError
            ? `Not JSON: ${parseError}`
            : check
              ? check.valid
                ? "Valid for the family"
                : check.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
              : "Checking…"}
        </span>
        <Button
          variant="primary"
          size="sm"
          className="ml-auto"
          onClick={() => save("approve")}
          busy={saving}
          disabled={!!parseError || (check !== null && !check.valid)}
          data-testid="config-save"
        >
          Save and approve (Ctrl+Enter)
        </Button>
        <Button
          size="sm"
          onClick={() => save("pending")}
          disabled={saving || !!parseError || (check !== null && !check.valid)}
          data-testid="config-save-pending"
        >
          Save as pending
        </Button>
        <Button variant="ghost" size="sm" onClick={onCancel}>
          Cancel (Esc)
        </Button>
      </div>
      {error && <p className="mt-1 text-xs text-red-700">{error}</p>}
    </div>
  );
}

/** The items of a proposal, grouped by op, with review by mouse or keyboard (j/k, a, r, e, u). */
export function ReviewList({ proposal, canReview, filters }: { proposal: ProposalData; canReview: boolean; filters: ReviewFilters }) {
  const changedOnly = filters.changedOnly;
  const queryClient = useQueryClient();
  const slug = proposal.project ?? "";
  const final = proposal.materializedGeneration !== null;
  const reviewable = canReview && !final && ["ready", "approved", "rejected", "partially_approved"].includes(proposal.status);
  // a filter pass over 15,000 items at most: a few milliseconds on every render
  const ordered = reviewOrder(proposal.items, filters);
  const [selected, setSelected] = useState(0);
  const [editing, setEditing] = useState<string | null>(null);
  const [openIds, setOpenIds] = useState<Set<string>>(() => new Set());
  const [historyFor, setHistoryFor] = useState<string | null>(null);
  const rows = useRef(new Map<string, HTMLLIElement | null>());
  const [commentFor, setCommentFor] = useState<string | null>(null);
  // how many of the ordered items are rendered; the selection pulls it along, and scrolling near the end adds a page
  const [rendered, setRendered] = useState(ITEMS_PAGE);
  const shown = Math.min(ordered.length, Math.max(rendered, selected + 1));
  const more = useRef<HTMLDivElement | null>(null);
  // a row the keyboard selected is scrolled to once it is rendered (it may be on a page not rendered yet)
  const scrollTo = useRef<string | null>(null);
  useEffect(() => {
    if (!scrollTo.current) return;
    const row = rows.current.get(scrollTo.current);
    if (!row) return;
    row.scrollIntoView({ block: "nearest" });
    // a row still waiting for its details is scrolled to again once they (and those of the rows above it) arrive
    if (row.dataset.detail !== "false") scrollTo.current = null;
  });
  useEffect(() => {
    const sentinel = more.current;
    if (!sentinel || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) setRendered((n) => n + ITEMS_PAGE);
      },
      { rootMargin: "800px 0px" },
    );
    observer.observe(sentinel);
    return () => observer.disconnect();
  }, [shown, ordered.length]);

  // the rendered items the page has only as index entries: their details are read a chunk at a time
  const merge = useCallback(
    (data: ProposalData) => queryClient.setQueryData<ProposalData>(["proposal", proposal.id], (held) => mergeProposal(held, data)),
    [queryClient, proposal.id],
  );
  const asked = useRef(new Set<string>());
  const [detailsError, setDetailsError] = useState<string | null>(null);
  const [detailsTry, setDetailsTry] = useState(0);
  const missingKey = ordered
    .slice(0, shown)
    .filter((i) => !isFullItem(i))
    .map((i) => i.id)
    .join(",");
  useEffect(() => {
    const ids = missingKey ? missingKey.split(",").filter((id) => !asked.current.has(id)) : [];
    for (let at = 0; at < ids.length; at += DETAILS_CHUNK) {
      const chunk = ids.slice(at, at + DETAILS_CHUNK);
      for (const id of chunk) asked.current.add(id);
      apiFetch<ProposalData>(`/api/v1/proposals/${proposal.id}?ids=${chunk.join(",")}`)
        .then((data) => {
          setDetailsError(null);
          merge(data);
          // asked again if an index refetch drops them (another reviewer changed them); an id not sent back is not
          for (const item of data.items) asked.current.delete(item.id);
        })
        .catch((e: Error) => {
          chunk.forEach((id) => asked.current.delete(id));
          setDetailsError(e.message);
        });
    }
  }, [missingKey, detailsTry, proposal.id, merge]);

  const review = useMutation({
    mutationFn: (body: { decisions: { itemId: string; decision: Decision; config?: Record<string, unknown> }[]; comment?: string }) =>
      apiFetch<ProposalData>(
        `/api/v1/proposals/${proposal.id}/review?items=${body.decisions.length > CHANGED_IN_FULL ? "index" : "changed"}`,
        { method: "POST", body: JSON.stringify(body) },
      ),
    onSuccess: merge,
  });
  // undo is the server's: the item's last change, or (u) my last request as a whole, after a reload too
  const undo = useMutation({
    mutationFn: (body: { itemId?: string }) =>
      apiFetch<{ undone: { itemIds: string[] }; proposal: ProposalData }>(`/api/v1/proposals/${proposal.id}/undo?items=changed`, {
        method: "POST",
        body: JSON.stringify(body),
      }),
    onSuccess: (data) => {
      merge(data.proposal);
      const at = ordered.findIndex((i) => i.id === data.undone.itemIds[0]);
      if (at >= 0) setSelected(at);
    },
  });
  const comment = useMutation({
    mutationFn: (body: { body: string; itemId?: string }) =>
      apiFetch(`/api/v1/proposals/${proposal.id}/comments`, { method: "POST", body: JSON.stringify(body) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["proposal", proposal.id] }),
  });

  const decide = (items: Item[], decision: Decision, config?: Record<string, unknown>) => {
    if (!reviewable || items.length === 0) return;
    review.mutate({ decisions: items.map((it) => ({ itemId: it.id, decision, ...(config ? { config } : {}) })) });
  };
  const current = ordered[Math.min(selected, ordered.length - 1)];
  const move = (delta: number) => {
    const next = Math.max(0, Math.min(ordered.length - 1, selected + delta));
    setSelected(next);
    scrollTo.current = ordered[next]?.id ?? null;
  };

  useShortcuts({
    j: () => move(1),
    k: () => move(-1),
    a: () => {
      if (!current) return;
      decide([current], "approve");
      move(1);
    },
    r: () => {
      if (!current) return;
      decide([current], "reject");
      move(1);
    },
    e: (e) => {
      if (!current || !isFullItem(current) || !reviewable || (current.op !== "mutate" && current.op !== "add")) return;
      e.preventDefault();
      setEditing(current.id);
    },
    u: () => {
      if (reviewable && !undo.isPending) undo.mutate({});
    },
    h: () => {
      if (current) setHistoryFor(historyFor === current.id ? null : current.id);
    },
    o: () => {
      if (!current) return;
      setOpenIds((s) => {
        const n = new Set(s);
        if (n.has(current.id)) n.delete(current.id);
        else n.add(current.id);
        return n;
      });
    },
  });

  const pending = proposal.items.filter((i) => i.decision === "pending");
  return (
    <div data-testid="review-list">
      {reviewable && (
        <div className="mb-2 flex flex-wrap items-center gap-2 text-xs">
          <span className="text-zinc-500">{pending.length} pending</span>
          {(() => {
            const shown = ordered.filter((i) => i.decision === "pending");
            const which = filterWords(filters) ? ` ${filterWords(filters)}` : "";
            const n = `${shown.length} pending${which} item${shown.length === 1 ? "" : "s"}`;
            return (
              <>
                <ConfirmButton
                  disabled={shown.length === 0}
                  message={`Approve ${n}?`}
                  confirmLabel={`Approve ${shown.length}`}
                  onConfirm={() => decide(shown, "approve")}
                  variant="approve"
                  testId="approve-pending"
                >
                  Approve all pending{which}
                </ConfirmButton>
                <ConfirmButton
                  disabled={shown.length === 0}
                  message={`Reject ${n}?`}
                  confirmLabel={`Reject ${shown.length}`}
                  tone="danger"
                  onConfirm={() => decide(shown, "reject")}
                  variant="danger"
                  testId="reject-pending"
                >
                  Reject all pending{which}
                </ConfirmButton>
              </>
            );
          })()}
          <span className="text-zinc-500">
            keys: j/k move · a approve · r reject · e edit · u undo my last change · h history · o open diff
          </span>
          {(review.isPending || undo.isPending) && <span className="text-zinc-500">saving…</span>}
        </div>
      )}
      {!canReview && <p className="mb-2 text-xs text-zinc-500">Your role can read this proposal but not decide on it.</p>}
      {review.error && !editing && <p className="mb-2 text-xs text-red-700">{(review.error as Error).message}</p>}
      {detailsError && (
        <p className="mb-2 text-xs text-red-700" data-testid="details-error">
          Some items could not be read: {detailsError}.{" "}
          <Button variant="link" size="xs" onClick={() => setDetailsTry((n) => n + 1)}>
            Try again
          </Button>
        </p>
      )}
      {undo.error && (
        <p className="mb-2 text-xs text-red-700" data-testid="undo-error">
          {(undo.error as Error).message}
        </p>
      )}
      <ul className="space-y-2">
        {ordered.slice(0, shown).map((item, i) => {
          const isSel = i === selected;
          const open = openIds.has(item.id) || isSel || editing === item.id;
          // what every row has, with its details or still waiting for them
          const row = {
            ref: (el: HTMLLIElement | null) => {
              rows.current.set(item.id, el);
            },
            onClick: () => setSelected(i),
            className: `rounded-md border bg-white p-3 ${DECISION_STYLE[item.decision] ?? ""} ${
              isSel ? "border-zinc-900 ring-1 ring-zinc-900" : "border-zinc-200"
            }`,
            "data-testid": "proposal-item",
            "data-op": item.op,
            "data-decision": item.decision,
            "data-selected": isSel,
          };
          if (!isFullItem(item))
            return (
              <li key={item.id} {...row} data-detail="false" aria-busy="true">
                <div className="flex flex-wrap items-baseline gap-2">
                  <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${OP_STYLE[item.op]}`}>{item.op}</span>
                  {item.direction && <span className="rounded bg-violet-50 px-1.5 py-0.5 text-xs text-violet-700">{item.direction}</span>}
                  <span className="text-xs text-zinc-500">reading…</span>
                  <DecisionBadge item={item} className="ml-auto" />
                </div>
                <div className="mt-2 h-10 animate-pulse rounded bg-zinc-50" />
              </li>
            );
          const itemComments = proposal.comments.filter((c) => c.itemId === item.id);
          return (
            <li key={item.id} {...row}>
              <div className="flex flex-wrap items-baseline gap-2">
                <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${OP_STYLE[item.op]}`}>{item.op}</span>
                <span className="font-mono text-xs">{item.environmentKey}</span>
                {item.parentKey && (
                  <span className="text-xs text-zinc-500">
                    from{" "}
                    <Link
                      href={`/projects/${encodeURIComponent(slug)}/environments/${encodeURIComponent(item.parentKey)}`}
                      className="font-mono hover:underline"
                    >
                      {item.parentKey}
                    </Link>
                  </span>
                )}
                {item.direction && <span className="rounded bg-violet-50 px-1.5 py-0.5 text-xs text-violet-700">{item.direction}</span>}
                {item.editedConfig !== undefined && (
                  <span className="rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-800">edited</span>
                )}
                {item.flags.map((f) => (
                  <span key={f} className="rounded bg-amber-50 px-1.5 py-0.5 text-xs text-amber-800">
                    {f}
                  </span>
                ))}
                {item.commentCount > 0 && (
                  <span className="rounded bg-sky-50 px-1.5 py-0.5 text-xs text-sky-800" data-testid="item-comment-count">
                    {item.commentCount} comment{item.commentCount === 1 ? "" : "s"}
                  </span>
                )}
                <span className="ml-auto text-xs text-zinc-500">
                  {item.proposer} · predicted {pct(item.predictedSuccess ?? null)}
                </span>
                <DecisionBadge item={item} />
              </div>
              <p
                className={`mt-1 text-sm ${item.rationaleStale ? "text-zinc-500" : "text-zinc-800"}`}
                data-testid="item-rationale"
                data-stale={item.rationaleStale}
              >
                {item.rationaleStale && (
                  <span
                    className="mr-1.5 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900"
                    title="The engineer wrote this rationale for the proposed config; the config was edited since, so it may no longer hold."
                    data-testid="rationale-stale"
                  >
                    stale: written for the original config
                  </span>
                )}
                {item.rationale}
              </p>
              {item.evidence.length > 0 && (
                <div className="mt-1 flex flex-wrap gap-1.5 text-xs">
                  {item.evidence.map((e, k) => (
                    <EvidenceLink key={k} slug={slug} base={proposal.baseGeneration} e={e} />
                  ))}
                </div>
              )}
              {open && editing !== item.id && (
                <div className="mt-2">
                  <ConfigDiff before={item.parentConfig} after={item.editedConfig ?? item.config} changedOnly={changedOnly} />
                  {item.op === "mutate" && typeof (item.config as { task_name?: unknown }).task_name === "string" && (
                    <TaskFilesReview proposalId={proposal.id} itemId={item.id} reviewable={reviewable} />
                  )}
                </div>
              )}
              {editing === item.id && (
                <ConfigEditor
                  slug={slug}
                  item={item}
                  saving={review.isPending}
                  error={review.error ? (review.error as Error).message : null}
                  onCancel={() => setEditing(null)}
                  onSave={(config, decision) => {
                    review.mutate({ decisions: [{ itemId: item.id, decision, config }] }, { onSuccess: () => setEditing(null) });
                  }}
                />
              )}
              {itemComments.length > 0 && (
                <ul className="mt-2 space-y-1 border-t border-zinc-100 pt-1 text-xs">
                  {itemComments.map((c) => (
                    <li key={c.id} data-testid="item-comment">
                      <span className="font-medium">{c.author}</span> <span className="text-zinc-500">{dateTime(c.createdAt)}</span>
                      <p className="whitespace-pre-wrap break-words">{c.body}</p>
                    </li>
                  ))}
                </ul>
              )}
              {reviewable && (
                <div className="mt-2 flex flex-wrap gap-2 text-xs">
                  <Button variant="approve" size="sm" onClick={() => decide([item], "approve")} data-testid="item-approve">
                    Approve
                  </Button>
                  <Button variant="danger" size="sm" onClick={() => decide([item], "reject")} data-testid="item-reject">
                    Reject
                  </Button>
                  {(item.op === "mutate" || item.op === "add") && (
                    <Button size="sm" onClick={() => setEditing(item.id)}>
                      Edit config
                    </Button>
                  )}
                  <Button variant="ghost" size="sm" onClick={() => setCommentFor(commentFor === item.id ? null : item.id)}>
                    Comment{item.commentCount ? ` (${item.commentCount})` : ""}
                  </Button>
                </div>
              )}
              <Button
                variant="ghost"
                size="xs"
                className="mt-1"
                aria-expanded={historyFor === item.id}
                onClick={() => setHistoryFor(historyFor === item.id ? null : item.id)}
                data-testid="item-history-toggle"
              >
                History ({item.changes})
              </Button>
              {historyFor === item.id && (
                <ItemHistory
                  proposalId={proposal.id}
                  itemId={item.id}
                  version={item.changes}
                  canUndo={reviewable}
                  undoing={undo.isPending}
                  onUndo={() => undo.mutate({ itemId: item.id })}
                />
              )}
              {commentFor === item.id && (
                <div className="mt-2">
                  <CommentForm
                    label="Item comment"
                    placeholder="A comment on this item"
                    size="xs"
                    autoFocus
                    posting={comment.isPending}
                    error={comment.error && comment.variables?.itemId === item.id ? (comment.error as Error).message : null}
                    onPost={(body, done) =>
                      comment.mutate(
                        { body, itemId: item.id },
                        {
                          onSuccess: () => {
                            done();
                            setCommentFor(null);
                          },
                        },
                      )
                    }
                  />
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {shown < ordered.length && (
        <div ref={more} className="mt-2 flex flex-wrap items-center gap-2 text-xs text-zinc-500" data-testid="items-more">
          <span>
            Showing <span className="num">{shown.toLocaleString("en-US")}</span> of{" "}
            <span className="num">{ordered.length.toLocaleString("en-US")}</span> items; more appear as you scroll.
          </span>
          <Button size="xs" variant="ghost" onClick={() => setRendered(shown + ITEMS_PAGE)} data-testid="items-show-more">
            Show {Math.min(ITEMS_PAGE, ordered.length - shown)} more
          </Button>
        </div>
      )}
    </div>
  );
}

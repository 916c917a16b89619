"use client";

import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { fieldClass } from "@/components/ui/form";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { dateTime } from "@/components/ui/format";

interface DispatchView {
  id: string;
  status: string;
  attempts: number;
  maxAttempts: number;
  /** 1, and one more per retry */
  run?: number;
  target: string;
  adapter: string;
  lastError?: string;
  externalId?: string;
  events: { at: string; status: string; message?: string }[];
}

const STATUS_STYLE: Record<string, string> = {
  queued: "bg-zinc-100 text-zinc-700",
  sending: "bg-blue-100 text-blue-800",
  delivered: "bg-green-100 text-green-800",
  running: "bg-blue-100 text-blue-800",
  succeeded: "bg-green-200 text-green-900",
  failed: "bg-red-100 text-red-800",
  cancelled: "bg-zinc-200 text-zinc-600",
};

/** A dispatch's status badge and timeline, refreshed while it is in flight. */
export function DispatchTimeline({
  id,
  slug,
  initial,
  canRetry = true,
}: {
  id: string;
  slug: string;
  initial?: DispatchView;
  canRetry?: boolean;
}) {
  const { data } = useQuery({
    queryKey: ["dispatch", id],
    queryFn: () => apiFetch<DispatchView>(`/api/v1/dispatches/${id}`),
    initialData: initial,
    refetchInterval: (q) => (q.state.data && ["succeeded", "failed", "cancelled"].includes(q.state.data.status) ? false : 1000),
  });
  const queryClient = useQueryClient();
  const cancel = useMutation({ mutationFn: () => apiFetch(`/api/v1/dispatches/${id}/cancel`, { method: "POST", body: "{}" }) });
  const retry = useMutation({
    mutationFn: () => apiFetch<DispatchView>(`/api/v1/dispatches/${id}/retry`, { method: "POST", body: "{}" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["dispatch", id] }),
  });
  if (!data) return <p className="text-xs text-zinc-500">Loading…</p>;
  return (
    <div className="rounded border border-zinc-200 p-2 text-xs" data-testid="dispatch-timeline">
      <div className="mb-1 flex flex-wrap items-center gap-2">
        <Link href={`/projects/${encodeURIComponent(slug)}/dispatches/${id}`} className="font-mono text-blue-700 hover:underline">
          {id.slice(0, 8)}
        </Link>
        <span>
          → {data.target} ({data.adapter})
        </span>
        <span className={`rounded px-1.5 py-0.5 font-medium ${STATUS_STYLE[data.status] ?? ""}`} data-testid="dispatch-status">
          {data.status}
        </span>
        <span className="text-zinc-500">
          attempt {data.attempts}/{data.maxAttempts}
          {(data.run ?? 1) > 1 && ` · run ${data.run}`}
        </span>
        {data.externalId && <span className="break-all text-zinc-500">id {data.externalId}</span>}
        {!["succeeded", "failed", "cancelled"].includes(data.status) && (
          <Button variant="danger" size="xs" className="ml-auto" busy={cancel.isPending} onClick={() => cancel.mutate()}>
            Cancel
          </Button>
        )}
        {data.status === "failed" && canRetry && (
          <Button size="xs" className="ml-auto" busy={retry.isPending} onClick={() => retry.mutate()} data-testid="dispatch-retry">
            Retry
          </Button>
        )}
      </div>
      {data.lastError && <p className="mb-1 break-all text-red-700">{data.lastError}</p>}
      {retry.error && <p className="mb-1 text-red-700">{(retry.error as Error).message}</p>}
      <ol className="space-y-0.5">
        {data.events.map((e, i) => (
          <li key={i} className="flex gap-2">
            <span className="num text-zinc-500">{dateTime(e.at, { seconds: true })}</span>
            <span className="font-medium">{e.status}</span>
            <span className="break-all text-zinc-600">{e.message}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** Dispatch an approved or materialized generation to one of the project's targets. */
export function DispatchPanel({
  slug,
  index,
  targets,
  dispatchable,
  status,
  dispatchedBefore = {},
}: {
  slug: string;
  index: number;
  targets: { name: string; adapter: string; kind: string }[];
  dispatchable: boolean;
  status: string;
  /** earlier dispatches of this generation (not cancelled) per target name */
  dispatchedBefore?: Record<string, number>;
}) {
  const [target, setTarget] = useState(targets[0]?.name ?? "");
  const [sent, setSent] = useState<string[]>([]);
  const [sentTo, setSentTo] = useState<Record<string, number>>({});
  const [warning, setWarning] = useState<string | null>(null);
  const before = (dispatchedBefore[target] ?? 0) + (sentTo[target] ?? 0);
  const mutation = useMutation({
    mutationFn: (invalidEnvironments?: "include" | "exclude") =>
      apiFetch<{ dispatchId: string; warning?: string }>(`/api/v1/projects/${encodeURIComponent(slug)}/generations/${index}/dispatch`, {
        method: "POST",
        body: JSON.stringify(invalidEnvironments ? { target, invalidEnvironments } : { target }),
      }),
    onMutate: () => setWarning(null),
    onSuccess: (r) => {
      setSent((s) => [r.dispatchId, ...s]);
      setSentTo((m) => ({ ...m, [target]: (m[target] ?? 0) + 1 }));
      setWarning(r.warning ?? null);
    },
  });
  // the server asks before a trainer gets environments Harbor's oracle could not solve
  const asksAboutInvalid = mutation.error && /oracle marked invalid/.test((mutation.error as Error).message);
  if (!dispatchable)
    return (
      <p className="text-sm text-zinc-500">This generation is {status}; only an approved or materialized generation can be dispatched.</p>
    );
  if (targets.length === 0) return <p className="text-sm text-zinc-500">No targets yet: an admin adds one under Targets.</p>;
  return (
    <div data-testid="dispatch-panel">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <select value={target} onChange={(e) => setTarget(e.target.value)} className={fieldClass} aria-label="Target">
          {targets.map((t) => (
            <option key={t.name} value={t.name}>
              {t.name} ({t.kind}, {t.adapter})
            </option>
          ))}
        </select>
        {before > 0 ? (
          <ConfirmButton
            message={`Generation ${index} went to ${target} ${before === 1 ? "once" : `${before} times`} already. Send it again as another run?`}
            confirmLabel="Dispatch again"
            onConfirm={() => mutation.mutate(undefined)}
            disabled={mutation.isPending}
            variant="primary"
            size="md"
            testId="dispatch-submit"
          >
            Dispatch generation {index} again
          </ConfirmButton>
        ) : (
          <Button variant="primary" onClick={() => mutation.mutate(undefined)} busy={mutation.isPending} data-testid="dispatch-submit">
            Dispatch generation {index}
          </Button>
        )}
        {mutation.error && (
          <span role="alert" className="text-red-700">
            {(mutation.error as Error).message}
          </span>
        )}
        {asksAboutInvalid && (
          <span className="flex gap-2" data-testid="dispatch-invalid-choice">
            <Button onClick={() => mutation.mutate("exclude")} disabled={mutation.isPending}>
              Dispatch without them
            </Button>
            <Button variant="danger" onClick={() => mutation.mutate("include")} disabled={mutation.isPending}>
              Include them anyway
            </Button>
          </span>
        )}
      </div>
      {warning && (
        <p className="mt-1 text-xs text-amber-800" role="status">
          {warning}
        </p>
      )}
      <div className="mt-2 space-y-2">
        {sent.map((id) => (
          <DispatchTimeline key={id} id={id} slug={slug} />
        ))}
      </div>
    </div>
  );
}

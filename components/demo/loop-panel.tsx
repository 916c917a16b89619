"use client";

import { useRouter } from "next/navigation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { apiFetch } from "@/components/ui/api-client";
import type { DemoState } from "@/lib/demo/loop";
import { Button } from "@/components/ui/button";

/** The demo's closed loop: what it is doing, and a button for one more cycle. */
export function DemoLoopPanel({ slug, initial, canRun }: { slug: string; initial: DemoState | null; canRun: boolean }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const { data } = useQuery({
    queryKey: ["demo-state", slug],
    queryFn: async () => (await apiFetch<{ demoState: DemoState | null }>(`/api/v1/projects/${encodeURIComponent(slug)}`)).demoState,
    initialData: initial,
    refetchInterval: (q) => (q.state.data && (q.state.data.status === "running" || q.state.data.status === "queued") ? 1500 : false),
  });
  const run = useMutation({
    mutationFn: () => apiFetch(`/api/v1/projects/${encodeURIComponent(slug)}/demo-cycle`, { method: "POST", body: "{}" }),
    // the cycle is queued now: read the state again, which starts the polling
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["demo-state", slug] }),
  });
  const busy = data?.status === "running" || data?.status === "queued";
  // new generations appear as the loop runs: refresh the server-rendered tables when it moves on
  const last = useRef(data?.message);
  useEffect(() => {
    if (data?.message !== last.current) {
      last.current = data?.message;
      router.refresh();
    }
  }, [data?.message, router]);
  return (
    <div
      className="mb-4 flex flex-wrap items-center gap-3 rounded-md border border-blue-200 bg-blue-50 px-3 py-2 text-sm"
      data-testid="demo-loop"
    >
      <span className="font-medium text-blue-900">Demo loop</span>
      <span className="text-blue-900">
        generation → simulated trainer (local dispatch) → rollouts → failure summary → heuristic engineer → approval → next generation
      </span>
      <span
        className={`rounded px-1.5 py-0.5 text-xs ${
          data?.status === "failed"
            ? "bg-red-100 text-red-800"
            : busy
              ? "animate-pulse bg-blue-200 text-blue-900"
              : "bg-white text-zinc-700"
        }`}
        data-testid="demo-loop-status"
      >
        {data ? `${data.status}${busy && data.cycles ? ` (cycle ${data.cycle} of ${data.cycles})` : ""}: ${data.message}` : "not started"}
      </span>
      {canRun && (
        <Button
          variant="primary"
          size="sm"
          className="ml-auto"
          onClick={() => run.mutate()}
          disabled={busy}
          busy={run.isPending}
          data-testid="demo-loop-run"
        >
          Run the next cycle
        </Button>
      )}
      {run.error && <span className="w-full text-xs text-red-700">{(run.error as Error).message}</span>}
    </div>
  );
}

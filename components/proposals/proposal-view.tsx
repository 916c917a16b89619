"use client";

import Link from "next/link";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { getProposalView } from "@/lib/proposals";
import { apiFetch } from "@/components/ui/api-client";
import { count, roundedJson } from "@/components/ui/format";
import { Panel } from "@/components/ui/shell";
import { Tile } from "@/components/ui/tile";
import { ReviewList } from "./review-list";
import { ProposalFooter } from "./proposal-footer";
import { ReviewFilterChips, useReviewFilters } from "./review-filters";
import { mergeProposal, OPS } from "./review-order";

/** The proposal as GET /api/v1/proposals/{id} returns it; its items in full or as index entries (`?items=index`). */
export type ProposalData = Awaited<ReturnType<typeof getProposalView>>;
const STAGES = ["queued", "summary", "engineer", "validating", "ready"];

function PopulationChart({ population }: { population: ProposalData["population"] }) {
  const tiers = ["frontier", "advanced", "core", "solved"] as const;
  const data = tiers.map((t) => ({ tier: t, before: population.before.tiers?.[t] ?? 0, after: population.after.tiers[t] }));
  return (
    <div className="h-48 w-full" data-testid="population-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" vertical={false} />
          <XAxis dataKey="tier" tick={{ fontSize: 12 }} />
          <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
          <Tooltip contentStyle={{ fontSize: 12 }} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar dataKey="before" name="base generation (measured)" fill="#a1a1aa" isAnimationActive={false} />
          <Bar dataKey="after" name="proposed (predicted)" fill="#1d4ed8" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

/** How long the worker's job took, and each stage of it. */
function StageTimes({ ms }: { ms: { summary: number; engineer: number; validating: number; storing: number } }) {
  const s = (x: number) => (x < 1000 ? `${x} ms` : `${(x / 1000).toFixed(1)} s`);
  const total = ms.summary + ms.engineer + ms.validating + ms.storing;
  return (
    <span className="text-xs text-zinc-500" data-testid="proposal-stage-times">
      made in <span className="num">{s(total)}</span>: summary <span className="num">{s(ms.summary)}</span> · engineer{" "}
      <span className="num">{s(ms.engineer)}</span> · check <span className="num">{s(ms.validating)}</span> · storing{" "}
      <span className="num">{s(ms.storing)}</span>
    </span>
  );
}

/** A proposal: progress while the engineer runs, then its items, the population change, and what the engineer saw. */
export function ProposalView({ initial, canReview }: { initial: ProposalData; canReview: boolean }) {
  const queryClient = useQueryClient();
  const { data } = useQuery({
    queryKey: ["proposal", initial.id],
    // the index of every item (a 15,000-item proposal: about 1.5 MB, in full 13 MB), keeping the details the page has read
    queryFn: async () =>
      mergeProposal(
        queryClient.getQueryData<ProposalData>(["proposal", initial.id]),
        await apiFetch<ProposalData>(`/api/v1/proposals/${initial.id}?items=index`),
      ),
    initialData: initial,
    refetchInterval: (q) => (q.state.data && (q.state.data.status === "queued" || q.state.data.status === "running") ? 1000 : false),
  });
  const [filters, setFilters] = useReviewFilters();
  const p = data ?? initial;
  const slug = p.project ?? "";
  const progress = p.progress as {
    stage?: string;
    message?: string;
    dropped?: { reason: string; count: number }[];
    notes?: string[];
    stageMs?: { summary: number; engineer: number; validating: number; storing: number };
  } | null;
  const running = p.status === "queued" || p.status === "running";
  const stageIndex = STAGES.indexOf(progress?.stage ?? "queued");
  return (
    <div>
      <div className="mb-3 flex flex-wrap items-baseline gap-3">
        <h1 className="text-xl font-semibold">Proposal for generation {p.baseGeneration + 1}</h1>
        <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-600" data-testid="proposal-status">
          {p.status}
        </span>
        <span className="text-zinc-500">
          {p.engineer} engineer · from{" "}
          <Link href={`/projects/${encodeURIComponent(slug)}/generations/${p.baseGeneration}`} className="hover:underline">
            G{p.baseGeneration}
          </Link>{" "}
          · by {p.createdBy}
        </span>
        {progress?.stageMs && <StageTimes ms={progress.stageMs} />}
      </div>

      {(running || p.status === "failed") && (
        <Panel title="Run" className="mb-3">
          <ol className="flex flex-wrap gap-2 text-xs" data-testid="proposal-progress">
            {STAGES.map((s, i) => (
              <li
                key={s}
                className={`rounded px-2 py-0.5 ${
                  p.status === "failed" && i === Math.max(stageIndex, 0)
                    ? "bg-red-100 text-red-800"
                    : i < stageIndex
                      ? "bg-green-100 text-green-800"
                      : i === stageIndex
                        ? "animate-pulse bg-blue-100 text-blue-800"
                        : "bg-zinc-100 text-zinc-600"
                }`}
              >
                {s}
              </li>
            ))}
          </ol>
          <p className="mt-2 text-sm text-zinc-700">{progress?.message}</p>
          {p.status === "failed" && (
            <div className="mt-2 text-sm text-red-700" data-testid="proposal-error">
              {p.error}
              {p.run?.rawOutput && (
                <details className="mt-1">
                  <summary className="cursor-pointer text-xs text-zinc-600">The engineer&apos;s last raw output</summary>
                  <pre
                    tabIndex={0}
                    className="max-h-64 overflow-auto whitespace-pre-wrap break-all bg-zinc-50 p-2 font-mono text-xs text-zinc-800"
                  >
                    {p.run.rawOutput.slice(0, 20000)}
                  </pre>
                </details>
              )}
            </div>
          )}
        </Panel>
      )}

      {p.items.length > 0 && (
        <>
          <div className="mb-3 grid grid-cols-2 gap-2 md:grid-cols-6">
            {OPS.map((op) => (
              <Tile key={op} label={op} value={count(p.population.byOp[op] ?? 0)} />
            ))}
            <Tile label="Population" value={`${count(p.population.before.size)} → ${count(p.population.after.size)}`} />
            <Tile
              label="Engine"
              value={<span className="text-sm">{p.run?.model ?? p.engineer}</span>}
              hint={
                p.run
                  ? `${p.run.latencyMs ?? "?"} ms${
                      p.run.promptTokens ? `, ${p.run.promptTokens} prompt + ${p.run.completionTokens} completion tokens` : ""
                    }${p.run.costUsd ? `, $${p.run.costUsd.toFixed(4)}` : ""}`
                  : undefined
              }
            />
          </div>
          <div className="mb-3 grid grid-cols-1 gap-3 lg:grid-cols-2">
            <Panel title="Population before and after (environments per tier)">
              <PopulationChart population={p.population} />
            </Panel>
            <Panel title="New environments by direction">
              <ul className="space-y-1 text-sm" data-testid="population-directions">
                {Object.entries(p.population.byDirection).map(([d, n]) => (
                  <li key={d} className="flex items-center gap-2">
                    <span className="w-24 text-zinc-600">{d}</span>
                    <span
                      className="h-3 rounded bg-violet-300"
                      style={{ width: `${(n / Math.max(1, ...Object.values(p.population.byDirection))) * 100}%` }}
                    />
                    <span className="num">{n}</span>
                  </li>
                ))}
              </ul>
              {(progress?.dropped?.length ?? 0) > 0 && (
                <p className="mt-3 text-xs text-zinc-500">
                  Dropped before proposing: {progress!.dropped!.map((d) => `${d.count} ${d.reason}`).join(", ")}.
                </p>
              )}
              {(progress?.notes?.length ?? 0) > 0 && (
                <ul className="mt-2 list-disc pl-4 text-xs text-zinc-600">
                  {progress!.notes!.map((n, i) => (
                    <li key={i}>{n}</li>
                  ))}
                </ul>
              )}
            </Panel>
          </div>
          <ReviewFilterChips items={p.items} filters={filters} onChange={setFilters} />
          <ReviewList proposal={p} canReview={canReview} filters={filters} />
          <ProposalFooter proposal={p} canReview={canReview} />
        </>
      )}

      {p.summary && (
        <details className="mt-3 rounded-md border border-zinc-200 bg-white" data-testid="engineer-saw">
          <summary className="cursor-pointer px-3 py-2 text-sm font-semibold text-zinc-800">
            What the engineer saw ({count(p.summary.tokenEstimate)} tokens
            {p.summary.truncated.length ? `, cut: ${p.summary.truncated.join(", ")}` : ""})
          </summary>
          <div className="grid grid-cols-1 gap-3 border-t border-zinc-100 p-3 text-xs lg:grid-cols-2">
            <div>
              <h3 className="mb-1 font-semibold text-zinc-600">Behaviour</h3>
              <pre className="whitespace-pre-wrap break-all font-mono">{roundedJson(p.summary.behaviour, 1)}</pre>
              <h3 className="mb-1 mt-2 font-semibold text-zinc-600">Environments</h3>
              <pre className="whitespace-pre-wrap break-all font-mono">
                {roundedJson({ ...p.summary.environments, fields: `${p.summary.environments.fields.length} fields (below)` }, 1)}
              </pre>
            </div>
            <div>
              <h3 className="mb-1 font-semibold text-zinc-600">Failure clusters</h3>
              <ul className="space-y-1.5">
                {p.summary.failures.clusters.map((c) => (
                  <li key={c.id}>
                    <Link
                      href={`/projects/${encodeURIComponent(slug)}/generations/${p.baseGeneration}/failures?cluster=${c.id}`}
                      className="font-mono text-blue-700 hover:underline"
                    >
                      {c.id.slice(0, 8)}
                    </Link>{" "}
                    {c.category} ×{c.count} in {c.environments} envs: <span className="font-mono">{c.signature}</span>
                    {c.excerpt && <div className="text-zinc-500">“{c.excerpt}”</div>}
                  </li>
                ))}
              </ul>
              <h3 className="mb-1 mt-2 font-semibold text-zinc-600">History</h3>
              <pre className="whitespace-pre-wrap break-all font-mono">{roundedJson(p.summary.history, 1)}</pre>
            </div>
          </div>
        </details>
      )}
    </div>
  );
}

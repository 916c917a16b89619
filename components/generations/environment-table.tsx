"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useQuery, keepPreviousData } from "@tanstack/react-query";
import { useRef, useState } from "react";
import type { EnvironmentTableRow } from "@/lib/generations/environment-table";
import { apiFetch } from "@/components/ui/api-client";
import { count, fixed, formatValue, pct, LEARNABILITY_HELP } from "@/components/ui/format";
import { useListNavigation, useSearchShortcut } from "@/components/ui/shortcuts";

/** What the filter bar needs to know about a family field. */
export interface TableField {
  path: string;
  kind: string;
  levels?: (string | number | boolean)[];
}

interface Page {
  items: EnvironmentTableRow[];
  total: number;
  nextCursor: string | null;
}

const TIER_STYLE: Record<string, string> = {
  frontier: "bg-red-50 text-red-700",
  advanced: "bg-amber-50 text-amber-700",
  core: "bg-blue-50 text-blue-700",
  solved: "bg-green-50 text-green-700",
};

/** Table query keys kept in the page URL (prefixed so they do not clash with other panels). */
const KEYS = ["sort", "order", "tier", "minSuccess", "maxSuccess", "category", "q"] as const;

function configSummary(config: unknown): string {
  return Object.entries((config ?? {}) as Record<string, unknown>)
    .map(([k, v]) => `${k}=${formatValue(v)}`)
    .join("  ");
}

/** The environments of a generation: sortable, filterable (URL state), cursor pages, j/k and Enter. */
export function EnvironmentTable({
  slug,
  index,
  policy,
  fields,
  categories,
}: {
  slug: string;
  index: number;
  policy: string | null;
  fields: TableField[];
  categories: string[];
}) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const search = useRef<HTMLInputElement>(null);
  useSearchShortcut(search);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1];

  const query = new URLSearchParams();
  for (const k of KEYS) {
    const v = params.get(`env.${k}`);
    if (v) query.set(k, v);
  }
  for (const [k, v] of params) if (k.startsWith("env.field.") && v) query.set(k.slice("env.".length), v);
  if (policy) query.set("policy", policy);
  if (!query.has("sort")) query.set("sort", "key");
  query.set("limit", "50");
  if (cursor) query.set("cursor", cursor);
  const url = `/api/v1/projects/${encodeURIComponent(slug)}/generations/${index}/environments?${query}`;
  const { data, error, isFetching } = useQuery({ queryKey: ["environments", url], queryFn: () => apiFetch<Page>(url), placeholderData: keepPreviousData });

  const set = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === null || v === "") next.delete(`env.${k}`);
      else next.set(`env.${k}`, v);
    }
    setCursors([null]);
    router.replace(`${pathname}?${next}`, { scroll: false });
  };
  const sort = query.get("sort") ?? "key";
  const order = params.get("env.order") ?? "asc";
  const sortBy = (key: string) => set({ sort: key, order: sort === key && order === "asc" ? "desc" : "asc" });
  const arrow = (key: string) => (sort === key ? (order === "asc" ? " ↑" : " ↓") : "");

  const items = data?.items ?? [];
  const envHref = (r: EnvironmentTableRow) => `/projects/${encodeURIComponent(slug)}/environments/${encodeURIComponent(r.key)}`;
  const nav = useListNavigation({ items, getHref: envHref });

  const fieldParam = [...params.keys()].find((k) => k.startsWith("env.field."));
  const [fieldPath, setFieldPath] = useState(fieldParam ? fieldParam.slice("env.field.".length) : (fields[0]?.path ?? ""));
  const field = fields.find((f) => f.path === fieldPath);
  const fieldValue = params.get(`env.field.${fieldPath}`) ?? "";
  const setField = (value: string) => {
    const clear = Object.fromEntries([...params.keys()].filter((k) => k.startsWith("env.field.")).map((k) => [k.slice("env.".length), null]));
    set({ ...clear, [`field.${fieldPath}`]: value || null });
  };
  const levels = field?.kind === "boolean" ? ["false", "true"] : field?.levels?.map(String);

  return (
    <div data-testid="environment-table">
      <div className="mb-2 flex flex-wrap items-center gap-2 text-xs">
        <input
          ref={search}
          defaultValue={params.get("env.q") ?? ""}
          onChange={(e) => set({ q: e.target.value })}
          placeholder="Filter by key  /"
          className="w-44 rounded border border-zinc-300 px-2 py-1"
          aria-label="Filter by key"
        />
        <select value={params.get("env.tier") ?? ""} onChange={(e) => set({ tier: e.target.value })} className="rounded border border-zinc-300 px-1 py-1" aria-label="Tier">
          <option value="">any tier</option>
          {["frontier", "advanced", "core", "solved"].map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <select value={params.get("env.category") ?? ""} onChange={(e) => set({ category: e.target.value })} className="rounded border border-zinc-300 px-1 py-1" aria-label="Failure category">
          <option value="">any failure</option>
          {categories.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
        <label className="flex items-center gap-1 text-zinc-500">
          success
          <input
            type="number"
            min={0}
            max={100}
            defaultValue={params.get("env.minSuccess") ? Math.round(Number(params.get("env.minSuccess")) * 100) : ""}
            onChange={(e) => set({ minSuccess: e.target.value === "" ? null : String(Number(e.target.value) / 100) })}
            className="w-14 rounded border border-zinc-300 px-1 py-1"
            aria-label="Minimum success %"
            placeholder="0"
          />
          –
          <input
            type="number"
            min={0}
            max={100}
            defaultValue={params.get("env.maxSuccess") ? Math.round(Number(params.get("env.maxSuccess")) * 100) : ""}
            onChange={(e) => set({ maxSuccess: e.target.value === "" ? null : String(Number(e.target.value) / 100) })}
            className="w-14 rounded border border-zinc-300 px-1 py-1"
            aria-label="Maximum success %"
            placeholder="100"
          />
          %
        </label>
        {fields.length > 0 && (
          <span className="flex items-center gap-1">
            <select value={fieldPath} onChange={(e) => setFieldPath(e.target.value)} className="rounded border border-zinc-300 px-1 py-1" aria-label="Field">
              {fields.map((f) => (
                <option key={f.path}>{f.path}</option>
              ))}
            </select>
            {levels ? (
              <select value={fieldValue} onChange={(e) => setField(e.target.value)} className="rounded border border-zinc-300 px-1 py-1" aria-label="Field value">
                <option value="">any</option>
                {levels.map((l) => (
                  <option key={l}>{l}</option>
                ))}
              </select>
            ) : (
              <input
                key={fieldPath}
                defaultValue={fieldValue}
                onChange={(e) => setField(e.target.value)}
                placeholder={field?.kind === "integer" || field?.kind === "number" ? "4 or 4..8" : "value"}
                className="w-24 rounded border border-zinc-300 px-2 py-1"
                aria-label="Field value"
              />
            )}
          </span>
        )}
        <span className="ml-auto text-zinc-500" data-testid="environment-count">
          {data ? `${count(data.total)} environments` : ""}
          {isFetching ? " · loading…" : ""}
        </span>
      </div>
      {error && <p className="mb-2 text-red-700">{(error as Error).message}</p>}
      <div className="overflow-x-auto">
        <table className="w-full">
          <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th className="cursor-pointer py-1.5" onClick={() => sortBy("key")}>Key{arrow("key")}</th>
              <th>Op</th>
              <th>Direction</th>
              <th className="cursor-pointer" onClick={() => sortBy("tier")}>Tier{arrow("tier")}</th>
              <th className="cursor-pointer text-right" onClick={() => sortBy("rollouts")}>Rollouts{arrow("rollouts")}</th>
              <th className="cursor-pointer text-right" onClick={() => sortBy("success")}>Success{arrow("success")}</th>
              <th className="cursor-pointer text-right" onClick={() => sortBy("learnability")} title={LEARNABILITY_HELP}>
                Learnability{arrow("learnability")}
              </th>
              <th className="text-right" title="partial credit: tests passed of tests run, over the rollouts that report tests">Tests passed</th>
              <th className="cursor-pointer text-right" onClick={() => sortBy("pmax")}>p_max{arrow("pmax")}</th>
              <th className="pl-3">Failures</th>
              <th className="pl-3">Config</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e, i) => (
              <tr key={e.key} {...nav.rowProps(i)} data-testid="environment-row" className="num border-t border-zinc-100 align-top hover:bg-zinc-50 data-[selected=true]:bg-amber-50">
                <td className="py-1.5 font-mono text-xs">
                  <Link href={envHref(e)} className="hover:underline">
                    {e.key}
                  </Link>
                  {e.parentKey && <div className="text-zinc-400">← {e.parentKey}</div>}
                </td>
                <td>{e.op}</td>
                <td className="text-zinc-500">{e.direction ?? ""}</td>
                <td>{e.tier && <span className={`rounded px-1.5 py-0.5 text-xs ${TIER_STYLE[e.tier]}`}>{e.tier}</span>}</td>
                <td className="text-right">{count(e.stats.rollouts)}</td>
                <td className="text-right">{pct(e.stats.successRate)}</td>
                <td className="text-right">{fixed(e.stats.learnability)}</td>
                <td className="text-right" data-testid="env-tests">
                  {e.stats.testsRun ? `${pct((e.stats.testsPassed ?? 0) / e.stats.testsRun)} of ${e.stats.testsRun}` : "—"}
                </td>
                <td className="text-right" data-testid="validation-cell">
                  {e.validation.state === "invalid" || e.validation.state === "valid" ? (
                    <span
                      className={`mr-1 rounded px-1 text-xs ${e.validation.state === "valid" ? "bg-emerald-100 text-emerald-800" : "bg-red-100 text-red-800"}`}
                      title={e.validation.state === "valid" ? "the oracle (or a sandbox) solved it" : "the oracle (or a sandbox) could not solve it: see the environment page for the verifier output"}
                    >
                      {e.validation.state}
                    </span>
                  ) : null}
                  {fixed(e.validation.pMax, 2)}
                </td>
                <td className="pl-3 text-xs text-zinc-500">{e.categories.join(", ")}</td>
                <td className="max-w-xs truncate pl-3 font-mono text-xs text-zinc-600" title={JSON.stringify(e.config)}>
                  {configSummary(e.config)}
                </td>
              </tr>
            ))}
            {data && items.length === 0 && (
              <tr>
                <td colSpan={11} className="py-4 text-center text-zinc-500">
                  No environment matches these filters.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <div className="mt-2 flex gap-3 text-xs">
        {cursors.length > 1 && (
          <button className="underline" onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous page
          </button>
        )}
        {data?.nextCursor && (
          <button className="underline" onClick={() => setCursors([...cursors, data.nextCursor])} data-testid="environments-next">
            Next page
          </button>
        )}
      </div>
    </div>
  );
}

"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useQuery, keepPreviousData } from "@tanstack/react-query";
import { useRef, useState } from "react";
import type { EnvironmentTableRow } from "@/lib/generations/environment-table";
import { apiFetch } from "@/components/ui/api-client";
import { count, fixed, formatValue, pct, LEARNABILITY_HELP } from "@/components/ui/format";
import { useListNavigation, useSearchShortcut } from "@/components/ui/shortcuts";
import { Button } from "@/components/ui/button";
import { fieldClass } from "@/components/ui/form";
import { Table } from "@/components/ui/table";
import { nextSort, type SortDirection } from "@/components/ui/table-sort";

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
  const { data, error, isFetching } = useQuery({
    queryKey: ["environments", url],
    queryFn: () => apiFetch<Page>(url),
    placeholderData: keepPreviousData,
  });

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
  const current = { key: sort, direction: (order === "desc" ? "desc" : "asc") as SortDirection };
  const sortBy = (key: string) => {
    const next = nextSort(current, key);
    set({ sort: next.key, order: next.direction });
  };

  const items = data?.items ?? [];
  const envHref = (r: EnvironmentTableRow) => `/projects/${encodeURIComponent(slug)}/environments/${encodeURIComponent(r.key)}`;
  const nav = useListNavigation({ items, getHref: envHref });

  const fieldParam = [...params.keys()].find((k) => k.startsWith("env.field."));
  const [fieldPath, setFieldPath] = useState(fieldParam ? fieldParam.slice("env.field.".length) : (fields[0]?.path ?? ""));
  const field = fields.find((f) => f.path === fieldPath);
  const fieldValue = params.get(`env.field.${fieldPath}`) ?? "";
  const setField = (value: string) => {
    const clear = Object.fromEntries(
      [...params.keys()].filter((k) => k.startsWith("env.field.")).map((k) => [k.slice("env.".length), null]),
    );
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
          className={`w-44 ${fieldClass}`}
          aria-label="Filter by key"
        />
        <select
          value={params.get("env.tier") ?? ""}
          onChange={(e) => set({ tier: e.target.value })}
          className={fieldClass}
          aria-label="Tier"
        >
          <option value="">any tier</option>
          {["frontier", "advanced", "core", "solved"].map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <select
          value={params.get("env.category") ?? ""}
          onChange={(e) => set({ category: e.target.value })}
          className={fieldClass}
          aria-label="Failure category"
        >
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
            className={`w-14 ${fieldClass}`}
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
            className={`w-14 ${fieldClass}`}
            aria-label="Maximum success %"
            placeholder="100"
          />
          %
        </label>
        {fields.length > 0 && (
          <span className="flex items-center gap-1">
            <select value={fieldPath} onChange={(e) => setFieldPath(e.target.value)} className={fieldClass} aria-label="Field">
              {fields.map((f) => (
                <option key={f.path}>{f.path}</option>
              ))}
            </select>
            {levels ? (
              <select value={fieldValue} onChange={(e) => setField(e.target.value)} className={fieldClass} aria-label="Field value">
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
                className={`w-24 ${fieldClass}`}
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
      <Table
        rows={items}
        rowKey={(e) => e.key}
        sort={current}
        onSort={sortBy}
        rowProps={(_, i) => ({ ...nav.rowProps(i), "data-testid": "environment-row" })}
        rowClassName={() => "num hover:bg-zinc-50"}
        empty={data ? "No environment matches these filters." : false}
        columns={[
          {
            key: "key",
            header: "Key",
            sortable: true,
            // a key stays on one line (the table used to break "f1-0001" at its hyphen); a very long one is cut, whole in its title
            className: "font-mono text-xs whitespace-nowrap",
            cell: (e) => (
              <>
                <Link href={envHref(e)} className="block max-w-[18rem] truncate hover:underline" title={e.key}>
                  {e.key}
                </Link>
                {e.parentKey && (
                  <div className="max-w-[18rem] truncate text-zinc-500" title={e.parentKey}>
                    ← {e.parentKey}
                  </div>
                )}
              </>
            ),
          },
          { key: "op", header: "Op", cell: (e) => e.op },
          { key: "direction", header: "Direction", cell: (e) => e.direction ?? "", className: "text-zinc-500" },
          {
            key: "tier",
            header: "Tier",
            sortable: true,
            cell: (e) => e.tier && <span className={`rounded px-1.5 py-0.5 text-xs ${TIER_STYLE[e.tier]}`}>{e.tier}</span>,
          },
          { key: "rollouts", header: "Rollouts", sortable: true, align: "right", cell: (e) => count(e.stats.rollouts) },
          { key: "success", header: "Success", sortable: true, align: "right", cell: (e) => pct(e.stats.successRate) },
          {
            key: "learnability",
            header: <span title={LEARNABILITY_HELP}>Learnability</span>,
            sortable: true,
            align: "right",
            cell: (e) => fixed(e.stats.learnability),
          },
          {
            key: "tests",
            header: <span title="partial credit: tests passed of tests run, over the rollouts that report tests">Tests passed</span>,
            align: "right",
            cellTestId: "env-tests",
            className: "whitespace-nowrap",
            cell: (e) => (e.stats.testsRun ? `${pct((e.stats.testsPassed ?? 0) / e.stats.testsRun)} of ${e.stats.testsRun}` : "—"),
          },
          {
            key: "pmax",
            header: "p_max",
            sortable: true,
            align: "right",
            cellTestId: "validation-cell",
            className: "whitespace-nowrap",
            cell: (e) => (
              <>
                {e.validation.state === "invalid" || e.validation.state === "valid" ? (
                  <span
                    className={`mr-1 rounded px-1 text-xs ${e.validation.state === "valid" ? "bg-emerald-100 text-emerald-800" : "bg-red-100 text-red-800"}`}
                    title={
                      e.validation.state === "valid"
                        ? "the oracle (or a sandbox) solved it"
                        : "the oracle (or a sandbox) could not solve it: see the environment page for the verifier output"
                    }
                  >
                    {e.validation.state}
                  </span>
                ) : null}
                {fixed(e.validation.pMax, 2)}
              </>
            ),
          },
          {
            key: "failures",
            header: "Failures",
            cell: (e) => e.categories.join(", "),
            className: "pl-3 text-xs text-zinc-500",
            headerClassName: "pl-3",
          },
          {
            key: "config",
            header: "Config",
            className: "max-w-[16rem] truncate pl-3 font-mono text-xs text-zinc-600",
            headerClassName: "pl-3",
            cell: (e) => <span title={JSON.stringify(e.config)}>{configSummary(e.config)}</span>,
          },
        ]}
      />
      <div className="mt-2 flex gap-3 text-xs">
        {cursors.length > 1 && (
          <Button variant="ghost" size="sm" onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous page
          </Button>
        )}
        {data?.nextCursor && (
          <Button variant="ghost" size="sm" onClick={() => setCursors([...cursors, data.nextCursor])} data-testid="environments-next">
            Next page
          </Button>
        )}
      </div>
    </div>
  );
}

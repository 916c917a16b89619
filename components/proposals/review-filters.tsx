"use client";

import type { ReactNode } from "react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Button } from "@/components/ui/button";
import type { ProposalData } from "./proposal-view";
import { filtersFromParams, OPS, type ReviewFilters } from "./review-order";

type Item = ProposalData["items"][number];

const DECISIONS = ["pending", "approved", "rejected"] as const;

/** The active filters in words, for bulk-action labels ("pending mutate harder"): empty when none. */
export function filterWords(f: ReviewFilters): string {
  return [f.op, f.direction].filter((w) => w !== "all").join(" ");
}

/** The filters from the URL (?op=&decision=&direction=&fields=all) and a setter that replaces the URL. */
export function useReviewFilters(): [ReviewFilters, (changes: Partial<ReviewFilters>) => void] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filters = filtersFromParams((key) => params.get(key));
  const set = (changes: Partial<ReviewFilters>) => {
    const next = new URLSearchParams(params);
    for (const key of ["op", "decision", "direction"] as const) {
      const value = changes[key];
      if (value === undefined) continue;
      if (value === "all") next.delete(key);
      else next.set(key, value);
    }
    if (changes.changedOnly !== undefined) {
      if (changes.changedOnly) next.delete("fields");
      else next.set("fields", "all");
    }
    const qs = next.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };
  return [filters, set];
}

function Chip({ active, onClick, children, testId }: { active: boolean; onClick: () => void; children: ReactNode; testId: string }) {
  return (
    <Button variant="toggle" size="sm" onClick={onClick} aria-pressed={active} data-testid={testId}>
      {children}
    </Button>
  );
}

/** Filter chips by op, decision and direction (with counts), and "changed fields only". */
export function ReviewFilterChips({
  items,
  filters,
  onChange,
}: {
  items: ProposalData["items"];
  filters: ReviewFilters;
  onChange: (changes: Partial<ReviewFilters>) => void;
}) {
  const countBy = (pick: (i: Item) => string | undefined) => {
    const out = new Map<string, number>();
    for (const i of items) {
      const k = pick(i);
      if (k) out.set(k, (out.get(k) ?? 0) + 1);
    }
    return out;
  };
  const byOp = countBy((i) => i.op);
  const byDecision = countBy((i) => i.decision);
  const byDirection = countBy((i) => i.direction);
  const directions = [...byDirection.keys()].sort();
  const active = filters.op !== "all" || filters.decision !== "all" || filters.direction !== "all";
  return (
    <div className="mb-2 flex flex-col gap-1.5 text-xs" data-testid="review-filters">
      <div className="flex flex-wrap items-center gap-1.5" role="group" aria-label="Filter by op">
        <span className="w-16 text-zinc-500">op</span>
        {["all", ...OPS].map((op) => (
          <Chip key={op} active={filters.op === op} onClick={() => onChange({ op })} testId={`filter-op-${op}`}>
            {op} {op === "all" ? items.length : (byOp.get(op) ?? 0)}
          </Chip>
        ))}
      </div>
      <div className="flex flex-wrap items-center gap-1.5" role="group" aria-label="Filter by decision">
        <span className="w-16 text-zinc-500">decision</span>
        {["all", ...DECISIONS].map((d) => (
          <Chip key={d} active={filters.decision === d} onClick={() => onChange({ decision: d })} testId={`filter-decision-${d}`}>
            {d} {d === "all" ? items.length : (byDecision.get(d) ?? 0)}
          </Chip>
        ))}
      </div>
      {directions.length > 0 && (
        <div className="flex flex-wrap items-center gap-1.5" role="group" aria-label="Filter by direction">
          <span className="w-16 text-zinc-500">direction</span>
          {["all", ...directions].map((d) => (
            <Chip key={d} active={filters.direction === d} onClick={() => onChange({ direction: d })} testId={`filter-direction-${d}`}>
              {d} {d === "all" ? "" : (byDirection.get(d) ?? 0)}
            </Chip>
          ))}
        </div>
      )}
      <div className="flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-1">
          <input type="checkbox" checked={filters.changedOnly} onChange={(e) => onChange({ changedOnly: e.target.checked })} /> changed
          fields only
        </label>
        {active && (
          <Button
            variant="link"
            size="sm"
            onClick={() => onChange({ op: "all", decision: "all", direction: "all" })}
            data-testid="filter-clear"
          >
            clear filters
          </Button>
        )}
      </div>
    </div>
  );
}

"use client";

import Link from "next/link";
import { useEffect, useRef } from "react";
import type { FailureClusterView } from "@/lib/analytics/views";
import { count } from "@/components/ui/format";
import { useListNavigation } from "@/components/ui/shortcuts";

/** What a row of the list shows of a cluster (its exemplars stay on the server). */
export type ClusterRow = Pick<FailureClusterView, "id" | "category" | "infra" | "signature" | "count" | "environments">;

/**
 * Below the wide layout the cluster's detail sits under the whole list (on a phone, past hundreds of clusters), so a
 * cluster picked there would open out of sight: the pick asks for the detail to be scrolled to once it has loaded.
 * Beside the list (lg and up) nothing moves.
 */
const STACKED = "(max-width: 1023.98px)";
let scrollToDetail = false;

/** Where the cluster's detail starts; scrolled into view after a pick in the stacked layout. */
export function ClusterDetailAnchor({ clusterId }: { clusterId: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!scrollToDetail) return;
    scrollToDetail = false;
    ref.current?.scrollIntoView({ block: "start" });
  }, [clusterId]);
  return <div ref={ref} className="scroll-mt-14" data-testid="cluster-detail-anchor" />;
}

/** Clusters of the failure inspector: j/k move, Enter opens the selected cluster. */
export function ClusterList({
  clusters,
  selectedId,
  hrefFor,
}: {
  clusters: ClusterRow[];
  selectedId: string | null;
  hrefFor: Record<string, string>;
}) {
  const initial = clusters.findIndex((c) => c.id === selectedId);
  const nav = useListNavigation({ items: clusters, getHref: (c) => hrefFor[c.id], initialIndex: initial });
  if (clusters.length === 0) return <p className="text-zinc-500">No failures here.</p>;
  return (
    <ul className="divide-y divide-zinc-100" data-testid="cluster-list">
      {clusters.map((c, i) => (
        <li
          key={c.id}
          {...nav.rowProps(i)}
          className={`px-1 py-1.5 data-[selected=true]:bg-amber-50 ${c.id === selectedId ? "border-l-2 border-zinc-900 pl-2" : ""}`}
        >
          <Link
            href={hrefFor[c.id]}
            className="block"
            data-testid="cluster-link"
            scroll={false}
            onClick={() => (scrollToDetail = window.matchMedia(STACKED).matches)}
          >
            <div className="flex items-baseline gap-2">
              <span className="num font-semibold">{count(c.count)}</span>
              <span className="text-xs text-zinc-500">
                {c.category}
                {c.infra ? " · infra" : ""} · {count(c.environments)} env{c.environments === 1 ? "" : "s"}
              </span>
            </div>
            <div className="line-clamp-2 [overflow-wrap:anywhere] font-mono text-xs text-zinc-700" title={c.signature}>
              {c.signature || "(no message)"}
            </div>
          </Link>
        </li>
      ))}
    </ul>
  );
}

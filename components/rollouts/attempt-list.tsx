"use client";

import Link from "next/link";
import { fixed } from "@/components/ui/format";
import { useListNavigation } from "@/components/ui/shortcuts";
import { Table, type Column } from "@/components/ui/table";

/** One attempt of an environment as the list shows it. */
export interface Attempt {
  id: number;
  generation: number;
  policy: string;
  reward: number | null;
  success: boolean;
  status: string;
  failureCategory: string | null;
  errorType: string | null;
  turns: number | null;
  outputTokens: number | null;
}

/** An environment's attempts: j/k, Enter opens, each row offers a compare against a passing or failing one. */
export function AttemptList({ slug, environmentKey, attempts }: { slug: string; environmentKey: string; attempts: Attempt[] }) {
  const base = `/projects/${encodeURIComponent(slug)}`;
  const nav = useListNavigation({ items: attempts, getHref: (a) => `${base}/rollouts/${a.id}` });
  const firstPass = attempts.find((a) => a.success);
  const firstFail = attempts.find((a) => !a.success);
  const columns: Column<Attempt>[] = [
    {
      key: "rollout",
      header: "Rollout",
      cell: (a) => (
        <Link href={`${base}/rollouts/${a.id}`} className="font-mono text-blue-700 hover:underline">
          {a.id}
        </Link>
      ),
    },
    { key: "policy", header: "Policy", cell: (a) => a.policy },
    { key: "gen", header: "Gen", cell: (a) => `G${a.generation}` },
    { key: "reward", header: "Reward", align: "right", cell: (a) => fixed(a.reward, 2) },
    {
      key: "outcome",
      header: "Outcome",
      cell: (a) => (
        <>
          {a.success ? <span className="text-green-700">pass</span> : <span className="text-red-700">fail</span>}
          {a.failureCategory && <span className="text-xs text-zinc-500"> · {a.failureCategory}</span>}
          {a.errorType && <span className="text-xs text-zinc-500"> · {a.errorType}</span>}
        </>
      ),
    },
    { key: "turns", header: "Turns", align: "right", cell: (a) => a.turns ?? "" },
    { key: "tokens", header: "Output tokens", align: "right", cell: (a) => a.outputTokens ?? "" },
    {
      key: "compare",
      header: "Compare",
      hideHeader: true,
      align: "right",
      className: "text-xs whitespace-nowrap",
      cell: (a) => {
        const other = a.success ? firstFail : firstPass;
        return (
          other && (
            <Link
              href={`${base}/environments/${encodeURIComponent(environmentKey)}/compare?a=${a.success ? a.id : other.id}&b=${a.success ? other.id : a.id}`}
              className="text-blue-700 hover:underline"
            >
              compare with a {a.success ? "failing" : "passing"} one
            </Link>
          )
        );
      },
    },
  ];
  return (
    <Table
      numeric
      testId="attempt-list"
      rows={attempts}
      rowKey={(a) => a.id}
      rowProps={(_, i) => ({ ...nav.rowProps(i) })}
      rowClassName={() => "hover:bg-zinc-50"}
      empty="No attempts yet."
      columns={columns}
    />
  );
}

"use client";

import Link from "next/link";
import { fixed } from "@/components/ui/format";
import { useListNavigation } from "@/components/ui/shortcuts";

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
  return (
    <table className="w-full num" data-testid="attempt-list">
      <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
        <tr>
          <th className="py-1.5">Rollout</th>
          <th>Policy</th>
          <th>Gen</th>
          <th className="text-right">Reward</th>
          <th className="pl-3">Outcome</th>
          <th className="text-right">Turns</th>
          <th className="text-right">Output tokens</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {attempts.map((a, i) => {
          const other = a.success ? firstFail : firstPass;
          return (
            <tr key={a.id} {...nav.rowProps(i)} className="border-t border-zinc-100 hover:bg-zinc-50 data-[selected=true]:bg-amber-50">
              <td className="py-1">
                <Link href={`${base}/rollouts/${a.id}`} className="font-mono text-blue-700 hover:underline">
                  {a.id}
                </Link>
              </td>
              <td>{a.policy}</td>
              <td>G{a.generation}</td>
              <td className="text-right">{fixed(a.reward, 2)}</td>
              <td className="pl-3">
                {a.success ? <span className="text-green-700">pass</span> : <span className="text-red-700">fail</span>}
                {a.failureCategory && <span className="text-xs text-zinc-500"> · {a.failureCategory}</span>}
                {a.errorType && <span className="text-xs text-zinc-500"> · {a.errorType}</span>}
              </td>
              <td className="text-right">{a.turns ?? ""}</td>
              <td className="text-right">{a.outputTokens ?? ""}</td>
              <td className="pl-3 text-right text-xs">
                {other && (
                  <Link
                    href={`${base}/environments/${encodeURIComponent(environmentKey)}/compare?a=${a.success ? a.id : other.id}&b=${a.success ? other.id : a.id}`}
                    className="text-blue-700 hover:underline"
                  >
                    compare with a {a.success ? "failing" : "passing"} one
                  </Link>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

import Link from "next/link";
import { projectPage } from "@/lib/api/page-guard";
import { listDispatches } from "@/lib/dispatch/service";
import { Panel, Shell } from "@/components/ui/shell";

export const dynamic = "force-dynamic";
export const metadata = { title: "Dispatches" };

const STATUS_STYLE: Record<string, string> = {
  failed: "bg-red-100 text-red-800",
  succeeded: "bg-green-200 text-green-900",
  delivered: "bg-green-100 text-green-800",
  cancelled: "bg-zinc-200 text-zinc-600",
};

/** Every dispatch of a project, newest first (the last 200), with its target, generation, status and last error. */
export default async function DispatchesPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/dispatches`);
  const { dispatches } = await listDispatches(db, project);
  const base = `/projects/${encodeURIComponent(slug)}`;
  return (
    <Shell user={user} crumbs={[{ href: "/", label: "Projects" }, { href: base, label: project.name }, { label: "Dispatches" }]}>
      <h1 className="mb-3 text-xl font-semibold">Dispatches</h1>
      <Panel>
        {dispatches.length === 0 ? (
          <p className="text-sm text-zinc-500">Nothing dispatched yet: dispatch an approved or materialized generation from its page.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-sm" data-testid="dispatches-table">
              <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
                <tr>
                  <th className="py-1.5">Dispatch</th>
                  <th>Generation</th>
                  <th>Target</th>
                  <th>Status</th>
                  <th className="text-right">Attempts</th>
                  <th className="pl-3">Created</th>
                  <th className="pl-3">Last error</th>
                </tr>
              </thead>
              <tbody>
                {dispatches.map((d) => (
                  <tr key={d.id} className="border-t border-zinc-100 align-top">
                    <td className="py-1.5 font-mono text-xs">
                      <Link href={`${base}/dispatches/${d.id}`} className="text-blue-700 hover:underline">
                        {d.id.slice(0, 8)}
                      </Link>
                    </td>
                    <td>
                      <Link href={`${base}/generations/${d.generation}`} className="hover:underline">
                        G{d.generation}
                      </Link>
                    </td>
                    <td>
                      {d.target} <span className="text-xs text-zinc-500">({d.adapter})</span>
                    </td>
                    <td>
                      <span
                        className={`rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLE[d.status] ?? "bg-zinc-100 text-zinc-700"}`}
                      >
                        {d.status}
                      </span>
                    </td>
                    <td className="num text-right">{d.attempts}</td>
                    <td className="num pl-3 text-xs text-zinc-500">{d.createdAt.slice(0, 16).replace("T", " ")}</td>
                    <td className="max-w-md break-all pl-3 text-xs text-red-700">{d.lastError}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
    </Shell>
  );
}

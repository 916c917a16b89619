import Link from "next/link";
import { projectPage } from "@/lib/auth/page";
import { listAudit } from "@/lib/review/audit";
import { Panel, Shell } from "@/components/ui/shell";

export const dynamic = "force-dynamic";

/** The project's append-only audit log, newest first. */
export default async function AuditPage({ params, searchParams }: { params: Promise<{ slug: string }>; searchParams: Promise<{ cursor?: string }> }) {
  const { slug } = await params;
  const { cursor } = await searchParams;
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/audit`, "audit:read");
  const page = await listAudit(db, project.id, cursor, 100);
  return (
    <Shell user={user} crumbs={[{ href: "/", label: "Projects" }, { href: `/projects/${slug}`, label: project.name }, { label: "Audit log" }]}>
      <h1 className="mb-3 text-xl font-semibold">Audit log</h1>
      <Panel>
        <table className="w-full text-sm" data-testid="audit-table">
          <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th className="py-1.5">At</th>
              <th>Actor</th>
              <th>Action</th>
              <th>Entity</th>
              <th>Before</th>
              <th>After</th>
            </tr>
          </thead>
          <tbody>
            {page.events.map((e, i) => (
              <tr key={i} className="border-t border-zinc-100 align-top" data-testid="audit-row">
                <td className="num whitespace-nowrap py-1.5 pr-2 text-xs text-zinc-500">{e.at.slice(0, 19).replace("T", " ")}</td>
                <td className="pr-2">{e.actor}</td>
                <td className="pr-2 font-mono text-xs">{e.action}</td>
                <td className="pr-2 font-mono text-xs">
                  {e.entity} {String(e.entityId).slice(0, 12)}
                </td>
                <td className="max-w-xs truncate pr-2 font-mono text-xs text-zinc-500" title={e.before === undefined ? "" : JSON.stringify(e.before)}>
                  {e.before === undefined ? "" : JSON.stringify(e.before)}
                </td>
                <td className="max-w-md truncate font-mono text-xs" title={e.after === undefined ? "" : JSON.stringify(e.after)}>
                  {e.after === undefined ? "" : JSON.stringify(e.after)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {page.nextCursor && (
          <Link href={`?cursor=${page.nextCursor}`} className="mt-2 inline-block text-sm underline">
            Older
          </Link>
        )}
      </Panel>
    </Shell>
  );
}

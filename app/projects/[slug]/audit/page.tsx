import Link from "next/link";
import { projectPage } from "@/lib/api/page-guard";
import { listAudit } from "@/lib/audit";
import { Panel, Shell } from "@/components/ui/shell";
import { Table } from "@/components/ui/table";

export const dynamic = "force-dynamic";

/** The project's append-only audit log, newest first. */
export default async function AuditPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<{ cursor?: string }>;
}) {
  const { slug } = await params;
  const { cursor } = await searchParams;
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/audit`, "audit:read");
  const page = await listAudit(db, project.id, cursor, 100);
  return (
    <Shell
      user={user}
      crumbs={[{ href: "/", label: "Projects" }, { href: `/projects/${slug}`, label: project.name }, { label: "Audit log" }]}
    >
      <h1 className="mb-3 text-xl font-semibold">Audit log</h1>
      <Panel>
        <Table
          size="sm"
          testId="audit-table"
          rows={page.events}
          rowKey={(_, i) => i}
          rowProps={() => ({ "data-testid": "audit-row" })}
          empty="Nothing has been recorded yet."
          columns={[
            {
              key: "at",
              header: "At",
              cell: (e) => e.at.slice(0, 19).replace("T", " "),
              className: "num whitespace-nowrap text-xs text-zinc-500",
            },
            { key: "actor", header: "Actor", cell: (e) => e.actor },
            { key: "action", header: "Action", cell: (e) => e.action, className: "font-mono text-xs" },
            {
              key: "entity",
              header: "Entity",
              cell: (e) => `${e.entity} ${String(e.entityId).slice(0, 12)}`,
              className: "font-mono text-xs whitespace-nowrap",
            },
            {
              key: "before",
              header: "Before",
              cell: (e) => (e.before === undefined ? "" : <span title={JSON.stringify(e.before)}>{JSON.stringify(e.before)}</span>),
              className: "max-w-xs truncate font-mono text-xs text-zinc-500",
            },
            {
              key: "after",
              header: "After",
              cell: (e) => (e.after === undefined ? "" : <span title={JSON.stringify(e.after)}>{JSON.stringify(e.after)}</span>),
              className: "max-w-md truncate font-mono text-xs",
            },
          ]}
        />
        {page.nextCursor && (
          <Link href={`?cursor=${page.nextCursor}`} className="mt-2 inline-block text-sm underline">
            Older
          </Link>
        )}
      </Panel>
    </Shell>
  );
}

import { projectPage } from "@/lib/api/page-guard";
import { listTargets } from "@/lib/dispatch/service";
import { Panel, Shell } from "@/components/ui/shell";
import { Table } from "@/components/ui/table";
import { TargetForm } from "@/components/dispatch/target-form";
import { TargetActions } from "@/components/dispatch/target-actions";

export const dynamic = "force-dynamic";

/** Dispatch targets of a project (admins). Secrets are never shown, only whether one is set. */
export default async function TargetsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/targets`, "targets:manage");
  const { targets } = await listTargets(db, project, user.role);
  return (
    <Shell
      user={user}
      crumbs={[{ href: "/", label: "Projects" }, { href: `/projects/${slug}`, label: project.name }, { label: "Targets" }]}
    >
      <h1 className="mb-3 text-xl font-semibold">Dispatch targets</h1>
      <Panel title="Targets" className="mb-3">
        <Table
          size="sm"
          testId="targets-table"
          rows={targets}
          rowKey={(t) => t.id}
          empty="No targets yet."
          columns={[
            { key: "name", header: "Name", cell: (t) => t.name, className: "font-medium" },
            { key: "kind", header: "Kind", cell: (t) => t.kind },
            { key: "adapter", header: "Adapter", cell: (t) => t.adapter },
            {
              key: "config",
              header: "Config",
              cell: (t) => <span title={JSON.stringify(t.config)}>{JSON.stringify(t.config)}</span>,
              className: "max-w-md truncate font-mono text-xs",
            },
            { key: "secret", header: "Secret", cell: (t) => t.secret ?? "none", className: "text-xs text-zinc-500" },
            { key: "attempts", header: "Attempts", cell: (t) => t.maxAttempts, className: "num", align: "right" },
            { key: "actions", header: "Actions", cell: (t) => <TargetActions slug={slug} target={t} /> },
          ]}
        />
      </Panel>
      <Panel title="Add a target">
        <TargetForm slug={slug} />
      </Panel>
    </Shell>
  );
}

import { projectPage } from "@/lib/auth/page";
import { listTargets } from "@/lib/dispatch/service";
import { Panel, Shell } from "@/components/ui/shell";
import { TargetForm } from "@/components/dispatch/target-form";

export const dynamic = "force-dynamic";

/** Dispatch targets of a project (admins). Secrets are never shown, only whether one is set. */
export default async function TargetsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/targets`, "targets:manage");
  const { targets } = await listTargets(db, project, user.role);
  return (
    <Shell user={user} crumbs={[{ href: "/", label: "Projects" }, { href: `/projects/${slug}`, label: project.name }, { label: "Targets" }]}>
      <h1 className="mb-3 text-xl font-semibold">Dispatch targets</h1>
      <Panel title="Targets" className="mb-3">
        <table className="w-full text-sm" data-testid="targets-table">
          <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th className="py-1.5">Name</th>
              <th>Kind</th>
              <th>Adapter</th>
              <th>Config</th>
              <th>Secret</th>
              <th>Attempts</th>
            </tr>
          </thead>
          <tbody>
            {targets.map((t) => (
              <tr key={t.id} className="border-t border-zinc-100 align-top">
                <td className="py-1.5 font-medium">{t.name}</td>
                <td>{t.kind}</td>
                <td>{t.adapter}</td>
                <td className="max-w-md truncate font-mono text-xs" title={JSON.stringify(t.config)}>
                  {JSON.stringify(t.config)}
                </td>
                <td className="text-xs text-zinc-500">{t.secret ?? "none"}</td>
                <td className="num">{t.maxAttempts}</td>
              </tr>
            ))}
            {targets.length === 0 && (
              <tr>
                <td colSpan={6} className="py-3 text-zinc-500">
                  No targets yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </Panel>
      <Panel title="Add a target">
        <TargetForm slug={slug} />
      </Panel>
    </Shell>
  );
}

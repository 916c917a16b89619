import { projectPage } from "@/lib/api/page-guard";
import { listDispatches } from "@/lib/dispatch/service";
import { Panel, Shell } from "@/components/ui/shell";
import { DispatchTable } from "@/components/dispatch/dispatch-table";

export const dynamic = "force-dynamic";
export const metadata = { title: "Dispatches" };

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
        <DispatchTable slug={slug} dispatches={dispatches} />
      </Panel>
    </Shell>
  );
}

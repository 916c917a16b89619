import { notFound } from "next/navigation";
import { orNotFound, projectPage } from "@/lib/api/page-guard";
import { getDispatch } from "@/lib/dispatch/service";
import { Panel, Shell } from "@/components/ui/shell";
import { DispatchTimeline } from "@/components/dispatch/dispatch-panel";
import { hasScope } from "@/lib/auth/roles";

export const dynamic = "force-dynamic";

/** One dispatch: its status and timeline. */
export default async function DispatchPage({ params }: { params: Promise<{ slug: string; id: string }> }) {
  const { slug, id } = await params;
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/dispatches/${id}`);
  const d = await orNotFound(getDispatch(db, id, user));
  if (d.project !== project.slug) notFound();
  return (
    <Shell
      user={user}
      crumbs={[
        { href: "/", label: "Projects" },
        { href: `/projects/${slug}`, label: project.name },
        { href: `/projects/${slug}/dispatches`, label: "Dispatches" },
        { label: `Dispatch ${id.slice(0, 8)}` },
      ]}
    >
      <h1 className="mb-3 text-xl font-semibold">Dispatch to {d.target}</h1>
      <Panel>
        <DispatchTimeline id={id} slug={slug} initial={d} canRetry={hasScope(user.role, "dispatch:create")} />
      </Panel>
    </Shell>
  );
}

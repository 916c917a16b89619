import Link from "next/link";
import { getDb } from "@/lib/db/client";
import { requireUser } from "@/lib/api/page-guard";
import { listProjects } from "@/lib/projects/service";
import { Shell } from "@/components/ui/shell";
import { count } from "@/components/ui/format";
import { Table } from "@/components/ui/table";
import { hasScope } from "@/lib/auth/roles";
import { listFamilies } from "@/lib/family-store";
import { NewProjectForm } from "@/components/projects/project-forms";

export const dynamic = "force-dynamic";
export const metadata = { title: "Projects" };

export default async function ProjectsPage() {
  const user = await requireUser("/");
  const all = await listProjects(getDb(), user);
  const projects = all.filter((p) => !p.archivedAt);
  const archived = all.filter((p) => p.archivedAt);
  const canCreate = hasScope(user.role, "projects:create");
  const families = canCreate ? (await listFamilies(getDb())).map((f) => f.id) : [];
  return (
    <Shell user={user} crumbs={[{ label: "Projects" }]}>
      {canCreate && (
        <details className="mb-3" open={all.length === 0}>
          <summary className="cursor-pointer text-sm font-medium text-zinc-700">New project</summary>
          <div className="mt-2">
            <NewProjectForm families={families} />
          </div>
        </details>
      )}
      {projects.length === 0 ? (
        <div className="rounded-md border border-dashed border-zinc-300 bg-white p-8 text-center text-zinc-600">
          No {archived.length ? "active " : ""}projects yet. Create one above (admins), with{" "}
          <code className="rounded bg-zinc-100 px-1">POST /api/v1/projects</code> or import a Harbor job with
          <code className="ml-1 rounded bg-zinc-100 px-1">npx envforge import harbor &lt;job-dir&gt; --project &lt;slug&gt;</code>.
        </div>
      ) : (
        <Table
          framed
          testId="projects-table"
          rows={projects}
          rowKey={(p) => p.slug}
          columns={[
            {
              key: "project",
              header: "Project",
              className: "whitespace-nowrap",
              cell: (p) => (
                <>
                  <Link href={`/projects/${p.slug}`} className="font-medium text-zinc-900 hover:underline">
                    {p.name}
                  </Link>
                  <span className="ml-2 text-zinc-500">{p.slug}</span>
                  {p.demo && <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-800">demo</span>}
                </>
              ),
            },
            {
              key: "family",
              header: "Family",
              cell: (p) => (
                <Link href={`/families/${p.family}`} className="text-zinc-600 hover:underline">
                  {p.family}
                </Link>
              ),
            },
            { key: "generations", header: "Generations", align: "right", className: "num", cell: (p) => count(p.generations) },
            { key: "environments", header: "Environments", align: "right", className: "num", cell: (p) => count(p.environments) },
            { key: "rollouts", header: "Rollouts", align: "right", className: "num", cell: (p) => count(p.rollouts) },
          ]}
        />
      )}
      {archived.length > 0 && (
        <details className="mt-4 text-sm" data-testid="archived-projects">
          <summary className="cursor-pointer text-zinc-600">Archived ({archived.length})</summary>
          <ul className="mt-2 space-y-1">
            {archived.map((p) => (
              <li key={p.slug}>
                <Link href={`/projects/${p.slug}`} className="text-zinc-700 hover:underline">
                  {p.name}
                </Link>{" "}
                <span className="text-zinc-500">
                  {p.slug} · {count(p.generations)} generations · {count(p.rollouts)} rollouts
                </span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </Shell>
  );
}

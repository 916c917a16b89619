import Link from "next/link";
import { getDb } from "@/lib/db/client";
import { requireUser } from "@/lib/auth/page";
import { listProjects } from "@/lib/projects/service";
import { Shell } from "@/components/ui/shell";
import { count } from "@/components/ui/format";

export const dynamic = "force-dynamic";
export const metadata = { title: "Projects" };

export default async function ProjectsPage() {
  const user = await requireUser("/");
  const projects = await listProjects(getDb(), user);
  return (
    <Shell user={user} crumbs={[{ label: "Projects" }]}>
      {projects.length === 0 ? (
        <div className="rounded-md border border-dashed border-zinc-300 bg-white p-8 text-center text-zinc-600">
          No projects yet. Create one with <code className="rounded bg-zinc-100 px-1">POST /api/v1/projects</code> or import a Harbor job with
          <code className="ml-1 rounded bg-zinc-100 px-1">npx envforge import harbor &lt;job-dir&gt; --project &lt;slug&gt;</code>.
        </div>
      ) : (
        <table className="w-full overflow-hidden rounded-md border border-zinc-200 bg-white">
          <thead className="bg-zinc-50 text-left text-xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th className="px-3 py-2">Project</th>
              <th className="px-3 py-2">Family</th>
              <th className="px-3 py-2 text-right">Generations</th>
              <th className="px-3 py-2 text-right">Environments</th>
              <th className="px-3 py-2 text-right">Rollouts</th>
            </tr>
          </thead>
          <tbody>
            {projects.map((p) => (
              <tr key={p.slug} className="border-t border-zinc-100 hover:bg-zinc-50">
                <td className="px-3 py-2">
                  <Link href={`/projects/${p.slug}`} className="font-medium text-zinc-900 hover:underline">
                    {p.name}
                  </Link>
                  <span className="ml-2 text-zinc-400">{p.slug}</span>
                  {p.demo && <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-800">demo</span>}
                </td>
                <td className="px-3 py-2">
                  <Link href={`/families/${p.family}`} className="text-zinc-600 hover:underline">
                    {p.family}
                  </Link>
                </td>
                <td className="num px-3 py-2 text-right">{count(p.generations)}</td>
                <td className="num px-3 py-2 text-right">{count(p.environments)}</td>
                <td className="num px-3 py-2 text-right">{count(p.rollouts)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Shell>
  );
}

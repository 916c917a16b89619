import { getDb } from "@/lib/db/client";
import { requireUserWith } from "@/lib/api/page-guard";
import { listProjects } from "@/lib/projects/service";
import { Shell } from "@/components/ui/shell";
import { ApiKeys } from "@/components/settings/api-keys";

export const dynamic = "force-dynamic";
export const metadata = { title: "API keys" };

export default async function KeysPage() {
  const user = await requireUserWith("keys:manage", "/settings/keys");
  const projects = await listProjects(getDb(), user);
  return (
    <Shell user={user} crumbs={[{ label: "API keys" }]}>
      <ApiKeys projects={projects.map((p) => p.slug)} />
    </Shell>
  );
}

import { apiRoute } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { projectOverview } from "@/lib/generations/overview";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>(async ({ db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  return projectOverview(db, project);
});

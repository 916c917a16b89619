import { apiRoute } from "@/lib/api/route";
import { projectOverview } from "@/lib/generations/overview";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ db, project }) => {
  return projectOverview(db, project);
});

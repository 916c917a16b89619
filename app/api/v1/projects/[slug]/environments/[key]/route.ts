import { apiRoute } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { environmentDetail } from "@/lib/generations/environment-detail";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string; key: string }>(async ({ db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  return environmentDetail(db, project, params.key);
});

import { apiRoute } from "@/lib/api/route";
import { environmentDetail } from "@/lib/generations/environment-detail";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string; key: string }>({ scope: "projects:read", project: "slug" }, async ({ db, params, project }) => {
  return environmentDetail(db, project, params.key);
});

import { apiRoute, intParam } from "@/lib/api/route";
import { getFamily } from "@/lib/family-store";
import { getGeneration } from "@/lib/generations/service";
import { generationAnalytics } from "@/lib/generations/analytics";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string; index: string }>(
  { scope: "projects:read", project: "slug" },
  async ({ req, db, params, project }) => {
    const [generation, family] = await Promise.all([
      getGeneration(db, project, intParam(params.index, "index")),
      getFamily(db, project.familyId),
    ]);
    return generationAnalytics(db, project, family, generation, new URL(req.url).searchParams.get("policy") ?? undefined);
  },
);

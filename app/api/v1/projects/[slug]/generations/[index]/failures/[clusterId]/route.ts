import { apiRoute, intParam } from "@/lib/api/route";
import { getGeneration } from "@/lib/generations/service";
import { failureClusterDetail } from "@/lib/generations/analytics";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string; index: string; clusterId: string }>(
  { scope: "projects:read", project: "slug" },
  async ({ req, db, params, project }) => {
    const generation = await getGeneration(db, project, intParam(params.index, "index"));
    return failureClusterDetail(db, project, generation, params.clusterId, new URL(req.url).searchParams.get("policy") ?? undefined);
  },
);

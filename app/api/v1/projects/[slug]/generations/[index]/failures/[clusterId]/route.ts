import { apiRoute, intParam } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { getGeneration } from "@/lib/generations/service";
import { failureClusterDetail } from "@/lib/generations/analytics";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string; index: string; clusterId: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  const generation = await getGeneration(db, project, intParam(params.index, "index"));
  return failureClusterDetail(db, project, generation, params.clusterId, new URL(req.url).searchParams.get("policy") ?? undefined);
});

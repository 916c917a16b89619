import { apiRoute, intParam } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { getGeneration } from "@/lib/generations/service";
import { generationDetail } from "@/lib/generations/overview";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string; index: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  const generation = await getGeneration(db, project, intParam(params.index, "index"));
  const policy = new URL(req.url).searchParams.get("policy") ?? undefined;
  return generationDetail(db, project, generation, policy);
});

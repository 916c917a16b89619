import { apiRoute, intParam } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { getGeneration } from "@/lib/generations/service";
import { generationFailures } from "@/lib/generations/analytics";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string; index: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  const generation = await getGeneration(db, project, intParam(params.index, "index"));
  return generationFailures(db, project, generation, new URL(req.url).searchParams.get("policy") ?? undefined);
});

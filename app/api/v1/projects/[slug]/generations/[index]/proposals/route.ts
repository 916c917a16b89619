import { apiRoute, intParam, readJsonBody } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { getGeneration } from "@/lib/generations/service";
import { createProposal } from "@/lib/engineer/proposals";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ slug: string; index: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  const generation = await getGeneration(db, project, intParam(params.index, "index"));
  const result = await createProposal(db, project, generation, await readJsonBody(req), principal);
  return Response.json(result, { status: 202 });
});

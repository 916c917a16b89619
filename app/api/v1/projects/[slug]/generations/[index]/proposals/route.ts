import { apiRoute, intParam, readJsonBody } from "@/lib/api/route";
import { getGeneration } from "@/lib/generations/service";
import { createProposal } from "@/lib/proposals";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ slug: string; index: string }>(
  { scope: "proposals:create", project: "slug" },
  async ({ req, db, principal, params, project }) => {
    const generation = await getGeneration(db, project, intParam(params.index, "index"));
    const result = await createProposal(db, project, generation, await readJsonBody(req), principal);
    return Response.json(result, { status: 202 });
  },
);

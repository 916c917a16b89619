import { apiRoute, intParam, readJsonBody } from "@/lib/api/route";
import { getGeneration } from "@/lib/generations/service";
import { createDispatch } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ slug: string; index: string }>(
  { scope: "dispatch:create", project: "slug" },
  async ({ req, db, principal, params, project }) => {
    const generation = await getGeneration(db, project, intParam(params.index, "index"));
    const result = await createDispatch(db, project, generation, await readJsonBody(req), principal, new URL(req.url).origin);
    return Response.json(result, { status: 202 });
  },
);

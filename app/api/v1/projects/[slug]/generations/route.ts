import { apiRoute, readJsonBody } from "@/lib/api/route";
import { requireScope } from "@/lib/auth/principal";
import { hasScope } from "@/lib/auth/roles";
import { getProjectFor } from "@/lib/projects/service";
import { getFamily } from "@/lib/projects/families";
import { createGeneration } from "@/lib/generations/service";
import { listGenerationsWithMetrics } from "@/lib/generations/overview";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>(async ({ db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  return { generations: await listGenerationsWithMetrics(db, project) };
});

export const POST = apiRoute<{ slug: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  requireScope(principal, "generations:write", project.id);
  const family = await getFamily(db, project.familyId);
  const { generation, environments } = await createGeneration(db, project, family, await readJsonBody(req), principal.actor, "import", hasScope(principal.role, "proposals:review"));
  return Response.json({ index: generation.index, environments }, { status: 201 });
});

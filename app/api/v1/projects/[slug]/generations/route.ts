import { apiRoute, readJsonBody } from "@/lib/api/route";
import { hasScope } from "@/lib/auth/roles";
import { getFamily } from "@/lib/family-store";
import { createGeneration } from "@/lib/generations/service";
import { listGenerationsWithMetrics } from "@/lib/generations/overview";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ db, project }) => {
  return { generations: await listGenerationsWithMetrics(db, project) };
});

export const POST = apiRoute<{ slug: string }>({ scope: "generations:write", project: "slug" }, async ({ req, db, principal, project }) => {
  const family = await getFamily(db, project.familyId);
  const { generation, environments } = await createGeneration(
    db,
    project,
    family,
    await readJsonBody(req),
    principal.actor,
    "import",
    hasScope(principal.role, "proposals:review"),
  );
  return Response.json({ index: generation.index, environments }, { status: 201 });
});

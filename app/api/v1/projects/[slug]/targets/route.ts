import { apiRoute, readJsonBody } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { createTarget, listTargets } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>(async ({ db, principal, params }) => listTargets(db, await getProjectFor(db, params.slug, principal), principal.role));

export const POST = apiRoute<{ slug: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  return Response.json(await createTarget(db, project, await readJsonBody(req), principal), { status: 201 });
});

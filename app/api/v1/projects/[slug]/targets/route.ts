import { apiRoute, readJsonBody } from "@/lib/api/route";
import { createTarget, listTargets } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ db, principal, project }) =>
  listTargets(db, project, principal.role),
);

export const POST = apiRoute<{ slug: string }>({ scope: "targets:manage", project: "slug" }, async ({ req, db, principal, project }) => {
  return Response.json(await createTarget(db, project, await readJsonBody(req), principal), { status: 201 });
});

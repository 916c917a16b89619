import { apiRoute, readJsonBody } from "@/lib/api/route";
import { requireScope } from "@/lib/auth/principal";
import { createProject, listProjects, projectView } from "@/lib/projects/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ db, principal }) => {
  requireScope(principal, "projects:read");
  return { projects: await listProjects(db, principal) };
});

export const POST = apiRoute(async ({ req, db, principal }) => {
  requireScope(principal, "projects:create");
  const row = await createProject(db, await readJsonBody(req), principal);
  return Response.json(projectView(row), { status: 201 });
});

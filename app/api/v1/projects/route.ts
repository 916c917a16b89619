import { apiRoute, readJsonBody } from "@/lib/api/route";
import { createProject, listProjects, projectView } from "@/lib/projects/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "projects:read", project: "global" }, async ({ db, principal }) => {
  return { projects: await listProjects(db, principal) };
});

export const POST = apiRoute({ scope: "projects:create", project: "global" }, async ({ req, db, principal }) => {
  const row = await createProject(db, await readJsonBody(req), principal);
  return Response.json(projectView(row), { status: 201 });
});

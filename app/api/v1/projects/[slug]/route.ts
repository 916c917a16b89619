import { apiRoute, readJsonBody } from "@/lib/api/route";
import { projectOverview } from "@/lib/generations/overview";
import { deleteProject, projectView, updateProject } from "@/lib/projects/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ db, project }) => {
  return projectOverview(db, project);
});

/** Rename, change the success threshold or default policy, archive or unarchive (admin). */
export const PATCH = apiRoute<{ slug: string }>({ scope: "projects:manage", project: "slug" }, async ({ req, db, principal, project }) => {
  return projectView(await updateProject(db, project, await readJsonBody(req), principal));
});

/** Delete the project and everything in it (admin); the audit keeps the event. */
export const DELETE = apiRoute<{ slug: string }>({ scope: "projects:manage", project: "slug" }, async ({ db, principal, project }) => {
  await deleteProject(db, project, principal);
  return new Response(null, { status: 204 });
});

import { apiRoute } from "@/lib/api/route";
import { createImport, listImports } from "@/lib/ingest/imports";

export const dynamic = "force-dynamic";

/** Upload a file to import in the background: ?kind=ndjson|harbor[&filename=&generation=]; the body is the file. */
export const POST = apiRoute<{ slug: string }>({ scope: "rollouts:write", project: "slug" }, async ({ req, db, principal, project }) => {
  return Response.json(await createImport(db, project, principal, req), { status: 202 });
});

export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ db, project }) => {
  return { imports: await listImports(db, project.id) };
});

import { apiRoute } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { createImport, listImports } from "@/lib/ingest/imports";

export const dynamic = "force-dynamic";

/** Upload a file to import in the background: ?kind=ndjson|harbor[&filename=&generation=]; the body is the file. */
export const POST = apiRoute<{ slug: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  return Response.json(await createImport(db, project, principal, req), { status: 202 });
});

export const GET = apiRoute<{ slug: string }>(async ({ db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  return { imports: await listImports(db, project.id) };
});

import { apiRoute, readJsonBody } from "@/lib/api/route";
import { searchParamsOf } from "@/lib/api/contracts";
import { requireScope } from "@/lib/auth/principal";
import { getProjectFor } from "@/lib/projects/service";
import { getSyncCursor, putSyncCursor } from "@/lib/ingest/sync-cursors";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  return getSyncCursor(db, project.id, searchParamsOf(req));
});

export const PUT = apiRoute<{ slug: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  requireScope(principal, "rollouts:write", project.id);
  return putSyncCursor(db, project.id, await readJsonBody(req));
});

import { apiRoute, readJsonBody } from "@/lib/api/route";
import { searchParamsOf } from "@/lib/api/contracts";
import { getSyncCursor, putSyncCursor } from "@/lib/ingest/sync-cursors";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ req, db, project }) => {
  return getSyncCursor(db, project.id, searchParamsOf(req));
});

export const PUT = apiRoute<{ slug: string }>({ scope: "rollouts:write", project: "slug" }, async ({ req, db, project }) => {
  return putSyncCursor(db, project.id, await readJsonBody(req));
});

import { apiRoute } from "@/lib/api/route";
import { parseOrThrow } from "@/lib/api/errors";
import { cursorQuerySchema, searchParamsOf } from "@/lib/api/contracts";
import { requireScope } from "@/lib/auth/principal";
import { getProjectFor } from "@/lib/projects/service";
import { listAudit } from "@/lib/review/audit";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  requireScope(principal, "audit:read", project.id);
  const query = parseOrThrow(cursorQuerySchema, searchParamsOf(req), "query", 400);
  return listAudit(db, project.id, query.cursor, query.limit);
});

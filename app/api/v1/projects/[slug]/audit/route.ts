import { apiRoute } from "@/lib/api/route";
import { parseOrThrow } from "@/lib/errors";
import { cursorQuerySchema, searchParamsOf } from "@/lib/api/contracts";
import { listAudit } from "@/lib/audit";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>({ scope: "audit:read", project: "slug" }, async ({ req, db, project }) => {
  const query = parseOrThrow(cursorQuerySchema, searchParamsOf(req), "query", 400);
  return listAudit(db, project.id, query.cursor, query.limit);
});

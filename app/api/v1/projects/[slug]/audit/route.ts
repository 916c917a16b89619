import { apiRoute } from "@/lib/api/route";
import { auditQuerySchema, listAudit, type AuditQuery } from "@/lib/audit";

export const dynamic = "force-dynamic";

/** The project's audit events, newest first; ?actor=&action=&entity=&entityId= narrow them (exact match). */
export const GET = apiRoute<{ slug: string }, undefined, AuditQuery>(
  { scope: "audit:read", project: "slug", query: auditQuerySchema },
  async ({ db, project, query: { cursor, limit, ...filter } }) => listAudit(db, project.id, cursor, limit, filter),
);

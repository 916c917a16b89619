/** The append-only audit log: every decision, edit, comment, materialization, dispatch and key change. */
import { and, desc, eq, lt, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Queryable } from "@/lib/db/client";
import { auditEvents } from "@/lib/db/schema";

/** Every action the audit log records: a closed list, so a reader (and the audit page's filter) knows them all. */
export const AUDIT_ACTIONS = [
  "project.create",
  "project.update",
  "project.delete",
  "family.register",
  "generation.create",
  "environment.import_task",
  "environment.attach_task",
  "import.create",
  "proposal.create",
  "proposal.status",
  "proposal.materialize",
  "proposal_item.approve",
  "proposal_item.reject",
  "proposal_item.undo",
  "proposal_item.edit",
  "proposal_item.edit_files",
  "proposal_item.revert_files",
  "comment.create",
  "label.create",
  "annotation.create",
  "annotation.update",
  "annotation.delete",
  "annotation_lock.break",
  "target.create",
  "target.update",
  "target.test",
  "target.delete",
  "dispatch.create",
  "dispatch.cancel",
  "dispatch.retry",
  "dispatch.validation",
  "key.create",
  "key.revoke",
  "user.setup",
  "user.create",
  "user.enable",
  "user.disable",
  "user.sessions_end",
  "user.role",
  "user.password_reset",
  "user.signin_failed",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditInput {
  projectId: number | null;
  actor: string;
  action: AuditAction;
  entity: string;
  entityId: string | number;
  before?: unknown;
  after?: unknown;
}

/**
 * Append audit events in order (inside the caller's transaction when given one), as one INSERT with the rows in one
 * jsonb parameter: a bulk decision on 15,000 proposal items wrote 15,000 single-row INSERTs (issue 19).
 */
export async function recordAudits(db: Queryable, events: readonly AuditInput[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => ({
    project_id: e.projectId,
    actor: e.actor,
    action: e.action,
    entity: e.entity,
    entity_id: String(e.entityId),
    before: e.before ?? null,
    after: e.after ?? null,
  }));
  await db.execute(sql`
    insert into ${auditEvents} (project_id, actor, action, entity, entity_id, before, after)
    select (j->>'project_id')::int, j->>'actor', j->>'action', j->>'entity', j->>'entity_id',
           nullif(j->'before', 'null'::jsonb), nullif(j->'after', 'null'::jsonb)
    from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) with ordinality as e(j, n)
    order by n`);
}

/** Append one audit event (inside the caller's transaction when given one). */
export async function recordAudit(db: Queryable, e: AuditInput): Promise<void> {
  await recordAudits(db, [e]);
}

/** The audit log's query string: cursor paging plus exact-match filters; an action outside AUDIT_ACTIONS is a 400 naming `action`. */
export const auditQuerySchema = z.object({
  cursor: z.string().regex(/^\d+$/, "cursor must be the nextCursor of a previous page").optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  actor: z.string().min(1).max(200).optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
  entity: z.string().min(1).max(100).optional(),
  entityId: z.string().min(1).max(200).optional(),
});

export type AuditQuery = z.infer<typeof auditQuerySchema>;

/** Which events a reader wants: all by default; each given filter narrows (exact match). */
export interface AuditFilter {
  actor?: string;
  action?: string;
  entity?: string;
  entityId?: string;
}

/** A page of a project's audit events, newest first, with an opaque cursor; `filter` narrows by actor, action and entity. */
export async function listAudit(db: Db, projectId: number, cursor: string | undefined, limit = 100, filter: AuditFilter = {}) {
  const before = cursor ? Number(cursor) : undefined;
  const rows = await db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.projectId, projectId),
        before ? lt(auditEvents.id, before) : undefined,
        filter.actor ? eq(auditEvents.actor, filter.actor) : undefined,
        filter.action ? eq(auditEvents.action, filter.action) : undefined,
        filter.entity ? eq(auditEvents.entity, filter.entity) : undefined,
        filter.entityId ? eq(auditEvents.entityId, filter.entityId) : undefined,
      ),
    )
    .orderBy(desc(auditEvents.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return {
    events: page.map((r) => ({
      id: r.id,
      at: r.at.toISOString(),
      actor: r.actor,
      action: r.action,
      entity: r.entity,
      entityId: r.entityId,
      before: r.before ?? undefined,
      after: r.after ?? undefined,
    })),
    nextCursor: rows.length > limit ? String(page[page.length - 1].id) : null,
  };
}

/** The actors and entity kinds a project's audit log holds, for the audit page's filter choices. */
export async function auditFacets(db: Db, projectId: number): Promise<{ actors: string[]; entities: string[] }> {
  const [actors, entities] = await Promise.all([
    db.selectDistinct({ v: auditEvents.actor }).from(auditEvents).where(eq(auditEvents.projectId, projectId)).orderBy(auditEvents.actor),
    db.selectDistinct({ v: auditEvents.entity }).from(auditEvents).where(eq(auditEvents.projectId, projectId)).orderBy(auditEvents.entity),
  ]);
  return { actors: actors.map((a) => a.v), entities: entities.map((e) => e.v) };
}

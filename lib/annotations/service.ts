/**
 * Annotations: a project's own set of labels, and reviewers' labels, scores and notes on a rollout
 * or on one of its turns (trajectory messages). Every write goes to the audit log with its actor.
 */
import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db, Queryable } from "@/lib/db/client";
import { annotations, labels, rolloutPayloads, rollouts, TRAJECTORY_PAGE_MESSAGES, trajectoryPages } from "@/lib/db/schema";
import { qualified } from "@/lib/db/qualified";
import type { ProjectRow } from "@/lib/projects/service";
import { requireScope, type Principal } from "@/lib/auth/principal";
import { Conflict, Forbidden, Invalid, NotFound } from "@/lib/errors";
import { recordAudit } from "@/lib/audit";

const noNul = (v: string) => !v.includes("\0");
const NUL_MESSAGE = "holds a NUL character, which cannot be stored";

/** POST .../labels: a label name (trimmed, printable, short). */
export const labelInput = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(60)
    .refine(noNul, NUL_MESSAGE)
    .refine((v) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), "holds a control character"),
});
export type LabelInput = z.infer<typeof labelInput>;

/** POST /rollouts/{id}/annotations: at least one of label, score and note; turn pins it to one message. */
export const annotationInput = z
  .object({
    label: z.string().trim().min(1).max(60).refine(noNul, NUL_MESSAGE).optional(),
    score: z.number().finite().min(-1e6).max(1e6).optional(),
    note: z.string().max(10_000).refine(noNul, NUL_MESSAGE).optional(),
    turn: z.number().int().min(0).optional(),
  })
  .strict()
  .refine((v) => v.label !== undefined || v.score !== undefined || (v.note !== undefined && v.note.trim() !== ""), {
    message: "give a label, a score or a note",
    path: ["label"],
  });
export type AnnotationInput = z.infer<typeof annotationInput>;

/** GET .../labels: the project's labels, oldest first, with how many annotations use each. */
export async function listLabels(db: Db, project: ProjectRow) {
  const rows = await db
    .select({
      id: labels.id,
      name: labels.name,
      createdBy: labels.createdBy,
      createdAt: labels.createdAt,
      uses: sql<number>`(select count(*)::int from ${annotations} a where a.label_id = ${qualified(labels.id)})`,
    })
    .from(labels)
    .where(eq(labels.projectId, project.id))
    .orderBy(asc(labels.id));
  return { labels: rows };
}

/** POST .../labels: add a label to the project's set (409 when it exists). */
export async function createLabel(db: Db, project: ProjectRow, principal: Principal, input: LabelInput) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(labels)
      .values({ projectId: project.id, name: input.name, createdBy: principal.actor })
      .onConflictDoNothing()
      .returning();
    if (!row)
      throw new Conflict(`The label ${JSON.stringify(input.name)} exists in ${project.slug}.`, [{ path: "name", message: "exists" }]);
    await recordAudit(tx, {
      projectId: project.id,
      actor: principal.actor,
      action: "label.create",
      entity: "label",
      entityId: row.id,
      after: { name: row.name },
    });
    return { id: row.id, name: row.name, createdBy: row.createdBy, createdAt: row.createdAt };
  });
}

/** The rollout's project and message count, after checking the principal may `scope` in that project. */
async function rolloutFor(db: Db, id: number, principal: Principal, scope: "projects:read" | "annotations:write") {
  const [row] = await db
    .select({
      projectId: rollouts.projectId,
      // a paged trajectory's count is its last page's (trajectory_pages): the whole document is not decompressed to count it
      messages: sql<number | null>`coalesce(
        (select (tp.page * ${TRAJECTORY_PAGE_MESSAGES} + tp.message_count)::int from ${trajectoryPages} tp
         where tp.rollout_id = ${rollouts.id} order by tp.page desc limit 1),
        jsonb_array_length(case when jsonb_typeof(${rolloutPayloads.trajectory}) = 'array' then ${rolloutPayloads.trajectory} else '[]'::jsonb end))`,
    })
    .from(rollouts)
    .leftJoin(rolloutPayloads, eq(rolloutPayloads.rolloutId, rollouts.id))
    .where(eq(rollouts.id, id));
  if (!row) throw new NotFound(`Rollout ${id} does not exist.`);
  requireScope(principal, scope, row.projectId);
  return row;
}

const annotationColumns = {
  id: annotations.id,
  rolloutId: annotations.rolloutId,
  label: labels.name,
  score: annotations.score,
  note: annotations.note,
  turn: annotations.turn,
  actor: annotations.actor,
  createdAt: annotations.createdAt,
};

/** GET /rollouts/{id}/annotations: oldest first. */
export async function listAnnotations(db: Db, rolloutId: number, principal: Principal) {
  await rolloutFor(db, rolloutId, principal, "projects:read");
  const rows = await db
    .select(annotationColumns)
    .from(annotations)
    .leftJoin(labels, eq(labels.id, annotations.labelId))
    .where(eq(annotations.rolloutId, rolloutId))
    .orderBy(asc(annotations.id));
  return { annotations: rows };
}

/** The id of the project's label `name`, or 422 naming `label`. */
async function labelIdOf(tx: Queryable, projectId: number, name: string): Promise<number> {
  const [label] = await tx
    .select({ id: labels.id })
    .from(labels)
    .where(and(eq(labels.projectId, projectId), eq(labels.name, name)));
  if (!label)
    throw new Invalid(
      `label ${JSON.stringify(name)} is not one of this project's labels; add it first (POST /api/v1/projects/{slug}/labels).`,
      [{ path: "label", message: "unknown label" }],
    );
  return label.id;
}

/** 422 naming `turn` when the rollout has no message `turn`. */
function assertTurn(turn: number, messages: number | null): void {
  if (turn >= (messages ?? 0))
    throw new Invalid(`turn ${turn} is past the rollout's last message (it has ${messages ?? 0}).`, [
      { path: "turn", message: "no such message" },
    ]);
}

/** POST /rollouts/{id}/annotations: the label must be one of the project's; the turn one of the rollout's messages. */
export async function createAnnotation(db: Db, rolloutId: number, principal: Principal, input: AnnotationInput) {
  const rollout = await rolloutFor(db, rolloutId, principal, "annotations:write");
  return db.transaction(async (tx) => {
    const labelId = input.label !== undefined ? await labelIdOf(tx, rollout.projectId, input.label) : null;
    if (input.turn !== undefined) assertTurn(input.turn, rollout.messages);
    const note = input.note !== undefined && input.note.trim() !== "" ? input.note : null;
    const [row] = await tx
      .insert(annotations)
      .values({
        projectId: rollout.projectId,
        rolloutId,
        labelId,
        score: input.score ?? null,
        note,
        turn: input.turn ?? null,
        actor: principal.actor,
      })
      .returning();
    const view = {
      id: row.id,
      rolloutId,
      label: input.label ?? null,
      score: row.score,
      note: row.note,
      turn: row.turn,
      actor: row.actor,
      createdAt: row.createdAt,
    };
    await recordAudit(tx, {
      projectId: rollout.projectId,
      actor: principal.actor,
      action: "annotation.create",
      entity: "rollout",
      entityId: rolloutId,
      after: { annotationId: row.id, label: view.label, score: view.score, note: view.note, turn: view.turn },
    });
    return view;
  });
}

/** PATCH /rollouts/{id}/annotations/{annotationId}: the fields given replace the stored ones (null clears one). */
export const annotationPatch = z
  .object({
    label: z.string().trim().min(1).max(60).refine(noNul, NUL_MESSAGE).nullable().optional(),
    score: z.number().finite().min(-1e6).max(1e6).nullable().optional(),
    note: z.string().max(10_000).refine(noNul, NUL_MESSAGE).nullable().optional(),
    turn: z.number().int().min(0).nullable().optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, { message: "give the fields to change (label, score, note, turn)", path: ["label"] });
export type AnnotationPatch = z.infer<typeof annotationPatch>;

/** The annotation `annotationId` of the rollout, after checking the caller wrote it or is an admin of the project. */
async function ownAnnotation(tx: Queryable, rolloutId: number, annotationId: number, principal: Principal) {
  const [row] = await tx
    .select({ ...annotationColumns, labelId: annotations.labelId })
    .from(annotations)
    .leftJoin(labels, eq(labels.id, annotations.labelId))
    .where(and(eq(annotations.id, annotationId), eq(annotations.rolloutId, rolloutId)))
    .for("update", { of: annotations });
  if (!row) throw new NotFound(`Annotation ${annotationId} of rollout ${rolloutId} does not exist.`);
  if (row.actor !== principal.actor && principal.role !== "admin")
    throw new Forbidden(`Only its author (${row.actor}) or a project admin may change annotation ${annotationId}.`);
  return row;
}

const auditView = (a: { id: number; label: string | null; score: number | null; note: string | null; turn: number | null }) => ({
  annotationId: a.id,
  label: a.label,
  score: a.score,
  note: a.note,
  turn: a.turn,
});

/**
 * PATCH /rollouts/{id}/annotations/{annotationId}: only the author or a project admin; it must keep a label,
 * a score or a note; audited with before and after.
 */
export async function updateAnnotation(db: Db, rolloutId: number, annotationId: number, principal: Principal, patch: AnnotationPatch) {
  const rollout = await rolloutFor(db, rolloutId, principal, "annotations:write");
  return db.transaction(async (tx) => {
    const before = await ownAnnotation(tx, rolloutId, annotationId, principal);
    const labelId =
      patch.label === undefined ? before.labelId : patch.label === null ? null : await labelIdOf(tx, rollout.projectId, patch.label);
    if (patch.turn !== undefined && patch.turn !== null) assertTurn(patch.turn, rollout.messages);
    const note = patch.note === undefined ? before.note : patch.note === null || patch.note.trim() === "" ? null : patch.note;
    const score = patch.score === undefined ? before.score : patch.score;
    if (labelId === null && score === null && note === null)
      throw new Invalid("An annotation keeps a label, a score or a note; delete it instead (DELETE).", [
        { path: "label", message: "nothing would be left" },
      ]);
    const [row] = await tx
      .update(annotations)
      .set({ labelId, score, note, turn: patch.turn === undefined ? before.turn : patch.turn })
      .where(eq(annotations.id, annotationId))
      .returning();
    const view = {
      id: row.id,
      rolloutId,
      label: patch.label === undefined ? before.label : patch.label,
      score: row.score,
      note: row.note,
      turn: row.turn,
      actor: row.actor,
      createdAt: row.createdAt,
    };
    await recordAudit(tx, {
      projectId: rollout.projectId,
      actor: principal.actor,
      action: "annotation.update",
      entity: "rollout",
      entityId: rolloutId,
      before: auditView(before),
      after: auditView(view),
    });
    return view;
  });
}

/** DELETE /rollouts/{id}/annotations/{annotationId}: only the author or a project admin; audited with what was deleted. */
export async function deleteAnnotation(db: Db, rolloutId: number, annotationId: number, principal: Principal): Promise<void> {
  const rollout = await rolloutFor(db, rolloutId, principal, "annotations:write");
  await db.transaction(async (tx) => {
    const before = await ownAnnotation(tx, rolloutId, annotationId, principal);
    await tx.delete(annotations).where(eq(annotations.id, annotationId));
    await recordAudit(tx, {
      projectId: rollout.projectId,
      actor: principal.actor,
      action: "annotation.delete",
      entity: "rollout",
      entityId: rolloutId,
      before: { ...auditView(before), author: before.actor },
    });
  });
}

/** A rollouts-list condition: the rollout has an annotation with the project's label `name`. */
export function hasLabel(projectId: number, name: string): SQL {
  return sql`exists (select 1 from ${annotations} join ${labels} on ${labels.id} = ${annotations.labelId}
    where ${annotations.rolloutId} = ${rollouts.id} and ${labels.projectId} = ${projectId} and ${labels.name} = ${name})`;
}

/** What the annotations of one rollout add to an export row. */
export interface RolloutAnnotationSummary {
  /** distinct label names, sorted */
  labels: string[];
  /** the mean of the annotations' scores, null when none has one */
  score: number | null;
  /** every note, oldest first */
  notes: string[];
}

/** The annotations on each of `rolloutIds` summed up for exports (labels, mean score, notes), as rollout id -> summary. */
export async function annotationsOfRollouts(db: Db, rolloutIds: number[]): Promise<Map<number, RolloutAnnotationSummary>> {
  const out = new Map<number, RolloutAnnotationSummary>();
  if (rolloutIds.length === 0) return out;
  const rows = await db
    .select({
      rolloutId: annotations.rolloutId,
      labels: sql<
        string[]
      >`coalesce(array_agg(distinct ${labels.name} order by ${labels.name}) filter (where ${labels.name} is not null), '{}')`,
      score: sql<number | null>`avg(${annotations.score})`.mapWith((v) => (v === null ? null : Number(v))),
      notes: sql<
        string[]
      >`coalesce(array_agg(${annotations.note} order by ${annotations.id}) filter (where ${annotations.note} is not null), '{}')`,
    })
    .from(annotations)
    .leftJoin(labels, eq(labels.id, annotations.labelId))
    .where(inArray(annotations.rolloutId, rolloutIds))
    .groupBy(annotations.rolloutId);
  for (const r of rows) out.set(r.rolloutId, { labels: r.labels, score: r.score, notes: r.notes });
  return out;
}

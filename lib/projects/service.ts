/** Projects: one curriculum run bound to one family. */
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import type { projects } from "@/lib/db/schema";
import { Conflict, NotFound, parseOrThrow } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/audit";
import { getFamily } from "@/lib/family-store";
import { allProjects, deleteProjectRow, headlineCountsByProject, insertProject, projectBySlug, updateProjectRow } from "./repository";

export const createProjectSchema = z.strictObject({
  slug: z
    .string()
    .min(2, "must be at least 2 characters")
    .max(64)
    .regex(/^[a-z0-9][a-z0-9-]*$/, "may hold lowercase letters, digits and dashes, starting with a letter or digit"),
  name: z.string().trim().min(1, "is required").max(200),
  family: z.string().min(1, "is required"),
  successThreshold: z.number().finite().optional(),
});

export type ProjectRow = typeof projects.$inferSelect;

/** The public shape of a project. */
export function projectView(p: ProjectRow) {
  return {
    slug: p.slug,
    name: p.name,
    family: p.familyId,
    successThreshold: p.successThreshold,
    ...projectSettings(p),
    demo: p.isDemo,
    ...(p.isDemo ? { demoState: p.demoState ?? null } : {}),
    createdAt: p.createdAt.toISOString(),
  };
}

/** Create a project; 409 when the slug is taken, 404 for an unknown family. */
export async function createProject(db: Db, body: unknown, actor: Principal | { actor: string }, opts: { demo?: boolean } = {}) {
  const input = parseOrThrow(createProjectSchema, body);
  await getFamily(db, input.family);
  const row = await insertProject(db, {
    slug: input.slug,
    name: input.name,
    familyId: input.family,
    successThreshold: input.successThreshold ?? 1,
    isDemo: opts.demo ?? false,
  });
  if (!row) throw new Conflict(`A project with slug '${input.slug}' exists already.`, [{ path: "slug", message: "is taken" }]);
  await recordAudit(db, {
    projectId: row.id,
    actor: actor.actor,
    action: "project.create",
    entity: "project",
    entityId: row.slug,
    after: projectView(row),
  });
  return row;
}

/** A project by slug, or 404; checks that the principal may read it. */
export async function getProjectFor(db: Db, slug: string, principal: Principal | null): Promise<ProjectRow> {
  const row = await projectBySlug(db, slug);
  if (!row) throw new NotFound(`Project '${slug}' does not exist.`);
  if (principal) requireScope(principal, "projects:read", row.id);
  return row;
}

/** Projects visible to the principal, with headline counts (archived ones last unless left out). */
export async function listProjects(db: Db, principal: Principal | null) {
  const [rows, counts] = await Promise.all([allProjects(db), headlineCountsByProject(db)]);
  return rows
    .filter((p) => !principal || principal.projectId === null || principal.projectId === p.id)
    .map((p) => ({
      ...projectView(p),
      generations: counts.generations.get(p.id) ?? 0,
      environments: counts.environments.get(p.id) ?? 0,
      rollouts: counts.rollouts.get(p.id) ?? 0,
    }));
}

/** The settings a project keeps in its `settings` column. */
export interface ProjectSettings {
  /** the policy the dashboards open on (all policies when unset) */
  defaultPolicy?: string | null;
  /** when the project was archived: hidden from the default list, read-only for imports in the UI */
  archivedAt?: string | null;
}

/** The project's settings, tolerant of older rows. */
export function projectSettings(p: ProjectRow): ProjectSettings {
  const s = (p.settings ?? {}) as Record<string, unknown>;
  return {
    defaultPolicy: typeof s.defaultPolicy === "string" ? s.defaultPolicy : null,
    archivedAt: typeof s.archivedAt === "string" ? s.archivedAt : null,
  };
}

export const updateProjectSchema = z
  .strictObject({
    name: z.string().trim().min(1, "is required").max(200).optional(),
    successThreshold: z.number().finite().min(0, "must be 0 or more").optional(),
    defaultPolicy: z.string().trim().min(1).max(200).nullable().optional(),
    archived: z.boolean().optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: "names nothing to change" });

/** PATCH a project's name, success threshold, default policy or archived state; audited with before and after. */
export async function updateProject(db: Db, project: ProjectRow, body: unknown, actor: Principal) {
  const input = parseOrThrow(updateProjectSchema, body);
  const settings = { ...((project.settings ?? {}) as Record<string, unknown>) };
  if (input.defaultPolicy !== undefined) settings.defaultPolicy = input.defaultPolicy;
  if (input.archived !== undefined)
    settings.archivedAt = input.archived ? (projectSettings(project).archivedAt ?? new Date().toISOString()) : null;
  return db.transaction(async (tx) => {
    const row = await updateProjectRow(tx, project.id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.successThreshold !== undefined ? { successThreshold: input.successThreshold } : {}),
      settings,
    });
    await recordAudit(tx, {
      projectId: project.id,
      actor: actor.actor,
      action: "project.update",
      entity: "project",
      entityId: project.slug,
      before: projectView(project),
      after: projectView(row),
    });
    return row;
  });
}

/** Delete a project and everything in it (generations, rollouts, targets, dispatches); the audit event stays. */
export async function deleteProject(db: Db, project: ProjectRow, actor: Principal) {
  await db.transaction(async (tx) => {
    await deleteProjectRow(tx, project.id);
    await recordAudit(tx, {
      projectId: project.id,
      actor: actor.actor,
      action: "project.delete",
      entity: "project",
      entityId: project.slug,
      before: projectView(project),
    });
  });
}

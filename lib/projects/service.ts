/** Projects: one curriculum run bound to one family. */
import { asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { generations, projects, rollouts, environments } from "@/lib/db/schema";
import { Conflict, NotFound, parseOrThrow } from "@/lib/api/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/review/audit";
import { getFamily } from "./families";

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
    demo: p.isDemo,
    ...(p.isDemo ? { demoState: p.demoState ?? null } : {}),
    createdAt: p.createdAt.toISOString(),
  };
}

/** Create a project; 409 when the slug is taken, 404 for an unknown family. */
export async function createProject(db: Db, body: unknown, actor: Principal | { actor: string }, opts: { demo?: boolean } = {}) {
  const input = parseOrThrow(createProjectSchema, body);
  await getFamily(db, input.family);
  const [row] = await db
    .insert(projects)
    .values({ slug: input.slug, name: input.name, familyId: input.family, successThreshold: input.successThreshold ?? 1, isDemo: opts.demo ?? false })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new Conflict(`A project with slug '${input.slug}' exists already.`, [{ path: "slug", message: "is taken" }]);
  await recordAudit(db, { projectId: row.id, actor: actor.actor, action: "project.create", entity: "project", entityId: row.slug, after: projectView(row) });
  return row;
}

/** A project by slug, or 404; checks that the principal may read it. */
export async function getProjectFor(db: Db, slug: string, principal: Principal | null): Promise<ProjectRow> {
  const [row] = await db.select().from(projects).where(eq(projects.slug, slug));
  if (!row) throw new NotFound(`Project '${slug}' does not exist.`);
  if (principal) requireScope(principal, "projects:read", row.id);
  return row;
}

/** Projects visible to the principal, with headline counts. */
export async function listProjects(db: Db, principal: Principal | null) {
  const rows = await db
    .select({
      project: projects,
      generations: sql<number>`(select count(*)::int from ${generations} g where g.project_id = ${projects.id})`,
      environments: sql<number>`(select count(*)::int from ${environments} e where e.project_id = ${projects.id})`,
      rollouts: sql<number>`(select count(*)::int from ${rollouts} r where r.project_id = ${projects.id})`,
    })
    .from(projects)
    .orderBy(asc(projects.createdAt));
  return rows
    .filter((r) => !principal || principal.projectId === null || principal.projectId === r.project.id)
    .map((r) => ({ ...projectView(r.project), generations: r.generations, environments: r.environments, rollouts: r.rollouts }));
}

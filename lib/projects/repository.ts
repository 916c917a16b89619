/**
 * Project queries: SQL only, no rules or scopes (lib/projects/service decides). Projects are read
 * and returned whole: services pass the row on (views, settings, audit before/after).
 */
import { asc, count, eq } from "drizzle-orm";
import type { Queryable } from "@/lib/db/client";
import { environments, generations, projects, rollouts } from "@/lib/db/schema";

type ProjectInsert = typeof projects.$inferInsert;

/** A project row by id (every column: services pass the row on), or undefined. */
export async function projectById(db: Queryable, projectId: number) {
  const [project] = await db.select().from(projects).where(eq(projects.id, projectId));
  return project;
}

/** A project row by slug, or undefined. */
export async function projectBySlug(db: Queryable, slug: string) {
  const [project] = await db.select().from(projects).where(eq(projects.slug, slug));
  return project;
}

/** Every project, oldest first. */
export async function allProjects(db: Queryable) {
  return db.select().from(projects).orderBy(asc(projects.createdAt));
}

/** Inserts a project; undefined when its slug is taken. */
export async function insertProject(db: Queryable, values: ProjectInsert) {
  const [row] = await db.insert(projects).values(values).onConflictDoNothing().returning();
  return row;
}

/** Sets a project's fields; returns the row after. */
export async function updateProjectRow(db: Queryable, projectId: number, set: Partial<ProjectInsert>) {
  const [row] = await db.update(projects).set(set).where(eq(projects.id, projectId)).returning();
  return row;
}

/** Deletes a project (its generations, rollouts, targets and dispatches go with it by cascade). */
export async function deleteProjectRow(db: Queryable, projectId: number): Promise<void> {
  await db.delete(projects).where(eq(projects.id, projectId));
}

/** Rows per project of one table with a project_id column (one grouped scan). */
async function countsByProject(
  db: Queryable,
  table: typeof generations | typeof environments | typeof rollouts,
): Promise<Map<number, number>> {
  const rows = await db.select({ projectId: table.projectId, n: count() }).from(table).groupBy(table.projectId);
  return new Map(rows.map((r) => [r.projectId, Number(r.n)]));
}

/**
 * Generations, environments and rollouts per project id. Grouped counts, not correlated subqueries:
 * a subquery naming projects.id unqualified bound to its own table's id.
 */
export async function headlineCountsByProject(db: Queryable) {
  const [generationCounts, environmentCounts, rolloutCounts] = await Promise.all([
    countsByProject(db, generations),
    countsByProject(db, environments),
    countsByProject(db, rollouts),
  ]);
  return { generations: generationCounts, environments: environmentCounts, rollouts: rolloutCounts };
}

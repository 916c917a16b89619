/** Project queries shared by the modules that reach a project through one of its rows. SQL only. */
import { eq } from "drizzle-orm";
import type { Queryable } from "@/lib/db/client";
import { projects } from "@/lib/db/schema";

/** A project row by id (every column: services pass the row on), or undefined. */
export async function projectById(db: Queryable, projectId: number) {
  const [project] = await db.select().from(projects).where(eq(projects.id, projectId));
  return project;
}

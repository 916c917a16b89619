/** Saved explorer views: a user's named filters of one project's rollouts list, private to that user (or key). */
import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { savedViews } from "@/lib/db/schema";
import type { Principal } from "@/lib/auth/principal";
import type { ProjectRow } from "@/lib/projects/service";
import { BadRequest, NotFound } from "@/lib/errors";
import { listRolloutsQuery } from "./list";

/** Query keys a view keeps: the list's filters and order, never a cursor, page size or format. */
const PAGE_KEYS = new Set(["cursor", "limit", "format"]);

/** POST .../views: a name and the explorer's query string (its filters must be valid list filters). */
export const savedViewInput = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(80)
      .refine((v) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), "holds a control character"),
    query: z
      .string()
      .max(4000)
      .refine((v) => !v.includes("\0"), "holds a NUL character"),
  })
  .strict();
export type SavedViewInput = z.infer<typeof savedViewInput>;

/** The query string a view stores: known filter keys only, in a stable order; 400 naming the bad filter otherwise. */
export function normalizeViewQuery(query: string): string {
  const params = new URLSearchParams(query.startsWith("?") ? query.slice(1) : query);
  const kept = new URLSearchParams();
  const known = Object.keys(listRolloutsQuery.shape);
  for (const key of [...new Set(params.keys())].sort()) {
    if (PAGE_KEYS.has(key)) continue;
    if (!known.includes(key))
      throw new BadRequest(`query: ${key} is not a filter of the rollouts list.`, [{ path: "query", message: `unknown filter ${key}` }]);
    const value = params.get(key)!;
    if (value !== "") kept.set(key, value);
  }
  const parsed = listRolloutsQuery.safeParse(Object.fromEntries(kept));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BadRequest(`query: ${issue.path.join(".")}: ${issue.message}`, [
      { path: `query.${issue.path.join(".")}`, message: issue.message },
    ]);
  }
  return kept.toString();
}

/** GET .../views: the caller's own views of the project, by name. */
export async function listSavedViews(db: Db, project: ProjectRow, principal: Principal) {
  const views = await db
    .select({ id: savedViews.id, name: savedViews.name, query: savedViews.query, createdAt: savedViews.createdAt })
    .from(savedViews)
    .where(and(eq(savedViews.projectId, project.id), eq(savedViews.owner, principal.actor)))
    .orderBy(asc(savedViews.name), asc(savedViews.id));
  return { views };
}

/** POST .../views: save (or replace, by name) one of the caller's views. */
export async function saveView(db: Db, project: ProjectRow, principal: Principal, input: SavedViewInput) {
  const query = normalizeViewQuery(input.query);
  const [row] = await db
    .insert(savedViews)
    .values({ projectId: project.id, owner: principal.actor, name: input.name, query })
    .onConflictDoUpdate({ target: [savedViews.projectId, savedViews.owner, savedViews.name], set: { query } })
    .returning({ id: savedViews.id, name: savedViews.name, query: savedViews.query, createdAt: savedViews.createdAt });
  return row;
}

/** DELETE .../views/{id}: one of the caller's views; another user's view is as unknown as a missing one (404). */
export async function deleteSavedView(db: Db, project: ProjectRow, principal: Principal, id: number) {
  const [row] = await db
    .delete(savedViews)
    .where(and(eq(savedViews.id, id), eq(savedViews.projectId, project.id), eq(savedViews.owner, principal.actor)))
    .returning({ id: savedViews.id });
  if (!row) throw new NotFound(`You have no saved view ${id} in ${project.slug}.`);
  return { deleted: row.id };
}

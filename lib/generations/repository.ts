/**
 * Generation queries: generations, their members and the project's environments. The one query of
 * a generation's members (environment joined with its membership row and its parent's key) lives
 * here, shared by the analytics, the environment pages, the engineer's summary, review and dispatch.
 * SQL only, each selecting the columns its caller reads; no rules, no scopes: the services decide.
 */
import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import type { Queryable } from "@/lib/db/client";
import { environments, generationEnvironments, generations } from "@/lib/db/schema";

type GenerationInsert = typeof generations.$inferInsert;
type EnvironmentInsert = typeof environments.$inferInsert;

/** How an environment enters a generation. */
export interface MembershipInsert {
  environmentId: number;
  weight?: number;
  op?: string;
  direction?: string | null;
  rationale?: string | null;
}

function membersQuery(db: Queryable) {
  return db
    .select({
      id: environments.id,
      key: environments.key,
      config: environments.config,
      configHash: environments.configHash,
      parentId: environments.parentId,
      pMax: environments.pMax,
      validationState: environments.validationState,
      op: generationEnvironments.op,
      direction: generationEnvironments.direction,
      weight: generationEnvironments.weight,
      rationale: generationEnvironments.rationale,
      parentKey: sql<string | null>`(select p.key from ${environments} p where p.id = ${environments.parentId})`,
    })
    .from(generationEnvironments)
    .innerJoin(environments, eq(environments.id, generationEnvironments.environmentId));
}

/** One member of a generation: its environment, how it entered the generation, its parent's key. */
export type GenerationMember = Awaited<ReturnType<typeof generationMembers>>[number];

/** Members of a generation ordered by key: all of them, or `limit` after the key `after` (a cursor page). */
export async function generationMembers(db: Queryable, generationId: number, page: { after?: string; limit?: number } = {}) {
  const q = membersQuery(db)
    .where(and(eq(generationEnvironments.generationId, generationId), page.after ? gt(environments.key, page.after) : undefined))
    .orderBy(asc(environments.key));
  return page.limit === undefined ? q : q.limit(page.limit);
}

/** The environment ids of a generation (membership only, no environment columns). */
export async function generationMemberIds(db: Queryable, generationId: number): Promise<number[]> {
  const rows = await db
    .select({ id: generationEnvironments.environmentId })
    .from(generationEnvironments)
    .where(eq(generationEnvironments.generationId, generationId));
  return rows.map((r) => r.id);
}

/** Keys of a generation's members the oracle marked invalid, ordered by key. */
export async function invalidMemberKeys(db: Queryable, generationId: number): Promise<string[]> {
  const rows = await db
    .select({ key: environments.key })
    .from(generationEnvironments)
    .innerJoin(environments, eq(environments.id, generationEnvironments.environmentId))
    .where(and(eq(generationEnvironments.generationId, generationId), eq(environments.validationState, "invalid")))
    .orderBy(asc(environments.key));
  return rows.map((r) => r.key);
}

/** A project's generation by index (every column: the API returns the row), or undefined. */
export async function generationAt(db: Queryable, projectId: number, index: number) {
  const [g] = await db
    .select()
    .from(generations)
    .where(and(eq(generations.projectId, projectId), eq(generations.index, index)));
  return g;
}

/** The id of a project's generation by index, or undefined. */
export async function generationIdAt(db: Queryable, projectId: number, index: number): Promise<number | undefined> {
  const [g] = await db
    .select({ id: generations.id })
    .from(generations)
    .where(and(eq(generations.projectId, projectId), eq(generations.index, index)));
  return g?.id;
}

/** The highest generation index of a project, or null while it has none. */
export async function maxGenerationIndex(db: Queryable, projectId: number): Promise<number | null> {
  const [{ maxIndex }] = await db
    .select({ maxIndex: sql<number | null>`max(${generations.index})` })
    .from(generations)
    .where(eq(generations.projectId, projectId));
  return maxIndex;
}

/** All generations of a project, oldest first. */
export async function generationsOfProject(db: Queryable, projectId: number) {
  return db.select().from(generations).where(eq(generations.projectId, projectId)).orderBy(asc(generations.index));
}

/** Inserts a generation; returns the row. */
export async function insertGeneration(db: Queryable, values: GenerationInsert) {
  const [gen] = await db.insert(generations).values(values).returning();
  return gen;
}

/** Adds environments to a generation (ignoring ones already members), in chunks. */
export async function insertMembership(db: Queryable, generationId: number, members: MembershipInsert[]): Promise<void> {
  for (let i = 0; i < members.length; i += 5000) {
    const chunk = members.slice(i, i + 5000);
    if (chunk.length === 0) continue;
    await db
      .insert(generationEnvironments)
      .values(
        chunk.map((m) => ({
          generationId,
          environmentId: m.environmentId,
          weight: m.weight ?? 1,
          op: m.op ?? "seed",
          direction: m.direction ?? null,
          rationale: m.rationale ?? null,
        })),
      )
      .onConflictDoNothing();
  }
}

/** A project's environments among `keys` (id, key, config hash), looked up in chunks. */
export async function environmentsByKey(db: Queryable, projectId: number, keys: string[]) {
  const found: { id: number; key: string; hash: string }[] = [];
  for (let i = 0; i < keys.length; i += 5000) {
    const rows = await db
      .select({ id: environments.id, key: environments.key, hash: environments.configHash })
      .from(environments)
      .where(and(eq(environments.projectId, projectId), inArray(environments.key, keys.slice(i, i + 5000))));
    found.push(...rows);
  }
  return found;
}

/** The config of a project's environment by key, or undefined when there is none. */
export async function environmentConfigByKey(db: Queryable, projectId: number, key: string): Promise<unknown> {
  const [env] = await db
    .select({ config: environments.config })
    .from(environments)
    .where(and(eq(environments.projectId, projectId), eq(environments.key, key)));
  return env?.config;
}

/** A project's environments whose config hash is among `hashes` (key, hash). */
export async function environmentsByConfigHash(db: Queryable, projectId: number, hashes: string[]) {
  if (hashes.length === 0) return [];
  return db
    .select({ key: environments.key, hash: environments.configHash })
    .from(environments)
    .where(and(eq(environments.projectId, projectId), inArray(environments.configHash, hashes)));
}

/**
 * A project's environments among `keys` with their weight in the generation `generationId` (null
 * where they are not members of it, or when there is no such generation).
 */
export async function environmentsWithWeightIn(db: Queryable, projectId: number, keys: string[], generationId: number | undefined) {
  if (keys.length === 0) return [];
  return db
    .select({ id: environments.id, key: environments.key, weight: generationEnvironments.weight })
    .from(environments)
    .leftJoin(
      generationEnvironments,
      and(
        eq(generationEnvironments.environmentId, environments.id),
        generationId !== undefined ? eq(generationEnvironments.generationId, generationId) : sql`false`,
      ),
    )
    .where(and(eq(environments.projectId, projectId), inArray(environments.key, keys)));
}

/** Inserts environments in chunks; returns each new one's id by key. */
export async function insertEnvironments(db: Queryable, rows: EnvironmentInsert[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (let i = 0; i < rows.length; i += 2000) {
    const inserted = await db
      .insert(environments)
      .values(rows.slice(i, i + 2000))
      .returning({ id: environments.id, key: environments.key });
    for (const r of inserted) ids.set(r.key, r.id);
  }
  return ids;
}

/** Sets the parent of each child environment, in one statement: `links` are [child id, parent id]. */
export async function linkParents(db: Queryable, links: [number, number][]): Promise<void> {
  if (links.length === 0) return;
  await db.execute(sql`
    update ${environments} set parent_id = l.parent
    from unnest(${sql.param(links.map((l) => l[0]))}::bigint[], ${sql.param(links.map((l) => l[1]))}::bigint[]) as l(child, parent)
    where ${environments.id} = l.child`);
}

/** Serialises generation creation in a project until the transaction ends (index allocation, key reuse). */
export async function lockProjectGenerations(tx: Queryable, projectId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${projectId})`);
}

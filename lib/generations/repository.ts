/**
 * Generation queries shared by the analytics, the environment pages, the engineer's summary and
 * dispatch payloads: the one query of a generation's members (environment joined with its
 * membership row and its parent's key). SQL only.
 */
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Queryable } from "@/lib/db/client";
import { environments, generationEnvironments } from "@/lib/db/schema";

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

/** The annotation queue's set: the explorer's current filter and order, its first QUEUE_SIZE rollouts, and which of them are annotated. */
import { inArray } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { annotations } from "@/lib/db/schema";
import type { ProjectRow } from "@/lib/projects/service";
import { listRollouts } from "@/lib/rollouts/list";

/** The most rollouts one queue holds (one page of the rollouts list); narrow the filter for more. */
export const QUEUE_SIZE = 500;

export interface AnnotationQueue {
  /** rollout ids in the explorer's order */
  rolloutIds: number[];
  /** the ids with at least one annotation (by anyone) */
  annotated: number[];
  total: number;
  done: number;
  /** true when the filter matches more rollouts than the queue holds */
  truncated: boolean;
}

/** GET .../annotation-queue: the queue over the explorer's filter (the same query parameters as GET .../rollouts). */
export async function annotationQueue(db: Db, project: ProjectRow, filters: Record<string, string>): Promise<AnnotationQueue> {
  const { cursor: _c, limit: _l, format: _f, ...filter } = filters;
  const page = await listRollouts(db, project, { ...filter, limit: String(QUEUE_SIZE) });
  const rolloutIds = page.items.map((r) => r.id);
  const annotated = await annotatedAmong(db, rolloutIds);
  const set = new Set(annotated);
  return {
    rolloutIds,
    annotated: rolloutIds.filter((id) => set.has(id)),
    total: rolloutIds.length,
    done: set.size,
    truncated: page.nextCursor !== null,
  };
}

/** The ids of `rolloutIds` that carry at least one annotation. */
export async function annotatedAmong(db: Db, rolloutIds: number[]): Promise<number[]> {
  if (rolloutIds.length === 0) return [];
  const rows = await db.selectDistinct({ id: annotations.rolloutId }).from(annotations).where(inArray(annotations.rolloutId, rolloutIds));
  return rows.map((r) => r.id);
}

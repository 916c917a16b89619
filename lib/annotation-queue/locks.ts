/**
 * The annotation queue's locks, so two reviewers never work on the same rollout: a reviewer claims the
 * first free rollout of an ordered list of candidates; a lock lives LOCK_TTL_SECONDS and is renewed by
 * claiming the same rollout again; a lock past its expiry is taken over by the next claimant. An admin
 * may break a live lock of anyone's (a reviewer who walked away), audited.
 */
import { and, eq, gt, inArray, ne, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { annotationLocks, rollouts } from "@/lib/db/schema";
import type { ProjectRow } from "@/lib/projects/service";
import type { Principal } from "@/lib/auth/principal";
import { Invalid, NotFound } from "@/lib/errors";
import { recordAudit } from "@/lib/audit";

/** How long a claim holds a rollout without being renewed (the queue page renews it every minute). */
export const LOCK_TTL_SECONDS = 600;

/** The most candidates one claim may name (the queue's own size). */
export const MAX_CANDIDATES = 1000;

const rolloutId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** POST .../annotation-queue/claim: rollouts in the order to try them, and the rollout the reviewer leaves. */
export const claimInput = z
  .object({
    candidates: z.array(rolloutId).min(1).max(MAX_CANDIDATES),
    release: rolloutId.optional(),
  })
  .strict();
export type ClaimInput = z.infer<typeof claimInput>;

export interface LockView {
  rolloutId: number;
  owner: string;
  expiresAt: Date;
}

/** A claim's outcome: the rollout now locked to the caller (null when every candidate is taken), and those skipped because another reviewer holds them. */
export interface ClaimResult {
  rolloutId: number | null;
  expiresAt: Date | null;
  skipped: { rolloutId: number; owner: string; expiresAt: Date }[];
}

/**
 * Lock the first candidate nobody else holds (a lock past its expiry counts as free), renewing the
 * caller's own lock when it is the first; then the caller's lock on `release` (the rollout left) is let go. Candidates outside the project are a 422.
 */
export async function claimRollout(db: Db, project: ProjectRow, principal: Principal, input: ClaimInput): Promise<ClaimResult> {
  const candidates = [...new Set(input.candidates)];
  const known = new Set(
    (
      await db
        .select({ id: rollouts.id })
        .from(rollouts)
        .where(and(eq(rollouts.projectId, project.id), inArray(rollouts.id, candidates)))
    ).map((r) => r.id),
  );
  const foreign = input.candidates.findIndex((id) => !known.has(id));
  if (foreign >= 0)
    throw new Invalid(`candidates[${foreign}] (${input.candidates[foreign]}) is not a rollout of ${project.slug}.`, [
      { path: `candidates.${foreign}`, message: "not a rollout of this project" },
    ]);
  const held = new Map(
    (
      await db
        .select({ rolloutId: annotationLocks.rolloutId, owner: annotationLocks.owner, expiresAt: annotationLocks.expiresAt })
        .from(annotationLocks)
        .where(
          and(
            inArray(annotationLocks.rolloutId, candidates),
            ne(annotationLocks.owner, principal.actor),
            gt(annotationLocks.expiresAt, sql`now()`),
          ),
        )
    ).map((l) => [l.rolloutId, l]),
  );
  const skipped: ClaimResult["skipped"] = [];
  for (const id of candidates) {
    const other = held.get(id);
    if (other) {
      skipped.push(other);
      continue;
    }
    // The one atomic step: insert, or take the row over only when it is ours or expired. Two reviewers racing
    // for the same free rollout both reach this statement; Postgres lets exactly one of them update the row.
    const [won] = await db
      .insert(annotationLocks)
      .values({
        rolloutId: id,
        projectId: project.id,
        owner: principal.actor,
        expiresAt: sql`now() + make_interval(secs => ${LOCK_TTL_SECONDS})`,
      })
      .onConflictDoUpdate({
        target: annotationLocks.rolloutId,
        set: { owner: principal.actor, expiresAt: sql`excluded.expires_at` },
        setWhere: sql`${annotationLocks.owner} = ${principal.actor} or ${annotationLocks.expiresAt} <= now()`,
      })
      .returning({ rolloutId: annotationLocks.rolloutId, expiresAt: annotationLocks.expiresAt });
    if (won) {
      if (input.release !== undefined && input.release !== id) await releaseLock(db, project, principal, input.release);
      return { rolloutId: won.rolloutId, expiresAt: won.expiresAt, skipped };
    }
    const [taker] = await db
      .select({ rolloutId: annotationLocks.rolloutId, owner: annotationLocks.owner, expiresAt: annotationLocks.expiresAt })
      .from(annotationLocks)
      .where(eq(annotationLocks.rolloutId, id));
    if (taker) skipped.push(taker);
  }
  if (input.release !== undefined) await releaseLock(db, project, principal, input.release);
  return { rolloutId: null, expiresAt: null, skipped };
}

/** DELETE .../annotation-queue/locks/{rolloutId}: let go of the caller's own lock (nothing happens to another reviewer's). */
export async function releaseLock(db: Db, project: ProjectRow, principal: Principal, id: number): Promise<void> {
  await db
    .delete(annotationLocks)
    .where(and(eq(annotationLocks.rolloutId, id), eq(annotationLocks.projectId, project.id), eq(annotationLocks.owner, principal.actor)));
}

/** GET .../annotation-queue/locks: the project's live locks (expired ones are free and not listed), oldest expiry first. */
export async function listLocks(db: Db, project: ProjectRow): Promise<{ locks: LockView[] }> {
  const locks = await db
    .select({ rolloutId: annotationLocks.rolloutId, owner: annotationLocks.owner, expiresAt: annotationLocks.expiresAt })
    .from(annotationLocks)
    .where(and(eq(annotationLocks.projectId, project.id), gt(annotationLocks.expiresAt, sql`now()`)))
    .orderBy(annotationLocks.expiresAt, annotationLocks.rolloutId);
  return { locks };
}

/**
 * POST .../annotation-queue/locks/{rolloutId}/break: let go of whoever's live lock on a rollout (an admin freeing a
 * rollout whose reviewer walked away), audited with the holder and expiry it had; 404 when nobody holds it.
 */
export async function breakLock(db: Db, project: ProjectRow, principal: Principal, id: number): Promise<LockView> {
  return db.transaction(async (tx) => {
    const [broken] = await tx
      .delete(annotationLocks)
      .where(and(eq(annotationLocks.rolloutId, id), eq(annotationLocks.projectId, project.id), gt(annotationLocks.expiresAt, sql`now()`)))
      .returning({ rolloutId: annotationLocks.rolloutId, owner: annotationLocks.owner, expiresAt: annotationLocks.expiresAt });
    if (!broken) throw new NotFound(`Nobody holds a lock on rollout ${id} of ${project.slug}: it is free to take.`);
    await recordAudit(tx, {
      projectId: project.id,
      actor: principal.actor,
      action: "annotation_lock.break",
      entity: "rollout",
      entityId: id,
      before: { owner: broken.owner, expiresAt: broken.expiresAt.toISOString() },
    });
    return broken;
  });
}

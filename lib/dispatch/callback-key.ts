/**
 * Dispatch-scoped ingest keys: what a remote job holds to post its rollouts, progress and
 * validation back. One key per dispatch, minted at its first delivery attempt (role ingest,
 * limited to the dispatch's project and generation: see requireScope and the rollout ingest),
 * kept encrypted on the dispatch so a resend gives the running job the same key, and revoked when
 * the dispatch ends (succeeded, failed or cancelled). Adapters pass it as a secret, never in the
 * payload: a Kubernetes Secret, Ray's runtime env, the local process's env, a webhook header.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db, DbTx } from "@/lib/db/client";
import { apiKeys, dispatchEvents, dispatches, generations } from "@/lib/db/schema";
import { loadSettings } from "@/lib/config/env";
import { digestToken, newApiKeySecret } from "@/lib/auth/secrets";
import { DeliveryError } from "./types";
import { decryptSecret, encryptSecret } from "./secrets";

export { CALLBACK_KEY_ENV } from "./adapters/job-launch";

/** The key of a dispatch: decrypted when minted before, else minted now (the dispatch row holds it encrypted). */
export async function dispatchCallbackKey(db: Db, dispatchId: string, secretKey: string | undefined): Promise<string> {
  if (!secretKey) {
    throw new DeliveryError(
      "A dispatch's callback key is stored encrypted, and ENVFORGE_SECRET_KEY is not set on this worker: set it (the same in every process).",
      false,
    );
  }
  const [d] = await db
    .select({ ciphertext: dispatches.callbackKeyCiphertext, projectId: dispatches.projectId, generation: generations.index })
    .from(dispatches)
    .innerJoin(generations, eq(generations.id, dispatches.generationId))
    .where(eq(dispatches.id, dispatchId));
  if (!d) throw new DeliveryError(`Dispatch ${dispatchId} does not exist.`, false);
  if (d.ciphertext) return decryptSecret(d.ciphertext, secretKey);
  const key = newApiKeySecret();
  await db.transaction(async (tx) => {
    await tx.insert(apiKeys).values({
      name: `dispatch-${dispatchId.slice(0, 8)}`,
      role: "ingest",
      projectId: d.projectId,
      keyHash: digestToken(key),
      prefix: key.slice(0, 8),
      createdBy: "system:dispatch",
      dispatchId,
      generationIndex: d.generation,
    });
    await tx
      .update(dispatches)
      .set({ callbackKeyCiphertext: encryptSecret(key, secretKey) })
      .where(eq(dispatches.id, dispatchId));
  });
  return key;
}

/** Revoke the dispatch's key (the dispatch ended); the ciphertext is dropped with it. */
export async function revokeDispatchKey(db: Db | DbTx, dispatchId: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.dispatchId, dispatchId), isNull(apiKeys.revokedAt)));
  await db.update(dispatches).set({ callbackKeyCiphertext: null }).where(eq(dispatches.id, dispatchId));
}

/**
 * Revoke dispatch keys nobody has used for ENVFORGE_DISPATCH_KEY_IDLE_HOURS: a dispatch whose job
 * never reports its end (a webhook receiver that only posts rollouts) must not hold a key forever.
 */
export async function revokeIdleDispatchKeys(db: Db, idleHours = loadSettings().ENVFORGE_DISPATCH_KEY_IDLE_HOURS): Promise<number> {
  const idle = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(
      and(
        sql`${apiKeys.dispatchId} is not null`,
        isNull(apiKeys.revokedAt),
        sql`coalesce(${apiKeys.lastUsedAt}, ${apiKeys.createdAt}) < now() - make_interval(hours => ${idleHours})`,
      ),
    )
    .returning({ dispatchId: apiKeys.dispatchId });
  for (const { dispatchId } of idle) {
    if (!dispatchId) continue;
    await db.update(dispatches).set({ callbackKeyCiphertext: null }).where(eq(dispatches.id, dispatchId));
    const [d] = await db.select({ status: dispatches.status }).from(dispatches).where(eq(dispatches.id, dispatchId));
    if (d)
      await db.insert(dispatchEvents).values({
        dispatchId,
        status: d.status,
        message: `the job's key was revoked: unused for ${idleHours} hours (ENVFORGE_DISPATCH_KEY_IDLE_HOURS); a resend mints a new one`,
      });
  }
  return idle.length;
}

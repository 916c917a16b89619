/**
 * Dispatch: targets per project, durable delivery of a generation to a target on the Postgres
 * queue (claimed with a lease so that several workers deliver each dispatch once), retries with
 * exponential backoff, a status timeline, cancel, polling of running targets, and validation
 * results reported back by sandboxes.
 */ import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, isNull, ne, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbTx } from "@/lib/db/client";
import { environmentFileList } from "@/lib/tasks/store";
import { materializeTaskFiles, readBlob } from "@/lib/tasks/materialize";
import { apiKeys, dispatchEvents, dispatchTargets, dispatches, environments, generations, projects } from "@/lib/db/schema";
import { Conflict, Forbidden, Invalid, NotFound, parseOrThrow } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import type { ProjectRow } from "@/lib/projects/service";
import type { GenerationRow } from "@/lib/generations/service";
import { generationMemberIds, generationMembers, invalidMemberKeys } from "@/lib/generations/repository";
import { backoffDelayMs } from "@/lib/retry/backoff";
import { recordAudit } from "@/lib/audit";
import { enqueue } from "@/lib/queue/boss";
import { getAdapter } from "./adapters";
import { dispatchCallbackKey, revokeDispatchKey, revokeIdleDispatchKeys } from "./callback-key";
import { callbackBase } from "./callback-url";
import { decryptSecret } from "./secrets";
import { ADAPTERS, DeliveryError, type DeliveryContext, type GenerationPayload } from "./types";
import { loadSettings, processEnvironment } from "@/lib/config/env";
import { assertLocalTargetsAllowed, secretKey, targetName } from "./targets";

export {
  assertLocalTargetsAllowed,
  secretKey,
  createTarget,
  createTargetSchema,
  deleteTarget,
  listTargets,
  redactTargetConfig,
  targetProblems,
  targetView,
} from "./targets";

export const createDispatchSchema = z.strictObject({
  target: targetName,
  /** a trainer gets environments the oracle marked invalid only when asked: include them, or exclude them */
  invalidEnvironments: z.enum(["include", "exclude"], "must be include or exclude").optional(),
});

export const dispatchJobSchema = z.object({ dispatchId: z.uuid(), phase: z.enum(["deliver", "poll"]).default("deliver") });

export const validationReportSchema = z.strictObject({
  results: z
    .array(
      z.strictObject({
        environmentKey: z.string().min(1),
        state: z.enum(["valid", "invalid", "unsolvable"]),
        pMax: z.number().min(0).max(1).optional(),
        details: z.unknown().optional(),
      }),
    )
    .min(1, "holds no results")
    .max(100_000),
});

/** Statuses after which nothing more happens. */
const FINAL = new Set(["succeeded", "failed", "cancelled"]);
/** How long a worker holds a dispatch it is sending before another may take it over. */
function leaseSeconds(): number {
  return loadSettings().ENVFORGE_DISPATCH_LEASE_SECONDS;
}

/** The generation as every adapter delivers it. */
export async function buildPayload(
  db: Db,
  project: ProjectRow,
  g: GenerationRow,
  target: { name: string; kind: string; adapter?: string; config?: unknown },
  dispatchId: string,
  origin: string,
  excludeKeys: string[] = [],
): Promise<GenerationPayload> {
  if (project.familyId === "terminal-task") {
    await materializeTaskFiles(db, await generationMemberIds(db, g.id));
  }
  const rows = (await generationMembers(db, g.id)).map((m) => ({
    id: m.id,
    key: m.key,
    config: m.config,
    configHash: m.configHash,
    weight: m.weight,
    op: m.op,
    direction: m.direction,
    parentKey: m.parentKey,
  }));
  const base = callbackBase(target.adapter ?? "local", (target.config ?? {}) as Record<string, unknown>, origin);
  return {
    dispatchId,
    project: { slug: project.slug, name: project.name, family: project.familyId, successThreshold: project.successThreshold },
    generation: {
      index: g.index,
      status: g.status,
      parentIndex: g.parentIndex,
      trainingSteps: g.trainingSteps,
      mixWeight: g.mixWeight,
      proposalId: g.proposalId,
    },
    target: { name: target.name, kind: target.kind as "sandbox" | "trainer" },
    environments: await Promise.all(
      rows
        .filter((r) => !excludeKeys.includes(r.key))
        .map(async ({ id, ...r }) => {
          const files = project.familyId === "terminal-task" ? await environmentFileList(db, id) : [];
          return { ...r, config: r.config as Record<string, unknown>, ...(files.length ? { files } : {}) };
        }),
    ),
    callbacks: {
      validation: `${base}/api/v1/dispatches/${dispatchId}/validation`,
      rollouts: `${base}/api/v1/projects/${project.slug}/rollouts`,
      baseUrl: base,
      payload: `${base}/api/v1/dispatches/${dispatchId}/payload`,
      progress: `${base}/api/v1/dispatches/${dispatchId}/progress`,
    },
    createdAt: new Date().toISOString(),
  };
}

/** A timeline event; give it the transaction that changed the status, so no reader sees the status without its event. */
export async function addEvent(db: Db | DbTx, dispatchId: string, status: string, message?: string, data?: unknown) {
  await db.insert(dispatchEvents).values({ dispatchId, status, message: message ?? null, data: data ?? null });
  // the job is over: its key stops working
  if (FINAL.has(status)) await revokeDispatchKey(db, dispatchId);
}

/** POST .../generations/{index}/dispatch: only approved or materialized generations; 202 with the id. */
export async function createDispatch(db: Db, project: ProjectRow, g: GenerationRow, body: unknown, principal: Principal, origin: string) {
  const input = parseOrThrow(createDispatchSchema, body);
  const [target] = await db
    .select()
    .from(dispatchTargets)
    .where(and(eq(dispatchTargets.projectId, project.id), eq(dispatchTargets.name, input.target)));
  if (!target)
    throw new Invalid(`No target named '${input.target}' in '${project.slug}'; an admin adds targets first.`, [
      { path: "target", message: "unknown target" },
    ]);
  if (target.adapter === "local") assertLocalTargetsAllowed(principal);
  if (g.status !== "approved" && g.status !== "materialized") {
    throw new Conflict(`Generation ${g.index} is ${g.status}; only an approved or materialized generation can be dispatched.`);
  }
  let exclude: string[] = [];
  if (target.kind === "trainer") {
    const names = await invalidMemberKeys(db, g.id);
    if (names.length && !input.invalidEnvironments) {
      const listed = `${names.slice(0, 10).join(", ")}${names.length > 10 ? ", …" : ""}`;
      throw new Conflict(
        `Generation ${g.index} has ${names.length} environment(s) the oracle marked invalid (${listed}): ` +
          `send invalidEnvironments "exclude" to leave them out or "include" to train on them anyway.`,
        names.map((n) => ({ path: "invalidEnvironments", message: `${n} is invalid` })),
      );
    }
    if (input.invalidEnvironments === "exclude") exclude = names;
  }
  // the same generation to the same target again is allowed (a rerun) but said out loud
  const earlier = await db
    .select({ id: dispatches.id, status: dispatches.status, createdAt: dispatches.createdAt })
    .from(dispatches)
    .where(and(eq(dispatches.generationId, g.id), eq(dispatches.targetId, target.id), ne(dispatches.status, "cancelled")))
    .orderBy(desc(dispatches.createdAt));
  const id = randomUUID();
  const payload = await buildPayload(db, project, g, target, id, origin, exclude);
  await db.transaction(async (tx) => {
    await tx.insert(dispatches).values({
      id,
      projectId: project.id,
      generationId: g.id,
      targetId: target.id,
      status: "queued",
      payload,
      createdBy: principal.actor,
    });
    await tx.insert(dispatchEvents).values({ dispatchId: id, status: "queued", message: `to ${target.name} (${target.adapter})` });
    await recordAudit(tx, {
      projectId: project.id,
      actor: principal.actor,
      action: "dispatch.create",
      entity: "dispatch",
      entityId: id,
      after: {
        generation: g.index,
        target: target.name,
        adapter: target.adapter,
        environments: payload.environments.length,
        ...(exclude.length ? { excludedInvalid: exclude } : {}),
        ...(input.invalidEnvironments === "include" ? { includedInvalid: true } : {}),
      },
    });
  });
  await enqueueDispatch(id, "deliver");
  const warning = earlier.length
    ? `Generation ${g.index} was dispatched to ${target.name} ${earlier.length === 1 ? "once" : `${earlier.length} times`} ` +
      `before (last ${earlier[0].status}, ${earlier[0].createdAt.toISOString()}); this is another run.`
    : undefined;
  return { dispatchId: id, status: "queued" as const, ...(warning ? { warning, previousDispatches: earlier.map((e) => e.id) } : {}) };
}

/** Queue a delivery or a poll; pg-boss keeps one pending job per dispatch and phase. */
export async function enqueueDispatch(dispatchId: string, phase: "deliver" | "poll", startAfterSeconds = 0) {
  await enqueue(
    "envforge.dispatch",
    dispatchJobSchema,
    { dispatchId, phase },
    { singletonKey: `${dispatchId}:${phase}`, startAfter: Math.max(0, Math.ceil(startAfterSeconds)), retryLimit: 3, retryDelay: 5 },
  );
}

/** Backoff before attempt n+1: base x 2^(n-1), capped at 5 minutes. */
export function backoffMs(attempt: number, baseMs = loadSettings().ENVFORGE_DISPATCH_BACKOFF_MS): number {
  return backoffDelayMs(attempt, { baseMs, capMs: 5 * 60_000 });
}

function contextFor(db: Db, d: typeof dispatches.$inferSelect, t: typeof dispatchTargets.$inferSelect): DeliveryContext {
  let secret: string | null = null;
  if (t.secretCiphertext) {
    const key = secretKey();
    if (!key) throw new DeliveryError("The target's secret is stored encrypted but ENVFORGE_SECRET_KEY is not set on this worker.", false);
    secret = decryptSecret(t.secretCiphertext, key);
  } else if (t.secretEnv) {
    secret = processEnvironment()[t.secretEnv] ?? null;
    if (secret === null) throw new DeliveryError(`The target's secret comes from $${t.secretEnv}, which is not set on this worker.`, false);
  }
  return {
    payload: d.payload as GenerationPayload,
    config: t.config as Record<string, unknown>,
    secret,
    attempt: d.attempts,
    run: d.run,
    readBlob: (sha256) => readBlob(db, sha256),
  };
}

/**
 * The dispatch ended (a poll, the delivery or the job's own report said so, or the delivery gave up): let the adapter
 * clean up at the target. A delivery that gave up has no external id; what its attempts made there goes all the same.
 */
export async function finishAtTarget(db: Db, id: string) {
  const [d] = await db.select().from(dispatches).where(eq(dispatches.id, id));
  if (!d) return;
  const [t] = await db.select().from(dispatchTargets).where(eq(dispatchTargets.id, d.targetId));
  const adapter = t && getAdapter(t.adapter as (typeof ADAPTERS)[number]);
  if (!adapter?.finish) return;
  try {
    await adapter.finish(contextFor(db, d, t), d.externalId);
  } catch (err) {
    // the key is revoked already; what is left at the target is said, not retried forever
    await db
      .insert(dispatchEvents)
      .values({ dispatchId: id, status: d.status, message: `clean-up at the target failed: ${(err as Error).message}` });
  }
}

/** The worker's job: deliver (claimed under a lease, so each dispatch is sent by one worker at a time) or poll. */
export async function runDispatchJob(db: Db, data: unknown, workerId = `worker-${process.pid}`): Promise<void> {
  const job = dispatchJobSchema.parse(data);
  if (job.phase === "poll") return pollDispatch(db, job.dispatchId);
  const claimed = await db.execute<{ id: string }>(sql`
    update ${dispatches} set status = 'sending', lease_owner = ${workerId}, lease_until = now() + make_interval(secs => ${leaseSeconds()}),
      attempts = attempts + 1, updated_at = now()
    where id = ${job.dispatchId}
      and ((status = 'queued' and (next_attempt_at is null or next_attempt_at <= now())) or (status = 'sending' and lease_until < now()))
    returning id`);
  if (claimed.rows.length === 0) {
    const [d] = await db.select().from(dispatches).where(eq(dispatches.id, job.dispatchId));
    // queued for later: make sure a job waits for it; anything else is someone else's or done
    if (d?.status === "queued" && d.nextAttemptAt && d.nextAttemptAt.getTime() > Date.now())
      await enqueueDispatch(d.id, "deliver", (d.nextAttemptAt.getTime() - Date.now()) / 1000);
    return;
  }
  const [d] = await db.select().from(dispatches).where(eq(dispatches.id, job.dispatchId));
  const [t] = await db.select().from(dispatchTargets).where(eq(dispatchTargets.id, d.targetId));
  await addEvent(db, d.id, "sending", `attempt ${d.attempts} of ${t.maxAttempts}`);
  // This attempt's result is written only while the dispatch is still this attempt's: a delivery that outlived its lease
  // may have been claimed again (by another worker, or by this one: the attempt count tells them apart), and its late
  // result must not queue, fail or finish the attempt that now runs (nor revoke the callback key that one uses). Returns
  // whether it was written; if not, a `superseded` event says what the attempt ended with (`outcome`).
  const settle = async (
    values: Partial<typeof dispatches.$inferInsert>,
    event: { status: string; message?: string; data?: unknown },
    outcome: string,
  ): Promise<boolean> => {
    const applied = await db.transaction(async (tx) => {
      const updated = await tx
        .update(dispatches)
        .set({ ...values, leaseOwner: null, leaseUntil: null, updatedAt: new Date() })
        .where(
          and(
            eq(dispatches.id, d.id),
            eq(dispatches.status, "sending"),
            eq(dispatches.leaseOwner, workerId),
            eq(dispatches.attempts, d.attempts),
          ),
        )
        .returning({ id: dispatches.id });
      if (!updated.length) return false;
      await addEvent(tx, d.id, event.status, event.message, event.data);
      return true;
    });
    if (!applied)
      await addEvent(
        db,
        d.id,
        "superseded",
        `attempt ${d.attempts} ended (${outcome}) after the dispatch had moved on (its lease ran out and another attempt ` +
          "took it over, or it was cancelled): not applied",
      );
    return applied;
  };
  const adapter = getAdapter(t.adapter as (typeof ADAPTERS)[number]);
  try {
    const ctx = contextFor(db, d, t);
    // an export runs nothing that could call back
    if (t.adapter !== "export") ctx.callbackKey = await dispatchCallbackKey(db, d.id, secretKey());
    const result = await adapter.deliver(ctx);
    // cancelled while sending: keep it cancelled, and stop what the target started where it can
    const [now] = await db.select({ status: dispatches.status }).from(dispatches).where(eq(dispatches.id, d.id));
    if (now?.status === "cancelled") {
      if (result.externalId && adapter.cancel) await adapter.cancel(ctx, result.externalId).catch(() => undefined);
      return;
    }
    const applied = await settle(
      { status: result.status, externalId: result.externalId ?? d.externalId, lastError: null, nextAttemptAt: null },
      {
        status: result.status,
        message: result.message ?? (result.externalId ? `external id ${result.externalId}` : undefined),
        data: result.data,
      },
      result.externalId ? `${result.status}, external id ${result.externalId}` : result.status,
    );
    if (!applied) return;
    if ((result.status === "delivered" || result.status === "running") && adapter.poll)
      await enqueueDispatch(d.id, "poll", pollDelaySeconds(0));
    // a resend that found its job already ended: clean up as a poll would (the Kubernetes key Secret)
    if (FINAL.has(result.status)) await finishAtTarget(db, d.id);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const retryable = err instanceof DeliveryError ? err.retryable : true;
    if (retryable && d.attempts < t.maxAttempts) {
      const wait = backoffMs(d.attempts);
      const applied = await settle(
        { status: "queued", lastError: message, nextAttemptAt: new Date(Date.now() + wait) },
        {
          status: "queued",
          message: `attempt ${d.attempts} failed: ${message}; retrying in ${Math.round(wait / 1000)} s`,
          data: err instanceof DeliveryError ? err.data : undefined,
        },
        `failed: ${message}`,
      );
      if (!applied) return;
      await enqueueDispatch(d.id, "deliver", wait / 1000);
    } else {
      const applied = await settle(
        { status: "failed", lastError: message },
        {
          status: "failed",
          message: retryable ? `gave up after ${d.attempts} attempts: ${message}` : message,
          data: err instanceof DeliveryError ? err.data : undefined,
        },
        `failed: ${message}`,
      );
      if (!applied) return;
      // no attempt follows that could still create a job: what the attempts left at the target goes (the Kubernetes key Secret)
      await finishAtTarget(db, d.id);
    }
  }
}

function pollDelaySeconds(polls: number): number {
  const base = loadSettings().ENVFORGE_DISPATCH_POLL_SECONDS;
  return Math.min(60, base * 1.5 ** polls);
}

/** Ask the target how a delivered dispatch is doing; repeat until it finishes. */
async function pollDispatch(db: Db, id: string) {
  const [d] = await db.select().from(dispatches).where(eq(dispatches.id, id));
  if (!d || FINAL.has(d.status) || !d.externalId || (d.status !== "delivered" && d.status !== "running")) return;
  const [t] = await db.select().from(dispatchTargets).where(eq(dispatchTargets.id, d.targetId));
  const adapter = getAdapter(t.adapter as (typeof ADAPTERS)[number]);
  if (!adapter.poll) return;
  const polls =
    (
      await db
        .select({ n: sql<number>`count(*)::int` })
        .from(dispatchEvents)
        .where(and(eq(dispatchEvents.dispatchId, id), eq(dispatchEvents.status, "poll")))
    )[0]?.n ?? 0;
  try {
    const result = await adapter.poll(contextFor(db, d, t), d.externalId);
    if (result.status !== d.status) {
      const changed = await db.transaction(async (tx) => {
        const updated = await tx
          .update(dispatches)
          .set({ status: result.status, updatedAt: new Date() })
          .where(and(eq(dispatches.id, id), eq(dispatches.status, d.status)))
          .returning({ id: dispatches.id });
        if (updated.length) await addEvent(tx, id, result.status, result.message, result.data);
        return updated.length > 0;
      });
      if (changed && FINAL.has(result.status)) await finishAtTarget(db, id);
    }
    if (result.status === "delivered" || result.status === "running") await enqueueDispatch(id, "poll", pollDelaySeconds(polls));
  } catch (err) {
    await addEvent(db, id, "poll", `status check failed: ${(err as Error).message}`);
    if (polls < 50) await enqueueDispatch(id, "poll", pollDelaySeconds(polls));
  }
}

/** Re-queue what a crashed worker left: queued ones without a job, sends whose lease ran out, unfinished polls. */
export async function sweepDispatches(db: Db): Promise<number> {
  const rows = await db.execute<{ id: string; status: string }>(sql`
    select id, status from ${dispatches}
    where (status = 'queued' and (next_attempt_at is null or next_attempt_at <= now()) and updated_at < now() - interval '10 seconds')
       or (status = 'sending' and lease_until < now())
       or (status in ('delivered', 'running') and updated_at < now() - interval '2 minutes')
    limit 500`);
  for (const r of rows.rows) await enqueueDispatch(r.id, r.status === "delivered" || r.status === "running" ? "poll" : "deliver");
  await revokeIdleDispatchKeys(db);
  return rows.rows.length;
}

/** GET /dispatches/{id}: status, attempts, the timeline. */
export async function getDispatch(db: Db, id: string, principal: Principal) {
  if (!z.uuid().safeParse(id).success) throw new NotFound(`Dispatch ${id} does not exist.`);
  const [d] = await db
    .select({
      d: dispatches,
      target: dispatchTargets.name,
      adapter: dispatchTargets.adapter,
      kind: dispatchTargets.kind,
      maxAttempts: dispatchTargets.maxAttempts,
      generation: generations.index,
      project: projects.slug,
    })
    .from(dispatches)
    .innerJoin(dispatchTargets, eq(dispatchTargets.id, dispatches.targetId))
    .innerJoin(generations, eq(generations.id, dispatches.generationId))
    .innerJoin(projects, eq(projects.id, dispatches.projectId))
    .where(eq(dispatches.id, id));
  if (!d) throw new NotFound(`Dispatch ${id} does not exist.`);
  requireScope(principal, "projects:read", d.d.projectId);
  const events = await db
    .select()
    .from(dispatchEvents)
    .where(eq(dispatchEvents.dispatchId, id))
    .orderBy(asc(dispatchEvents.at), asc(dispatchEvents.id));
  return {
    id: d.d.id,
    project: d.project,
    generation: d.generation,
    target: d.target,
    adapter: d.adapter,
    kind: d.kind,
    status: d.d.status,
    attempts: d.d.attempts,
    maxAttempts: d.maxAttempts,
    run: d.d.run,
    lastError: d.d.lastError ?? undefined,
    externalId: d.d.externalId ?? undefined,
    nextAttemptAt: d.d.nextAttemptAt?.toISOString(),
    createdBy: d.d.createdBy,
    createdAt: d.d.createdAt.toISOString(),
    updatedAt: d.d.updatedAt.toISOString(),
    events: events.map((e) => ({ at: e.at.toISOString(), status: e.status, message: e.message ?? undefined, data: e.data ?? undefined })),
  };
}

/** GET /projects/{slug}/dispatches: newest first. */
export async function listDispatches(db: Db, project: ProjectRow) {
  const rows = await db
    .select({
      id: dispatches.id,
      status: dispatches.status,
      attempts: dispatches.attempts,
      target: dispatchTargets.name,
      adapter: dispatchTargets.adapter,
      generation: generations.index,
      createdAt: dispatches.createdAt,
      lastError: dispatches.lastError,
    })
    .from(dispatches)
    .innerJoin(dispatchTargets, eq(dispatchTargets.id, dispatches.targetId))
    .innerJoin(generations, eq(generations.id, dispatches.generationId))
    .where(eq(dispatches.projectId, project.id))
    .orderBy(desc(dispatches.createdAt))
    .limit(200);
  return { dispatches: rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), lastError: r.lastError ?? undefined })) };
}

/** POST /dispatches/{id}/cancel: stops retries, and the run at the target where the adapter can. */
export async function cancelDispatch(db: Db, id: string, principal: Principal) {
  const view = await getDispatch(db, id, principal);
  const [d] = await db.select().from(dispatches).where(eq(dispatches.id, id));
  requireScope(principal, "dispatch:create", d.projectId);
  if (FINAL.has(d.status)) throw new Conflict(`Dispatch ${id} is ${d.status} already.`);
  const [t] = await db.select().from(dispatchTargets).where(eq(dispatchTargets.id, d.targetId));
  await db.transaction(async (tx) => {
    await tx
      .update(dispatches)
      .set({ status: "cancelled", leaseOwner: null, leaseUntil: null, updatedAt: new Date() })
      .where(eq(dispatches.id, id));
    await tx.insert(dispatchEvents).values({ dispatchId: id, status: "cancelled", message: `by ${principal.actor}` });
    await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.dispatchId, id), isNull(apiKeys.revokedAt)));
    await recordAudit(tx, {
      projectId: d.projectId,
      actor: principal.actor,
      action: "dispatch.cancel",
      entity: "dispatch",
      entityId: id,
      before: { status: d.status },
      after: { status: "cancelled" },
    });
  });
  const adapter = getAdapter(t.adapter as (typeof ADAPTERS)[number]);
  if (d.externalId && adapter.cancel) {
    try {
      await adapter.cancel(contextFor(db, d, t), d.externalId);
      await addEvent(db, id, "cancelled", "stopped at the target");
    } catch (err) {
      await addEvent(db, id, "cancelled", `could not stop it at the target: ${(err as Error).message}`);
    }
  }
  return { ...view, status: "cancelled" };
}

/** POST /dispatches/{id}/validation: a sandbox reports validity and p_max of the environments it checked. */
export async function reportValidation(db: Db, id: string, body: unknown, principal: Principal) {
  const input = parseOrThrow(validationReportSchema, body);
  const d = await dispatchFor(db, id, principal, "generations:write");
  const payload = d.payload as GenerationPayload | null;
  const known = new Set(payload?.environments.map((e) => e.key) ?? []);
  const details = input.results.flatMap((r, i) =>
    known.has(r.environmentKey) ? [] : [{ path: `results.${i}.environmentKey`, message: `'${r.environmentKey}' was not in this dispatch` }],
  );
  if (details.length) throw new Invalid(`Validation results must name environments of the dispatch: ${details[0].message}.`, details);
  await db.transaction(async (tx) => {
    for (const r of input.results) {
      await tx
        .update(environments)
        .set({ validationState: r.state, pMax: r.pMax ?? null, validationDetails: r.details ?? null })
        .where(and(eq(environments.projectId, d.projectId), eq(environments.key, r.environmentKey)));
    }
    await tx.insert(dispatchEvents).values({
      dispatchId: id,
      status: d.status,
      message: `validation reported for ${input.results.length} environments`,
      data: { counts: countStates(input.results) },
    });
    await recordAudit(tx, {
      projectId: d.projectId,
      actor: principal.actor,
      action: "dispatch.validation",
      entity: "dispatch",
      entityId: id,
      after: countStates(input.results),
    });
  });
  return { updated: input.results.length, ...countStates(input.results) };
}

function countStates(results: { state: string }[]) {
  const out: Record<string, number> = { valid: 0, invalid: 0, unsolvable: 0 };
  for (const r of results) out[r.state] += 1;
  return out;
}

/** The dispatch `id` for a principal: its own dispatch key, or a key or user with `scope` on the project. */
async function dispatchFor(db: Db, id: string, principal: Principal, scope: "generations:write" | "projects:read" | "rollouts:write") {
  if (!z.uuid().safeParse(id).success) throw new NotFound(`Dispatch ${id} does not exist.`);
  const [d] = await db.select().from(dispatches).where(eq(dispatches.id, id));
  if (!d) throw new NotFound(`Dispatch ${id} does not exist.`);
  if (principal.dispatchId) {
    if (principal.dispatchId !== id) throw new Forbidden("This dispatch key belongs to another dispatch.");
  } else requireScope(principal, scope, d.projectId);
  return d;
}

/** GET /dispatches/{id}/payload: the generation as it was dispatched (what `envforge run-dispatch` fetches). */
export async function getDispatchPayload(db: Db, id: string, principal: Principal) {
  const d = await dispatchFor(db, id, principal, "projects:read");
  return d.payload as GenerationPayload;
}

export const progressReportSchema = z.strictObject({
  completed: z.number().int().min(0),
  total: z.number().int().min(0),
  failed: z.number().int().min(0).default(0),
  message: z.string().max(1000).optional(),
  /** the job is over: the dispatch ends with this status and its key stops working */
  status: z.enum(["succeeded", "failed"]).optional(),
});

/** POST /dispatches/{id}/progress: a running job says how far it is (a timeline event; a delivered dispatch becomes running). */
export async function reportProgress(db: Db, id: string, body: unknown, principal: Principal) {
  const input = parseOrThrow(progressReportSchema, body);
  const d = await dispatchFor(db, id, principal, "rollouts:write");
  if (FINAL.has(d.status)) throw new Conflict(`Dispatch ${id} is ${d.status}; it takes no more progress.`);
  const message =
    input.message ?? `${input.completed} of ${input.total} environments done${input.failed ? `, ${input.failed} failed` : ""}`;
  const data = { completed: input.completed, total: input.total, failed: input.failed };
  if (input.status) {
    const status = input.status;
    const ended = await db.transaction(async (tx) => {
      const rows = await tx
        .update(dispatches)
        .set({ status, updatedAt: new Date() })
        .where(and(eq(dispatches.id, id), sql`${dispatches.status} not in ('succeeded', 'failed', 'cancelled')`))
        .returning({ id: dispatches.id });
      if (rows.length)
        await addEvent(tx, id, status, `the job reported it ${status === "succeeded" ? "finished" : "failed"}: ${message}`, data);
      return rows.length > 0;
    });
    if (!ended) throw new Conflict(`Dispatch ${id} has ended meanwhile; it takes no more progress.`);
    await finishAtTarget(db, id);
    return { status: input.status };
  }
  // a delivered dispatch becomes running together with its first progress event
  await db.transaction(async (tx) => {
    if (d.status === "delivered")
      await tx
        .update(dispatches)
        .set({ status: "running", updatedAt: new Date() })
        .where(and(eq(dispatches.id, id), eq(dispatches.status, "delivered")));
    await addEvent(tx, id, d.status === "delivered" ? "running" : d.status, message, data);
  });
  return { status: d.status === "delivered" ? "running" : d.status };
}

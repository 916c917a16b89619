/**
 * Managing targets and dispatches from the dashboard: edit a target (its secret replaced or removed,
 * never shown), test its connection with a dry request, retry a failed dispatch.
 */
import { performance } from "node:perf_hooks";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { dispatchTargets, dispatches, dispatchEvents } from "@/lib/db/schema";
import { Conflict, Invalid, NotFound, parseOrThrow } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/audit";
import type { ProjectRow } from "@/lib/projects/service";
import { decryptSecret, encryptSecret } from "./secrets";
import { ADAPTERS } from "./types";
import { bodySnippet, httpRequest, redactSecret } from "./adapters/http";
import { SIGNATURE_HEADER, signBody } from "./adapters/webhook";
import { resolveExportDirectory } from "./server-paths";
import { createTargetSchema, enqueueDispatch, finishAtTarget, getDispatch, secretKey, targetProblems, targetView } from "./service";
import { processEnvironment } from "@/lib/config/env";

export const updateTargetSchema = z
  .strictObject({
    kind: createTargetSchema.shape.kind.optional(),
    adapter: z.enum(ADAPTERS).optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    /** a new secret (stored encrypted), or null to remove the stored one; absent keeps it */
    secret: z.string().min(1).max(100_000).nullable().optional(),
    secretEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")
      .nullable()
      .optional(),
    maxAttempts: z.number().int().min(1).max(50).optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: "names nothing to change" });

async function targetByName(db: Db, project: ProjectRow, name: string) {
  const [t] = await db
    .select()
    .from(dispatchTargets)
    .where(and(eq(dispatchTargets.projectId, project.id), eq(dispatchTargets.name, name)));
  if (!t) throw new NotFound(`No target named '${name}' in '${project.slug}'.`);
  return t;
}

/**
 * PATCH /projects/{slug}/targets/{name} (admin): kind, adapter, config, secret (replace or remove), attempts; checked like a new
 * target, audited without secrets.
 */
export async function updateTarget(db: Db, project: ProjectRow, name: string, body: unknown, principal: Principal) {
  const input = parseOrThrow(updateTargetSchema, body);
  const t = await targetByName(db, project, name);
  const adapter = input.adapter ?? (t.adapter as (typeof ADAPTERS)[number]);
  const config = input.config ?? (t.config as Record<string, unknown>);
  // a new secret replaces secretEnv and the other way round, unless both are given (refused below)
  const secretEnv = input.secretEnv !== undefined ? input.secretEnv : input.secret ? null : t.secretEnv;
  const hasSecret = input.secret !== undefined ? input.secret !== null : input.secretEnv ? false : t.secretCiphertext !== null;
  const details = await targetProblems({ adapter, config, hasSecret, hasSecretEnv: !!secretEnv, newSecret: !!input.secret }, principal);
  if (details.length) throw new Invalid(`The target cannot be changed: ${details[0].path} ${details[0].message}.`, details);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(dispatchTargets)
      .set({
        kind: input.kind ?? t.kind,
        adapter,
        config,
        secretCiphertext: input.secret ? encryptSecret(input.secret, secretKey()!) : hasSecret ? t.secretCiphertext : null,
        secretEnv,
        maxAttempts: input.maxAttempts ?? t.maxAttempts,
      })
      .where(eq(dispatchTargets.id, t.id))
      .returning();
    await recordAudit(tx, {
      projectId: project.id,
      actor: principal.actor,
      action: "target.update",
      entity: "target",
      entityId: t.id,
      before: targetView(t, "viewer"),
      after: {
        ...targetView(row, "viewer"),
        ...(input.secret !== undefined ? { secretChanged: input.secret === null ? "removed" : "replaced" } : {}),
      },
    });
    return targetView(row, principal.role);
  });
}

/** The outcome of a connection test, in words a person acts on. */
export interface ConnectionTest {
  ok: boolean;
  message: string;
  status?: number;
  ms?: number;
}

const TEST_TIMEOUT_MS = 5_000;

async function probe(
  url: string,
  init: { method: "GET" | "POST"; headers?: Record<string, string>; body?: string },
  secret: string | null,
): Promise<ConnectionTest> {
  const started = performance.now();
  try {
    const res = await httpRequest({ ...init, url, timeoutMs: TEST_TIMEOUT_MS });
    const ms = Math.round(performance.now() - started);
    const where = new URL(url).origin;
    const detail = redactSecret(bodySnippet(res.body, 200), secret);
    const said = `${where} answered ${res.status} in ${ms} ms${detail ? ` (${detail})` : ""}`;
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, ms, message: `${said}.` };
    if (res.status === 401 || res.status === 403)
      return { ok: false, status: res.status, ms, message: `${said}: the secret (token or signature key) is not accepted.` };
    if (res.status === 404) return { ok: false, status: res.status, ms, message: `${said}: is the URL right?` };
    // reached, and past authentication: a receiver that takes only generations may refuse a test ping
    if (res.status < 500)
      return {
        ok: true,
        status: res.status,
        ms,
        message: `${said}: reachable and the credentials passed; it refused the test ping itself, as a receiver that only takes generations may.`,
      };
    return { ok: false, status: res.status, ms, message: `${said}: the target is up but failing.` };
  } catch (err) {
    return { ok: false, message: `Could not reach ${new URL(url).origin}: ${redactSecret((err as Error).message, secret)}.` };
  }
}

/**
 * POST /projects/{slug}/targets/{name}/test (admin): a dry request that starts nothing: the webhook
 * gets a signed `{"test":true}` with X-EnvForge-Test: 1, Ray its /api/version, Kubernetes (token auth)
 * its /version; an export target checks its folder; a local target says whether this server runs it.
 */
export async function testTarget(db: Db, project: ProjectRow, name: string, principal: Principal): Promise<ConnectionTest> {
  const t = await targetByName(db, project, name);
  const config = t.config as Record<string, unknown>;
  let secret: string | null = null;
  if (t.secretCiphertext) {
    const key = secretKey();
    if (!key) return { ok: false, message: "The secret is stored encrypted but ENVFORGE_SECRET_KEY is not set on this server." };
    secret = decryptSecret(t.secretCiphertext, key);
  } else if (t.secretEnv) {
    secret = processEnvironment()[t.secretEnv] ?? null;
    if (secret === null) return { ok: false, message: `The secret comes from $${t.secretEnv}, which is not set on this server.` };
  }
  const result = await (async (): Promise<ConnectionTest> => {
    switch (t.adapter) {
      case "webhook": {
        const body = JSON.stringify({ test: true, target: t.name, project: project.slug });
        const headers: Record<string, string> = {
          ...((config.headers as Record<string, string>) ?? {}),
          "content-type": "application/json",
          "user-agent": "EnvForge-Dispatch/1",
          "X-EnvForge-Test": "1",
        };
        if (secret) headers[SIGNATURE_HEADER] = signBody(body, secret);
        return probe(String(config.url), { method: "POST", headers, body }, secret);
      }
      case "ray":
        return probe(`${String(config.address).replace(/\/+$/, "")}/api/version`, { method: "GET" }, secret);
      case "kubernetes": {
        if ((config.auth ?? "token") !== "token" || typeof config.apiServer !== "string")
          return {
            ok: false,
            message:
              "Only targets with a token and apiServer can be tested from here; in-cluster and kubeconfig credentials are read by the worker.",
          };
        return probe(
          `${config.apiServer.replace(/\/+$/, "")}/version`,
          { method: "GET", headers: secret ? { authorization: `Bearer ${secret}` } : {} },
          secret,
        );
      }
      case "export": {
        const where = await resolveExportDirectory(String(config.directory ?? ""));
        return where.ok ? { ok: true, message: `Exports go to ${where.path}.` } : { ok: false, message: where.message };
      }
      default:
        return { ok: true, message: "A local target runs a command on this machine: there is nothing to reach." };
    }
  })();
  await recordAudit(db, {
    projectId: project.id,
    actor: principal.actor,
    action: "target.test",
    entity: "target",
    entityId: t.id,
    after: { ok: result.ok, status: result.status ?? null },
  });
  return result;
}

/**
 * POST /dispatches/{id}/retry (reviewer or admin): a failed dispatch is queued again with fresh attempts
 * as its next run (a Ray submission_id and Kubernetes Job name of its own, since both refuse a reused
 * one); what the last run left at the target is cleaned up first (the Kubernetes key Secret); audited.
 */
export async function retryDispatch(db: Db, id: string, principal: Principal) {
  const view = await getDispatch(db, id, principal);
  const [d] = await db.select().from(dispatches).where(eq(dispatches.id, id));
  requireScope(principal, "dispatch:create", d.projectId);
  if (d.status !== "failed") throw new Conflict(`Dispatch ${id} is ${d.status}; only a failed dispatch can be retried.`);
  await finishAtTarget(db, id);
  const run = d.run + 1;
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(dispatches)
      .set({
        status: "queued",
        attempts: 0,
        run,
        externalId: null,
        lastError: null,
        nextAttemptAt: null,
        leaseOwner: null,
        leaseUntil: null,
        updatedAt: new Date(),
      })
      .where(and(eq(dispatches.id, id), eq(dispatches.status, "failed"), eq(dispatches.run, d.run)))
      .returning({ id: dispatches.id });
    if (!row) throw new Conflict(`Dispatch ${id} changed meanwhile.`);
    await tx.insert(dispatchEvents).values({
      dispatchId: id,
      status: "queued",
      message: `retried by ${principal.actor}: run ${run}${d.externalId ? ` (run ${d.run} was ${d.externalId})` : ""}`,
      data: { run, previousExternalId: d.externalId },
    });
    await recordAudit(tx, {
      projectId: d.projectId,
      actor: principal.actor,
      action: "dispatch.retry",
      entity: "dispatch",
      entityId: id,
      before: { status: "failed", attempts: d.attempts, lastError: d.lastError, run: d.run, externalId: d.externalId },
      after: { status: "queued", run },
    });
  });
  await enqueueDispatch(id, "deliver");
  return { ...view, status: "queued", attempts: 0, run, externalId: undefined, lastError: undefined };
}

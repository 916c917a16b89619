/** Dispatch targets: the create schema, who may see which fields (secrets redacted), create, list and delete. */
import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { dispatchTargets } from "@/lib/db/schema";
import { Conflict, Forbidden, Invalid, NotFound, parseOrThrow, type ErrorDetail } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { hasScope, type Role } from "@/lib/auth/roles";
import type { ProjectRow } from "@/lib/projects/service";
import { recordAudit } from "@/lib/audit";
import { getAdapter } from "./adapters";
import { localTargetsAllowed, resolveExportDirectory } from "./server-paths";
import { encryptSecret } from "./secrets";
import { ADAPTERS } from "./types";
import { loadSettings } from "@/lib/config/env";

export const targetName = z
  .string()
  .min(1, "is required")
  .max(100, "is longer than 100 characters")
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "may hold letters, digits, '.', '_' and '-' only");

export const createTargetSchema = z.strictObject({
  name: targetName,
  kind: z.enum(["sandbox", "trainer"]),
  adapter: z.enum(ADAPTERS),
  config: z.record(z.string(), z.unknown()).default({}),
  /** stored encrypted with ENVFORGE_SECRET_KEY, never returned */
  secret: z.string().min(1).max(100_000).optional(),
  /** or the name of an environment variable of the worker that holds it */
  secretEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")
    .optional(),
  maxAttempts: z.number().int().min(1).max(50).optional(),
});

/** Config fields that carry credentials: environment variables, HTTP headers, tokens, passwords. */
const SECRET_BEARING_KEY = /^(?:env|envFrom|env_vars|headers)$|secret|token|passw|credential|api_?key|authorization|cookie/i;
const URL_CREDENTIALS = /^([a-z][a-z0-9+.-]{0,31}:\/\/)[^/@\s]{1,512}@/i;

/**
 * A target's config for someone who may not manage targets (viewers, reviewers, ingest keys):
 * secret-bearing fields (see SECRET_BEARING_KEY) replaced by "(hidden)" at any depth, and the
 * user:password part of URLs removed.
 */
export function redactTargetConfig(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactTargetConfig);
  if (typeof value === "string") return value.replace(URL_CREDENTIALS, "$1(hidden)@");
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_BEARING_KEY.test(k) ? "(hidden)" : redactTargetConfig(v)]));
}

/** A target as the API shows it: never the secret, only whether one is set; the full config only to target managers. */
export function targetView(t: typeof dispatchTargets.$inferSelect, role: Role) {
  return {
    id: t.id,
    name: t.name,
    kind: t.kind,
    adapter: t.adapter,
    config: hasScope(role, "targets:manage") ? t.config : redactTargetConfig(t.config),
    secret: t.secretCiphertext ? "stored (encrypted)" : t.secretEnv ? `from $${t.secretEnv}` : null,
    maxAttempts: t.maxAttempts,
    createdBy: t.createdBy,
    createdAt: t.createdAt.toISOString(),
  };
}

/**
 * `local` targets run commands on this machine: only when the server allows them
 * (ENVFORGE_LOCAL_TARGETS), and never for a key limited to one project.
 */
export function assertLocalTargetsAllowed(principal: Principal): void {
  if (!localTargetsAllowed()) {
    throw new Forbidden("This server does not run local targets (ENVFORGE_LOCAL_TARGETS is off): use another adapter.", [
      { path: "adapter", message: "local targets are off on this server" },
    ]);
  }
  if (principal.projectId !== null) {
    throw new Forbidden("A key limited to one project cannot create or use local targets.", [
      { path: "adapter", message: "not for project-limited keys" },
    ]);
  }
}

/**
 * What is wrong with a target as it would be stored (adapter config, secret rules, local and export limits); throws 403 for local
 * targets where they are off.
 */
export async function targetProblems(
  t: { adapter: (typeof ADAPTERS)[number]; config: Record<string, unknown>; hasSecret: boolean; hasSecretEnv: boolean; newSecret: boolean },
  principal: Principal,
): Promise<ErrorDetail[]> {
  const adapter = getAdapter(t.adapter);
  const details: ErrorDetail[] = adapter
    .checkConfig(t.config)
    .map((e) => ({ path: `config${e.path ? "." + e.path : ""}`, message: e.message }));
  if (t.hasSecret && t.hasSecretEnv) details.push({ path: "secret", message: "give secret or secretEnv, not both" });
  if ((adapter.secretRequired ? adapter.secretRequired(t.config) : adapter.needsSecret) && !t.hasSecret && !t.hasSecretEnv)
    details.push({ path: "secret", message: `the ${t.adapter} adapter needs a secret (or secretEnv)` });
  if (t.adapter === "local") assertLocalTargetsAllowed(principal);
  if (t.adapter === "export" && typeof t.config.directory === "string") {
    const where = await resolveExportDirectory(t.config.directory);
    if (!where.ok) details.push({ path: "config.directory", message: where.message });
  }
  if (t.newSecret && !secretKey())
    details.push({
      path: "secret",
      message:
        "cannot be stored: set ENVFORGE_SECRET_KEY on the server, or pass secretEnv with the name of an environment variable instead",
    });
  return details;
}

/** POST /projects/{slug}/targets (admin). */
export async function createTarget(db: Db, project: ProjectRow, body: unknown, principal: Principal) {
  const input = parseOrThrow(createTargetSchema, body);
  const details = await targetProblems(
    { adapter: input.adapter, config: input.config, hasSecret: !!input.secret, hasSecretEnv: !!input.secretEnv, newSecret: !!input.secret },
    principal,
  );
  if (details.length) throw new Invalid(`The target cannot be created: ${details[0].path} ${details[0].message}.`, details);
  const [taken] = await db
    .select({ id: dispatchTargets.id })
    .from(dispatchTargets)
    .where(and(eq(dispatchTargets.projectId, project.id), eq(dispatchTargets.name, input.name)));
  if (taken)
    throw new Conflict(`A target named '${input.name}' exists already in '${project.slug}'.`, [{ path: "name", message: "is taken" }]);
  return db.transaction(async (tx) => {
    const [t] = await tx
      .insert(dispatchTargets)
      .values({
        projectId: project.id,
        name: input.name,
        kind: input.kind,
        adapter: input.adapter,
        config: input.config,
        secretCiphertext: input.secret ? encryptSecret(input.secret, secretKey()!) : null,
        secretEnv: input.secretEnv ?? null,
        maxAttempts: input.maxAttempts ?? 5,
        createdBy: principal.actor,
      })
      .returning();
    // viewers read the audit: it keeps the config without its secret-bearing fields, and never the secret
    await recordAudit(tx, {
      projectId: project.id,
      actor: principal.actor,
      action: "target.create",
      entity: "target",
      entityId: t.id,
      after: targetView(t, "viewer"),
    });
    return targetView(t, principal.role);
  });
}

/** GET /projects/{slug}/targets, as `role` may see them (secret-bearing config fields only for target managers). */
export async function listTargets(db: Db, project: ProjectRow, role: Role) {
  const rows = await db.select().from(dispatchTargets).where(eq(dispatchTargets.projectId, project.id)).orderBy(asc(dispatchTargets.name));
  return { targets: rows.map((t) => targetView(t, role)) };
}

/** DELETE /projects/{slug}/targets/{name} (admin); its dispatches go with it. */
export async function deleteTarget(db: Db, project: ProjectRow, name: string, principal: Principal) {
  return db.transaction(async (tx) => {
    const [t] = await tx
      .delete(dispatchTargets)
      .where(and(eq(dispatchTargets.projectId, project.id), eq(dispatchTargets.name, name)))
      .returning();
    if (!t) throw new NotFound(`No target named '${name}' in '${project.slug}'.`);
    await recordAudit(tx, {
      projectId: project.id,
      actor: principal.actor,
      action: "target.delete",
      entity: "target",
      entityId: t.id,
      before: targetView(t, "viewer"),
    });
  });
}

/** The key target secrets are encrypted with (ENVFORGE_SECRET_KEY), if set. */
export function secretKey(): string | undefined {
  return loadSettings().ENVFORGE_SECRET_KEY;
}

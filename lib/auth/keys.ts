/** API keys: random secrets shown once, stored as sha256, with a role and an optional project limit. */
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { apiKeys, projects } from "@/lib/db/schema";
import { NotFound } from "@/lib/errors";
import { recordAudit } from "@/lib/audit";
import type { Principal } from "./principal";
import type { Role } from "./roles";
import { digestToken, newApiKeySecret } from "./secrets";

/** Create a key; returns its id and the secret (the only time the secret is seen). */
export async function createApiKey(
  db: Db,
  input: { name: string; role: Role; project?: string },
  actor: Principal | { actor: string },
): Promise<{ id: number; key: string }> {
  let projectId: number | null = null;
  if (input.project) {
    const [p] = await db.select({ id: projects.id }).from(projects).where(eq(projects.slug, input.project));
    if (!p) throw new NotFound(`Project '${input.project}' does not exist.`);
    projectId = p.id;
  }
  const key = newApiKeySecret();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(apiKeys)
      .values({ name: input.name, role: input.role, projectId, keyHash: digestToken(key), prefix: key.slice(0, 8), createdBy: actor.actor })
      .returning({ id: apiKeys.id });
    await recordAudit(tx, {
      projectId,
      actor: actor.actor,
      action: "key.create",
      entity: "api_key",
      entityId: row.id,
      after: { name: input.name, role: input.role, project: input.project ?? null },
    });
    return { id: row.id, key };
  });
}

/** Every key without its secret. */
export async function listApiKeys(db: Db) {
  const rows = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      role: apiKeys.role,
      project: projects.slug,
      prefix: apiKeys.prefix,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .leftJoin(projects, eq(projects.id, apiKeys.projectId))
    .orderBy(asc(apiKeys.id));
  return rows.map((r) => ({
    ...r,
    project: r.project ?? null,
    createdAt: r.createdAt.toISOString(),
    revokedAt: r.revokedAt?.toISOString() ?? null,
  }));
}

/** Revoke a key at once (later requests with it get 401). */
export async function revokeApiKey(db: Db, id: number, actor: Principal): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id, name: apiKeys.name, projectId: apiKeys.projectId });
    if (!row) throw new NotFound(`No active API key with id ${id}.`);
    await recordAudit(tx, {
      projectId: row.projectId,
      actor: actor.actor,
      action: "key.revoke",
      entity: "api_key",
      entityId: id,
      before: { name: row.name },
    });
  });
}

/** ENVFORGE_BOOTSTRAP_TOKEN: when no admin key exists, create one whose secret is exactly that token. */
export async function ensureBootstrapKey(db: Db, token: string): Promise<"created" | "exists"> {
  const hash = digestToken(token);
  const [same] = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyHash, hash));
  if (same) return "exists";
  const [admin] = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.role, "admin"), isNull(apiKeys.revokedAt), isNull(apiKeys.projectId)))
    .limit(1);
  if (admin) return "exists";
  await db
    .insert(apiKeys)
    .values({ name: "bootstrap", role: "admin", keyHash: hash, prefix: token.slice(0, 8), createdBy: "system:bootstrap" });
  await recordAudit(db, {
    projectId: null,
    actor: "system:bootstrap",
    action: "key.create",
    entity: "api_key",
    entityId: "bootstrap",
    after: { role: "admin" },
  });
  return "created";
}

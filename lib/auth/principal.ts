/** Who is calling: an API key (Bearer) or a signed-in browser session (cookie), with role and project limit. */
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { loadSettings } from "@/lib/config/env";
import type { Db } from "@/lib/db/client";
import { apiKeys, sessions, users } from "@/lib/db/schema";
import { Forbidden, Unauthorized } from "@/lib/errors";
import { hasScope, type Role, type Scope } from "./roles";
import { digestToken } from "./secrets";
import { currentHostPolicy, isAllowedOrigin, type HostPolicy } from "@/lib/http/host-check";

export const SESSION_COOKIE = "envforge_session";

export interface Principal {
  kind: "key" | "user";
  id: number;
  /** How the audit log names this actor, e.g. `user:ada@lab.org` or `key:ci-trainer`. */
  actor: string;
  role: Role;
  /** A key limited to one project carries its id. */
  projectId: number | null;
  name: string;
  /** A dispatch-scoped key (lib/dispatch/callback-key.ts): its dispatch and the generation it may post to. */
  dispatchId?: string | null;
  generationIndex?: number | null;
}

/** One cookie's value from a Cookie header. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return undefined;
}

/** Resolve the principal behind an API key secret, or null. */
export async function principalFromKey(db: Db, secret: string): Promise<Principal | null> {
  const [row] = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      role: apiKeys.role,
      projectId: apiKeys.projectId,
      dispatchId: apiKeys.dispatchId,
      generationIndex: apiKeys.generationIndex,
      idle: sql<boolean>`coalesce(${apiKeys.lastUsedAt}, ${apiKeys.createdAt})
        < now() - make_interval(hours => ${loadSettings().ENVFORGE_DISPATCH_KEY_IDLE_HOURS})`,
      touched: sql<boolean>`${apiKeys.lastUsedAt} > now() - interval '1 minute'`,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, digestToken(secret)), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row) return null;
  if (row.dispatchId) {
    // a dispatch key lives while its job uses it: idle past the limit it is dead even before the sweep revokes it
    if (row.idle) return null;
    if (!row.touched) await db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, row.id));
  }
  return {
    kind: "key",
    id: row.id,
    actor: `key:${row.name}`,
    role: row.role as Role,
    projectId: row.projectId,
    name: row.name,
    dispatchId: row.dispatchId,
    generationIndex: row.generationIndex,
  };
}

/** Resolve the principal behind a session cookie token, or null. */
export async function principalFromSession(db: Db, token: string): Promise<Principal | null> {
  const [row] = await db
    .select({ id: users.id, email: users.email, name: users.name, role: users.role })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    // a disabled account's cookies stop working at once, even before its sessions are deleted
    .where(and(eq(sessions.id, digestToken(token)), gt(sessions.expiresAt, new Date()), isNull(users.disabledAt)))
    .limit(1);
  if (!row) return null;
  return { kind: "user", id: row.id, actor: `user:${row.email}`, role: row.role as Role, projectId: null, name: row.name };
}

/**
 * Authenticate a request. Cookie-authenticated mutations must come from our own origin
 * (Origin or Sec-Fetch-Site), which makes them CSRF-safe; Bearer requests are not sent by browsers on their own.
 */
export async function authenticate(db: Db, req: Request): Promise<Principal> {
  const auth = req.headers.get("authorization");
  if (auth) {
    const m = /^Bearer\s+(\S+)$/i.exec(auth.trim());
    if (!m) throw new Unauthorized("The Authorization header must be `Bearer <api key>`.");
    const p = await principalFromKey(db, m[1]);
    if (!p) throw new Unauthorized("Unknown or revoked API key.");
    return p;
  }
  const token = readCookie(req.headers.get("cookie"), SESSION_COOKIE);
  if (!token) throw new Unauthorized();
  const p = await principalFromSession(db, token);
  if (!p) throw new Unauthorized("Your session has expired: sign in again.");
  if (!["GET", "HEAD", "OPTIONS"].includes(req.method)) assertSameOrigin(req);
  return p;
}

/**
 * Refuse a cookie-authenticated mutation that does not come from this site: it must carry an
 * Origin naming one of the server's own hosts (browsers send Origin on every POST/PATCH/DELETE),
 * and a Sec-Fetch-Site, when sent, must say same-origin.
 */
export function assertSameOrigin(req: Request, policy: HostPolicy = currentHostPolicy()): void {
  const site = req.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") throw new Forbidden("Cross-site request refused.");
  const origin = req.headers.get("origin");
  if (!origin) throw new Forbidden("Cross-site request refused: browser mutations must send Origin.");
  if (!isAllowedOrigin(policy, origin))
    throw new Forbidden(`Cross-site request refused: ${origin.slice(0, 100)} is not this server's origin.`);
}

/** Throw 403 unless the principal has `scope` (and, for project-limited keys, the project matches). */
export function requireScope(p: Principal, scope: Scope, projectId?: number): void {
  if (!hasScope(p.role, scope)) throw new Forbidden(`Your role (${p.role}) may not do this (needs ${scope}).`);
  // a dispatch's key posts rollouts (and its own dispatch's progress and validation, checked there); nothing else
  if (p.dispatchId && scope !== "rollouts:write" && scope !== "projects:read")
    throw new Forbidden("A dispatch key may only post rollouts, progress and validation of its dispatch.");
  if (p.projectId !== null && projectId !== undefined && p.projectId !== projectId) {
    throw new Forbidden("This API key is limited to another project.");
  }
  if (p.projectId !== null && projectId === undefined && scope !== "projects:read") {
    throw new Forbidden("This API key is limited to one project and cannot act outside it.");
  }
}

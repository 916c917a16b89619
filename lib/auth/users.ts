/** Browser accounts: the first-run admin, sign-in with sessions, and sign-out. */
import { and, count, eq, isNull, ne } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { sessions, users } from "@/lib/db/schema";
import { Conflict, Forbidden, Invalid, NotFound, Unauthorized } from "@/lib/errors";
import { isLoopbackHostname, parseHostHeader } from "@/lib/http/host-check";
import { PROXIED_HEADER } from "@/lib/http/guard";
import { forgetSigninFailures, reserveSigninAttempt } from "./signin-limits";
import { recordAudit } from "@/lib/audit";
import { hashPassword, newSessionToken, digestToken, verifyPassword } from "./secrets";
import { ROLES, type Role } from "./roles";

export const SESSION_TTL_MS = 14 * 24 * 3600 * 1000;

export const setupSchema = z.strictObject({
  email: z.email("must be an email address"),
  name: z.string().trim().min(1, "is required").max(100),
  password: z.string().min(10, "must be at least 10 characters").max(200),
});

export const signInSchema = z.strictObject({
  email: z.string().trim().min(1, "is required").max(320, "is too long"),
  password: z.string().min(1, "is required").max(200, "is too long"),
});

export const updateUserSchema = z.strictObject({
  disabled: z.boolean({ error: "must be true or false" }).optional(),
  /** a new role (an admin cannot demote themselves or the last enabled admin) */
  role: z.enum(ROLES).optional(),
  /** a new password set by an admin: the account's sessions end, the password is never logged */
  password: z.string().min(10, "must be at least 10 characters").max(200).optional(),
});

export const createUserSchema = setupSchema.extend({ role: z.enum(ROLES) });

/** True while no browser account exists (the first-run page is open). */
export async function needsSetup(db: Db): Promise<boolean> {
  const [{ n }] = await db.select({ n: count() }).from(users);
  return n === 0;
}

/** True for loopback peers: the first admin may only be created from the machine itself. */
export function isLoopback(address: string | null | undefined): boolean {
  if (!address) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

/**
 * True when a request comes from this machine to a loopback name, and not through a proxy: the
 * peer address (set by our server), the Host and the Origin are loopback, and it did not come
 * with forwarding headers (the front door's x-envforge-proxied).
 * A reverse proxy on the same machine makes every visitor a loopback peer, hence the rest.
 */
export function isLoopbackRequest(headers: { get(name: string): string | null }): boolean {
  if (!isLoopback(headers.get("x-envforge-peer"))) return false;
  const host = parseHostHeader(headers.get("host"));
  if (!host || !isLoopbackHostname(host)) return false;
  // the front door marks proxied requests (Next.js adds x-forwarded-* itself, so those cannot tell)
  if (headers.get(PROXIED_HEADER)) return false;
  const origin = headers.get("origin");
  if (origin) {
    let originHost: string | null = null;
    try {
      originHost = parseHostHeader(new URL(origin).host);
    } catch {
      return false;
    }
    if (!originHost || !isLoopbackHostname(originHost)) return false;
  }
  return true;
}

/** Create the first admin; refused once any account exists (serialised against a race). */
export async function createFirstAdmin(db: Db, input: z.infer<typeof setupSchema>, headers: { get(name: string): string | null }) {
  if (!isLoopbackRequest(headers))
    throw new Forbidden(
      "The first admin can only be created from the machine EnvForge runs on, at a loopback address (http://127.0.0.1 or http://localhost).",
    );
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    await tx.execute("LOCK TABLE users IN EXCLUSIVE MODE");
    const [{ n }] = await tx.select({ n: count() }).from(users);
    if (n > 0) throw new Conflict("An admin already exists: sign in instead.");
    const [u] = await tx
      .insert(users)
      .values({ email: input.email.toLowerCase(), name: input.name, passwordHash, role: "admin" })
      .returning({ id: users.id });
    await recordAudit(tx, {
      projectId: null,
      actor: `user:${input.email.toLowerCase()}`,
      action: "user.setup",
      entity: "user",
      entityId: u.id,
      after: { role: "admin" },
    });
    return u.id;
  });
}

/** Create an account (admin only, checked by the caller). */
export async function createUser(db: Db, input: z.infer<typeof createUserSchema>, actor: string) {
  const passwordHash = await hashPassword(input.password);
  const email = input.email.toLowerCase();
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (existing) throw new Conflict(`An account for ${email} exists already.`);
  const [u] = await db
    .insert(users)
    .values({ email, name: input.name, passwordHash, role: input.role as Role })
    .returning({ id: users.id });
  await recordAudit(db, {
    projectId: null,
    actor,
    action: "user.create",
    entity: "user",
    entityId: u.id,
    after: { email, role: input.role },
  });
  return u.id;
}

const userColumns = {
  id: users.id,
  email: users.email,
  name: users.name,
  role: users.role,
  disabledAt: users.disabledAt,
  createdAt: users.createdAt,
};

function userView(u: { id: number; email: string; name: string; role: string; disabledAt: Date | null; createdAt: Date }) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    disabled: u.disabledAt !== null,
    disabledAt: u.disabledAt?.toISOString() ?? null,
    createdAt: u.createdAt.toISOString(),
  };
}

/** Every account, without password hashes. */
export async function listUsers(db: Db) {
  const rows = await db.select(userColumns).from(users).orderBy(users.id);
  return rows.map(userView);
}

/**
 * Check credentials and open a session; returns the cookie token. Counts against the per-account
 * and per-address limits (429 when over), and audits every refusal.
 */
export async function signIn(db: Db, input: z.infer<typeof signInSchema>, address: string): Promise<{ token: string; expiresAt: Date }> {
  const email = input.email.toLowerCase();
  await reserveSigninAttempt(db, email, address);
  const [u] = await db.select().from(users).where(eq(users.email, email));
  // hash anyway so a wrong email and a wrong password take the same time
  const ok = u ? await verifyPassword(input.password, u.passwordHash) : (await hashPassword(input.password), false);
  const refuse = (reason: string) =>
    recordAudit(db, {
      projectId: null,
      actor: `signin:${address}`,
      action: "user.signin_failed",
      entity: "user",
      entityId: u?.id ?? email,
      after: { email, address, reason },
    });
  if (!u || !ok) {
    await refuse(u ? "wrong password" : "unknown account");
    throw new Unauthorized("Wrong email or password.");
  }
  if (u.disabledAt) {
    await refuse("account disabled");
    throw new Forbidden("This account is disabled: ask an admin to enable it.");
  }
  await forgetSigninFailures(db, email);
  return openSession(db, u.id);
}

/**
 * Disable or enable an account (admin only, checked by the caller). Disabling ends its sessions in
 * the same transaction; an admin cannot disable themselves or the last enabled admin.
 */
export async function setUserDisabled(db: Db, id: number, disabled: boolean, by: { kind: string; id: number; actor: string }) {
  return db.transaction(async (tx) => {
    await tx.execute("LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE");
    const [u] = await tx.select(userColumns).from(users).where(eq(users.id, id));
    if (!u) throw new NotFound(`No account with id ${id}.`);
    let ended = 0;
    if (disabled && !u.disabledAt) {
      if (by.kind === "user" && by.id === id) throw new Conflict("You cannot disable your own account.");
      if (u.role === "admin") {
        const [{ n }] = await tx
          .select({ n: count() })
          .from(users)
          .where(and(eq(users.role, "admin"), isNull(users.disabledAt), ne(users.id, id)));
        if (n === 0) throw new Conflict("This is the last enabled admin account; enable or add another admin first.");
      }
      await tx.update(users).set({ disabledAt: new Date() }).where(eq(users.id, id));
      ended = (await tx.delete(sessions).where(eq(sessions.userId, id)).returning({ id: sessions.id })).length;
      await recordAudit(tx, {
        projectId: null,
        actor: by.actor,
        action: "user.disable",
        entity: "user",
        entityId: id,
        before: { disabled: false },
        after: { disabled: true, sessionsEnded: ended },
      });
    } else if (!disabled && u.disabledAt) {
      await tx.update(users).set({ disabledAt: null }).where(eq(users.id, id));
      await recordAudit(tx, {
        projectId: null,
        actor: by.actor,
        action: "user.enable",
        entity: "user",
        entityId: id,
        before: { disabled: true },
        after: { disabled: false },
      });
    }
    const [after] = await tx.select(userColumns).from(users).where(eq(users.id, id));
    return { ...userView(after), sessionsEnded: ended };
  });
}

/** End every session of an account (admin only, checked by the caller); returns how many ended. */
export async function endUserSessions(db: Db, id: number, actor: string): Promise<number> {
  return db.transaction(async (tx) => {
    const [u] = await tx.select({ id: users.id }).from(users).where(eq(users.id, id));
    if (!u) throw new NotFound(`No account with id ${id}.`);
    const ended = (await tx.delete(sessions).where(eq(sessions.userId, id)).returning({ id: sessions.id })).length;
    await recordAudit(tx, {
      projectId: null,
      actor,
      action: "user.sessions_end",
      entity: "user",
      entityId: id,
      after: { sessionsEnded: ended },
    });
    return ended;
  });
}

/** Open a session for a user. */
export async function openSession(db: Db, userId: number) {
  const token = newSessionToken();
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await db.insert(sessions).values({ id: digestToken(token), userId, expiresAt });
  return { token, expiresAt };
}

/** End a session. */
export async function signOut(db: Db, token: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, digestToken(token)));
}

/**
 * PATCH /users/{id} (admin only, checked by the caller): role, password reset, disabled, in that
 * order, each audited (never the password); a reset or a demotion ends the account's sessions.
 */
export async function updateUser(
  db: Db,
  id: number,
  input: z.infer<typeof updateUserSchema>,
  by: { kind: string; id: number; actor: string },
) {
  if (input.role === undefined && input.password === undefined && input.disabled === undefined) {
    throw new Invalid("Nothing to change: give role, password or disabled.", [{ path: "(root)", message: "names nothing to change" }]);
  }
  let ended = 0;
  if (input.role !== undefined || input.password !== undefined) {
    const passwordHash = input.password !== undefined ? await hashPassword(input.password) : undefined;
    ended += await db.transaction(async (tx) => {
      await tx.execute("LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE");
      const [u] = await tx.select(userColumns).from(users).where(eq(users.id, id));
      if (!u) throw new NotFound(`No account with id ${id}.`);
      let endSessions = false;
      if (input.role !== undefined && input.role !== u.role) {
        if (u.role === "admin") {
          if (by.kind === "user" && by.id === id) throw new Conflict("You cannot change your own role; another admin can.");
          const [{ n }] = await tx
            .select({ n: count() })
            .from(users)
            .where(and(eq(users.role, "admin"), isNull(users.disabledAt), ne(users.id, id)));
          if (n === 0) throw new Conflict("This is the last enabled admin account; make another account admin first.");
        }
        await tx.update(users).set({ role: input.role }).where(eq(users.id, id));
        await recordAudit(tx, {
          projectId: null,
          actor: by.actor,
          action: "user.role",
          entity: "user",
          entityId: id,
          before: { role: u.role },
          after: { role: input.role },
        });
        endSessions = true;
      }
      if (passwordHash !== undefined) {
        await tx.update(users).set({ passwordHash }).where(eq(users.id, id));
        await recordAudit(tx, { projectId: null, actor: by.actor, action: "user.password_reset", entity: "user", entityId: id });
        endSessions = true;
      }
      // open sessions carry the old role or were opened with the old password: they end
      return endSessions && !(by.kind === "user" && by.id === id)
        ? (await tx.delete(sessions).where(eq(sessions.userId, id)).returning({ id: sessions.id })).length
        : 0;
    });
  }
  if (input.disabled !== undefined) {
    const r = await setUserDisabled(db, id, input.disabled, by);
    return { ...r, sessionsEnded: r.sessionsEnded + ended };
  }
  const [after] = await db.select(userColumns).from(users).where(eq(users.id, id));
  return { ...userView(after), sessionsEnded: ended };
}

/** Browser accounts: the first-run admin, sign-in with sessions, and sign-out. */
import { count, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { sessions, users } from "@/lib/db/schema";
import { Conflict, Forbidden, Unauthorized } from "@/lib/api/errors";
import { recordAudit } from "@/lib/review/audit";
import { hashPassword, newSessionToken, digestToken, verifyPassword } from "./secrets";
import { ROLES, type Role } from "./roles";

export const SESSION_TTL_MS = 14 * 24 * 3600 * 1000;

export const setupSchema = z.strictObject({
  email: z.email("must be an email address"),
  name: z.string().trim().min(1, "is required").max(100),
  password: z.string().min(10, "must be at least 10 characters").max(200),
});

export const signInSchema = z.strictObject({
  email: z.string().trim().min(1, "is required"),
  password: z.string().min(1, "is required"),
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

/** Create the first admin; refused once any account exists (serialised against a race). */
export async function createFirstAdmin(db: Db, input: z.infer<typeof setupSchema>, peer: string | null) {
  if (!isLoopback(peer)) throw new Forbidden("The first admin can only be created from the machine EnvForge runs on.");
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    await tx.execute("LOCK TABLE users IN EXCLUSIVE MODE");
    const [{ n }] = await tx.select({ n: count() }).from(users);
    if (n > 0) throw new Conflict("An admin already exists: sign in instead.");
    const [u] = await tx
      .insert(users)
      .values({ email: input.email.toLowerCase(), name: input.name, passwordHash, role: "admin" })
      .returning({ id: users.id });
    await recordAudit(tx, { projectId: null, actor: `user:${input.email.toLowerCase()}`, action: "user.setup", entity: "user", entityId: u.id, after: { role: "admin" } });
    return u.id;
  });
}

/** Create an account (admin only, checked by the caller). */
export async function createUser(db: Db, input: z.infer<typeof createUserSchema>, actor: string) {
  const passwordHash = await hashPassword(input.password);
  const email = input.email.toLowerCase();
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (existing) throw new Conflict(`An account for ${email} exists already.`);
  const [u] = await db.insert(users).values({ email, name: input.name, passwordHash, role: input.role as Role }).returning({ id: users.id });
  await recordAudit(db, { projectId: null, actor, action: "user.create", entity: "user", entityId: u.id, after: { email, role: input.role } });
  return u.id;
}

/** Every account, without password hashes. */
export async function listUsers(db: Db) {
  const rows = await db.select({ id: users.id, email: users.email, name: users.name, role: users.role, createdAt: users.createdAt }).from(users).orderBy(users.id);
  return rows.map((u) => ({ ...u, createdAt: u.createdAt.toISOString() }));
}

/** Check credentials and open a session; returns the cookie token. */
export async function signIn(db: Db, input: z.infer<typeof signInSchema>): Promise<{ token: string; expiresAt: Date }> {
  const [u] = await db.select().from(users).where(eq(users.email, input.email.toLowerCase()));
  // hash anyway so a wrong email and a wrong password take the same time
  const ok = u ? await verifyPassword(input.password, u.passwordHash) : (await hashPassword(input.password), false);
  if (!u || !ok) throw new Unauthorized("Wrong email or password.");
  return openSession(db, u.id);
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

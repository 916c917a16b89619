/**
 * Browser accounts under attack: sign-in limits per account and per address (kept in Postgres),
 * audited failures, and admins disabling accounts and ending their sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { freshDatabase } from "./db";
import { call } from "./http";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { createDb } from "@/lib/db/client";
import { auditEvents, sessions, signinAttempts, users } from "@/lib/db/schema";
import { reserveSigninAttempt } from "@/lib/auth/signin-limits";
import * as setupRoute from "@/app/api/auth/setup/route";
import * as signinRoute from "@/app/api/auth/signin/route";
import * as usersRoute from "@/app/api/v1/users/route";
import * as userRoute from "@/app/api/v1/users/[id]/route";
import * as userSessionsRoute from "@/app/api/v1/users/[id]/sessions/route";
import * as projectsRoute from "@/app/api/v1/projects/route";

const KEY = "test-bootstrap-token-0123456789";
const ORIGIN = "http://127.0.0.1:3000";
let db: Awaited<ReturnType<typeof freshDatabase>>;
let adminCookie = "";
let adminId = 0;

const PASSWORD = "a-long-password";

/** Sign in from `address` (the peer our server records); returns status, body, headers and the cookie. */
async function signIn(email: string, password: string, address = "10.0.0.1") {
  const r = await call(signinRoute.POST as never, "POST", "/api/auth/signin", {
    body: { email, password },
    headers: { origin: ORIGIN, "x-envforge-peer": address },
  });
  return { ...r, cookie: (r.headers.get("set-cookie") ?? "").split(";")[0] };
}

async function addUser(email: string, role = "reviewer"): Promise<number> {
  const r = await call(usersRoute.POST as never, "POST", "/api/v1/users", {
    token: KEY,
    body: { email, name: email.split("@")[0], password: PASSWORD, role },
  });
  expect(r.status).toBe(201);
  return r.json.id;
}

const asCookie = (cookie: string) => ({ headers: { cookie, origin: ORIGIN } });

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, KEY);
  const setup = await call(setupRoute.POST as never, "POST", "/api/auth/setup", {
    body: { email: "root@lab.org", name: "Root", password: PASSWORD },
    headers: { origin: ORIGIN, "x-envforge-peer": "127.0.0.1" },
  });
  expect(setup.status).toBe(201);
  adminCookie = (setup.headers.get("set-cookie") ?? "").split(";")[0];
  adminId = (await db.db.select({ id: users.id }).from(users).where(eq(users.email, "root@lab.org")))[0].id;
});
afterAll(async () => {
  await db?.drop();
});

describe("sign-in limits", () => {
  it("limits one account to 10 failures in 10 minutes, then 429 with Retry-After, even for the right password", async () => {
    await addUser("bob@lab.org");
    for (let i = 0; i < 10; i++) {
      // from different addresses: the account's own limit applies
      const r = await signIn("bob@lab.org", `wrong-${i}`, `10.1.0.${i}`);
      expect(r.status, `attempt ${i + 1}`).toBe(401);
    }
    const limited = await signIn("BOB@lab.org", "wrong-again", "10.1.0.99");
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe("too_many_requests");
    const retry = Number(limited.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(600);
    expect((await signIn("bob@lab.org", PASSWORD, "10.1.0.100")).status).toBe(429);
    // once the failures leave the window, the right password works again
    await db.db
      .update(signinAttempts)
      .set({ at: sql`${signinAttempts.at} - interval '11 minutes'` })
      .where(eq(signinAttempts.email, "bob@lab.org"));
    const ok = await signIn("bob@lab.org", PASSWORD, "10.1.0.100");
    expect(ok.status).toBe(200);
    expect(ok.cookie).toMatch(/^envforge_session=/);
  });

  it("limits one address to 10 failures across accounts; other addresses are not affected", async () => {
    for (let i = 0; i < 10; i++) {
      expect((await signIn(`nobody-${i}@lab.org`, "guess", "10.2.0.1")).status).toBe(401);
    }
    expect((await signIn("nobody-new@lab.org", "guess", "10.2.0.1")).status).toBe(429);
    expect((await signIn("nobody-new@lab.org", "guess", "10.2.0.2")).status).toBe(401);
  });

  it("forgets an account's failures after a successful sign-in", async () => {
    await addUser("carol@lab.org");
    for (let i = 0; i < 9; i++) expect((await signIn("carol@lab.org", "wrong", `10.3.0.${i}`)).status).toBe(401);
    expect((await signIn("carol@lab.org", PASSWORD, "10.3.0.50")).status).toBe(200);
    expect((await signIn("carol@lab.org", "wrong", "10.3.0.51")).status).toBe(401);
  });

  it("counts parallel guesses: 15 at once, exactly 10 are checked", async () => {
    await addUser("dave@lab.org");
    const results = await Promise.all(Array.from({ length: 15 }, (_, i) => signIn("dave@lab.org", `guess-${i}`, `10.4.0.${i}`)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });

  it("keeps the counts in the database, so another process sees them", async () => {
    const other = createDb(db.url, 1);
    try {
      await expect(
        reserveSigninAttempt(other.db, "dave@lab.org", "10.9.9.9", { maxFailures: 10, windowMs: 600_000 }),
      ).rejects.toMatchObject({ status: 429 });
      await expect(
        reserveSigninAttempt(other.db, "dave@lab.org", "10.9.9.9", { maxFailures: 20, windowMs: 600_000 }),
      ).resolves.toBeGreaterThan(0);
    } finally {
      await other.pool.end();
    }
  });

  it("audits every failed sign-in without the password", async () => {
    const rows = await db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "user.signin_failed")));
    const bob = rows.filter((r) => (r.after as { email: string }).email === "bob@lab.org");
    expect(bob).toHaveLength(10);
    expect(bob[0]).toMatchObject({
      actor: "signin:10.1.0.0",
      entity: "user",
      after: { email: "bob@lab.org", address: "10.1.0.0", reason: "wrong password" },
    });
    expect(rows.find((r) => (r.after as { email: string }).email === "nobody-0@lab.org")?.after).toMatchObject({
      reason: "unknown account",
    });
    expect(JSON.stringify(rows)).not.toMatch(/wrong-\d|guess/);
  });
});

describe("disabling accounts", () => {
  let erinId = 0;
  let erinCookie = "";

  it("disables an account: its cookie stops working at once, it cannot sign in, and it is audited", async () => {
    erinId = await addUser("erin@lab.org");
    erinCookie = (await signIn("erin@lab.org", PASSWORD, "10.5.0.1")).cookie;
    expect((await call(projectsRoute.GET as never, "GET", "/api/v1/projects", asCookie(erinCookie))).status).toBe(200);

    const r = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${erinId}`, {
      ...asCookie(adminCookie),
      body: { disabled: true },
      params: { id: String(erinId) },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: erinId, disabled: true, sessionsEnded: 1 });
    expect((await call(projectsRoute.GET as never, "GET", "/api/v1/projects", asCookie(erinCookie))).status).toBe(401);
    expect(await db.db.select().from(sessions).where(eq(sessions.userId, erinId))).toHaveLength(0);

    const refused = await signIn("erin@lab.org", PASSWORD, "10.5.0.1");
    expect(refused.status).toBe(403);
    expect(refused.json.error.message).toMatch(/disabled/);
    expect(refused.cookie).toBe("");

    const list = await call(usersRoute.GET as never, "GET", "/api/v1/users", { token: KEY });
    expect(list.json.users.find((u: { id: number }) => u.id === erinId)).toMatchObject({ disabled: true, disabledAt: expect.any(String) });
    const [audit] = await db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "user.disable"), eq(auditEvents.entityId, String(erinId))));
    expect(audit).toMatchObject({ actor: "user:root@lab.org", after: { disabled: true, sessionsEnded: 1 } });
  });

  it("refuses a disabled account's session even if its row was left behind", async () => {
    await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${erinId}`, {
      token: KEY,
      body: { disabled: false },
      params: { id: String(erinId) },
    });
    const cookie = (await signIn("erin@lab.org", PASSWORD, "10.5.0.1")).cookie;
    expect((await call(projectsRoute.GET as never, "GET", "/api/v1/projects", asCookie(cookie))).status).toBe(200);
    await db.db.update(users).set({ disabledAt: new Date() }).where(eq(users.id, erinId));
    expect((await call(projectsRoute.GET as never, "GET", "/api/v1/projects", asCookie(cookie))).status).toBe(401);
    await db.db.update(users).set({ disabledAt: null }).where(eq(users.id, erinId));
  });

  it("ends an account's sessions without disabling it", async () => {
    const cookie = (await signIn("erin@lab.org", PASSWORD, "10.5.0.1")).cookie;
    const r = await call(userSessionsRoute.DELETE as never, "DELETE", `/api/v1/users/${erinId}/sessions`, {
      ...asCookie(adminCookie),
      params: { id: String(erinId) },
    });
    expect(r.status).toBe(200);
    expect(r.json.sessionsEnded).toBeGreaterThanOrEqual(1);
    expect((await call(projectsRoute.GET as never, "GET", "/api/v1/projects", asCookie(cookie))).status).toBe(401);
    expect((await signIn("erin@lab.org", PASSWORD, "10.5.0.1")).status).toBe(200);
    const [audit] = await db.db.select().from(auditEvents).where(eq(auditEvents.action, "user.sessions_end"));
    expect(audit).toMatchObject({ actor: "user:root@lab.org", entityId: String(erinId) });
  });

  it("refuses self-disable, the last admin, non-admins, bad bodies and unknown accounts", async () => {
    const self = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${adminId}`, {
      ...asCookie(adminCookie),
      body: { disabled: true },
      params: { id: String(adminId) },
    });
    expect(self.status).toBe(409);
    const lastAdmin = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${adminId}`, {
      token: KEY,
      body: { disabled: true },
      params: { id: String(adminId) },
    });
    expect(lastAdmin.status).toBe(409);
    expect(lastAdmin.json.error.message).toMatch(/last enabled admin/);

    const reviewer = (await signIn("carol@lab.org", PASSWORD, "10.6.0.1")).cookie;
    const forbidden = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${erinId}`, {
      ...asCookie(reviewer),
      body: { disabled: true },
      params: { id: String(erinId) },
    });
    expect(forbidden.status).toBe(403);
    const forbiddenEnd = await call(userSessionsRoute.DELETE as never, "DELETE", `/api/v1/users/${adminId}/sessions`, {
      ...asCookie(reviewer),
      params: { id: String(adminId) },
    });
    expect(forbiddenEnd.status).toBe(403);

    const bad = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${erinId}`, {
      token: KEY,
      body: { disabled: "yes" },
      params: { id: String(erinId) },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details[0].path).toBe("disabled");
    const unknown = await call(userRoute.PATCH as never, "PATCH", "/api/v1/users/999999", {
      token: KEY,
      body: { disabled: true },
      params: { id: "999999" },
    });
    expect(unknown.status).toBe(404);
    // a cross-site page cannot disable anyone with the admin's cookie
    const csrf = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${erinId}`, {
      headers: { cookie: adminCookie, origin: "http://evil.com" },
      body: { disabled: true },
      params: { id: String(erinId) },
    });
    expect(csrf.status).toBe(403);
    const [erin] = await db.db.select({ disabledAt: users.disabledAt }).from(users).where(eq(users.id, erinId));
    expect(erin.disabledAt).toBeNull();
  });
});

describe("role changes and password resets", () => {
  it("changes a role (sessions end, audited before/after) and refuses demoting oneself or the last admin", async () => {
    const id = await addUser("fay@lab.org", "viewer");
    const cookie = (await signIn("fay@lab.org", PASSWORD, "10.7.0.1")).cookie;
    const r = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${id}`, {
      ...asCookie(adminCookie),
      body: { role: "reviewer" },
      params: { id: String(id) },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id, role: "reviewer", sessionsEnded: 1 });
    expect((await call(projectsRoute.GET as never, "GET", "/api/v1/projects", asCookie(cookie))).status).toBe(401);
    const [audit] = await db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "user.role"), eq(auditEvents.entityId, String(id))));
    expect(audit).toMatchObject({ actor: "user:root@lab.org", before: { role: "viewer" }, after: { role: "reviewer" } });

    const self = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${adminId}`, {
      ...asCookie(adminCookie),
      body: { role: "viewer" },
      params: { id: String(adminId) },
    });
    expect(self.status).toBe(409);
    const last = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${adminId}`, {
      token: KEY,
      body: { role: "viewer" },
      params: { id: String(adminId) },
    });
    expect(last.status).toBe(409);
    expect(last.json.error.message).toMatch(/last enabled admin/);
    const bad = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${id}`, {
      token: KEY,
      body: { role: "owner" },
      params: { id: String(id) },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details[0].path).toBe("role");
    const empty = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${id}`, {
      token: KEY,
      body: {},
      params: { id: String(id) },
    });
    expect(empty.status).toBe(422);
  });

  it("resets a password: the old one stops working, the new one signs in, sessions end, the audit never holds it", async () => {
    const id = await addUser("gus@lab.org");
    const cookie = (await signIn("gus@lab.org", PASSWORD, "10.8.0.1")).cookie;
    const NEW = "a-brand-new-password-42";
    const short = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${id}`, {
      ...asCookie(adminCookie),
      body: { password: "short" },
      params: { id: String(id) },
    });
    expect(short.status).toBe(422);
    expect(short.json.error.details[0].path).toBe("password");
    const r = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${id}`, {
      ...asCookie(adminCookie),
      body: { password: NEW },
      params: { id: String(id) },
    });
    expect(r.status).toBe(200);
    expect(r.json.sessionsEnded).toBe(1);
    expect(JSON.stringify(r.json)).not.toContain(NEW);
    expect((await call(projectsRoute.GET as never, "GET", "/api/v1/projects", asCookie(cookie))).status).toBe(401);
    expect((await signIn("gus@lab.org", PASSWORD, "10.8.0.2")).status).toBe(401);
    expect((await signIn("gus@lab.org", NEW, "10.8.0.3")).status).toBe(200);
    const events = await db.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.entityId, String(id)));
    expect(events.some((e) => e.action === "user.password_reset")).toBe(true);
    expect(JSON.stringify(events)).not.toContain(NEW);
    const reviewer = (await signIn("carol@lab.org", PASSWORD, "10.6.0.9")).cookie;
    const forbidden = await call(userRoute.PATCH as never, "PATCH", `/api/v1/users/${id}`, {
      ...asCookie(reviewer),
      body: { password: NEW + "x" },
      params: { id: String(id) },
    });
    expect(forbidden.status).toBe(403);
  });
});

/**
 * The annotation queue over HTTP on a real Postgres: the queue of an explorer filter with its progress,
 * the locks (two reviewers walking the same queue at once never hold the same rollout; an expired lock
 * is taken over; renewal; release only of one's own lock; an admin breaks anyone's lock, audited), and editing and deleting annotations
 * (author or project admin only, audited with before and after).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { freshDatabase } from "./db";
import { startApiServer } from "./api-server";
import { createApiKey, ensureBootstrapKey } from "@/lib/auth/keys";
import { annotationLocks } from "@/lib/db/schema";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { lake } from "./configs";

const TOKEN = "test-bootstrap-token-queue-0001";
let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: Awaited<ReturnType<typeof startApiServer>>;
let admin: EnvForgeClient;
let ada: EnvForgeClient;
let bob: EnvForgeClient;
let viewer: EnvForgeClient;
let foreignAdmin: EnvForgeClient;
let queueIds: number[] = [];
let otherId = 0;

type ErrorBody = { error: { code: string; message: string; details: { path?: string; message: string }[] } };
const attempt = <T = ErrorBody>(c: EnvForgeClient, method: string, p: string, json?: unknown) =>
  c.request(method, p, json === undefined ? undefined : { json }).then(
    (body) => ({ status: 200, body: body as unknown as T & ErrorBody }),
    (e) => (e instanceof ApiError ? { status: e.status, body: e.body as T & ErrorBody } : Promise.reject(e)),
  );
interface Claim {
  rolloutId: number | null;
  expiresAt: string | null;
  skipped: { rolloutId: number; owner: string }[];
}
const claim = (c: EnvForgeClient, candidates: number[], release?: number) =>
  c.request<Claim>("POST", "/api/v1/projects/qq/annotation-queue/claim", { json: { candidates, release } });
const locks = () =>
  admin
    .request<{ locks: { rolloutId: number; owner: string; expiresAt: string }[] }>("GET", "/api/v1/projects/qq/annotation-queue/locks")
    .then((r) => r.locks);

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, TOKEN);
  server = await startApiServer();
  admin = new EnvForgeClient({ server: server.url, token: TOKEN });
  for (const slug of ["qq", "elsewhere"]) {
    await admin.request("POST", "/api/v1/projects", { json: { slug, name: slug, family: "frozenlake-mapf" } });
    await admin.request("POST", `/api/v1/projects/${slug}/generations`, { json: { environments: [{ key: "e1", config: lake(1) }] } });
    await admin.request("POST", `/api/v1/projects/${slug}/rollouts`, {
      json: Array.from({ length: 12 }, (_, i) => ({
        externalId: `${slug}-${i}`,
        environmentKey: "e1",
        policy: i < 10 ? "p" : "other",
        reward: i % 2,
        trajectory: [
          { role: "user", content: "go" },
          { role: "assistant", content: `step ${i}` },
        ],
      })),
    });
    await admin.request("POST", `/api/v1/projects/${slug}/labels`, { json: { name: "good" } });
    await admin.request("POST", `/api/v1/projects/${slug}/labels`, { json: { name: "bad" } });
  }
  const key = async (name: string, role: "admin" | "reviewer" | "viewer", project?: string) =>
    new EnvForgeClient({ server: server.url, token: (await createApiKey(db.db, { name, role, project }, { actor: "test" })).key });
  ada = await key("ada", "reviewer");
  bob = await key("bob", "reviewer");
  viewer = await key("val", "viewer");
  foreignAdmin = await key("eve", "admin", "elsewhere");
  const other = await admin.request<{ items: { id: number }[] }>("GET", "/api/v1/projects/elsewhere/rollouts?limit=1");
  otherId = other.items[0].id;
}, 120_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe("the annotation queue", () => {
  it("holds the explorer filter's rollouts in its order, with how many are annotated", async () => {
    const q = await viewer.request<{ rolloutIds: number[]; annotated: number[]; total: number; done: number; truncated: boolean }>(
      "GET",
      "/api/v1/projects/qq/annotation-queue?policy=p&sort=oldest",
    );
    const list = await viewer.request<{ items: { id: number }[] }>("GET", "/api/v1/projects/qq/rollouts?policy=p&sort=oldest");
    expect(q.rolloutIds).toEqual(list.items.map((r) => r.id));
    expect(q).toMatchObject({ total: 10, done: 0, truncated: false, annotated: [] });
    queueIds = q.rolloutIds;
    await ada.request("POST", `/api/v1/rollouts/${queueIds[3]}/annotations`, { json: { label: "good" } });
    const after = await viewer.request<{ done: number; annotated: number[] }>(
      "GET",
      "/api/v1/projects/qq/annotation-queue?policy=p&sort=oldest",
    );
    expect(after).toMatchObject({ done: 1, annotated: [queueIds[3]] });
    const bad = await attempt(viewer, "GET", "/api/v1/projects/qq/annotation-queue?minReward=lots");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("minReward");
  });

  it("two reviewers walking the same queue at once never hold the same rollout", async () => {
    // where each reviewer is in the queue, and the rollout each holds (none once their queue ran out)
    const at: Record<string, number> = { ada: -1, bob: -1 };
    const held: Record<string, number | undefined> = {};
    const seen: number[] = [];
    // each reviewer asks for the next rollout after where they are, both at the same moment, until the queue is walked
    for (let round = 0; round < queueIds.length; round++) {
      const step = async (name: "ada" | "bob", client: EnvForgeClient) => {
        const candidates = queueIds.slice(at[name] + 1);
        if (candidates.length === 0) return;
        const got = await claim(client, candidates, held[name]);
        held[name] = got.rolloutId ?? undefined;
        at[name] = got.rolloutId === null ? queueIds.length : queueIds.indexOf(got.rolloutId);
        if (got.rolloutId !== null) seen.push(got.rolloutId);
      };
      await Promise.all([step("ada", ada), step("bob", bob)]);
      if (held.ada !== undefined && held.bob !== undefined) expect(held.ada).not.toBe(held.bob);
      // the locks table agrees: one lock each at most, never on the same rollout
      const live = await locks();
      expect(live.map((l) => l.rolloutId).sort()).toEqual([held.ada, held.bob].filter((id) => id !== undefined).sort());
    }
    // between them they visited every rollout of the queue
    expect(new Set(seen)).toEqual(new Set(queueIds));
    for (const [name, client] of [["ada", ada] as const, ["bob", bob] as const])
      if (held[name] !== undefined) await client.request("DELETE", `/api/v1/projects/qq/annotation-queue/locks/${held[name]}`);
    expect(await locks()).toEqual([]);
  });

  it("a reviewer lets go of their own lock only", async () => {
    expect((await claim(bob, [queueIds[4]])).rolloutId).toBe(queueIds[4]);
    expect((await attempt(ada, "DELETE", `/api/v1/projects/qq/annotation-queue/locks/${queueIds[4]}`)).status).toBe(200);
    expect((await locks()).map((l) => [l.rolloutId, l.owner])).toEqual([[queueIds[4], "key:bob"]]);
    await bob.request("DELETE", `/api/v1/projects/qq/annotation-queue/locks/${queueIds[4]}`);
    expect(await locks()).toEqual([]);
  });

  it("two reviewers claiming the same free rollouts at the same moment always get different ones", async () => {
    for (let round = 0; round < 8; round++) {
      const candidates = queueIds.slice(round, round + 3);
      const [a, b] = await Promise.all([claim(ada, candidates), claim(bob, candidates)]);
      expect(a.rolloutId).not.toBeNull();
      expect(b.rolloutId).not.toBeNull();
      expect(a.rolloutId).not.toBe(b.rolloutId);
      await Promise.all([
        ada.request("DELETE", `/api/v1/projects/qq/annotation-queue/locks/${a.rolloutId}`),
        bob.request("DELETE", `/api/v1/projects/qq/annotation-queue/locks/${b.rolloutId}`),
      ]);
    }
    expect(await locks()).toEqual([]);
  });

  it("skips a rollout another reviewer holds, names who holds it, and renews one's own lock", async () => {
    const a = await claim(ada, [queueIds[0], queueIds[1]]);
    expect(a.rolloutId).toBe(queueIds[0]);
    const b = await claim(bob, [queueIds[0], queueIds[1]]);
    expect(b.rolloutId).toBe(queueIds[1]);
    expect(b.skipped).toEqual([expect.objectContaining({ rolloutId: queueIds[0], owner: "key:ada" })]);
    // only the held rollout, held by someone else: nothing to take
    expect(await claim(bob, [queueIds[0]])).toMatchObject({ rolloutId: null });
    // renewal: claiming one's own rollout again pushes its expiry out
    await db.db
      .update(annotationLocks)
      .set({ expiresAt: sql`now() + interval '1 minute'` })
      .where(eq(annotationLocks.rolloutId, queueIds[0]));
    const renewed = await claim(ada, [queueIds[0]]);
    expect(renewed.rolloutId).toBe(queueIds[0]);
    const [row] = await db.db
      .select({ later: sql<boolean>`${annotationLocks.expiresAt} > now() + interval '5 minutes'` })
      .from(annotationLocks)
      .where(eq(annotationLocks.rolloutId, queueIds[0]));
    expect(row.later).toBe(true);
  });

  it("an expired lock is taken over, and its former holder learns it lost it", async () => {
    await db.db
      .update(annotationLocks)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(annotationLocks.rolloutId, queueIds[0]));
    // expired locks are not listed as live
    expect((await locks()).map((l) => l.rolloutId)).not.toContain(queueIds[0]);
    const b = await claim(bob, [queueIds[0]], queueIds[1]);
    expect(b).toMatchObject({ rolloutId: queueIds[0], skipped: [] });
    // bob let go of the one he left
    expect((await locks()).map((l) => [l.rolloutId, l.owner])).toEqual([[queueIds[0], "key:bob"]]);
    const a = await claim(ada, [queueIds[0]]);
    expect(a.rolloutId).toBeNull();
    expect(a.skipped[0]).toMatchObject({ rolloutId: queueIds[0], owner: "key:bob" });
  });

  it("refuses other projects' rollouts (422 naming the candidate), viewers (403) and bad bodies", async () => {
    const foreign = await attempt(ada, "POST", "/api/v1/projects/qq/annotation-queue/claim", { candidates: [queueIds[2], otherId] });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.details[0].path).toBe("candidates.1");
    expect((await attempt(viewer, "POST", "/api/v1/projects/qq/annotation-queue/claim", { candidates: [queueIds[2]] })).status).toBe(403);
    expect((await attempt(viewer, "DELETE", `/api/v1/projects/qq/annotation-queue/locks/${queueIds[2]}`)).status).toBe(403);
    expect((await attempt(foreignAdmin, "POST", "/api/v1/projects/qq/annotation-queue/claim", { candidates: [queueIds[2]] })).status).toBe(
      403,
    );
    expect((await attempt(ada, "POST", "/api/v1/projects/qq/annotation-queue/claim", { candidates: [] })).body.error.details[0].path).toBe(
      "candidates",
    );
    expect((await attempt(ada, "POST", "/api/v1/projects/qq/annotation-queue/claim", { candidates: ["1"] })).status).toBe(422);
    expect((await attempt(ada, "DELETE", "/api/v1/projects/qq/annotation-queue/locks/x")).status).toBe(400);
    // nothing was locked by the refused claims
    expect((await locks()).map((l) => l.rolloutId)).not.toContain(queueIds[2]);
  });
});

describe("breaking a lock", () => {
  const breakPath = (id: number | string, slug = "qq") => `/api/v1/projects/${slug}/annotation-queue/locks/${id}/break`;
  type Broken = { rolloutId: number; owner: string; expiresAt: string };
  type AuditEvent = { action: string; actor: string; entity: string; entityId: string; before: { owner: string; expiresAt: string } };
  const breaks = async () =>
    (await admin.request<{ events: AuditEvent[] }>("GET", "/api/v1/projects/qq/audit?action=annotation_lock.break")).events;

  it("a reviewer or viewer may not break someone else's lock (403, the lock stays); an admin may, audited, and the rollout is takeable", async () => {
    const held = queueIds[7];
    expect((await claim(ada, [held])).rolloutId).toBe(held);
    for (const other of [bob, viewer, foreignAdmin]) {
      const refused = await attempt(other, "POST", breakPath(held));
      expect(refused.status).toBe(403);
    }
    // bob cannot take it, and nothing was audited by the refusals
    expect((await claim(bob, [held])).rolloutId).toBeNull();
    expect((await locks()).find((l) => l.rolloutId === held)?.owner).toBe("key:ada");
    expect(await breaks()).toEqual([]);

    const broken = await admin.request<Broken>("POST", breakPath(held));
    expect(broken).toMatchObject({ rolloutId: held, owner: "key:ada" });
    expect((await locks()).map((l) => l.rolloutId)).not.toContain(held);
    const [event, ...more] = await breaks();
    expect(more).toEqual([]);
    expect(event).toMatchObject({ actor: "key:bootstrap", entity: "rollout", entityId: String(held), before: { owner: "key:ada" } });
    expect(event.before.expiresAt).toBe(broken.expiresAt);
    // free now: the next reviewer takes it
    expect(await claim(bob, [held])).toMatchObject({ rolloutId: held, skipped: [] });
    expect((await locks()).find((l) => l.rolloutId === held)?.owner).toBe("key:bob");
    await bob.request("DELETE", `/api/v1/projects/qq/annotation-queue/locks/${held}`);
  });

  it("an admin key limited to the project may break its locks; nobody's lock, an expired one or another project's rollout is a 404", async () => {
    const qqAdmin = new EnvForgeClient({
      server: server.url,
      token: (await createApiKey(db.db, { name: "qq-admin", role: "admin", project: "qq" }, { actor: "test" })).key,
    });
    expect((await claim(bob, [queueIds[8]])).rolloutId).toBe(queueIds[8]);
    expect(await qqAdmin.request<Broken>("POST", breakPath(queueIds[8]))).toMatchObject({ rolloutId: queueIds[8], owner: "key:bob" });
    const again = await attempt(qqAdmin, "POST", breakPath(queueIds[8]));
    expect(again.status).toBe(404);
    expect(again.body.error.message).toContain("free to take");
    // an expired lock is free already: nothing to break
    expect((await claim(ada, [queueIds[9]])).rolloutId).toBe(queueIds[9]);
    await db.db
      .update(annotationLocks)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(annotationLocks.rolloutId, queueIds[9]));
    expect((await attempt(admin, "POST", breakPath(queueIds[9]))).status).toBe(404);
    // a lock in another project is not reached through this one's path
    const elsewhere = await admin.request<Claim>("POST", "/api/v1/projects/elsewhere/annotation-queue/claim", {
      json: { candidates: [otherId] },
    });
    expect(elsewhere.rolloutId).toBe(otherId);
    expect((await attempt(qqAdmin, "POST", breakPath(otherId))).status).toBe(404);
    expect((await attempt(admin, "POST", breakPath(otherId))).status).toBe(404);
    expect((await attempt(qqAdmin, "POST", breakPath(otherId, "elsewhere"))).status).toBe(403);
    expect((await attempt(admin, "POST", breakPath("x"))).status).toBe(400);
    expect((await breaks()).map((e) => [e.actor, e.before.owner])).toEqual([
      ["key:qq-admin", "key:bob"],
      ["key:bootstrap", "key:ada"],
    ]);
  });
});

describe("editing and deleting annotations", () => {
  type View = { id: number; label: string | null; score: number | null; note: string | null; turn: number | null; actor: string };
  const base = () => `/api/v1/rollouts/${queueIds[5]}/annotations`;

  it("the author edits (null clears a field), another reviewer may not, a project admin may; audited with before and after", async () => {
    const made = await ada.request<View>("POST", base(), { json: { label: "good", note: "first look", turn: 1 } });
    const edited = await ada.request<View>("PATCH", `${base()}/${made.id}`, { json: { label: "bad", score: 0.5, turn: null } });
    expect(edited).toMatchObject({ id: made.id, label: "bad", score: 0.5, note: "first look", turn: null, actor: "key:ada" });
    const byBob = await attempt(bob, "PATCH", `${base()}/${made.id}`, { note: "mine now" });
    expect(byBob.status).toBe(403);
    expect(byBob.body.error.message).toContain("key:ada");
    expect((await attempt(viewer, "PATCH", `${base()}/${made.id}`, { note: "x" })).status).toBe(403);
    expect((await attempt(foreignAdmin, "PATCH", `${base()}/${made.id}`, { note: "x" })).status).toBe(403);
    const byAdmin = await admin.request<View>("PATCH", `${base()}/${made.id}`, { json: { note: null } });
    expect(byAdmin).toMatchObject({ label: "bad", score: 0.5, note: null, actor: "key:ada" });
    const listed = await viewer.request<{ annotations: View[] }>("GET", base());
    expect(listed.annotations.map((a) => [a.label, a.score, a.note, a.turn])).toEqual([["bad", 0.5, null, null]]);
    const audit = await admin.request<{ events: { action: string; actor: string; before: View; after: View }[] }>(
      "GET",
      "/api/v1/projects/qq/audit",
    );
    const updates = audit.events.filter((e) => e.action === "annotation.update");
    expect(updates.map((e) => [e.actor, e.before.label, e.after.label, e.before.note, e.after.note])).toEqual([
      ["key:bootstrap", "bad", "bad", "first look", null],
      ["key:ada", "good", "bad", "first look", "first look"],
    ]);
  });

  it("refuses edits that would leave nothing, unknown labels, bad turns and unknown ids, changing nothing", async () => {
    const [made] = (await viewer.request<{ annotations: View[] }>("GET", base())).annotations;
    const empty = await attempt(ada, "PATCH", `${base()}/${made.id}`, { label: null, score: null });
    expect(empty.status).toBe(422);
    expect(empty.body.error.message).toContain("delete it instead");
    expect((await attempt(ada, "PATCH", `${base()}/${made.id}`, { label: "flaky" })).body.error.details[0].path).toBe("label");
    expect((await attempt(ada, "PATCH", `${base()}/${made.id}`, { turn: 2 })).body.error.details[0].path).toBe("turn");
    expect((await attempt(ada, "PATCH", `${base()}/${made.id}`, {})).status).toBe(422);
    expect((await attempt(ada, "PATCH", `${base()}/${made.id}`, { note: "a\u0000b" })).body.error.details[0].path).toBe("note");
    // the annotation id must belong to the rollout in the path
    expect((await attempt(ada, "PATCH", `/api/v1/rollouts/${queueIds[6]}/annotations/${made.id}`, { note: "x" })).status).toBe(404);
    expect((await attempt(ada, "PATCH", `${base()}/999999`, { note: "x" })).status).toBe(404);
    const [still] = (await viewer.request<{ annotations: View[] }>("GET", base())).annotations;
    expect(still).toEqual(made);
  });

  it("the author or a project admin deletes; the audit log keeps what it said", async () => {
    const [made] = (await viewer.request<{ annotations: View[] }>("GET", base())).annotations;
    expect((await attempt(bob, "DELETE", `${base()}/${made.id}`)).status).toBe(403);
    expect((await attempt(ada, "DELETE", `${base()}/${made.id}`)).status).toBe(200);
    expect((await viewer.request<{ annotations: View[] }>("GET", base())).annotations).toEqual([]);
    expect((await attempt(ada, "DELETE", `${base()}/${made.id}`)).status).toBe(404);
    const bobs = await bob.request<View>("POST", base(), { json: { score: 2 } });
    expect((await attempt(admin, "DELETE", `${base()}/${bobs.id}`)).status).toBe(200);
    const audit = await admin.request<{ events: { action: string; actor: string; before: View & { author: string } }[] }>(
      "GET",
      "/api/v1/projects/qq/audit",
    );
    expect(audit.events.filter((e) => e.action === "annotation.delete").map((e) => [e.actor, e.before.author, e.before.label])).toEqual([
      ["key:bootstrap", "key:bob", null],
      ["key:ada", "key:ada", "bad"],
    ]);
  });
});

/**
 * Projects as the list shows them (real counts per project) and managed through the API:
 * PATCH (name, success threshold, default policy, archive) and DELETE, admin only and audited.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { freshDatabase } from "./db";
import { call } from "./http";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { auditEvents, environments, rollouts } from "@/lib/db/schema";
import * as keysRoute from "@/app/api/v1/keys/route";
import * as projectsRoute from "@/app/api/v1/projects/route";
import * as projectRoute from "@/app/api/v1/projects/[slug]/route";
import * as generationsRoute from "@/app/api/v1/projects/[slug]/generations/route";
import * as rolloutsRoute from "@/app/api/v1/projects/[slug]/rollouts/route";

const ADMIN = "test-bootstrap-token-0123456789";
let db: Awaited<ReturnType<typeof freshDatabase>>;

const lake = (seed: number) => ({
  size: 6,
  num_agents: 1,
  obstacle_density: 0.1,
  slip_probability: 0,
  max_steps: 60,
  min_goal_distance: 3,
  collision: "block_both",
  seed,
});

async function project(slug: string) {
  const r = await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
    token: ADMIN,
    body: { slug, name: slug.toUpperCase(), family: "frozenlake-mapf" },
  });
  expect(r.status).toBe(201);
}

async function generation(slug: string, keys: string[]) {
  const r = await call(generationsRoute.POST as never, "POST", `/api/v1/projects/${slug}/generations`, {
    token: ADMIN,
    params: { slug },
    body: { environments: keys.map((key, i) => ({ key, config: lake(i + 1) })) },
  });
  expect(r.status).toBe(201);
  return r.json.index as number;
}

async function rolloutsFor(slug: string, gen: number, envKeys: string[], perEnv: number) {
  const lines = envKeys.flatMap((k) =>
    Array.from({ length: perEnv }, (_, i) =>
      JSON.stringify({
        externalId: `${slug}-${gen}-${k}-${i}`,
        environmentKey: k,
        generation: gen,
        policy: "p",
        reward: i % 2,
        success: i % 2 === 1,
      }),
    ),
  );
  const r = await call(rolloutsRoute.POST as never, "POST", `/api/v1/projects/${slug}/rollouts`, {
    token: ADMIN,
    params: { slug },
    rawBody: lines.join("\n"),
    contentType: "application/x-ndjson",
  });
  expect(r.status, JSON.stringify(r.json)).toBeLessThan(300);
}

async function viewerKey() {
  const r = await call(keysRoute.POST as never, "POST", "/api/v1/keys", {
    token: ADMIN,
    body: { name: `viewer-${Math.random()}`, role: "viewer" },
  });
  return r.json.key as string;
}

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, ADMIN);
  await project("big");
  await project("small");
  await project("empty");
  // big: two generations (the second shares one environment), 3 + 1 environments, 3*4 + 2*2 rollouts
  await generation("big", ["a", "b", "c"]);
  await generation("big", ["a", "d"]);
  await rolloutsFor("big", 0, ["a", "b", "c"], 4);
  await rolloutsFor("big", 1, ["a", "d"], 2);
  // small: one generation, one environment, 3 rollouts
  await generation("small", ["x"]);
  await rolloutsFor("small", 0, ["x"], 3);
});
afterAll(async () => {
  await db?.drop();
});

describe("GET /api/v1/projects", () => {
  it("counts each project's own generations, environments and rollouts (empty ones show zero)", async () => {
    const r = await call(projectsRoute.GET as never, "GET", "/api/v1/projects", { token: ADMIN });
    expect(r.status).toBe(200);
    const bySlug = Object.fromEntries(r.json.projects.map((p: { slug: string }) => [p.slug, p]));
    expect(bySlug.big).toMatchObject({ generations: 2, environments: 4, rollouts: 16 });
    expect(bySlug.small).toMatchObject({ generations: 1, environments: 1, rollouts: 3 });
    expect(bySlug.empty).toMatchObject({ generations: 0, environments: 0, rollouts: 0 });
  });
});

describe("PATCH /api/v1/projects/{slug}", () => {
  it("renames, sets the threshold and default policy, archives and unarchives, each audited with before and after", async () => {
    const r = await call(projectRoute.PATCH as never, "PATCH", "/api/v1/projects/small", {
      token: ADMIN,
      params: { slug: "small" },
      body: { name: "Small run", successThreshold: 0.5, defaultPolicy: "p" },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ slug: "small", name: "Small run", successThreshold: 0.5, defaultPolicy: "p", archivedAt: null });
    const get = await call(projectRoute.GET as never, "GET", "/api/v1/projects/small", { token: ADMIN, params: { slug: "small" } });
    expect(get.json).toMatchObject({ name: "Small run", successThreshold: 0.5, defaultPolicy: "p" });

    const archived = await call(projectRoute.PATCH as never, "PATCH", "/api/v1/projects/small", {
      token: ADMIN,
      params: { slug: "small" },
      body: { archived: true },
    });
    expect(archived.json.archivedAt).toEqual(expect.any(String));
    expect(archived.json.name).toBe("Small run");
    const back = await call(projectRoute.PATCH as never, "PATCH", "/api/v1/projects/small", {
      token: ADMIN,
      params: { slug: "small" },
      body: { archived: false },
    });
    expect(back.json.archivedAt).toBeNull();

    const events = await db.db.select().from(auditEvents).where(eq(auditEvents.action, "project.update"));
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({ entity: "project", entityId: "small", actor: expect.any(String) });
    expect(events[0].before).toMatchObject({ name: "SMALL", successThreshold: 1 });
    expect(events[0].after).toMatchObject({ name: "Small run", successThreshold: 0.5, defaultPolicy: "p" });
  });

  it("refuses bad input naming the field, an empty change, and non-admins", async () => {
    const bad = await call(projectRoute.PATCH as never, "PATCH", "/api/v1/projects/small", {
      token: ADMIN,
      params: { slug: "small" },
      body: { successThreshold: -1 },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details[0].path).toBe("successThreshold");
    const unknown = await call(projectRoute.PATCH as never, "PATCH", "/api/v1/projects/small", {
      token: ADMIN,
      params: { slug: "small" },
      body: { slug: "renamed" },
    });
    expect(unknown.status).toBe(422);
    const empty = await call(projectRoute.PATCH as never, "PATCH", "/api/v1/projects/small", {
      token: ADMIN,
      params: { slug: "small" },
      body: {},
    });
    expect(empty.status).toBe(422);
    const viewer = await viewerKey();
    const forbidden = await call(projectRoute.PATCH as never, "PATCH", "/api/v1/projects/small", {
      token: viewer,
      params: { slug: "small" },
      body: { name: "x" },
    });
    expect(forbidden.status).toBe(403);
    const missing = await call(projectRoute.PATCH as never, "PATCH", "/api/v1/projects/nope", {
      token: ADMIN,
      params: { slug: "nope" },
      body: { name: "x" },
    });
    expect(missing.status).toBe(404);
  });
});

describe("DELETE /api/v1/projects/{slug}", () => {
  it("is admin only, removes the project with its environments and rollouts, and leaves the audit event", async () => {
    const viewer = await viewerKey();
    expect(
      (await call(projectRoute.DELETE as never, "DELETE", "/api/v1/projects/big", { token: viewer, params: { slug: "big" } })).status,
    ).toBe(403);
    const del = await call(projectRoute.DELETE as never, "DELETE", "/api/v1/projects/big", { token: ADMIN, params: { slug: "big" } });
    expect(del.status).toBe(204);
    expect((await call(projectRoute.GET as never, "GET", "/api/v1/projects/big", { token: ADMIN, params: { slug: "big" } })).status).toBe(
      404,
    );
    const list = await call(projectsRoute.GET as never, "GET", "/api/v1/projects", { token: ADMIN });
    expect(list.json.projects.map((p: { slug: string }) => p.slug).sort()).toEqual(["empty", "small"]);
    // the other projects keep theirs
    expect((await db.db.select().from(environments)).length).toBe(1);
    expect((await db.db.select().from(rollouts)).length).toBe(3);
    const [event] = await db.db.select().from(auditEvents).where(eq(auditEvents.action, "project.delete"));
    expect(event).toMatchObject({ entityId: "big", before: expect.objectContaining({ slug: "big" }) });
  });
});

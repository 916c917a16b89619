import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { call } from "./http";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import * as health from "@/app/api/health/route";
import * as keys from "@/app/api/v1/keys/route";
import * as keyById from "@/app/api/v1/keys/[id]/route";
import * as familiesRoute from "@/app/api/v1/families/route";
import * as projectsRoute from "@/app/api/v1/projects/route";
import * as projectRoute from "@/app/api/v1/projects/[slug]/route";
import * as generationsRoute from "@/app/api/v1/projects/[slug]/generations/route";
import * as generationRoute from "@/app/api/v1/projects/[slug]/generations/[index]/route";
import * as environmentsRoute from "@/app/api/v1/projects/[slug]/generations/[index]/environments/route";
import * as auditRoute from "@/app/api/v1/projects/[slug]/audit/route";
import * as usersRoute from "@/app/api/v1/users/route";

const ADMIN = "test-bootstrap-token-0123456789";
let db: Awaited<ReturnType<typeof freshDatabase>>;

const lake = (over: Record<string, unknown> = {}) => ({
  size: 6,
  num_agents: 1,
  obstacle_density: 0.1,
  slip_probability: 0,
  max_steps: 60,
  min_goal_distance: 3,
  collision: "block_both",
  seed: 7,
  ...over,
});

beforeAll(async () => {
  db = await freshDatabase();
  expect(await ensureBootstrapKey(db.db, ADMIN)).toBe("created");
  expect(await ensureBootstrapKey(db.db, ADMIN)).toBe("exists");
});
afterAll(async () => {
  await db?.drop();
});

describe("auth", () => {
  it("health needs no key", async () => {
    const r = await call(health.GET as never, "GET", "/api/health");
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: "ok", db: "ok" });
  });

  it("401 without a key or with an unknown one", async () => {
    expect((await call(projectsRoute.GET as never, "GET", "/api/v1/projects")).status).toBe(401);
    const r = await call(projectsRoute.GET as never, "GET", "/api/v1/projects", { token: "efk_nope" });
    expect(r.status).toBe(401);
    expect(r.json.error.code).toBe("unauthorized");
  });

  it("creates keys shown once, lists them without secrets, revokes at once", async () => {
    const created = await call(keys.POST as never, "POST", "/api/v1/keys", { token: ADMIN, body: { name: "viewer-1", role: "viewer" } });
    expect(created.status).toBe(201);
    expect(created.json.key).toMatch(/^efk_/);
    const list = await call(keys.GET as never, "GET", "/api/v1/keys", { token: ADMIN });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.json)).not.toContain(created.json.key);
    expect(list.json.keys.map((k: { name: string }) => k.name)).toContain("viewer-1");
    // a viewer may read but not create projects
    expect((await call(projectsRoute.GET as never, "GET", "/api/v1/projects", { token: created.json.key })).status).toBe(200);
    const forbidden = await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
      token: created.json.key,
      body: { slug: "x1", name: "x", family: "frozenlake-mapf" },
    });
    expect(forbidden.status).toBe(403);
    const del = await call(keyById.DELETE as never, "DELETE", `/api/v1/keys/${created.json.id}`, {
      token: ADMIN,
      params: { id: String(created.json.id) },
    });
    expect(del.status).toBe(204);
    expect((await call(projectsRoute.GET as never, "GET", "/api/v1/projects", { token: created.json.key })).status).toBe(401);
  });

  it("lets an admin add accounts, names bad fields, and refuses non-admins", async () => {
    const body = { email: "Rita@Lab.org", name: "Rita", password: "reviewer-password", role: "reviewer" };
    const created = await call(usersRoute.POST as never, "POST", "/api/v1/users", { token: ADMIN, body });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ email: "rita@lab.org", role: "reviewer" });
    expect((await call(usersRoute.POST as never, "POST", "/api/v1/users", { token: ADMIN, body })).status).toBe(409);
    const bad = await call(usersRoute.POST as never, "POST", "/api/v1/users", {
      token: ADMIN,
      body: { ...body, email: "x@y.org", password: "short" },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details[0].path).toBe("password");
    const list = await call(usersRoute.GET as never, "GET", "/api/v1/users", { token: ADMIN });
    expect(list.json.users.map((u: { email: string }) => u.email)).toContain("rita@lab.org");
    expect(JSON.stringify(list.json)).not.toContain("scrypt");
    const reviewerKey = await call(keys.POST as never, "POST", "/api/v1/keys", { token: ADMIN, body: { name: "rev", role: "reviewer" } });
    expect((await call(usersRoute.GET as never, "GET", "/api/v1/users", { token: reviewerKey.json.key })).status).toBe(403);
  });

  it("rejects a bad role with the field named", async () => {
    const r = await call(keys.POST as never, "POST", "/api/v1/keys", { token: ADMIN, body: { name: "k", role: "root" } });
    expect(r.status).toBe(422);
    expect(r.json.error.details[0].path).toBe("role");
  });

  it("refuses cookie-less, origin-less browser mutations and malformed JSON clearly", async () => {
    const bad = await call(projectsRoute.POST as never, "POST", "/api/v1/projects", { token: ADMIN, rawBody: "{not json" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/not valid JSON/);
    const wrongType = await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
      token: ADMIN,
      rawBody: "a=b",
      contentType: "text/plain",
    });
    expect(wrongType.status).toBe(415);
  });
});

describe("families and projects", () => {
  it("lists the four built-in families with fields and JSON Schema", async () => {
    const r = await call(familiesRoute.GET as never, "GET", "/api/v1/families", { token: ADMIN });
    expect(r.status).toBe(200);
    const ids = r.json.families.map((f: { id: string }) => f.id);
    expect(ids).toEqual(expect.arrayContaining(["terminal-task", "frozenlake-mapf", "persuasion-game", "search-agent"]));
    const lakeFamily = r.json.families.find((f: { id: string }) => f.id === "frozenlake-mapf");
    expect(lakeFamily.fields.find((f: { path: string }) => f.path === "slip_probability")).toMatchObject({
      kind: "number",
      direction: "uncertainty",
      difficulty: "up",
    });
    expect(lakeFamily.jsonSchema.type).toBe("object");
  });

  it("registers a custom family and refuses an invalid one", async () => {
    const body = {
      id: "maze-lite",
      version: "1",
      jsonSchema: {
        type: "object",
        properties: { width: { type: "integer", minimum: 2, maximum: 20 }, walls: { type: "boolean" } },
        required: ["width"],
        additionalProperties: false,
      },
      fields: [{ path: "width", kind: "integer", min: 2, max: 20, difficulty: "up", direction: "horizon" }],
    };
    const ok = await call(familiesRoute.POST as never, "POST", "/api/v1/families", { token: ADMIN, body });
    expect(ok.status).toBe(201);
    expect((await call(familiesRoute.POST as never, "POST", "/api/v1/families", { token: ADMIN, body })).status).toBe(409);
    const bad = await call(familiesRoute.POST as never, "POST", "/api/v1/families", {
      token: ADMIN,
      body: { ...body, id: "maze-bad", fields: [{ path: "height", kind: "integer", min: 1, max: 2 }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details[0].path).toMatch(/^fields\.0/);
  });

  it("creates a project, 409 on a taken slug, 404 on an unknown family, 422 naming the field", async () => {
    const r = await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
      token: ADMIN,
      body: { slug: "lake", name: "Lake", family: "frozenlake-mapf" },
    });
    expect(r.status).toBe(201);
    expect(r.json.slug).toBe("lake");
    expect(
      (
        await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
          token: ADMIN,
          body: { slug: "lake", name: "Lake", family: "frozenlake-mapf" },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
          token: ADMIN,
          body: { slug: "lake2", name: "L", family: "nope" },
        })
      ).status,
    ).toBe(404);
    const bad = await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
      token: ADMIN,
      body: { slug: "Bad Slug", name: "L", family: "frozenlake-mapf", extra: 1 },
    });
    expect(bad.status).toBe(422);
    const paths = bad.json.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(["slug", "extra"]));
  });
});

describe("generations", () => {
  it("creates a generation, validates configs by field path, and keeps environments immutable", async () => {
    const created = await call(generationsRoute.POST as never, "POST", "/api/v1/projects/lake/generations", {
      token: ADMIN,
      params: { slug: "lake" },
      body: {
        environments: [
          { key: "a", config: lake() },
          { key: "b", config: lake({ size: 8, seed: 3 }) },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ index: 0, environments: 2 });

    const invalid = await call(generationsRoute.POST as never, "POST", "/api/v1/projects/lake/generations", {
      token: ADMIN,
      params: { slug: "lake" },
      body: {
        environments: [
          { key: "c", config: lake() },
          { key: "d", config: lake({ size: 999 }) },
        ],
      },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.json.error.details[0].path).toBe("environments.1.config.size");

    const conflict = await call(generationsRoute.POST as never, "POST", "/api/v1/projects/lake/generations", {
      token: ADMIN,
      params: { slug: "lake" },
      body: { environments: [{ key: "a", config: lake({ seed: 99 }) }] },
    });
    expect(conflict.status).toBe(409);

    // the same key with the same config is the same environment, with lineage for the child
    const next = await call(generationsRoute.POST as never, "POST", "/api/v1/projects/lake/generations", {
      token: ADMIN,
      params: { slug: "lake" },
      body: {
        environments: [
          { key: "a", config: lake() },
          { key: "a-harder", config: lake({ size: 9 }), parentKey: "a" },
        ],
      },
    });
    expect(next.status).toBe(201);
    expect(next.json.index).toBe(1);

    const page = await call(environmentsRoute.GET as never, "GET", "/api/v1/projects/lake/generations/1/environments?limit=1", {
      token: ADMIN,
      params: { slug: "lake", index: "1" },
    });
    expect(page.status).toBe(200);
    expect(page.json.items).toHaveLength(1);
    expect(page.json.items[0].key).toBe("a");
    const page2 = await call(
      environmentsRoute.GET as never,
      "GET",
      `/api/v1/projects/lake/generations/1/environments?limit=1&cursor=${page.json.nextCursor}`,
      {
        token: ADMIN,
        params: { slug: "lake", index: "1" },
      },
    );
    expect(page2.json.items[0]).toMatchObject({ key: "a-harder", parentKey: "a", op: "mutate" });
    expect(page2.json.nextCursor).toBeNull();
    // the table (a sort or a filter) and its exports read each page's configs and parent keys apart from the listing
    const sorted = await call(
      environmentsRoute.GET as never,
      "GET",
      "/api/v1/projects/lake/generations/1/environments?sort=key&order=desc",
      {
        token: ADMIN,
        params: { slug: "lake", index: "1" },
      },
    );
    expect(sorted.json.items.map((e: { key: string; parentKey: string | null }) => [e.key, e.parentKey])).toEqual([
      ["a-harder", "a"],
      ["a", null],
    ]);
  });

  it("reports metrics per generation and 404s on unknown ones", async () => {
    const list = await call(generationsRoute.GET as never, "GET", "/api/v1/projects/lake/generations", {
      token: ADMIN,
      params: { slug: "lake" },
    });
    expect(list.status).toBe(200);
    expect(list.json.generations.map((g: { index: number }) => g.index)).toEqual([0, 1]);
    expect(list.json.generations[0]).toMatchObject({ environments: 2, rollouts: 0 });
    const one = await call(generationRoute.GET as never, "GET", "/api/v1/projects/lake/generations/0", {
      token: ADMIN,
      params: { slug: "lake", index: "0" },
    });
    expect(one.status).toBe(200);
    expect(one.json.metrics).toHaveProperty("passAtK");
    const missing = await call(generationRoute.GET as never, "GET", "/api/v1/projects/lake/generations/9", {
      token: ADMIN,
      params: { slug: "lake", index: "9" },
    });
    expect(missing.status).toBe(404);
    const project = await call(projectRoute.GET as never, "GET", "/api/v1/projects/lake", { token: ADMIN, params: { slug: "lake" } });
    expect(project.json.generations).toHaveLength(2);
  });

  it("limits a project-scoped key to its project (403 elsewhere)", async () => {
    await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
      token: ADMIN,
      body: { slug: "other", name: "Other", family: "search-agent" },
    });
    const k = await call(keys.POST as never, "POST", "/api/v1/keys", {
      token: ADMIN,
      body: { name: "lake-ingest", role: "ingest", project: "lake" },
    });
    expect(k.status).toBe(201);
    const mine = await call(generationsRoute.GET as never, "GET", "/api/v1/projects/lake/generations", {
      token: k.json.key,
      params: { slug: "lake" },
    });
    expect(mine.status).toBe(200);
    const theirs = await call(generationsRoute.GET as never, "GET", "/api/v1/projects/other/generations", {
      token: k.json.key,
      params: { slug: "other" },
    });
    expect(theirs.status).toBe(403);
    const listed = await call(projectsRoute.GET as never, "GET", "/api/v1/projects", { token: k.json.key });
    expect(listed.json.projects.map((p: { slug: string }) => p.slug)).toEqual(["lake"]);
  });

  it("audits what changed, append-only", async () => {
    const r = await call(auditRoute.GET as never, "GET", "/api/v1/projects/lake/audit", { token: ADMIN, params: { slug: "lake" } });
    expect(r.status).toBe(200);
    const actions = r.json.events.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["project.create", "generation.create", "key.create"]));
    await expect(db.pool.query("delete from audit_events")).rejects.toThrow(/append-only/);
  });
});

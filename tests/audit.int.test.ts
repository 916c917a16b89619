/** GET /api/v1/projects/{slug}/audit narrows by actor, action and entity server-side, pages within a filter, and refuses an unknown action. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { call } from "./http";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { recordAudit } from "@/lib/audit";
import { projects } from "@/lib/db/schema";
import * as projectsRoute from "@/app/api/v1/projects/route";
import * as auditRoute from "@/app/api/v1/projects/[slug]/audit/route";

const ADMIN = "test-bootstrap-token-0123456789";
let db: Awaited<ReturnType<typeof freshDatabase>>;

interface Event {
  actor: string;
  action: string;
  entity: string;
  entityId: string;
  after?: unknown;
}

async function audit(slug: string, query = "") {
  return call(auditRoute.GET as never, "GET", `/api/v1/projects/${slug}/audit${query}`, { token: ADMIN, params: { slug } });
}

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, ADMIN);
  for (const slug of ["lab", "other"]) {
    const r = await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
      token: ADMIN,
      body: { slug, name: slug, family: "frozenlake-mapf" },
    });
    expect(r.status).toBe(201);
  }
  const rows = await db.db.select({ id: projects.id, slug: projects.slug }).from(projects);
  const id = (slug: string) => rows.find((p) => p.slug === slug)!.id;
  const lab = id("lab");
  await recordAudit(db.db, {
    projectId: lab,
    actor: "user:ada",
    action: "proposal_item.approve",
    entity: "proposal_item",
    entityId: 1,
    after: { proposalId: "p1" },
  });
  await recordAudit(db.db, {
    projectId: lab,
    actor: "user:bob",
    action: "proposal_item.reject",
    entity: "proposal_item",
    entityId: 2,
    after: { proposalId: "p1" },
  });
  await recordAudit(db.db, {
    projectId: lab,
    actor: "user:ada",
    action: "proposal_item.reject",
    entity: "proposal_item",
    entityId: 2,
    after: { proposalId: "p1" },
  });
  await recordAudit(db.db, { projectId: lab, actor: "user:ada", action: "dispatch.create", entity: "dispatch", entityId: "d1" });
  await recordAudit(db.db, { projectId: lab, actor: "user:ada", action: "dispatch.cancel", entity: "dispatch", entityId: "d1" });
  await recordAudit(db.db, { projectId: id("other"), actor: "user:ada", action: "dispatch.create", entity: "dispatch", entityId: "d9" });
});
afterAll(async () => {
  await db?.drop();
});

describe("GET /api/v1/projects/{slug}/audit filters", () => {
  it("without filters lists the project's own events, newest first", async () => {
    const r = await audit("lab");
    expect(r.status).toBe(200);
    const events = r.json.events as Event[];
    // project.create (by the bootstrap key) + the five recorded above; never the other project's
    expect(events).toHaveLength(6);
    expect(events[0].action).toBe("dispatch.cancel");
    expect(events.map((e) => e.entityId)).not.toContain("d9");
  });

  it("narrows by actor", async () => {
    const events = (await audit("lab", "?actor=user:bob")).json.events as Event[];
    expect(events.map((e) => [e.actor, e.action])).toEqual([["user:bob", "proposal_item.reject"]]);
  });

  it("narrows by action", async () => {
    const events = (await audit("lab", "?action=proposal_item.reject")).json.events as Event[];
    expect(events.map((e) => e.actor)).toEqual(["user:ada", "user:bob"]);
  });

  it("narrows by entity and entity id, and combines filters", async () => {
    const byEntity = (await audit("lab", "?entity=dispatch")).json.events as Event[];
    expect(byEntity.map((e) => e.action)).toEqual(["dispatch.cancel", "dispatch.create"]);
    const history = (await audit("lab", "?entity=proposal_item&entityId=2")).json.events as Event[];
    expect(history.map((e) => e.actor)).toEqual(["user:ada", "user:bob"]);
    const both = (await audit("lab", "?entity=proposal_item&entityId=2&actor=user:bob")).json.events as Event[];
    expect(both).toHaveLength(1);
    expect(both[0].after).toEqual({ proposalId: "p1" });
  });

  it("pages within a filter: the cursor keeps to the filtered events", async () => {
    const first = await audit("lab", "?actor=user:ada&limit=2");
    expect((first.json.events as Event[]).map((e) => e.action)).toEqual(["dispatch.cancel", "dispatch.create"]);
    expect(first.json.nextCursor).toEqual(expect.any(String));
    const second = await audit("lab", `?actor=user:ada&limit=2&cursor=${first.json.nextCursor}`);
    expect((second.json.events as Event[]).map((e) => e.action)).toEqual(["proposal_item.reject", "proposal_item.approve"]);
    expect(second.json.nextCursor).toBeNull();
  });

  it("an unknown action or a malformed cursor is a 400 naming the parameter", async () => {
    const bad = await audit("lab", "?action=drop_tables");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json.error.details)).toContain("action");
    const cursor = await audit("lab", "?cursor=1;drop");
    expect(cursor.status).toBe(400);
    expect(JSON.stringify(cursor.json.error.details)).toContain("cursor");
  });
});

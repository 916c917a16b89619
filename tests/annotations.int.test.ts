/**
 * Labels and annotations over HTTP on a real Postgres: who may write (reviewers and admins, within
 * their project), unknown labels and bad turns (422 naming the field), NUL bytes in notes, the audit
 * trail, and the rollouts list filtered by label.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { startApiServer } from "./api-server";
import { createApiKey, ensureBootstrapKey } from "@/lib/auth/keys";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { lake } from "./configs";

const TOKEN = "test-bootstrap-token-annotate-001";
let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: Awaited<ReturnType<typeof startApiServer>>;
let admin: EnvForgeClient;
let reviewer: EnvForgeClient;
let viewer: EnvForgeClient;
let ingest: EnvForgeClient;
let foreignReviewer: EnvForgeClient;
const ids = new Map<string, number>();

type ErrorBody = { error: { code: string; message: string; details: { path?: string; message: string }[] } };
const attempt = (c: EnvForgeClient, method: string, p: string, json?: unknown) =>
  c.request(method, p, json === undefined ? undefined : { json }).then(
    (body) => ({ status: 200, body: body as unknown as ErrorBody }),
    (e) => (e instanceof ApiError ? { status: e.status, body: e.body as ErrorBody } : Promise.reject(e)),
  );

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, TOKEN);
  server = await startApiServer();
  admin = new EnvForgeClient({ server: server.url, token: TOKEN });
  for (const slug of ["ann", "other"]) {
    await admin.request("POST", "/api/v1/projects", { json: { slug, name: slug, family: "frozenlake-mapf" } });
    await admin.request("POST", `/api/v1/projects/${slug}/generations`, { json: { environments: [{ key: "e1", config: lake(1) }] } });
    const trajectory = [
      { role: "user", content: "go" },
      { role: "assistant", content: "moving" },
      { role: "tool", content: "done" },
    ];
    await admin.request("POST", `/api/v1/projects/${slug}/rollouts`, {
      json: [1, 2, 3].map((i) => ({ externalId: `${slug}-r${i}`, environmentKey: "e1", policy: "p", reward: i % 2, trajectory })),
    });
    const list = await admin.request<{ items: { id: number; externalId: string }[] }>("GET", `/api/v1/projects/${slug}/rollouts`);
    for (const r of list.items) ids.set(r.externalId, r.id);
  }
  const key = async (role: "reviewer" | "viewer" | "ingest", project?: string) =>
    new EnvForgeClient({
      server: server.url,
      token: (await createApiKey(db.db, { name: `${role}-${project ?? "all"}`, role, project }, { actor: "test" })).key,
    });
  reviewer = await key("reviewer");
  viewer = await key("viewer");
  ingest = await key("ingest");
  foreignReviewer = await key("reviewer", "other");
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe("labels", () => {
  it("reviewers and admins define a project's labels; viewers and ingest keys may not", async () => {
    expect((await attempt(reviewer, "POST", "/api/v1/projects/ann/labels", { name: "reward-hack" })).status).toBe(200);
    expect((await attempt(admin, "POST", "/api/v1/projects/ann/labels", { name: "good" })).status).toBe(200);
    const dup = await attempt(reviewer, "POST", "/api/v1/projects/ann/labels", { name: " good " });
    expect(dup.status).toBe(409);
    expect(dup.body.error.details[0].path).toBe("name");
    expect((await attempt(viewer, "POST", "/api/v1/projects/ann/labels", { name: "x" })).status).toBe(403);
    expect((await attempt(ingest, "POST", "/api/v1/projects/ann/labels", { name: "x" })).status).toBe(403);
    expect((await attempt(foreignReviewer, "POST", "/api/v1/projects/ann/labels", { name: "x" })).status).toBe(403);
    const nul = await attempt(reviewer, "POST", "/api/v1/projects/ann/labels", { name: "a\u0000b" });
    expect(nul.status).toBe(422);
    expect(nul.body.error.details[0].path).toBe("name");
    expect((await attempt(reviewer, "POST", "/api/v1/projects/ann/labels", { name: "" })).status).toBe(422);
    // the same name in another project is that project's own label
    expect((await attempt(foreignReviewer, "POST", "/api/v1/projects/other/labels", { name: "good" })).status).toBe(200);
    const list = await viewer.request<{ labels: { name: string }[] }>("GET", "/api/v1/projects/ann/labels");
    expect(list.labels.map((l) => l.name)).toEqual(["reward-hack", "good"]);
  });
});

describe("annotations", () => {
  it("stores a label, score, note and turn, lists them and audits the write with its actor", async () => {
    const id = ids.get("ann-r1")!;
    const res = await attempt(reviewer, "POST", `/api/v1/rollouts/${id}/annotations`, {
      label: "reward-hack",
      score: 0.25,
      note: 'says "done", did nothing',
      turn: 2,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      label: "reward-hack",
      score: 0.25,
      note: 'says "done", did nothing',
      turn: 2,
      actor: "key:reviewer-all",
    });
    expect((await attempt(admin, "POST", `/api/v1/rollouts/${id}/annotations`, { note: "checked" })).status).toBe(200);
    const list = await viewer.request<{ annotations: { label: string | null; note: string | null; turn: number | null }[] }>(
      "GET",
      `/api/v1/rollouts/${id}/annotations`,
    );
    expect(list.annotations.map((a) => [a.label, a.note, a.turn])).toEqual([
      ["reward-hack", 'says "done", did nothing', 2],
      [null, "checked", null],
    ]);
    const audit = await admin.request<{ events: { action: string; actor: string; entityId: string; after: { label: string } }[] }>(
      "GET",
      "/api/v1/projects/ann/audit",
    );
    const ev = audit.events.filter((e) => e.action === "annotation.create");
    expect(ev).toHaveLength(2);
    expect(ev.find((e) => e.after.label === "reward-hack")).toMatchObject({ entityId: String(id) });
    expect(audit.events.filter((e) => e.action === "label.create")).toHaveLength(2);
    // each label counts its own annotations (the note-only one has none)
    const labels = await viewer.request<{ labels: { name: string; uses: number }[] }>("GET", "/api/v1/projects/ann/labels");
    expect(labels.labels.map((l) => [l.name, l.uses])).toEqual([
      ["reward-hack", 1],
      ["good", 0],
    ]);
  });

  it("refuses unknown labels, bad turns, NUL bytes and empty annotations naming the field, storing nothing", async () => {
    const id = ids.get("ann-r2")!;
    const unknown = await attempt(reviewer, "POST", `/api/v1/rollouts/${id}/annotations`, { label: "flaky" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details[0].path).toBe("label");
    // another project's label is unknown here
    await attempt(reviewer, "POST", "/api/v1/projects/other/labels", { name: "only-other" });
    expect(
      (await attempt(reviewer, "POST", `/api/v1/rollouts/${id}/annotations`, { label: "only-other" })).body.error.details[0].path,
    ).toBe("label");
    const nul = await attempt(reviewer, "POST", `/api/v1/rollouts/${id}/annotations`, { label: "good", note: "before\u0000after" });
    expect(nul.status).toBe(422);
    expect(nul.body.error.details[0].path).toBe("note");
    const turn = await attempt(reviewer, "POST", `/api/v1/rollouts/${id}/annotations`, { label: "good", turn: 3 });
    expect(turn.status).toBe(422);
    expect(turn.body.error.details[0].path).toBe("turn");
    expect((await attempt(reviewer, "POST", `/api/v1/rollouts/${id}/annotations`, {})).status).toBe(422);
    expect((await attempt(reviewer, "POST", `/api/v1/rollouts/${id}/annotations`, { note: "   " })).status).toBe(422);
    expect((await attempt(reviewer, "POST", `/api/v1/rollouts/${id}/annotations`, { score: "high" })).body.error.details[0].path).toBe(
      "score",
    );
    expect((await attempt(reviewer, "POST", `/api/v1/rollouts/${id}/annotations`, { label: "good", extra: 1 })).status).toBe(422);
    expect((await reviewer.request<{ annotations: unknown[] }>("GET", `/api/v1/rollouts/${id}/annotations`)).annotations).toEqual([]);
    expect((await attempt(reviewer, "POST", `/api/v1/rollouts/999999/annotations`, { label: "good" })).status).toBe(404);
  });

  it("keys of another project get 403, viewers and ingest keys may read but not write", async () => {
    const id = ids.get("ann-r3")!;
    expect((await attempt(foreignReviewer, "GET", `/api/v1/rollouts/${id}/annotations`)).status).toBe(403);
    expect((await attempt(foreignReviewer, "POST", `/api/v1/rollouts/${id}/annotations`, { label: "good" })).status).toBe(403);
    expect((await attempt(viewer, "POST", `/api/v1/rollouts/${id}/annotations`, { label: "good" })).status).toBe(403);
    expect((await attempt(ingest, "POST", `/api/v1/rollouts/${id}/annotations`, { label: "good" })).status).toBe(403);
    expect((await attempt(ingest, "GET", `/api/v1/rollouts/${id}/annotations`)).status).toBe(200);
    expect((await attempt(foreignReviewer, "POST", `/api/v1/rollouts/${ids.get("other-r1")}/annotations`, { label: "good" })).status).toBe(
      200,
    );
  });

  it("the rollouts list filters by label, within the project", async () => {
    await attempt(reviewer, "POST", `/api/v1/rollouts/${ids.get("ann-r3")}/annotations`, { label: "good" });
    const good = await viewer.request<{ items: { externalId: string }[] }>("GET", "/api/v1/projects/ann/rollouts?label=good");
    expect(good.items.map((r) => r.externalId)).toEqual(["ann-r3"]);
    const hack = await viewer.request<{ items: { externalId: string }[] }>("GET", "/api/v1/projects/ann/rollouts?label=reward-hack");
    expect(hack.items.map((r) => r.externalId)).toEqual(["ann-r1"]);
    expect((await viewer.request<{ items: unknown[] }>("GET", "/api/v1/projects/ann/rollouts?label=nothing")).items).toEqual([]);
    const other = await admin.request<{ items: { externalId: string }[] }>("GET", "/api/v1/projects/other/rollouts?label=good");
    expect(other.items.map((r) => r.externalId)).toEqual(["other-r1"]);
  });
});

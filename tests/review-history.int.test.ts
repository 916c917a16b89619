/**
 * Each proposal item's decision history on the server, over HTTP on a real Postgres: every
 * decision, edit and undo recorded with actor and before/after; undo works from any later request
 * (a reload), reverts an edit to the config it replaced, takes a bulk action back as a whole, refuses
 * to undo over someone else's later change and after materializing; the rationale goes stale after
 * an edit; item comments are counted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import { runProposal } from "@/lib/proposals";
import { buildEngineerContext } from "@/lib/engineer/summary";
import { getProjectFor } from "@/lib/projects/service";
import { getGeneration } from "@/lib/generations/service";
import { EnvForgeClient } from "@/cli/client";
import { apiFailure } from "./api-waits";
import { startApi, stopApi, clientWithRole, createProjectWith, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-history-0123";
let db: TestDb;
let server: TestServer;
let admin: EnvForgeClient;
let reviewer: EnvForgeClient;
let viewer: EnvForgeClient;

type State = { decision: string; decidedBy: string | null; editedConfig: Record<string, unknown> | null };
type Item = {
  id: string;
  op: string;
  config: Record<string, unknown>;
  decision: string;
  decidedBy?: string;
  editedConfig?: Record<string, unknown>;
  rationaleStale: boolean;
  changes: number;
  commentCount: number;
};
type Proposal = { id: string; status: string; items: Item[] };
type History = {
  itemId: string;
  events: { id: number; action: string; actor: string; before: State; after: State; revertsEventId?: number; undoneBy?: string }[];
};

const family = getBuiltinFamily("frozenlake-mapf")!;
const configs = Array.from({ length: 8 }, (_, i) => family.sample(createRng(700 + i)));

const fail = apiFailure;

async function newProposal(): Promise<Proposal> {
  const { proposalId } = await admin.request<{ proposalId: string }>("POST", "/api/v1/projects/hist/generations/0/proposals", {
    json: { engineer: "heuristic", options: { seed: 5 } },
  });
  await runProposal(db.db, { proposalId });
  return admin.request<Proposal>("GET", `/api/v1/proposals/${proposalId}`);
}

const review = (client: EnvForgeClient, id: string, decisions: { itemId: string; decision: string; config?: unknown }[]) =>
  client.request<Proposal>("POST", `/api/v1/proposals/${id}/review`, { json: { decisions } });
const undo = (client: EnvForgeClient, id: string, itemId?: string) =>
  client.request<{ undone: { undone: number; itemIds: string[] }; proposal: Proposal }>("POST", `/api/v1/proposals/${id}/undo`, {
    json: itemId ? { itemId } : {},
  });
const item = (p: Proposal, id: string) => p.items.find((i) => i.id === id)!;

beforeAll(async () => {
  ({ db, server, admin } = await startApi(TOKEN));
  reviewer = await clientWithRole(db, server, "reviewer", { name: "rev" });
  viewer = await clientWithRole(db, server, "viewer", { name: "view" });
  await createProjectWith(
    admin,
    { slug: "hist", name: "History" },
    { environments: configs.map((config, i) => ({ key: `e${i}`, config })) },
  );
  const lines = configs.flatMap((_, i) =>
    Array.from({ length: 6 }, (_, a) =>
      JSON.stringify({ externalId: `r${i}-${a}`, environmentKey: `e${i}`, policy: "p", reward: a < i ? 1 : 0, verifierOutput: "x" }),
    ),
  );
  await admin.request("POST", "/api/v1/projects/hist/rollouts", { raw: lines.join("\n"), contentType: "application/x-ndjson" });
});
afterAll(async () => {
  await stopApi({ server, db }, { queue: true });
});

describe("per-item decision history", () => {
  it("records approve, save-as-pending edit and a second edit; undo walks back through them, restoring each config", async () => {
    const p = await newProposal();
    const child = p.items.find((i) => i.op === "mutate" || i.op === "add")!;
    expect(child).toMatchObject({ changes: 0, rationaleStale: false, commentCount: 0 });
    const first = { ...child.config, seed: 1111 };
    const second = { ...child.config, seed: 2222 };

    await review(reviewer, p.id, [{ itemId: child.id, decision: "approve" }]);
    // save as pending: an edit without approving
    let now = await review(reviewer, p.id, [{ itemId: child.id, decision: "pending", config: first }]);
    expect(item(now, child.id)).toMatchObject({ decision: "pending", editedConfig: first, rationaleStale: true, changes: 2 });
    expect(item(now, child.id).decidedBy).toBeUndefined();
    now = await review(admin, p.id, [{ itemId: child.id, decision: "approve", config: second }]);
    expect(item(now, child.id)).toMatchObject({ decision: "approved", editedConfig: second, changes: 3 });

    const history = await viewer.request<History>("GET", `/api/v1/proposals/${p.id}/items/${child.id}/history`);
    expect(history.events.map((e) => e.action)).toEqual(["approve", "edit", "edit"]);
    expect(history.events[0]).toMatchObject({ before: { decision: "pending", editedConfig: null }, after: { decision: "approved" } });
    expect(history.events[1]).toMatchObject({ before: { decision: "approved", editedConfig: null }, after: { editedConfig: first } });
    expect(history.events[2]).toMatchObject({ before: { editedConfig: first }, after: { editedConfig: second } });
    expect(history.events[0].actor).not.toBe(history.events[2].actor);

    // each undo is a fresh request (as after a reload): the item's last change is taken back
    let back = await undo(reviewer, p.id, child.id);
    expect(item(back.proposal, child.id)).toMatchObject({ decision: "pending", editedConfig: first, rationaleStale: true });
    back = await undo(reviewer, p.id, child.id);
    const restored = item(back.proposal, child.id);
    expect(restored).toMatchObject({ decision: "approved", rationaleStale: false });
    expect(restored.editedConfig).toBeUndefined(); // the proposed config again
    expect(restored.decidedBy).toBe(history.events[0].actor); // who approved it first, not who undid
    back = await undo(reviewer, p.id, child.id);
    expect(item(back.proposal, child.id).decision).toBe("pending");
    const nothing = await fail(undo(reviewer, p.id, child.id));
    expect(nothing.status).toBe(409);
    expect(nothing.message).toMatch(/no change left/);

    const full = await admin.request<History>("GET", `/api/v1/proposals/${p.id}/items/${child.id}/history`);
    expect(full.events.map((e) => e.action)).toEqual(["approve", "edit", "edit", "undo", "undo", "undo"]);
    expect(full.events.slice(0, 3).every((e) => e.undoneBy !== undefined)).toBe(true);
    expect(full.events[3].revertsEventId).toBe(full.events[2].id);
    expect(full.events[4]).toMatchObject({ before: { editedConfig: first }, after: { editedConfig: null } });

    const audit = await admin.request<{ events: { action: string; entityId: string; after?: { reverts?: { action: string } } }[] }>(
      "GET",
      "/api/v1/projects/hist/audit",
    );
    const undos = audit.events.filter((e) => e.action === "proposal_item.undo" && e.entityId === child.id && e.after?.reverts);
    expect(undos.map((e) => e.after!.reverts!.action)).toEqual(["approve", "edit", "edit"]); // newest first
  });

  it("undoes the caller's last request as a whole (a bulk approval), refuses over someone else's later change", async () => {
    const p = await newProposal();
    const [a, b, c, d] = p.items;
    await review(
      reviewer,
      p.id,
      [a, b, c].map((i) => ({ itemId: i.id, decision: "approve" })),
    );
    await review(reviewer, p.id, [{ itemId: d.id, decision: "reject" }]);
    let back = await undo(reviewer, p.id);
    expect(back.undone).toMatchObject({ undone: 1, itemIds: [d.id] });
    expect(item(back.proposal, d.id).decision).toBe("pending");
    expect(item(back.proposal, a.id).decision).toBe("approved");
    back = await undo(reviewer, p.id);
    expect(back.undone.undone).toBe(3);
    for (const i of [a, b, c]) expect(item(back.proposal, i.id).decision).toBe("pending");
    expect(back.proposal.status).toBe("ready");

    // someone else changed the item after my change: my undo would clobber theirs
    await review(reviewer, p.id, [{ itemId: a.id, decision: "approve" }]);
    await review(admin, p.id, [{ itemId: a.id, decision: "reject" }]);
    const clash = await fail(undo(reviewer, p.id));
    expect(clash.status).toBe(409);
    expect(clash.message).toMatch(/changed this item after/);
    expect(item(await admin.request<Proposal>("GET", `/api/v1/proposals/${p.id}`), a.id).decision).toBe("rejected");
    // the item's own undo takes the latest change back, whoever made it
    back = await undo(reviewer, p.id, a.id);
    expect(item(back.proposal, a.id).decision).toBe("approved");
  });

  it("guards: viewers read history but cannot undo; bad ids are named; a materialized proposal's decisions are final", async () => {
    const p = await newProposal();
    const one = p.items.find((i) => i.op !== "retire")!;
    await review(reviewer, p.id, [{ itemId: one.id, decision: "approve" }]);
    expect((await fail(undo(viewer, p.id, one.id))).status).toBe(403);
    const bad = await fail(reviewer.request("POST", `/api/v1/proposals/${p.id}/undo`, { json: { itemId: "nope" } }));
    expect(bad.status).toBe(422);
    expect(bad.message).toMatch(/itemId/);
    const foreign = await fail(undo(reviewer, p.id, "00000000-0000-4000-8000-000000000000"));
    expect(foreign.status).toBe(422);
    expect(foreign.message).toMatch(/not an item of this proposal/);
    expect((await fail(reviewer.request("POST", `/api/v1/proposals/${p.id}/undo`, { json: { extra: 1 } }))).status).toBe(422);
    expect((await fail(admin.request("GET", `/api/v1/proposals/${p.id}/items/00000000-0000-4000-8000-000000000000/history`))).status).toBe(
      404,
    );
    expect((await fail(undo(reviewer, "00000000-0000-4000-8000-000000000000"))).status).toBe(404);

    await reviewer.request("POST", `/api/v1/proposals/${p.id}/comments`, { json: { body: "line one\nline two", itemId: one.id } });
    await reviewer.request("POST", `/api/v1/proposals/${p.id}/comments`, { json: { body: "again", itemId: one.id } });
    const counted = await admin.request<Proposal>("GET", `/api/v1/proposals/${p.id}`);
    expect(item(counted, one.id).commentCount).toBe(2);

    await reviewer.request("POST", `/api/v1/proposals/${p.id}/materialize`, { json: { rejectPending: true } });
    const final = await fail(undo(reviewer, p.id, one.id));
    expect(final.status).toBe(409);
    expect(final.message).toMatch(/materialized/);
    // the rejections materialize made are in each item's history
    const other = p.items.find((i) => i.id !== one.id)!;
    const h = await admin.request<History>("GET", `/api/v1/proposals/${p.id}/items/${other.id}/history`);
    expect(h.events.map((e) => e.action)).toEqual(["reject"]);
  });
});

describe("the engineer summary's proposal history", () => {
  it("counts each recent proposal's approved and rejected items, not pending or undone ones", async () => {
    const reviewed = await newProposal();
    const untouched = await newProposal();
    const [a, b, c, d] = reviewed.items;
    await review(reviewer, reviewed.id, [
      { itemId: a.id, decision: "approve" },
      { itemId: b.id, decision: "approve" },
    ]);
    await review(reviewer, reviewed.id, [{ itemId: c.id, decision: "reject" }]);
    await review(reviewer, reviewed.id, [{ itemId: d.id, decision: "approve" }]);
    await undo(reviewer, reviewed.id, d.id);

    const project = await getProjectFor(db.db, "hist", null);
    const g = await getGeneration(db.db, project, 0);
    const { summary } = await buildEngineerContext(db.db, project, family, g);
    const entry = (id: string) => summary.history.proposals.find((p) => p.id === id);
    // the newest first: these two are the latest of the five
    expect(summary.history.proposals.slice(0, 2).map((p) => p.id)).toEqual([untouched.id, reviewed.id]);
    expect(entry(reviewed.id)).toMatchObject({ approved: 2, rejected: 1, baseGeneration: 0, engineer: "heuristic", status: "ready" });
    expect(entry(untouched.id)).toMatchObject({ approved: 0, rejected: 0 });
  });
});

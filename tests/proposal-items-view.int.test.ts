/**
 * A proposal read in parts, over HTTP on a real Postgres (what the proposal page of a 15,000-item proposal reads instead
 * of 13 MB): `GET ?items=index` (every item without its configs, rationale and evidence), `GET ?ids=` (some items in
 * full, exactly as the whole GET sends them), and reviews and undos answered with only the items they changed
 * (`?items=changed`) or the index (`?items=index`). Bad ids are refused naming `ids`; ids of another proposal match nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import { MAX_ITEM_IDS, runProposal } from "@/lib/proposals";
import type { EnvForgeClient } from "@/cli/client";
import { apiFailure as fail } from "./api-waits";
import { startApi, stopApi, clientWithRole, createProjectWith, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-items-view-0123";
let db: TestDb;
let server: TestServer;
let admin: EnvForgeClient;
let reviewer: EnvForgeClient;
let outsider: EnvForgeClient;

type Item = Record<string, unknown> & { id: string; op: string; decision: string; changes: number; commentCount: number };
type Proposal = { id: string; status: string; itemCount: number; population: unknown; comments: unknown[]; items: Item[] };

const family = getBuiltinFamily("frozenlake-mapf")!;
const configs = Array.from({ length: 24 }, (_, i) => family.sample(createRng(900 + i)));
const INDEX_KEYS = ["changes", "commentCount", "decidedBy", "decision", "detail", "direction", "id", "op"];

async function newProposal(slug: string, seed: number): Promise<Proposal> {
  const { proposalId } = await admin.request<{ proposalId: string }>("POST", `/api/v1/projects/${slug}/generations/0/proposals`, {
    json: { engineer: "heuristic", options: { seed } },
  });
  await runProposal(db.db, { proposalId });
  return admin.request<Proposal>("GET", `/api/v1/proposals/${proposalId}`);
}
const get = (client: EnvForgeClient, id: string, query: string) => client.request<Proposal>("GET", `/api/v1/proposals/${id}?${query}`);
const review = (id: string, query: string, decisions: { itemId: string; decision: string; config?: unknown }[]) =>
  reviewer.request<Proposal>("POST", `/api/v1/proposals/${id}/review?${query}`, { json: { decisions } });

beforeAll(async () => {
  ({ db, server, admin } = await startApi(TOKEN));
  reviewer = await clientWithRole(db, server, "reviewer", { name: "rev" });
  for (const slug of ["view-a", "view-b"]) {
    await createProjectWith(admin, { slug }, { environments: configs.map((config, i) => ({ key: `e${i}`, config })) });
    const lines = configs.flatMap((_, i) =>
      Array.from({ length: 6 }, (_, a) =>
        JSON.stringify({ externalId: `r${i}-${a}`, environmentKey: `e${i}`, policy: "p", reward: a < i % 7 ? 1 : 0 }),
      ),
    );
    await admin.request("POST", `/api/v1/projects/${slug}/rollouts`, { raw: lines.join("\n"), contentType: "application/x-ndjson" });
  }
  outsider = await clientWithRole(db, server, "admin", { name: "only-b", project: "view-b" });
});
afterAll(async () => {
  await stopApi({ server, db }, { queue: true });
});

describe("a proposal read in parts", () => {
  it("the index has every item in order without its large fields; the rest of the proposal is the whole GET's", async () => {
    const whole = await newProposal("view-a", 1);
    expect(whole.items.length).toBeGreaterThan(20);
    expect(whole.itemCount).toBe(whole.items.length);
    const index = await get(admin, whole.id, "items=index");
    expect(index.items.map((i) => i.id)).toEqual(whole.items.map((i) => i.id));
    for (const [k, entry] of index.items.entries()) {
      expect(
        Object.keys(entry).every((key) => INDEX_KEYS.includes(key)),
        Object.keys(entry).join(),
      ).toBe(true);
      expect(entry).toMatchObject({ detail: false, op: whole.items[k].op, decision: "pending", changes: 0, commentCount: 0 });
      expect(entry.direction).toBe(whole.items[k].direction);
    }
    const { items: _a, ...restOfIndex } = index;
    const { items: _b, ...restOfWhole } = whole;
    expect(restOfIndex).toEqual(restOfWhole); // the population counts every item in both
    expect(JSON.stringify(index).length).toBeLessThan(JSON.stringify(whole).length / 2);
  });

  it("?ids= sends those items exactly as the whole GET does, in the proposal's order, and nothing of another proposal", async () => {
    const whole = await newProposal("view-a", 2);
    const picked = [whole.items[7], whole.items[2], whole.items[19]];
    const some = await get(admin, whole.id, `ids=${picked.map((i) => i.id).join(",")}`);
    expect(some.items).toEqual([whole.items[2], whole.items[7], whole.items[19]]);
    expect(some.itemCount).toBe(whole.items.length);
    expect(some.population).toEqual(whole.population);

    const other = await newProposal("view-b", 2);
    const foreign = await get(admin, whole.id, `ids=${other.items[0].id},${whole.items[0].id}`);
    expect(foreign.items.map((i) => i.id)).toEqual([whole.items[0].id]);
    // a key limited to another project cannot read the proposal by parts either
    expect((await fail(get(outsider, whole.id, `ids=${whole.items[0].id}`))).status).toBe(403);
    expect((await fail(get(outsider, whole.id, "items=index"))).status).toBe(403);
  });

  it("refuses ids that are not item ids, too many ids, and ids with items=index, naming the parameter", async () => {
    const whole = await newProposal("view-a", 3);
    const bad = await fail(get(admin, whole.id, `ids=${whole.items[0].id},1;drop table proposals`));
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(/ids/);
    expect(bad.message).toMatch(/is not an item id/);
    const many = Array.from({ length: MAX_ITEM_IDS + 1 }, () => whole.items[0].id).join(",");
    const tooMany = await fail(get(admin, whole.id, `ids=${many}`));
    expect(tooMany.status).toBe(400);
    expect(tooMany.message).toMatch(new RegExp(`more than ${MAX_ITEM_IDS}`));
    expect(
      (await get(admin, whole.id, `ids=${Array.from({ length: MAX_ITEM_IDS }, () => whole.items[0].id).join(",")}`)).items,
    ).toHaveLength(1);
    const both = await fail(get(admin, whole.id, `items=index&ids=${whole.items[0].id}`));
    expect(both.status).toBe(400);
    expect(both.message).toMatch(/ids/);
    expect((await fail(get(admin, whole.id, "ids="))).message).toMatch(/names no item/);
    expect((await fail(get(admin, whole.id, "items=some"))).status).toBe(400);
  });

  it("a review with ?items=changed answers with the items it decided, in full; ?items=index with every item's new state", async () => {
    const whole = await newProposal("view-a", 4);
    const [a, b] = [whole.items[3], whole.items[5]];
    const answer = await review(whole.id, "items=changed", [
      { itemId: b.id, decision: "reject" },
      { itemId: a.id, decision: "approve" },
    ]);
    expect(answer.items.map((i) => [i.id, i.decision, i.changes, i.decidedBy])).toEqual([
      [a.id, "approved", 1, "key:rev"],
      [b.id, "rejected", 1, "key:rev"],
    ]);
    expect(answer.items[0].config).toEqual(a.config); // in full
    expect(answer.itemCount).toBe(whole.items.length);
    const again = await get(admin, whole.id, `ids=${a.id},${b.id}`);
    expect(again.items).toEqual(answer.items);
    expect(answer.status).toBe(again.status);

    const bulk = await review(
      whole.id,
      "items=index",
      whole.items.map((i) => ({ itemId: i.id, decision: "approve" })),
    );
    expect(bulk.items).toHaveLength(whole.items.length);
    expect(bulk.items.every((i) => i.detail === false && i.decision === "approved")).toBe(true);
    // every decision is an event, so `changes` (the page's version of an item) grows with each
    expect(bulk.items.find((i) => i.id === a.id)!.changes).toBe(2);
    expect(bulk.items.find((i) => i.id === b.id)!.changes).toBe(2);
    expect(bulk.items.find((i) => i.id === whole.items[0].id)!.changes).toBe(1);
    expect(bulk.status).toBe("approved");
    // without the parameter, API.md's answer: every item in full
    const plain = await review(whole.id, "", [{ itemId: a.id, decision: "pending" }]);
    expect(plain.items).toHaveLength(whole.items.length);
    expect(plain.items.every((i) => "config" in i)).toBe(true);
  });

  it("a bulk decision on every item and its undo: each item's state, one audit and one history event per item, in order", async () => {
    const whole = await newProposal("view-a", 6);
    const ids = whole.items.map((i) => i.id);
    const mutate = whole.items.find((i) => i.op === "mutate" || i.op === "add")!;
    const edited = { ...(mutate.config as Record<string, unknown>), seed: 987654 };
    // one body: every item rejected, then the mutate item edited (kept pending), then approved: the last decision and the edit hold
    const answer = await review(whole.id, "items=index", [
      ...ids.map((itemId) => ({ itemId, decision: "reject" })),
      { itemId: mutate.id, decision: "pending", config: edited },
      { itemId: mutate.id, decision: "approve" },
    ]);
    expect(answer.items.filter((i) => i.decision === "rejected")).toHaveLength(ids.length - 1);
    const after = await get(admin, whole.id, `ids=${mutate.id},${ids.find((id) => id !== mutate.id)}`);
    const m = after.items.find((i) => i.id === mutate.id)!;
    expect(m).toMatchObject({ decision: "approved", decidedBy: "key:rev", editedConfig: edited, changes: 3 });
    expect(after.items.find((i) => i.id !== mutate.id)).toMatchObject({ decision: "rejected", decidedBy: "key:rev", changes: 1 });
    const audit = await admin.request<{ events: { action: string; entityId: string }[] }>(
      "GET",
      "/api/v1/projects/view-a/audit?entity=proposal_item&limit=1000",
    );
    // newest first: approve, edit, then the rejections in the body's order backwards
    const mine = audit.events.filter((e) => ids.includes(e.entityId)).slice(0, ids.length + 2);
    expect(mine.map((e) => [e.action, e.entityId])).toEqual([
      ["proposal_item.approve", mutate.id],
      ["proposal_item.edit", mutate.id],
      ...[...ids].reverse().map((id) => ["proposal_item.reject", id]),
    ]);

    // undo takes the whole request back: every item pending again, the edit gone
    const { undone, proposal } = await reviewer.request<{ undone: { undone: number }; proposal: Proposal }>(
      "POST",
      `/api/v1/proposals/${whole.id}/undo?items=index`,
      { json: {} },
    );
    expect(undone.undone).toBe(ids.length + 2);
    expect(proposal.items.every((i) => i.decision === "pending")).toBe(true);
    const back = await get(admin, whole.id, `ids=${mutate.id}`);
    expect(back.items[0].editedConfig).toBeUndefined();
    expect(back.items[0].decidedBy).toBeUndefined();
    const undos = await admin.request<{ events: { action: string }[] }>(
      "GET",
      "/api/v1/projects/view-a/audit?action=proposal_item.undo&limit=1000",
    );
    expect(undos.events.length).toBeGreaterThanOrEqual(ids.length + 2);
  });

  it("an undo with ?items=changed answers with the items it took back", async () => {
    const whole = await newProposal("view-a", 5);
    const picked = whole.items.slice(0, 3);
    await review(
      whole.id,
      "items=changed",
      picked.map((i) => ({ itemId: i.id, decision: "reject" })),
    );
    const { undone, proposal } = await reviewer.request<{ undone: { itemIds: string[] }; proposal: Proposal }>(
      "POST",
      `/api/v1/proposals/${whole.id}/undo?items=changed`,
      { json: {} },
    );
    expect([...undone.itemIds].sort()).toEqual(picked.map((i) => i.id).sort());
    expect(proposal.items.map((i) => i.id)).toEqual(picked.map((i) => i.id));
    expect(proposal.items.map((i) => [i.decision, i.changes])).toEqual([
      ["pending", 2],
      ["pending", 2],
      ["pending", 2],
    ]);
    expect(proposal.items[0].rationale).toBe(whole.items[0].rationale);
    expect(proposal.status).toBe("ready");
  });
});

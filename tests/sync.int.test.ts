import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeFakeRollout, makeFakeRollouts, startFakeAgentLightning } from "./fakes/agent-lightning-server";
import { EnvForgeClient } from "@/cli/client";
import { syncAgentLightning } from "@/cli/commands/sync";
import { startApi, stopApi, createProjectWith, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-sync-0123456";
let db: TestDb;
let server: TestServer;
let client: EnvForgeClient;
let store: Awaited<ReturnType<typeof startFakeAgentLightning>>;

beforeAll(async () => {
  ({ db, server, admin: client } = await startApi(TOKEN));
  await createProjectWith(client, { slug: "agl", name: "AGL", family: "terminal-task" });
  store = await startFakeAgentLightning({ rollouts: makeFakeRollouts({ count: 12 }), apiKey: "store-secret", pageSize: 5, failFirst: 1 });
});
afterAll(async () => {
  await store?.close();
  await stopApi({ server, db });
});

describe("envforge sync agent-lightning", () => {
  it("pulls every finished rollout with its trajectory and reward, retrying a 503", async () => {
    const r = await syncAgentLightning(client, {
      project: "agl",
      url: store.url,
      key: "store-secret",
      createEnvironments: true,
      quiet: true,
    });
    expect(r.unreadable).toEqual([]);
    expect(r.summary).toMatchObject({ accepted: 12, duplicates: 0, rejected: [] });
    expect(store.requests[0]).toMatch(/terminal/);
    const rows = await db.pool.query(
      "select r.external_id, r.reward, r.status, r.turns, jsonb_array_length(p.trajectory) as messages from rollouts r " +
        "join rollout_payloads p on p.rollout_id = r.id order by r.external_id",
    );
    expect(rows.rows).toHaveLength(12);
    expect(rows.rows.every((x) => x.external_id.startsWith("agl:"))).toBe(true);
    expect(rows.rows.some((x) => x.status === "errored")).toBe(true);
    expect(rows.rows.some((x) => x.reward === null)).toBe(true); // the rollout without a reward event
    expect(rows.rows.every((x) => x.messages > 1)).toBe(true);
  });

  it("fetches only what is new on a rerun (the cursor is kept per project and URL)", async () => {
    const before = store.requests.length;
    const again = await syncAgentLightning(client, {
      project: "agl",
      url: store.url,
      key: "store-secret",
      createEnvironments: true,
      quiet: true,
    });
    expect(again.summary.accepted).toBe(0);
    expect(store.requests.slice(before).filter((q) => q.includes("/events"))).toEqual([]);
    store.addRollout(makeFakeRollout(100, "solved", { prefix: "late", startTime: 1_800_000_000 }));
    const late = await syncAgentLightning(client, {
      project: "agl",
      url: store.url,
      key: "store-secret",
      createEnvironments: true,
      quiet: true,
    });
    expect(late.summary).toMatchObject({ accepted: 1, duplicates: 0 });
  });

  it("says to check the key when the store refuses it", async () => {
    await expect(syncAgentLightning(client, { project: "agl", url: store.url, key: "wrong", quiet: true })).rejects.toThrow(/--key/);
  });
});

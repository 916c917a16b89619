import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeFakeRollout, makeFakeRollouts, startFakeAgentLightning } from "./fakes/agent-lightning-server";
import { startFakeAgentLightningV1 } from "./fakes/agent-lightning-v1-server";
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

  it("after an Agent Lightning 1.0 store restarts, says so, reads it from the start and stores each rollout once", async () => {
    const v1 = await startFakeAgentLightningV1();
    try {
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${v1.url}${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const run = async (ids: string[]) => {
        await call(
          "POST",
          "/api/rollouts",
          ids.map((id) => ({ rollout_id: id, input: { environment_key: `task-${id}` } })),
        );
        for (const id of ids) {
          await call("PATCH", `/api/rollouts/${id}`, { status: { state: "running", last_attempt_id: "a1" } });
          await call("POST", `/api/rollouts/${id}/attempt/a1/events`, {
            event_type: "model_request",
            data: {
              request: { messages: [{ role: "user", content: `solve ${id}` }] },
              response: { id: `resp-${id}`, model: "qwen-7b", choices: [{ message: { role: "assistant", content: "done" } }] },
              status: "ok",
            },
          });
          await call("POST", `/api/rollouts/${id}/attempt/a1/events`, { event_type: "reward", data: { value: 1 } });
          await call("PATCH", `/api/rollouts/${id}`, { status: { state: "succeeded" } });
        }
      };
      const sync = () => syncAgentLightning(client, { project: "agl", url: v1.url, createEnvironments: true, quiet: true });
      await run(["v1-a", "v1-b", "v1-c"]);
      expect((await sync()).summary).toMatchObject({ accepted: 3, duplicates: 0 });

      // restarted: its order is empty; v1-a is queued again under its pre-assigned id (as a re-sent export is) and v1-d is new
      v1.restart();
      await run(["v1-a", "v1-d"]);
      const after = await sync();
      expect(after.summary).toMatchObject({ accepted: 1, duplicates: 1, rejected: [] });
      expect(after.notices).toEqual([expect.stringMatching(/holds 2 finished rollouts, fewer than the saved cursor \(3\)/)]);
      const rows = await db.pool.query("select external_id from rollouts where external_id like 'agl:v1-%' order by external_id");
      expect(rows.rows.map((r) => r.external_id)).toEqual(["agl:v1-a", "agl:v1-b", "agl:v1-c", "agl:v1-d"]);

      // the new cursor was saved: the next sync finds nothing and says nothing
      const quiet = await sync();
      expect(quiet.summary.accepted + quiet.summary.duplicates).toBe(0);
      expect(quiet.notices).toEqual([]);
    } finally {
      await v1.close();
    }
  });

  it("says to check the key when the store refuses it", async () => {
    await expect(syncAgentLightning(client, { project: "agl", url: store.url, key: "wrong", quiet: true })).rejects.toThrow(/--key/);
  });
});

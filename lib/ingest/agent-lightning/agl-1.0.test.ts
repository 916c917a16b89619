/**
 * Agent Lightning 1.0 (microsoft/agent-lightning v1.0.0, routes under /api, see
 * tests/fakes/agent-lightning-v1-server.ts): the export's RolloutCreate rows are accepted by
 * POST /api/rollouts, a runner's events land on them, and the sync reads the terminal pages
 * (cursor next_after), each rollout and its events back, every rollout on the environment it
 * was dispatched for.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startFakeAgentLightningV1, type FakeAgentLightningV1 } from "@/tests/fakes/agent-lightning-v1-server";
import { agentLightningRolloutCreates } from "@/lib/dispatch/adapters/export/agent-lightning";
import { samplePayload } from "@/lib/dispatch/adapters/test-payload";
import { AgentLightningClient } from "./client";
import { syncPages } from "./sync";

const KEY = "agl-v1-key-SECRET-31";
let store: FakeAgentLightningV1 | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${store!.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** What an Agent Lightning 1.0 runner does with a rollout: run it as attempt "a1", log a model call and a reward, finish. */
async function runRollout(id: string, reward: number, finalState: "succeeded" | "failed") {
  expect((await call("PATCH", `/api/rollouts/${id}`, { status: { state: "running", last_attempt_id: "a1" } })).status).toBe(200);
  await call("POST", `/api/rollouts/${id}/attempt/a1/events`, {
    event_type: "model_request",
    data: {
      model: "qwen-7b",
      request: { messages: [{ role: "user", content: `solve ${id}` }] },
      response: {
        id: `resp-${id}`,
        model: "qwen-7b",
        choices: [{ index: 0, message: { role: "assistant", content: "done" } }],
        usage: { prompt_tokens: 12, completion_tokens: 3 },
      },
      status: "ok",
    },
  });
  await call("POST", `/api/rollouts/${id}/attempt/a1/events`, { event_type: "reward", data: { value: reward, source: "agent" } });
  expect(
    (
      await call("PATCH", `/api/rollouts/${id}`, {
        status: { state: finalState, ...(finalState === "failed" ? { error_message: "agent crashed" } : {}) },
      })
    ).status,
  ).toBe(200);
}

describe("Agent Lightning 1.0", () => {
  it("round trip: exported rows are RolloutCreate bodies, and every synced rollout lands on its environment", async () => {
    store = await startFakeAgentLightningV1({ key: KEY });
    const payload = samplePayload();
    const rows = agentLightningRolloutCreates(payload);
    const created = await call("POST", "/api/rollouts", rows);
    expect(created.status).toBe(201);
    expect(created.json.map((r: { rollout_id: string }) => r.rollout_id)).toEqual(rows.map((r) => r.rollout_id));
    // idempotent: a re-POST returns the same rollouts
    expect((await call("POST", "/api/rollouts", rows)).json).toEqual(created.json);

    const ids = rows.map((r) => r.rollout_id as string);
    await runRollout(ids[2], 0.25, "succeeded");
    await runRollout(ids[0], 1, "succeeded");
    await runRollout(ids[1], 0, "failed");

    const client = new AgentLightningClient({ url: store.url, apiKey: KEY });
    const pages = [];
    for await (const page of syncPages(client, { limit: 2 })) pages.push(page);
    expect(pages.map((p) => p.cursor)).toEqual(["2", "3"]);
    const synced = pages.flatMap((p) => p.rollouts);
    expect(pages.flatMap((p) => p.skipped)).toEqual([]);
    const byEnv = Object.fromEntries(synced.map((r) => [r.environmentKey, r]));
    expect(Object.keys(byEnv).sort()).toEqual(payload.environments.map((e) => e.key).sort());
    expect(byEnv["g3-0001"]).toMatchObject({ externalId: `agl:${ids[0]}`, reward: 1, policy: "qwen-7b", inputTokens: 12, outputTokens: 3 });
    expect(byEnv["g3-0003"].reward).toBe(0.25);
    expect(byEnv["g3-0002"]).toMatchObject({ reward: 0, status: "errored" });
    expect(byEnv["g3-0001"].trajectory?.map((m) => m.role)).toEqual(["user", "assistant"]);

    // synced without naming the project, no generation is claimed; synced into the project it came from, the dispatched one is kept
    expect(synced.every((r) => r.generation === undefined)).toBe(true);
    const intoProject = [];
    for await (const page of syncPages(client, { project: payload.project.slug })) intoProject.push(...page.rollouts);
    expect(intoProject.map((r) => r.generation)).toEqual(synced.map(() => payload.generation.index));
    const intoOther = [];
    for await (const page of syncPages(client, { project: `${payload.project.slug}-other` })) intoOther.push(...page.rollouts);
    expect(intoOther.every((r) => r.generation === undefined)).toBe(true);

    // a rerun from the saved cursor reads nothing new
    const again = [];
    for await (const page of syncPages(client, { after: "3" })) again.push(page);
    expect(again).toEqual([]);
  });

  it("the store refuses a row that is not a RolloutCreate (422) and a wrong key (401)", async () => {
    store = await startFakeAgentLightningV1({ key: KEY });
    expect((await call("POST", "/api/rollouts", [{ id: "x", metadata: {} }])).status).toBe(422);
    const res = await fetch(`${store.url}/api/rollouts/terminal`, { headers: { authorization: "Bearer wrong" } });
    expect(res.status).toBe(401);
  });
});

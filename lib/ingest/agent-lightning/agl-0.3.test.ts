/**
 * Agent Lightning 0.3 (microsoft/agent-lightning v0.3.0, FastAPI routes under /v1/agl, see
 * tests/fakes/agent-lightning-v03-server.ts): the export's enqueue request is accepted by
 * POST /v1/agl/queues/rollouts/enqueue, a runner dequeues, records its LLM call and reward as spans
 * and ends its attempt, and the sync (`--api agl-v1`) reads the finished rollouts page by page
 * (offset cursor) with their spans, every rollout on the environment and generation it was dispatched for.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startFakeAgentLightningV03, type FakeAgentLightningV03 } from "@/tests/fakes/agent-lightning-v03-server";
import { agentLightningEnqueueRequest } from "@/lib/dispatch/adapters/export/agent-lightning";
import { samplePayload } from "@/lib/dispatch/adapters/test-payload";
import { AgentLightningClient } from "./client";
import { readSyncCursor, syncPages } from "./sync";

/** The store's own cursor inside a saved one. */
const at = (c: string | null) => (c === null ? null : readSyncCursor(c).after);

let store: FakeAgentLightningV03 | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${store!.url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** What a 0.3 runner does: dequeue one rollout, trace an LLM call and a reward (emit_reward's span), end the attempt. */
async function runNext(reward: number | null, finalStatus: "succeeded" | "failed"): Promise<string> {
  const [attempted] = (await call("POST", "/v1/agl/queues/rollouts/dequeue", { limit: 1, worker_id: "w1" })).json;
  const {
    rollout_id,
    attempt: { attempt_id },
  } = attempted;
  const base = { rollout_id, attempt_id, trace_id: "t1", parent_id: null, start_time: 1, end_time: 2 };
  expect(
    (
      await call("POST", "/v1/agl/spans", {
        ...base,
        sequence_id: 1,
        span_id: "s1",
        name: "openai.chat.completion",
        attributes: {
          "gen_ai.request.model": "qwen-7b",
          "gen_ai.response.id": `resp-${rollout_id}`,
          "gen_ai.prompt.0.role": "user",
          "gen_ai.prompt.0.content": `solve ${attempted.input.environment_key}`,
          "gen_ai.completion.0.role": "assistant",
          "gen_ai.completion.0.content": "done",
          "gen_ai.usage.prompt_tokens": 12,
          "gen_ai.usage.completion_tokens": 3,
        },
      })
    ).status,
  ).toBe(201);
  if (reward !== null)
    await call("POST", "/v1/agl/spans", { ...base, sequence_id: 2, span_id: "s2", name: "agentlightning.reward", attributes: { reward } });
  expect((await call("POST", `/v1/agl/rollouts/${rollout_id}/attempts/${attempt_id}`, { status: finalStatus })).status).toBe(200);
  return attempted.input.environment_key as string;
}

describe("Agent Lightning 0.3", () => {
  it("round trip: the export's enqueue request is accepted, and every synced rollout lands on its environment and generation", async () => {
    store = await startFakeAgentLightningV03();
    const payload = samplePayload();
    const request = agentLightningEnqueueRequest(payload);
    const queued = await call("POST", "/v1/agl/queues/rollouts/enqueue", request);
    expect(queued.status).toBe(201);
    expect(queued.json.map((r: { status: string }) => r.status)).toEqual(["queuing", "queuing", "queuing"]);

    const rewards: Record<string, number> = {};
    for (const [reward, status] of [
      [1, "succeeded"],
      [null, "failed"],
      [0.25, "succeeded"],
    ] as const) {
      const key = await runNext(reward, status);
      if (reward !== null) rewards[key] = reward;
    }

    const client = new AgentLightningClient({ url: store.url, api: "agl-v1" });
    const pages = [];
    for await (const page of syncPages(client, { limit: 2, project: payload.project.slug })) pages.push(page);
    expect(pages.map((p) => at(p.cursor))).toEqual(["2", "3"]);
    expect(pages.flatMap((p) => p.skipped)).toEqual([]);
    const synced = pages.flatMap((p) => p.rollouts);
    const byEnv = Object.fromEntries(synced.map((r) => [r.environmentKey, r]));
    expect(Object.keys(byEnv).sort()).toEqual(payload.environments.map((e) => e.key).sort());
    for (const r of synced) {
      expect(r.generation).toBe(payload.generation.index);
      expect(r.policy).toBe("qwen-7b");
      if (r.environmentKey in rewards) expect(r.reward).toBe(rewards[r.environmentKey]);
      else expect(r.status).toBe("errored");
      expect(r.trajectory?.map((m) => m.role)).toEqual(["user", "assistant"]);
    }
    // the store was asked the way 0.3 validates: a sort field of Rollout, terminal statuses, an offset cursor
    const listing = store.requests.filter((r) => r.path === "/v1/agl/rollouts").map((r) => new URLSearchParams(r.query));
    expect(listing[0].getAll("status_in")).toEqual(["succeeded", "failed", "cancelled"]);
    expect(listing.map((q) => q.get("offset"))).toEqual(["0", "2"]); // total 3: no third request

    // a rerun from the saved cursor reads nothing new
    const again = [];
    for await (const page of syncPages(client, { after: "3" })) again.push(page);
    expect(again).toEqual([]);
  });

  /** A fresh store with one queued payload run `finished` times, synced once from the start: the client and its pages. */
  async function syncedStore(finished: number) {
    const fake = await startFakeAgentLightningV03();
    store = fake;
    await call("POST", "/v1/agl/queues/rollouts/enqueue", agentLightningEnqueueRequest(samplePayload()));
    for (let i = 0; i < finished; i++) await runNext(1, "succeeded");
    const client = new AgentLightningClient({ url: fake.url, api: "agl-v1" });
    const first = [];
    for await (const page of syncPages(client)) first.push(page);
    return { fake, client, first };
  }

  // the default InMemoryLightningStore loses everything on restart; the offset cursor then points past `total`
  it("a restarted in-memory store: the saved offset past its end is reported and the store read from the start", async () => {
    const { fake, client, first } = await syncedStore(3);
    expect(first.map((p) => at(p.cursor))).toEqual(["3"]);

    fake.restart();
    await call("POST", "/v1/agl/queues/rollouts/enqueue", {
      rollouts: [{ input: { environment_key: "x" } }, { input: { environment_key: "y" } }],
    });
    for (let i = 0; i < 2; i++) await runNext(0.5, "succeeded");
    const pages = [];
    for await (const page of syncPages(client, { after: "3" })) pages.push(page);
    expect(pages.flatMap((p) => p.rollouts.map((r) => r.environmentKey)).sort()).toEqual(["x", "y"]);
    expect(at(pages.at(-1)?.cursor ?? null)).toBe("2");
    expect(pages[0].storeReset).toMatchObject({ cursor: "3", total: 2 });
  });

  // the next training run's store finishes more rollouts than the saved offset before the next sync: the offset is not
  // past its end, and the rollout read last, which the cursor carries, is what tells the two stores apart
  it("a restarted in-memory store refilled past the saved offset: read from the start, not from the old offset", async () => {
    const { fake, client, first } = await syncedStore(2);
    expect(first.map((p) => at(p.cursor))).toEqual(["2"]);
    expect(readSyncCursor(first[0].cursor!).last).toBe(first[0].rollouts[1].externalId.replace(/^agl:/, ""));

    fake.restart();
    await call("POST", "/v1/agl/queues/rollouts/enqueue", {
      rollouts: ["w", "x", "y", "z"].map((k) => ({ input: { environment_key: k } })),
    });
    for (let i = 0; i < 4; i++) await runNext(0.5, "succeeded");
    const pages = [];
    for await (const page of syncPages(client, { after: first[0].cursor })) pages.push(page);
    expect(pages.flatMap((p) => p.rollouts.map((r) => r.environmentKey)).sort()).toEqual(["w", "x", "y", "z"]);
    expect(pages[0].storeReset?.message).toMatch(/no longer holds the rollout read last .* before the saved cursor \(2\)/);
    expect(at(pages.at(-1)?.cursor ?? null)).toBe("4");
  });

  it("answers as 0.3 does to a sort field it does not have (400) and to a queue request without input (422)", async () => {
    store = await startFakeAgentLightningV03();
    const res = await fetch(`${store.url}/v1/agl/rollouts?sort_by=finished_at`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toContain("Invalid sort_by: finished_at");
    expect((await call("POST", "/v1/agl/queues/rollouts/enqueue", { rollouts: [{ metadata: {} }] })).status).toBe(422);
  });
});

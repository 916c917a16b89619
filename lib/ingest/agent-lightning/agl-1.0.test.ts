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
import { readSyncCursor, syncCursor, syncPages } from "./sync";

/** The store's own cursor inside a saved one. */
const at = (c: string | null) => (c === null ? null : readSyncCursor(c).after);
import { rolloutSchema } from "../normalized";

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
    expect(pages.map((p) => at(p.cursor))).toEqual(["2", "3"]);
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

  // agentlightning/server/store.py keeps _terminal_order in memory; routes/rollouts.py list_terminal_rollouts slices it at `after`
  it("a restarted store (its completion order emptied): the saved cursor past its end is reported and the store read from the start", async () => {
    store = await startFakeAgentLightningV1({ key: KEY });
    const client = new AgentLightningClient({ url: store.url, apiKey: KEY });
    await call(
      "POST",
      "/api/rollouts",
      ["a", "b", "c"].map((t) => ({ rollout_id: `old-${t}`, input: { environment_key: t } })),
    );
    for (const t of ["a", "b", "c"]) await runRollout(`old-${t}`, 1, "succeeded");
    const first = [];
    for await (const page of syncPages(client)) first.push(page);
    expect(first.map((p) => at(p.cursor))).toEqual(["3"]);

    store.restart();
    await call(
      "POST",
      "/api/rollouts",
      ["d", "e"].map((t) => ({ rollout_id: `new-${t}`, input: { environment_key: t } })),
    );
    for (const t of ["d", "e"]) await runRollout(`new-${t}`, 0.5, "succeeded");
    const terminal = await call("GET", "/api/rollouts/terminal?after=3");
    expect(terminal.json).toEqual({ items: [], next_after: 3, total_terminal: 2 }); // what the real route answers

    const pages = [];
    for await (const page of syncPages(client, { after: "3" })) pages.push(page);
    expect(pages.map((p) => p.rollouts.map((r) => r.externalId))).toEqual([["agl:new-d", "agl:new-e"]]);
    expect(at(pages[0].cursor)).toBe("2");
    expect(pages[0].storeReset).toMatchObject({ cursor: "3", total: 2 });
    expect(pages[0].storeReset?.message).toMatch(/restarted or emptied.*read again from the start/);

    // from the new cursor: nothing new, no reset
    const again = [];
    for await (const page of syncPages(client, { after: "2" })) again.push(page);
    expect(again).toEqual([]);

    // restarted with nothing finished yet: said once, and the cursor goes back to 0 so the next sync misses nothing
    store.restart();
    const empty = [];
    for await (const page of syncPages(client, { after: "2" })) empty.push(page);
    expect(empty).toMatchObject([{ rollouts: [], cursor: syncCursor("0", null), storeReset: { cursor: "2", total: 0 } }]);
  });

  // the next training run restarts the store, and it finishes more rollouts than the saved cursor before the next sync:
  // the cursor is not past its end, so only the rollout read last, which the cursor carries, tells the stores apart
  it("a restarted store refilled past the saved cursor: told apart by the rollout read last, read from the start", async () => {
    store = await startFakeAgentLightningV1({ key: KEY });
    const client = new AgentLightningClient({ url: store.url, apiKey: KEY });
    const finish = async (ids: string[], reward: number) => {
      await call(
        "POST",
        "/api/rollouts",
        ids.map((id) => ({ rollout_id: id, input: { environment_key: id } })),
      );
      for (const id of ids) await runRollout(id, reward, "succeeded");
    };
    const sync = async (after?: string | null) => {
      const pages = [];
      for await (const page of syncPages(client, { after })) pages.push(page);
      return pages;
    };
    await finish(["old-a", "old-b"], 1);
    const first = await sync();
    expect(first.map((p) => p.cursor)).toEqual([syncCursor("2", "old-b")]);
    // the same store, one more: read after the cursor, no reset (the probe found old-b where it was read)
    await finish(["old-c"], 1);
    const more = await sync(first[0].cursor);
    expect(more.map((p) => [p.rollouts.map((r) => r.externalId), p.storeReset])).toEqual([[["agl:old-c"], undefined]]);
    expect(more[0].cursor).toBe(syncCursor("3", "old-c"));

    store.restart();
    await finish(["new-a", "new-b", "new-c", "new-d"], 0.5);
    // what the cursor alone would read: the new store's fourth rollout only
    expect((await call("GET", "/api/rollouts/terminal?after=3")).json).toMatchObject({ next_after: 4, total_terminal: 4 });
    const after = await sync(more[0].cursor);
    expect(after.flatMap((p) => p.rollouts.map((r) => r.externalId))).toEqual(["agl:new-a", "agl:new-b", "agl:new-c", "agl:new-d"]);
    expect(after[0].storeReset).toMatchObject({ cursor: "3" });
    expect(after[0].storeReset?.message).toMatch(
      /no longer holds the rollout read last \("old-c"\) before the saved cursor \(3\), but "new-c"/,
    );
    expect(after.at(-1)?.cursor).toBe(syncCursor("4", "new-d"));
    // and from there, nothing new and nothing said
    expect(await sync(after.at(-1)!.cursor)).toEqual([]);
  });

  // routes/rollouts.py delete_rollout pops _rollouts and _events only; list_terminal_rollouts skips ids it no longer has
  it("a page made only of deleted rollouts: the cursor moves past it to the rollouts after", async () => {
    store = await startFakeAgentLightningV1({ key: KEY });
    const client = new AgentLightningClient({ url: store.url, apiKey: KEY });
    const ids = ["r-1", "r-2", "r-3", "r-4"];
    await call(
      "POST",
      "/api/rollouts",
      ids.map((id) => ({ rollout_id: id, input: { environment_key: id } })),
    );
    for (const id of ids) await runRollout(id, 1, "succeeded");
    for (const id of ["r-1", "r-2"])
      expect(
        (await fetch(`${store.url}/api/rollouts/${id}`, { method: "DELETE", headers: { authorization: `Bearer ${KEY}` } })).status,
      ).toBe(204);
    expect((await call("GET", "/api/rollouts/terminal?after=0&limit=2")).json).toEqual({ items: [], next_after: 2, total_terminal: 4 });

    const pages = [];
    for await (const page of syncPages(client, { limit: 2 })) pages.push(page);
    expect(pages.map((p) => [at(p.cursor), p.rollouts.map((r) => r.externalId)])).toEqual([
      ["2", []],
      ["4", ["agl:r-3", "agl:r-4"]],
    ]);

    // deleted at the end of the order: the cursor still moves, so the next sync does not ask for them again
    await call("POST", "/api/rollouts", [{ rollout_id: "r-5", input: { environment_key: "r-5" } }]);
    await runRollout("r-5", 1, "succeeded");
    await fetch(`${store.url}/api/rollouts/r-5`, { method: "DELETE", headers: { authorization: `Bearer ${KEY}` } });
    const tail = [];
    for await (const page of syncPages(client, { after: "4", limit: 2 })) tail.push(page);
    expect(tail.map((p) => [at(p.cursor), p.rollouts.length])).toEqual([["5", 0]]);
  });

  // server/routes/proxy.py forwards chat/completions and completions; server/proxy.py _capture_event records every
  // answer, failed ones too (status "error", http_status >= 400), which verl/agl_rollout_manager.py skips
  it("a text completion through the proxy reads as prompt and answer; a failed model call is skipped, not a turn", async () => {
    store = await startFakeAgentLightningV1({ key: KEY });
    const id = "text-1";
    await call("POST", "/api/rollouts", [{ rollout_id: id, input: { environment_key: "arith" } }]);
    await call("PATCH", `/api/rollouts/${id}`, { status: { state: "running", last_attempt_id: "a1" } });
    const isUsage = (r: unknown): r is { usage: unknown } => typeof r === "object" && r !== null && "usage" in r;
    const captured = (request: unknown, response: unknown, httpStatus: number) => ({
      event_type: "model_request",
      data: {
        model: "qwen-7b",
        model_version: "v1",
        request,
        response,
        server: { model: "qwen-7b", endpoint: "http://vllm:8000/v1", version: "v1" },
        latency_ms: 12.5,
        http_status: httpStatus,
        status: httpStatus < 400 ? "ok" : "error",
        retry_count: 0,
        usage: isUsage(response) ? response.usage : null,
        finish_reason: null,
      },
    });
    await call(
      "POST",
      `/api/rollouts/${id}/attempt/a1/events`,
      captured(
        { model: "qwen-7b", messages: [{ role: "user", content: "a prompt too long for the model" }], return_token_ids: true },
        { object: "error", message: "This model's maximum context length is 4096 tokens", type: "BadRequestError", code: 400 },
        400,
      ),
    );
    await call(
      "POST",
      `/api/rollouts/${id}/attempt/a1/events`,
      captured(
        { model: "qwen-7b", prompt: "Q: what is 2+2?\nA:", max_tokens: 8, return_token_ids: true },
        {
          id: "cmpl-1",
          object: "text_completion",
          model: "qwen-7b",
          choices: [{ index: 0, text: " 4", logprobs: null, finish_reason: "stop", token_ids: [19] }],
          usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
        },
        200,
      ),
    );
    await call("POST", `/api/rollouts/${id}/attempt/a1/events`, { event_type: "reward", data: { value: 1 } });
    await call("PATCH", `/api/rollouts/${id}`, { status: { state: "succeeded" } });

    const client = new AgentLightningClient({ url: store.url, apiKey: KEY });
    const synced = [];
    for await (const page of syncPages(client)) synced.push(...page.rollouts);
    expect(synced).toHaveLength(1);
    const [r] = synced;
    expect(r.trajectory?.map((m) => [m.role, m.content])).toEqual([
      ["user", "Q: what is 2+2?\nA:"],
      ["assistant", " 4"],
    ]);
    expect(r).toMatchObject({ reward: 1, policy: "qwen-7b", inputTokens: 9, outputTokens: 1, turns: 1 });
    expect(r.metadata).toMatchObject({ modelCalls: 1, failedModelCalls: 1 });
    expect(rolloutSchema.safeParse(r).success).toBe(true);
  });

  it("the store refuses a row that is not a RolloutCreate (422) and a wrong key (401)", async () => {
    store = await startFakeAgentLightningV1({ key: KEY });
    expect((await call("POST", "/api/rollouts", [{ id: "x", metadata: {} }])).status).toBe(422);
    const res = await fetch(`${store.url}/api/rollouts/terminal`, { headers: { authorization: "Bearer wrong" } });
    expect(res.status).toBe(401);
  });
});

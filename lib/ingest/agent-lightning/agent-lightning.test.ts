import { afterEach, describe, expect, it } from "vitest";
import {
  AgentLightningClient,
  AgentLightningError,
  parseEventList,
  parseRolloutPage,
  readSyncCursor,
  syncCursor,
  syncPages,
  toNormalizedRollout,
  type SyncOptions,
} from ".";
import { NO_REWARD_FLAG, rolloutSchema, type RolloutInput } from "../normalized";
import {
  fakeScenario,
  makeFakeRollout,
  makeFakeRollouts,
  startFakeAgentLightning,
  type FakeAgentLightning,
  type FakeAgentLightningOptions,
} from "@/tests/fakes/agent-lightning-server";

/** The store's own cursor inside a saved one. */
const at = (c: string | null) => (c === null ? null : readSyncCursor(c).after);

const servers: FakeAgentLightning[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close();
});

async function fake(opts: FakeAgentLightningOptions) {
  const s = await startFakeAgentLightning(opts);
  servers.push(s);
  return s;
}

async function syncAll(client: AgentLightningClient, opts: SyncOptions = {}) {
  const rollouts: RolloutInput[] = [];
  const cursors: (string | null)[] = [];
  for await (const page of syncPages(client, opts)) {
    rollouts.push(...page.rollouts);
    cursors.push(page.cursor);
    expect(page.skipped).toEqual([]);
  }
  return { rollouts, cursors, cursor: cursors.at(-1) ?? opts.after ?? null };
}

function expectValid(rollouts: RolloutInput[]) {
  for (const r of rollouts) {
    const parsed = rolloutSchema.safeParse(r);
    expect(parsed.success, parsed.success ? "" : `${r.externalId}: ${JSON.stringify(parsed.error.issues)}`).toBe(true);
  }
}

const terminalIds = (data: ReturnType<typeof makeFakeRollouts>) =>
  data.filter((r) => ["succeeded", "failed"].includes(r.rollout.status)).map((r) => `agl:${r.rollout.rollout_id}`);

describe("Agent Lightning sync against the fake store", () => {
  it("pages through all terminal rollouts and stops at the end", async () => {
    const data = makeFakeRollouts({ count: 7 });
    expect(data.some((r) => r.rollout.status === "running")).toBe(true);
    const server = await fake({ rollouts: data, pageSize: 3 });
    const client = new AgentLightningClient({ url: server.url });
    const pages: number[] = [];
    const { rollouts, cursors } = await syncAll(client, { limit: 50, onPage: (p) => pages.push(p.rollouts.length) });

    expect(rollouts.map((r) => r.externalId)).toEqual(terminalIds(data));
    expect(pages).toEqual([3, 3, 1]);
    expect(cursors.every((c) => typeof c === "string")).toBe(true);
    // three page requests (the last says hasMore: false) plus one events request per rollout
    expect(server.requests.filter((r) => r.startsWith("GET /api/rollouts/terminal"))).toHaveLength(3);
    expect(server.requests.filter((r) => r.endsWith("/events"))).toHaveLength(7);
    expectValid(rollouts);
  });

  it("resumes from a saved cursor and fetches only what is new", async () => {
    const data = makeFakeRollouts({ count: 5 });
    const server = await fake({ rollouts: data, pageSize: 2 });
    const client = new AgentLightningClient({ url: server.url });
    const first = await syncAll(client);
    expect(first.rollouts).toHaveLength(5);
    expect(first.cursor).not.toBeNull();

    // nothing new: one empty page request, no rollouts, the cursor stays
    const before = server.requests.length;
    const idle = await syncAll(client, { after: first.cursor });
    expect(idle.rollouts).toEqual([]);
    expect(idle.cursor).toBe(first.cursor);
    expect(server.requests.length - before).toBe(1);

    // one finishes later and one new arrives: only those two come back
    const running = data.find((r) => r.rollout.status === "running")!;
    server.updateRollout(running.rollout.rollout_id, { status: "succeeded", end_time: 1_900_000_000 });
    server.addRollout(makeFakeRollout(42, "solved"));
    const second = await syncAll(client, { after: first.cursor });
    expect(second.rollouts.map((r) => r.externalId)).toEqual([`agl:${running.rollout.rollout_id}`, "agl:ro-0042"]);
    const newEventRequests = server.requests.slice(before).filter((r) => r.endsWith("/events"));
    expect(newEventRequests).toHaveLength(2);
    expectValid(second.rollouts);
  });

  it("sends the bearer key and explains a 401", async () => {
    const server = await fake({ rollouts: makeFakeRollouts({ count: 2 }), apiKey: "s3cret-key" });
    const anonymous = new AgentLightningClient({ url: server.url, retryDelayMs: 1 });
    const err = await anonymous.terminalRollouts().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentLightningError);
    const e = err as AgentLightningError;
    expect(e.status).toBe(401);
    expect(e.message).toContain("check --key");
    expect(e.message).toContain(`${server.url}/api/rollouts/terminal`);
    expect(server.requests).toHaveLength(1); // a 401 is not retried

    const wrong = new AgentLightningClient({ url: server.url, apiKey: "nope" });
    const wrongErr = (await wrong.terminalRollouts().catch((x: unknown) => x)) as AgentLightningError;
    expect(wrongErr.status).toBe(401);
    expect(wrongErr.message).not.toContain("nope");

    const ok = new AgentLightningClient({ url: server.url, apiKey: "s3cret-key" });
    const { rollouts } = await syncAll(ok);
    expect(rollouts).toHaveLength(2);
  });

  it("retries 503s with backoff, and gives up after three tries", async () => {
    const server = await fake({ rollouts: makeFakeRollouts({ count: 2 }), failFirst: 2 });
    const client = new AgentLightningClient({ url: server.url, retryDelayMs: 1 });
    const page = await client.terminalRollouts();
    expect(page.items).toHaveLength(2);
    expect(server.requests).toHaveLength(3);

    const down = await fake({ rollouts: [], failFirst: 10 });
    const downClient = new AgentLightningClient({ url: down.url, retryDelayMs: 1 });
    const err = (await downClient.terminalRollouts().catch((e: unknown) => e)) as AgentLightningError;
    expect(err).toBeInstanceOf(AgentLightningError);
    expect(err.status).toBe(503);
    expect(err.message).toMatch(/HTTP 503 .* after 3 tries: store is warming up/);
    expect(down.requests).toHaveLength(3);
  });

  it("reports an unreachable store and a store that does not answer in time", async () => {
    const server = await fake({ rollouts: [] });
    const url = server.url;
    await servers.pop()!.close();
    const gone = new AgentLightningClient({ url, retryDelayMs: 1 });
    const err = (await gone.terminalRollouts().catch((e: unknown) => e)) as AgentLightningError;
    expect(err.kind).toBe("network");
    expect(err.message).toContain(`could not reach the Agent Lightning store at GET ${url}/api/rollouts/terminal`);

    let calls = 0;
    const hanging: typeof fetch = (_input, init) => {
      calls++;
      return new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    };
    const slow = new AgentLightningClient({ url: "http://store.invalid", fetchImpl: hanging, timeoutMs: 20, retryDelayMs: 1 });
    const timeout = (await slow.events("ro-1").catch((e: unknown) => e)) as AgentLightningError;
    expect(timeout.kind).toBe("timeout");
    expect(timeout.message).toContain("within 20 ms");
    expect(calls).toBe(3);
  });

  it("names the offending field when the store answers the wrong shape", async () => {
    const stub: typeof fetch = async () => Response.json({ items: [{ status: "succeeded", input: {} }], nextCursor: "x" });
    const client = new AgentLightningClient({ url: "http://store.test/", fetchImpl: stub });
    const err = (await client.terminalRollouts().catch((e: unknown) => e)) as AgentLightningError;
    expect(err).toBeInstanceOf(AgentLightningError);
    expect(err.kind).toBe("format");
    expect(err.message).toContain("GET http://store.test/api/rollouts/terminal?limit=100");
    expect(err.message).toContain("items.0.rollout_id");
    expect(() => parseEventList({ items: [{ value: 1 }] })).toThrow(/events\.0\.type/);
  });

  it("converts the generated scenarios: trajectory, reward, no-reward flag, errors, tokens", async () => {
    const data = makeFakeRollouts({ count: 8 });
    const server = await fake({ rollouts: data });
    const { rollouts } = await syncAll(new AgentLightningClient({ url: server.url }));
    expect(rollouts).toHaveLength(8);
    expectValid(rollouts);
    const byIndex = (i: number) => rollouts.find((r) => r.externalId === `agl:ro-${String(i).padStart(4, "0")}`)!;

    // i = 1: two tool calls -> three model_request events, each repeating the conversation so far
    expect(fakeScenario(1)).toBe("no_reward");
    const withTools = byIndex(1);
    const events = data[1].events.filter((e) => e.type === "model_request");
    expect(events).toHaveLength(3);
    expect(withTools.trajectory!.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]);
    expect(withTools.turns).toBe(3);
    expect(withTools.trajectory![2].toolCalls).toEqual([
      { id: "call_ro-0001_0", name: "calculator", arguments: JSON.stringify({ expression: "4 * 12" }) },
    ]);
    expect(withTools.trajectory![3]).toMatchObject({ role: "tool", toolCallId: "call_ro-0001_0", content: "48" });
    expect(withTools.trajectory![6].content).toContain("ANSWER: 51");
    expect(withTools.trajectory![6].tokens).toBe(21);
    expect(withTools.inputTokens).toBe(60 + 100 + 140);
    expect(withTools.outputTokens).toBe(15 + 18 + 21);
    expect(withTools.policy).toBe("Qwen/Qwen2.5-7B-Instruct");
    expect(withTools.environmentKey).toBe("arith-1");
    expect(withTools.status).toBe("completed");
    expect(withTools.reward).toBeUndefined();
    expect(withTools.metadata).toMatchObject({
      source: "agent-lightning",
      rolloutId: "ro-0001",
      attemptId: "at-ro-0001-1",
      flags: [NO_REWARD_FLAG],
    });
    expect(withTools.startedAt).toBe("2025-06-01T00:01:00.000Z");
    expect(withTools.finishedAt).toMatch(/^2025-06-01T00:01:\d\d\.000Z$/);

    expect(fakeScenario(0)).toBe("solved");
    expect(byIndex(0).reward).toBe(1);
    expect(byIndex(0).metadata?.flags).toBeUndefined();
    expect(fakeScenario(5)).toBe("wrong");
    expect(byIndex(5).reward).toBe(0);

    expect(fakeScenario(3)).toBe("failed");
    expect(byIndex(3)).toMatchObject({
      status: "errored",
      error: { type: "ToolExecutionError", message: "calculator: division by zero in sandbox" },
    });
    expect(byIndex(3).metadata?.flags).toEqual([NO_REWARD_FLAG]);

    expect(fakeScenario(7)).toBe("timeout");
    expect(byIndex(7)).toMatchObject({
      status: "errored",
      error: { type: "timeout", message: "Agent Lightning rollout failed (attempt timeout)" },
    });
  });
});

describe("toNormalizedRollout", () => {
  const base = { rollout_id: "r1", input: { question: "hi" }, start_time: 1_750_000_000.25, end_time: 1_750_000_010, status: "succeeded" };
  const sys = { role: "system", content: "Be brief." };
  const user = { role: "user", content: "Say hi twice." };
  const a1 = { role: "assistant", content: "hi" };
  const u2 = { role: "user", content: "again" };
  const a2 = { role: "assistant", content: "hi" };
  const call = (messages: unknown[], reply: unknown, extra: Record<string, unknown> = {}) => ({
    type: "model_request",
    request: { model: "m-small", messages },
    response: { model: "m-small-2025", choices: [{ message: reply }], usage: { prompt_tokens: 10, completion_tokens: 2 } },
    ...extra,
  });

  it("de-duplicates the growing prompt into one conversation", () => {
    const out = toNormalizedRollout(base, [call([sys, user], a1), call([sys, user, a1, u2], a2)]);
    expect(out.trajectory).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Say hi twice." },
      { role: "assistant", content: "hi", tokens: 2 },
      { role: "user", content: "again" },
      { role: "assistant", content: "hi", tokens: 2 },
    ]);
    expect(out.turns).toBe(2);
    expect(out.policy).toBe("m-small-2025");
    expect(out.startedAt).toBe("2025-06-15T15:06:40.250Z");
    expect(rolloutSchema.safeParse(out).success).toBe(true);
  });

  it("orders by sequence id, anchors a rewritten prompt, and keeps a sub-agent as a new segment", () => {
    const summary = { role: "user", content: "(earlier turns summarized)" };
    const events = [
      call([sys, user, summary, a1, u2], a2, { sequence_id: 2 }), // context rewritten but repeats a1
      call([sys, user], a1, { sequence_id: 1 }),
      call(
        [
          { role: "system", content: "You are a grader." },
          { role: "user", content: "grade it" },
        ],
        { role: "assistant", content: "ok" },
        { sequence_id: 3 },
      ),
    ];
    const out = toNormalizedRollout(base, events);
    expect(out.trajectory!.map((m) => m.content)).toEqual([
      "Be brief.",
      "Say hi twice.",
      "hi",
      "again",
      "hi",
      "You are a grader.",
      "grade it",
      "ok",
    ]);
    expect(out.metadata?.trajectorySegments).toBe(2);
  });

  it("takes the last reward, lets opts.policy and environmentKeyFrom win, and flags a rollout without reward", () => {
    const events = [
      call([sys, user], a1),
      { type: "reward", value: 0.2 },
      { type: "reward", value: null },
      { type: "reward", reward: 0.9 },
    ];
    const out = toNormalizedRollout({ ...base, metadata: { environment_key: "env-meta" } }, events, { policy: "my-policy" });
    expect(out.reward).toBe(0.9);
    expect(out.policy).toBe("my-policy");
    expect(out.environmentKey).toBe("env-meta");
    expect(out.metadata?.rewardEvents).toBe(3);
    expect(out.metadata?.flags).toBeUndefined();

    const custom = toNormalizedRollout(base, events, { environmentKeyFrom: (r) => `custom-${r.rollout_id}` });
    expect(custom.environmentKey).toBe("custom-r1");

    const none = toNormalizedRollout(base, [call([sys, user], a1)]);
    expect(none.reward).toBeUndefined();
    expect(none.metadata?.flags).toEqual([NO_REWARD_FLAG]);
    // no id in the input: a stable hash of it, so the same task is the same environment
    expect(none.environmentKey).toMatch(/^agl-task-[0-9a-f]{16}$/);
    expect(toNormalizedRollout({ ...base, rollout_id: "r2" }, []).environmentKey).toBe(none.environmentKey);
  });

  it("maps failed rollouts to errored, preferring the store's own error", () => {
    const out = toNormalizedRollout({ ...base, status: "failed", error: { type: "OOM", message: "worker died" } }, [
      { type: "exception", error: { type: "ValueError", message: "bad" } },
    ]);
    expect(out).toMatchObject({ status: "errored", error: { type: "OOM", message: "worker died" } });
    const plain = toNormalizedRollout({ ...base, status: "cancelled" }, []);
    expect(plain).toMatchObject({ status: "errored", error: { type: "cancelled", message: "Agent Lightning rollout cancelled" } });
    expect(plain.trajectory).toBeUndefined();
    expect(rolloutSchema.safeParse(plain).success).toBe(true);
  });

  it("uses only the final attempt's events", () => {
    const events = [
      call([sys, user], { role: "assistant", content: "crashed soon" }, { attempt_id: "a1", sequence_id: 1 }),
      { type: "reward", value: 0, attempt_id: "a1", sequence_id: 2 },
      call([sys, user], a1, { attempt_id: "a2", sequence_id: 1 }),
      { type: "reward", value: 1, attempt_id: "a2", sequence_id: 2 },
    ];
    const out = toNormalizedRollout({ ...base, attempt: { attempt_id: "a2", sequence_id: 2, status: "succeeded" } }, events);
    expect(out.trajectory!.map((m) => m.content)).toEqual(["Be brief.", "Say hi twice.", "hi"]);
    expect(out.reward).toBe(1);
    expect(out.metadata).toMatchObject({ attemptId: "a2", attemptSequence: 2, attempts: 2 });
  });

  it("reads real LightningStore spans (gen_ai.* attributes, reward and exception spans)", () => {
    const llmSpan = (seq: number, responseId: string, prompt: Record<string, unknown>, completion: Record<string, unknown>) => ({
      rollout_id: "r1",
      attempt_id: "at1",
      sequence_id: seq,
      trace_id: "t",
      span_id: `s${seq}`,
      parent_id: null,
      name: "openai.chat.completion",
      status: { status_code: "OK" },
      attributes: {
        "gen_ai.request.model": "qwen",
        "gen_ai.response.model": "qwen-7b",
        "gen_ai.response.id": responseId,
        "gen_ai.usage.prompt_tokens": 30,
        "gen_ai.usage.completion_tokens": 5,
        ...prompt,
        ...completion,
      },
      events: [],
      links: [],
      start_time: 1_750_000_001 + seq,
      end_time: 1_750_000_002 + seq,
      context: null,
      parent: null,
      resource: { attributes: {}, schema_url: "" },
    });
    const first = llmSpan(
      1,
      "resp-1",
      {
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": "Use tools.",
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": "2+2?",
      },
      {
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.tool_calls.0.id": "c1",
        "gen_ai.completion.0.tool_calls.0.name": "calc",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"e":"2+2"}',
      },
    );
    const second = llmSpan(
      3,
      "resp-2",
      {
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": "Use tools.",
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": "2+2?",
        "gen_ai.prompt.2.tool_calls.0.id": "c1", // role omitted, as AgentOps does: inferred
        "gen_ai.prompt.2.tool_calls.0.name": "calc",
        "gen_ai.prompt.2.tool_calls.0.arguments": '{"e":"2+2"}',
        "gen_ai.prompt.3.role": "tool",
        "gen_ai.prompt.3.tool_call_id": "c1",
        "gen_ai.prompt.3.content": "4",
      },
      { "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": '[{"type":"text","text":"It is 4."}]' },
    );
    const proxyDuplicate = { ...second, sequence_id: 4, span_id: "dup", name: "litellm_request" }; // same call traced twice
    const spans = [
      first,
      { ...first, sequence_id: 2, span_id: "tool", name: "tool.calc", attributes: { "tool.name": "calc" } },
      second,
      proxyDuplicate,
      { name: "agentlightning.reward", sequence_id: 5, attempt_id: "at1", attributes: { reward: 0.5 } },
      {
        name: "agentlightning.annotation",
        sequence_id: 6,
        attempt_id: "at1",
        attributes: {
          "agentlightning.reward.0.name": "primary",
          "agentlightning.reward.0.value": 1.0,
          "agentlightning.reward.1.name": "efficiency",
          "agentlightning.reward.1.value": 0.25,
        },
      },
      {
        name: "agentlightning.exception",
        sequence_id: 7,
        attempt_id: "at1",
        attributes: { "exception.type": "RuntimeError", "exception.message": "late" },
      },
    ];
    const out = toNormalizedRollout(
      { ...base, status: "failed" },
      parseEventList({ items: spans, limit: -1, offset: 0, total: spans.length }),
    );
    expect(out.trajectory).toEqual([
      { role: "system", content: "Use tools." },
      { role: "user", content: "2+2?" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "calc", arguments: '{"e":"2+2"}' }], tokens: 5 },
      { role: "tool", content: "4", toolCallId: "c1" },
      { role: "assistant", content: "It is 4.", tokens: 5 },
    ]);
    expect(out.inputTokens).toBe(60);
    expect(out.outputTokens).toBe(10);
    expect(out.policy).toBe("qwen-7b");
    expect(out.reward).toBe(1);
    expect(out.metadata?.rewardDimensions).toEqual([
      { name: "primary", value: 1 },
      { name: "efficiency", value: 0.25 },
    ]);
    expect(out.error).toEqual({ type: "RuntimeError", message: "late" });
    expect(rolloutSchema.safeParse(out).success).toBe(true);
  });

  it("accepts camelCase fields and the real store's offset pages", () => {
    const page = parseRolloutPage({
      items: [{ rolloutId: "x", status: "succeeded", startTime: 1_750_000_000 }],
      limit: 1,
      offset: 4,
      total: 9,
    });
    expect(page).toMatchObject({ nextCursor: "5", hasMore: true });
    expect(page.items[0].rollout_id).toBe("x");
    expect(parseRolloutPage({ items: [], next_cursor: null })).toEqual({ items: [], nextCursor: null, hasMore: false });
    expect(parseRolloutPage({ items: [{ rollout_id: "y", status: "failed" }], nextCursor: "c2", hasMore: false })).toMatchObject({
      nextCursor: "c2",
      hasMore: false,
    });
  });
});

describe("saved sync cursors", () => {
  it("carry the store's cursor and the rollout read last, and read back a cursor saved before them as the store's own", () => {
    expect(readSyncCursor(syncCursor("12", "ro-1"))).toEqual({ after: "12", last: "ro-1" });
    expect(readSyncCursor(syncCursor("cG9zOjM", null))).toEqual({ after: "cG9zOjM", last: null });
    expect(readSyncCursor("3")).toEqual({ after: "3", last: null });
    expect(readSyncCursor('{"after":')).toEqual({ after: '{"after":', last: null });
    expect(readSyncCursor('{"other":"x"}')).toEqual({ after: '{"other":"x"}', last: null });
    // an id too long for the cursor's size limit is not kept
    expect(readSyncCursor(syncCursor("5", "r".repeat(201)))).toEqual({ after: "5", last: null });
    expect(syncCursor("5", "r".repeat(200)).length).toBeLessThan(2000);
  });
});

describe("a store that holds another rollout before the saved cursor", () => {
  it("names that rollout's id escaped and cut to 200 characters (a store's ids reach the user's terminal)", async () => {
    const hostile = "\u001b[2J" + "x".repeat(5000);
    const stub: typeof fetch = async (input) => {
      const url = new URL(String(input));
      if (url.pathname === "/v1/agl/rollouts" && url.searchParams.get("limit") === "1")
        return Response.json({ items: [{ rollout_id: hostile, status: "succeeded" }], limit: 1, offset: 2, total: 3 });
      if (url.pathname === "/v1/agl/rollouts") return Response.json({ items: [], limit: 100, offset: 0, total: 0 });
      return Response.json({ items: [], limit: -1, offset: 0, total: 0 });
    };
    const client = new AgentLightningClient({ url: "http://store:4747", api: "agl-v1", fetchImpl: stub });
    const pages = [];
    for await (const p of syncPages(client, { after: syncCursor("3", "ro-old") })) pages.push(p);
    const message = pages[0].storeReset!.message;
    expect(message).not.toContain("\u001b");
    expect(message).toContain(`but "\\u001b[2J${"x".repeat(196)}…"`);
    expect(message.length).toBeLessThan(700);
  });
});

describe("AgentLightningClient against a real store's /v1/agl routes", () => {
  it("asks for terminal rollouts in finishing order with the offset as cursor, and spans as events", async () => {
    const urls: string[] = [];
    const stub: typeof fetch = async (input) => {
      const url = String(input);
      urls.push(url);
      if (url.includes("/v1/agl/rollouts")) {
        return Response.json({
          items: [{ rollout_id: "ro-a", input: { task_id: "t" }, status: "succeeded", start_time: 1, end_time: 2 }],
          limit: 1,
          offset: 3,
          total: 4,
        });
      }
      return Response.json({
        items: [{ name: "agentlightning.reward", rollout_id: "ro-a", attempt_id: "a", sequence_id: 1, attributes: { reward: 1 } }],
        limit: -1,
        offset: 0,
        total: 1,
      });
    };
    const client = new AgentLightningClient({ url: "http://store:4747", api: "agl-v1", fetchImpl: stub });
    const pages = [];
    for await (const p of syncPages(client, { after: "3", limit: 1 })) pages.push(p);
    expect(pages).toHaveLength(1);
    expect(at(pages[0].cursor)).toBe("4");
    expect(pages[0].rollouts[0]).toMatchObject({ externalId: "agl:ro-a", reward: 1, environmentKey: "t" });
    expect(urls[0]).toBe(
      "http://store:4747/v1/agl/rollouts?status_in=succeeded&status_in=failed&status_in=cancelled&sort_by=end_time&sort_order=asc&limit=1&offset=3",
    );
    expect(urls[1]).toBe("http://store:4747/v1/agl/spans?rollout_id=ro-a&sort_by=sequence_id&sort_order=asc&limit=-1");
  });
});

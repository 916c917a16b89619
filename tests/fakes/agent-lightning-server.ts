/**
 * A real HTTP server (node:http on 127.0.0.1, port 0) speaking EnvForge's Agent Lightning store
 * contract from in-memory data (see lib/ingest/agent-lightning/):
 *   GET /api/rollouts/terminal?after=<cursor>&limit=<n> -> { items, nextCursor, hasMore }
 *   GET /api/rollouts/{id}/events                       -> { items: [events] }
 * Only terminal rollouts (succeeded/failed/cancelled) are listed, in the order they finished; the
 * cursor is opaque (base64url of the position in that order). Wire data only: no imports from lib/.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

type Json = Record<string, unknown>;

/** A rollout on the wire (Agent Lightning `AttemptedRollout` field names). */
export interface FakeAglRolloutRecord extends Json {
  rollout_id: string;
  status: string;
}

/** A stored rollout with its events. */
export interface FakeAglRollout {
  rollout: FakeAglRolloutRecord;
  events: Json[];
}

export interface FakeAgentLightningOptions {
  rollouts?: FakeAglRollout[];
  /** when set, every request needs `Authorization: Bearer <apiKey>` (401 otherwise) */
  apiKey?: string;
  /** largest page served (default 50) */
  pageSize?: number;
  /** answer 503 to the first N requests */
  failFirst?: number;
}

export interface FakeAgentLightning {
  url: string;
  /** `METHOD /path?query` of every request, in order */
  requests: string[];
  close(): Promise<void>;
  addRollout(r: FakeAglRollout): void;
  /** changes a stored rollout (e.g. finishes a running one, which then lists after the others) */
  updateRollout(rolloutId: string, patch: Partial<FakeAglRolloutRecord>, events?: Json[]): void;
}

const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);

const encodeCursor = (position: number) => Buffer.from(`pos:${position}`).toString("base64url");
function decodeCursor(cursor: string): number | undefined {
  const m = /^pos:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return m ? Number(m[1]) : undefined;
}

/** Starts the fake store; `close()` it when done. */
export async function startFakeAgentLightning(opts: FakeAgentLightningOptions = {}): Promise<FakeAgentLightning> {
  const byId = new Map<string, FakeAglRollout>();
  const finished: string[] = []; // rollout ids in the order they became terminal
  const requests: string[] = [];
  const pageSize = Math.max(1, opts.pageSize ?? 50);
  let failuresLeft = opts.failFirst ?? 0;

  const store = (r: FakeAglRollout) => {
    const copy = structuredClone(r);
    const wasTerminal = byId.has(copy.rollout.rollout_id) && TERMINAL.has(byId.get(copy.rollout.rollout_id)!.rollout.status);
    byId.set(copy.rollout.rollout_id, copy);
    if (TERMINAL.has(copy.rollout.status) && !wasTerminal) finished.push(copy.rollout.rollout_id);
  };
  for (const r of opts.rollouts ?? []) store(r);

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };

  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (failuresLeft > 0) {
      failuresLeft--;
      return send(res, 503, { detail: "store is warming up" });
    }
    if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      return send(res, 401, { detail: "Unauthorized" });
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET") return send(res, 405, { detail: "Method not allowed" });

    if (url.pathname === "/api/rollouts/terminal") {
      const after = url.searchParams.get("after");
      let start = 0;
      if (after) {
        const pos = decodeCursor(after);
        if (pos === undefined || pos > finished.length) return send(res, 400, { detail: `invalid cursor: ${after}` });
        start = pos;
      }
      const rawLimit = url.searchParams.get("limit");
      const limit = rawLimit === null ? pageSize : Number(rawLimit);
      if (!Number.isInteger(limit) || limit < 1) return send(res, 400, { detail: "limit must be a positive integer" });
      const ids = finished.slice(start, start + Math.min(limit, pageSize));
      const end = start + ids.length;
      return send(res, 200, {
        items: ids.map((id) => byId.get(id)!.rollout),
        nextCursor: ids.length > 0 ? encodeCursor(end) : after,
        hasMore: end < finished.length,
      });
    }

    const m = /^\/api\/rollouts\/([^/]+)\/events$/.exec(url.pathname);
    if (m) {
      const stored = byId.get(decodeURIComponent(m[1]));
      if (!stored) return send(res, 404, { detail: `rollout ${decodeURIComponent(m[1])} not found` });
      return send(res, 200, { items: stored.events });
    }
    return send(res, 404, { detail: "Not found" });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    addRollout: store,
    updateRollout(rolloutId, patch, events) {
      const cur = byId.get(rolloutId);
      if (!cur) throw new Error(`no rollout ${rolloutId}`);
      store({ rollout: { ...cur.rollout, ...patch } as FakeAglRolloutRecord, events: events ?? cur.events });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

// --- realistic fake rollouts --------------------------------------------------------------------

export type FakeScenario = "solved" | "wrong" | "no_reward" | "failed" | "timeout" | "running";

export interface FakeRolloutOptions {
  /** terminal rollouts to make (default 8) */
  count?: number;
  /** prefix of rollout ids (default "ro") */
  prefix?: string;
  /** epoch seconds of the first rollout (default 2025-06-01T00:00:00Z) */
  startTime?: number;
  model?: string;
  /** also add one rollout still running (never listed by the server); default true */
  includeRunning?: boolean;
}

/** The scenario of the i-th generated rollout: index 1 has no reward, every 4th fails (every 8th by timeout). */
export function fakeScenario(i: number): FakeScenario {
  if (i === 1) return "no_reward";
  if (i % 8 === 7) return "timeout";
  if (i % 4 === 3) return "failed";
  return i % 2 === 0 ? "solved" : "wrong";
}

const SYSTEM = "You are a careful math agent. Use the calculator tool for every arithmetic step, then answer with 'ANSWER: <number>'.";
const CALCULATOR_TOOL = {
  type: "function",
  function: {
    name: "calculator",
    description: "Evaluate an arithmetic expression.",
    parameters: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] },
  },
};

/** Builds one realistic rollout: a multi-turn tool-using chat traced as growing `model_request` events. */
export function makeFakeRollout(i: number, scenario: FakeScenario = fakeScenario(i), opts: FakeRolloutOptions = {}): FakeAglRollout {
  const prefix = opts.prefix ?? "ro";
  const model = opts.model ?? "Qwen/Qwen2.5-7B-Instruct";
  const t0 = (opts.startTime ?? Date.UTC(2025, 5, 1) / 1000) + i * 60;
  const rolloutId = `${prefix}-${String(i).padStart(4, "0")}`;
  const attemptId = `at-${rolloutId}-1`;
  const a = 3 + i;
  const b = 7 + ((i * 5) % 11);
  const c = 2 + (i % 4);
  const question = `What is (${a} * ${b}) + ${c}?`;
  const steps = [
    { expression: `${a} * ${b}`, result: String(a * b) },
    { expression: `${a * b} + ${c}`, result: String(a * b + c) },
  ].slice(0, 1 + (i % 2)); // 1 or 2 tool calls -> 2 or 3 model calls
  const answer = scenario === "wrong" ? a * b + c + 1 : a * b + c;

  const conversation: Json[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: question },
  ];
  const events: Json[] = [];
  let seq = 1;
  let t = t0 + 1;
  const modelRequest = (response: Json, k: number) => {
    events.push({
      type: "model_request",
      rollout_id: rolloutId,
      attempt_id: attemptId,
      sequence_id: seq++,
      timestamp: t,
      request: { model, messages: structuredClone(conversation), tools: [CALCULATOR_TOOL], temperature: 0.7 },
      response: {
        id: `chatcmpl-${rolloutId}-${k}`,
        object: "chat.completion",
        model,
        choices: [{ index: 0, message: response, finish_reason: response.tool_calls ? "tool_calls" : "stop" }],
        usage: { prompt_tokens: 60 + 40 * k, completion_tokens: 15 + 3 * k, total_tokens: 75 + 43 * k },
      },
    });
    t += 2;
    conversation.push(response);
  };

  const toolSteps = scenario === "failed" || scenario === "timeout" ? steps.slice(0, 1) : steps;
  toolSteps.forEach((step, k) => {
    const callId = `call_${rolloutId}_${k}`;
    modelRequest(
      {
        role: "assistant",
        content: k === 0 ? "Let me compute this step by step." : null,
        tool_calls: [
          { id: callId, type: "function", function: { name: "calculator", arguments: JSON.stringify({ expression: step.expression }) } },
        ],
      },
      k,
    );
    conversation.push({ role: "tool", tool_call_id: callId, content: step.result });
  });

  let status = "succeeded";
  let attemptStatus = "succeeded";
  if (scenario === "failed") {
    status = "failed";
    attemptStatus = "failed";
    events.push({
      type: "exception",
      rollout_id: rolloutId,
      attempt_id: attemptId,
      sequence_id: seq++,
      timestamp: t,
      error: { type: "ToolExecutionError", message: "calculator: division by zero in sandbox" },
    });
  } else if (scenario === "timeout") {
    status = "failed";
    attemptStatus = "timeout";
  } else if (scenario !== "running") {
    modelRequest({ role: "assistant", content: `The result is ${answer}.\nANSWER: ${answer}` }, toolSteps.length);
    if (scenario !== "no_reward") {
      events.push({
        type: "reward",
        rollout_id: rolloutId,
        attempt_id: attemptId,
        sequence_id: seq++,
        timestamp: t,
        value: scenario === "solved" ? 1.0 : 0.0,
      });
    }
  } else {
    status = "running";
    attemptStatus = "running";
  }

  const end = status === "running" ? null : t + 1;
  return {
    rollout: {
      rollout_id: rolloutId,
      input: { task_id: `arith-${i % 3}`, question, answer: a * b + c },
      start_time: t0,
      end_time: end,
      mode: "train",
      resources_id: "rs-0001",
      status,
      config: { timeout_seconds: 120, unresponsive_seconds: null, max_attempts: 1, retry_condition: [] },
      metadata: { dataset: "arith-mini" },
      attempt: {
        rollout_id: rolloutId,
        attempt_id: attemptId,
        sequence_id: 1,
        start_time: t0,
        end_time: end,
        status: attemptStatus,
        worker_id: `worker-${i % 2}`,
        last_heartbeat_time: t,
        metadata: null,
      },
    },
    events,
  };
}

/** A batch of realistic rollouts: `count` terminal ones (see {@link fakeScenario}) plus, by default, one still running. */
export function makeFakeRollouts(opts: FakeRolloutOptions = {}): FakeAglRollout[] {
  const n = opts.count ?? 8;
  const out = Array.from({ length: n }, (_, i) => makeFakeRollout(i, fakeScenario(i), opts));
  if (opts.includeRunning ?? true) out.push(makeFakeRollout(n, "running", { ...opts, prefix: `${opts.prefix ?? "ro"}-running` }));
  return out;
}

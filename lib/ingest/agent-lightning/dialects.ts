/**
 * The two dialects an Agent Lightning store speaks, read leniently (unknown fields pass through,
 * camelCase and snake_case both parse): wire schemas of pages, rollouts and events, and the reading
 * of one event or span as a model call, reward or error.
 *
 * Our contract (primary shape; what `tests/fakes/agent-lightning-server.ts` speaks):
 *   GET {url}/api/rollouts/terminal?after=<cursor>&limit=<n>
 *     -> { items: Rollout[], nextCursor: string|null, hasMore?: boolean }   (`next_cursor`/`has_more` accepted)
 *     `nextCursor` is the position after the last item (opaque); the end is `hasMore: false`, a null
 *     cursor or an empty page whose cursor did not move (an empty page with `hasMore: true` and a new
 *     cursor is skipped over, as 1.0 answers a slice of deleted rollouts).
 *   GET {url}/api/rollouts/{id}/events -> { items: Event[] }   (`{ events: [...] }` or a bare array accepted)
 *     Event: { type: "model_request", sequence_id?, timestamp?, attempt_id?,
 *              request: { model?, messages: [OpenAI chat messages] } (or a text completion's { prompt }),
 *              response: { id?, model?, choices: [{ message }] (or [{ text }]), usage: { prompt_tokens, completion_tokens } },
 *              status?: "ok"|"error", http_status? }   (a failed call, status "error" or http_status >= 400, is skipped)
 *          | { type: "reward", value: number|null }     (`reward`, `{ value }`, `rewards: [{ name, value }]` accepted)
 *          | { type: "exception"|"error", error: { type, message } }
 *   `Authorization: Bearer <key>` when a key is given.
 *
 * What the real store is (read in microsoft/agent-lightning: `agentlightning/types/core.py`,
 * `agentlightning/types/tracer.py`, `agentlightning/store/client_server.py`, `agentlightning/emitter/reward.py`
 * (old and new), `agentlightning/emitter/annotation.py`, `agentlightning/adapter/messages.py`,
 * `agentlightning/adapter/triplet.py`, `docs/tutorials/traces.md`; `agentlightning/semconv.py` as copied in
 * the fork millord237/agent-lightning; the newer `/v1/agl` server in the snapshot vendored at
 * strapi/LaunchPad `agent-lightning-main(1)/agent-lightning-main/agentlightning/store/client_server.py`):
 * - Rollout (`RolloutV2`, later `Rollout`): rollout_id, input (any task payload), start_time/end_time (float
 *   epoch seconds), mode ("train"|"val"|"test"), resources_id, status ("queuing"|"preparing"|"running"|
 *   "failed"|"succeeded"|"cancelled"|"requeuing"), config { timeout_seconds, unresponsive_seconds,
 *   max_attempts, retry_condition }, metadata. `AttemptedRollout` adds `attempt`.
 * - Attempt: rollout_id, attempt_id, sequence_id (1-based), start_time, end_time, status ("preparing"|
 *   "running"|"failed"|"succeeded"|"unresponsive"|"timeout"), worker_id, last_heartbeat_time, metadata.
 *   A rollout is retried as new attempts (max_attempts); its status is the final attempt's.
 * - There are no "events": the store keeps OpenTelemetry-derived Spans { rollout_id, attempt_id,
 *   sequence_id (monotonic per attempt), trace_id, span_id, parent_id, name, status, attributes, events,
 *   links, start_time, end_time, context, parent, resource }.
 * - REST (FastAPI): older stores under `/agl/v1`, newer under `/v1/agl`: `GET /rollouts?status_in=..
 *   &sort_by=&sort_order=&limit=&offset=` and `GET /spans?rollout_id=&attempt_id=&sort_by=sequence_id..`,
 *   both answering offset pages `{ items, limit, offset, total }`. No auth of its own.
 * - Rewards are spans: old `emit_reward` -> span `agentlightning.reward` with `attributes.reward`; newer ->
 *   span `agentlightning.annotation` with flattened `agentlightning.reward.0.name` ("primary" first) /
 *   `agentlightning.reward.0.value`; an intermediate semconv used `agentlightning.reward.primary`;
 *   AgentOps wraps `{"type":"reward","value":x}` in `agentops.task.output`. `find_final_reward` takes the
 *   LAST non-null reward, which is what we do.
 * - LLM calls are spans with flattened `gen_ai.prompt.N.{role,content,tool_call_id,tool_calls..}`,
 *   `gen_ai.completion.N.*`, `gen_ai.request.model`, `gen_ai.response.{id,model}`, `gen_ai.usage.*`
 *   (Weave tracer: `agentlightning.operation.input.messages.*` / `.output.choices.*`); duplicates of one
 *   call are told apart by `gen_ai.response.id`. Errors: span `agentlightning.exception` with
 *   `exception.type` / `exception.message`.
 * So events here may also be those real Spans (classified by name/attributes), pages may be offset pages
 * (the cursor becomes the next offset), and camelCase keys are accepted. `api: "agl-v1"` talks to a real
 * store's `/v1/agl` routes directly (cursor = offset over terminal rollouts sorted by end_time).
 */
import { z } from "zod";

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Preprocess: add snake_case copies of camelCase keys (and explicit aliases) so both spellings parse. */
function snakeKeys(aliases: Record<string, string> = {}) {
  return (v: unknown): unknown => {
    if (!isObject(v)) return v;
    const out: Json = { ...v };
    for (const [k, val] of Object.entries(v)) {
      const target = aliases[k] ?? (/[A-Z]/.test(k) ? k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : undefined);
      if (target && !(target in out)) out[target] = val;
    }
    return out;
  };
}

const time = z.union([z.number(), z.string()]).nullish();
const nullableString = z.string().nullish();

/** An attempt of a rollout (Agent Lightning `Attempt`). */
export const aglAttemptSchema = z.preprocess(
  snakeKeys({ id: "attempt_id" }),
  z.looseObject({
    rollout_id: nullableString,
    attempt_id: z.string(),
    sequence_id: z.number().nullish(),
    start_time: time,
    end_time: time,
    status: nullableString,
    worker_id: nullableString,
    last_heartbeat_time: time,
    metadata: z.record(z.string(), z.unknown()).nullish(),
  }),
);

/** A rollout as the store reports it (Agent Lightning `Rollout`/`AttemptedRollout`). */
/**
 * Agent Lightning 1.0 (agentlightning/schemas.py at v1.0.0): a terminal page item is
 * { rollout_id, state, data_id, is_train }, a full Rollout carries `status` as an object
 * { state, created_at, updated_at, last_attempt_id, error_message }: both read as the older shape.
 */
function fromV1Rollout(v: unknown): unknown {
  if (!isObject(v)) return v;
  const out: Json = { ...v };
  if (out.status === undefined && typeof out.state === "string") out.status = out.state;
  if (isObject(out.status)) {
    const st = out.status;
    out.status = st.state;
    if (out.start_time === undefined) out.start_time = st.created_at;
    if (out.end_time === undefined) out.end_time = st.updated_at;
    if (out.error === undefined && typeof st.error_message === "string") out.error = { type: "RolloutFailed", message: st.error_message };
  }
  return snakeKeys({ id: "rollout_id" })(out);
}

export const aglRolloutSchema = z.preprocess(
  fromV1Rollout,
  z.looseObject({
    rollout_id: z.string().min(1),
    input: z.unknown().optional(),
    start_time: time,
    end_time: time,
    mode: nullableString,
    resources_id: nullableString,
    status: z.string(),
    config: z.record(z.string(), z.unknown()).nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
    attempt: aglAttemptSchema.nullish(),
    attempts: z.array(aglAttemptSchema).nullish(),
    error: z.looseObject({ type: nullableString, message: nullableString }).nullish(),
    final_reward: z.number().nullish(),
  }),
);

/** One page of terminal rollouts: our cursor page, or the real store's offset page. */
export const rolloutPageSchema = z.preprocess(
  (v: unknown) => {
    const out = snakeKeys({ rollouts: "items" })(v);
    // 1.0's TerminalRolloutsPage: { items, next_after, total_terminal }
    if (isObject(out) && typeof out.next_after === "number" && out.next_cursor === undefined) {
      return {
        ...out,
        next_cursor: String(out.next_after),
        has_more: typeof out.total_terminal === "number" ? out.next_after < out.total_terminal : undefined,
      };
    }
    return out;
  },
  z.looseObject({
    items: z.array(aglRolloutSchema),
    next_cursor: z.union([z.string(), z.number()]).nullish(),
    has_more: z.boolean().nullish(),
    limit: z.number().nullish(),
    offset: z.number().nullish(),
    total: z.number().nullish(),
    next_after: z.number().nullish(),
    total_terminal: z.number().nullish(),
  }),
);

/** One event of a rollout: our `model_request`/`reward`/`exception` event, or a real store Span. */
export const aglEventSchema = z.preprocess(
  (v: unknown) => {
    // 1.0's Event { event_type, rollout_id, attempt_id, timestamp, data }: the data's fields as the event's
    if (isObject(v) && typeof v.event_type === "string" && isObject(v.data)) {
      return snakeKeys()({ ...v.data, type: v.event_type, rollout_id: v.rollout_id, attempt_id: v.attempt_id, timestamp: v.timestamp });
    }
    return snakeKeys()(v);
  },
  z
    .looseObject({
      type: nullableString,
      kind: nullableString,
      name: nullableString,
      rollout_id: nullableString,
      attempt_id: nullableString,
      sequence_id: z.number().nullish(),
      timestamp: time,
      start_time: time,
      end_time: time,
      attributes: z.record(z.string(), z.unknown()).nullish(),
    })
    .refine((e) => typeof e.type === "string" || typeof e.kind === "string" || typeof e.name === "string", {
      message: "an event needs a type (or a kind, or a span name)",
      path: ["type"],
    }),
);

/** The events of a rollout: `{ items }`, `{ events }` or a bare array. */
export const eventListSchema = z.preprocess(
  (v) => (Array.isArray(v) ? { events: v } : isObject(v) && !("events" in v) && "items" in v ? { ...v, events: v.items } : v),
  z.looseObject({ events: z.array(aglEventSchema) }),
);

export type AgentLightningAttempt = z.output<typeof aglAttemptSchema>;
export type AgentLightningRollout = z.output<typeof aglRolloutSchema>;
export type AgentLightningEvent = z.output<typeof aglEventSchema>;

/** A page of terminal rollouts with the cursor after its last item. */
export interface AgentLightningPage {
  items: AgentLightningRollout[];
  /** position after the last item (save it once the page is stored); null when the store gave none */
  nextCursor: string | null;
  /** false when the store says this was the last page */
  hasMore: boolean;
  /**
   * set when the cursor sent points past the store's end (1.0: `next_after > total_terminal`; an
   * offset page: `offset > total` with no items): the store holds `total` finished rollouts, fewer
   * than the cursor counts, so it was restarted (1.0's completion order lives in memory) or emptied
   */
  pastEnd?: { total: number };
}

/** Data from an Agent Lightning store that does not have the expected shape. */
export class AgentLightningFormatError extends Error {
  constructor(
    message: string,
    readonly issues: string[] = [],
  ) {
    super(message);
    this.name = "AgentLightningFormatError";
  }
}

function describeIssues(error: z.ZodError, max = 5): string[] {
  const all = error.issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`);
  return all.length > max ? [...all.slice(0, max), `(+${all.length - max} more)`] : all;
}

export function parseWith<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = describeIssues(r.error);
  throw new AgentLightningFormatError(`${what} has an unexpected shape: ${issues.join("; ")}`, issues);
}

/** Validates a terminal-rollouts page (either shape) into items, next cursor and whether more follow. */
export function parseRolloutPage(value: unknown): AgentLightningPage {
  const page = parseWith(rolloutPageSchema, value, "the rollout page");
  const n = page.items.length;
  if (page.next_cursor !== undefined && page.next_cursor !== null) {
    const nextCursor = String(page.next_cursor);
    // an empty page the store says is not the last: 1.0 skips deleted rollouts while next_after still advances
    const out: AgentLightningPage = {
      items: page.items,
      nextCursor,
      hasMore: page.has_more === true || (n > 0 && page.has_more !== false),
    };
    const { next_after: nextAfter, total_terminal: total } = page;
    if (typeof nextAfter === "number" && typeof total === "number" && nextAfter > total) out.pastEnd = { total };
    return out;
  }
  if (typeof page.offset === "number") {
    // the real store's offset page: the cursor is the next offset
    const next = page.offset + n;
    const hasMore = typeof page.total === "number" ? next < page.total : n > 0 && (!page.limit || page.limit < 0 || n >= page.limit);
    const out: AgentLightningPage = { items: page.items, nextCursor: String(next), hasMore: n > 0 && hasMore };
    // only an empty page: a store that answers a plain list reports total = len(items) (0.3's _build_paginated_response)
    if (n === 0 && typeof page.total === "number" && page.offset > page.total) out.pastEnd = { total: page.total };
    return out;
  }
  return { items: page.items, nextCursor: null, hasMore: false };
}

/** Validates a rollout's event list (either shape) into events. */
export function parseEventList(value: unknown): AgentLightningEvent[] {
  return parseWith(eventListSchema, value, "the event list").events;
}

const MODEL_EVENT_TYPES = new Set(["model_request", "model_call", "llm_call", "llm_request", "chat_completion"]);

export interface ModelCall {
  messages: unknown[];
  response?: Json;
  model?: string;
  responseId?: string;
  inputTokens?: number;
  outputTokens?: number;
}
export interface RewardSignal {
  value: number;
  dimensions?: { name: string; value: number }[];
}
export interface ErrorSignal {
  type?: string;
  message?: string;
}
type Signal =
  | { kind: "model"; call: ModelCall }
  | { kind: "failed_model" }
  | { kind: "reward"; reward: RewardSignal | null }
  | { kind: "error"; error: ErrorSignal }
  | null;

export function str(v: unknown): string | undefined {
  return typeof v === "string" && v.length > 0 ? v : undefined;
}

function count(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined;
}

function rewardNumber(v: unknown): number | undefined {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  return undefined;
}

/** Rebuilds `prefix.0.role`-style flattened attributes (or a JSON string under `prefix`) into objects/arrays. */
function unflatten(attrs: Json, prefix: string): unknown {
  const direct = attrs[prefix];
  if (typeof direct === "string" && /^[[{]/.test(direct.trimStart())) {
    try {
      return JSON.parse(direct);
    } catch {
      /* fall through to flattened keys */
    }
  } else if (typeof direct === "object" && direct !== null) return direct;
  const root: Json = {};
  let found = false;
  for (const [key, value] of Object.entries(attrs)) {
    if (!key.startsWith(`${prefix}.`)) continue;
    found = true;
    const parts = key.slice(prefix.length + 1).split(".");
    let node = root;
    for (const part of parts.slice(0, -1)) {
      if (!isObject(node[part])) node[part] = {};
      node = node[part] as Json;
    }
    node[parts[parts.length - 1]] = value;
  }
  return found ? arrayify(root) : undefined;
}

function arrayify(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(arrayify);
  if (!isObject(v)) return v;
  const keys = Object.keys(v);
  if (keys.length > 0 && keys.every((k) => /^\d{1,16}$/.test(k))) {
    return keys
      .map(Number)
      .sort((a, b) => a - b)
      .map((k) => arrayify(v[String(k)]));
  }
  return Object.fromEntries(keys.map((k) => [k, arrayify(v[k])]));
}

function asList(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isObject(v)) {
    const numeric = Object.keys(v).filter((k) => /^\d{1,16}$/.test(k));
    if (numeric.length > 0) return numeric.sort((a, b) => Number(a) - Number(b)).map((k) => v[k]);
    return [v];
  }
  return [];
}

/** A span-recorded message: content serialized as a JSON part list is decoded; a missing role is inferred. */
function spanMessage(raw: unknown, fallbackRole?: string): Json | undefined {
  if (!isObject(raw)) return undefined;
  const msg: Json = { ...(isObject(raw.message) ? raw.message : raw) };
  if (typeof msg.content === "string" && /^\[\s{0,256}\{/.test(msg.content.trimStart())) {
    try {
      const parts: unknown = JSON.parse(msg.content);
      if (Array.isArray(parts) && parts.every((p) => isObject(p) && typeof p.type === "string")) msg.content = parts;
    } catch {
      /* plain text that happens to start with [{ */
    }
  }
  if (typeof msg.role !== "string") {
    if (msg.tool_calls !== undefined) msg.role = "assistant";
    else if (msg.tool_call_id !== undefined) msg.role = "tool";
    else if (fallbackRole) msg.role = fallbackRole;
    else return undefined; // as Agent Lightning's TraceToMessages: drop a message whose role cannot be inferred
  }
  return msg;
}

function usageOf(usage: unknown): { inputTokens?: number; outputTokens?: number } {
  if (!isObject(usage)) return {};
  return {
    inputTokens: count(usage.prompt_tokens ?? usage.input_tokens ?? usage.promptTokens ?? usage.inputTokens),
    outputTokens: count(usage.completion_tokens ?? usage.output_tokens ?? usage.completionTokens ?? usage.outputTokens),
  };
}

/** A text completion's prompt: a string, or the first of a list of strings (token-id prompts carry no text). */
function textPrompt(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  return Array.isArray(v) && typeof v[0] === "string" ? v[0] : undefined;
}

function contractModelCall(e: Json): ModelCall {
  const request = isObject(e.request) ? e.request : {};
  const response = isObject(e.response) ? e.response : {};
  const rawMessages = request.messages ?? e.messages;
  let messages: unknown[] = Array.isArray(rawMessages) ? rawMessages : [];
  // 1.0's proxy forwards `completions` too (server/routes/proxy.py): a text prompt is the user's message, the choice's text the answer
  const prompt = Array.isArray(rawMessages) ? undefined : textPrompt(request.prompt ?? e.prompt);
  if (prompt !== undefined) messages = [{ role: "user", content: prompt }];
  const choices = Array.isArray(response.choices) ? response.choices : [];
  const first = choices[0];
  let message: Json | undefined;
  if (isObject(first) && isObject(first.message)) message = first.message;
  else if (isObject(first) && typeof first.text === "string") message = { role: "assistant", content: first.text };
  else if (isObject(response.message)) message = response.message;
  else if (typeof response.role === "string") message = response;
  if (message && typeof message.role !== "string") message = { ...message, role: "assistant" };
  return {
    messages,
    response: message,
    model: str(response.model) ?? str(request.model) ?? str(e.model),
    responseId: str(response.id),
    ...usageOf(response.usage ?? e.usage),
  };
}

function spanModelCall(attrs: Json): ModelCall | undefined {
  const prompt = unflatten(attrs, "gen_ai.prompt") ?? unflatten(attrs, "agentlightning.operation.input.messages");
  const completion = unflatten(attrs, "gen_ai.completion") ?? unflatten(attrs, "agentlightning.operation.output.choices");
  if (prompt === undefined && completion === undefined) return undefined;
  const messages = asList(prompt)
    .map((m) => spanMessage(m))
    .filter((m): m is Json => m !== undefined);
  const response = spanMessage(asList(completion)[0], "assistant");
  return {
    messages,
    response,
    model: str(attrs["gen_ai.response.model"]) ?? str(attrs["gen_ai.request.model"]) ?? str(attrs["agentlightning.operation.output.model"]),
    responseId: str(attrs["gen_ai.response.id"]) ?? str(attrs["agentlightning.operation.output.id"]),
    inputTokens: count(attrs["gen_ai.usage.prompt_tokens"] ?? attrs["gen_ai.usage.input_tokens"]),
    outputTokens: count(attrs["gen_ai.usage.completion_tokens"] ?? attrs["gen_ai.usage.output_tokens"]),
  };
}

function dimensionsOf(v: unknown): { name: string; value: number }[] | undefined {
  if (Array.isArray(v)) {
    const dims = v
      .filter(isObject)
      .map((d, i) => ({ name: str(d.name) ?? (i === 0 ? "primary" : `reward_${i}`), value: rewardNumber(d.value) }))
      .filter((d): d is { name: string; value: number } => d.value !== undefined);
    return dims.length > 0 ? dims : undefined;
  }
  if (isObject(v)) {
    const dims = Object.entries(v)
      .map(([name, value]) => ({ name, value: rewardNumber(value) }))
      .filter((d): d is { name: string; value: number } => d.value !== undefined);
    dims.sort((a, b) => (a.name === "primary" ? -1 : b.name === "primary" ? 1 : 0));
    return dims.length > 0 ? dims : undefined;
  }
  return undefined;
}

/** Our reward event: `value`/`reward` as a number, `{ value }`, a dimension list, or null (no verdict). */
function contractReward(e: Json): RewardSignal | null {
  const raw = e.value !== undefined ? e.value : e.reward !== undefined ? e.reward : e.rewards;
  const plain = rewardNumber(raw);
  if (plain !== undefined) return { value: plain };
  if (isObject(raw) && "value" in raw) {
    const v = rewardNumber(raw.value);
    return v === undefined ? null : { value: v };
  }
  const dims = dimensionsOf(raw);
  if (!dims) return null;
  const primaryKey = str(e.primary_key);
  const primary = (primaryKey && dims.find((d) => d.name === primaryKey)) || dims[0];
  return { value: primary.value, dimensions: dims.length > 1 ? dims : undefined };
}

/** A reward recorded as an Agent Lightning span (any of its generations), or undefined. */
function spanReward(name: string, attrs: Json): RewardSignal | null | undefined {
  for (const key of ["agentops.task.output", "agentops.entity.output"]) {
    let out = attrs[key];
    if (typeof out === "string") {
      try {
        out = JSON.parse(out);
      } catch {
        out = undefined;
      }
    }
    if (isObject(out) && out.type === "reward") {
      const v = rewardNumber(out.value);
      return v === undefined ? null : { value: v };
    }
  }
  if (Object.keys(attrs).some((k) => k.startsWith("agentlightning.reward."))) {
    const dims = dimensionsOf(unflatten(attrs, "agentlightning.reward"));
    return dims ? { value: dims[0].value, dimensions: dims.length > 1 ? dims : undefined } : null;
  }
  if (name === "agentlightning.reward") {
    const v = rewardNumber(attrs.reward);
    return v === undefined ? null : { value: v };
  }
  return undefined;
}

export function classify(event: AgentLightningEvent): Signal {
  const e: Json = isObject(event.data) ? { ...event.data, ...event } : isObject(event.payload) ? { ...event.payload, ...event } : event;
  const type = (str(e.type) ?? str(e.kind) ?? "").toLowerCase();
  if (MODEL_EVENT_TYPES.has(type)) {
    // server/proxy.py _capture_event records failed upstream calls too; verl/agl_rollout_manager.py skips them, and so do we
    if (e.status === "error" || (typeof e.http_status === "number" && e.http_status >= 400)) return { kind: "failed_model" };
    return { kind: "model", call: contractModelCall(e) };
  }
  if (type === "reward") return { kind: "reward", reward: contractReward(e) };
  if (type === "exception" || type === "error") {
    const err = isObject(e.error) ? e.error : isObject(e.exception) ? e.exception : e;
    return {
      kind: "error",
      error: {
        type: str(err.type === type ? undefined : err.type) ?? str(err.exception_type) ?? str(err.name),
        message: str(err.message) ?? str(err.exception_message),
      },
    };
  }
  const name = str(e.name) ?? "";
  const attrs = isObject(e.attributes) ? e.attributes : {};
  const reward = spanReward(name, attrs);
  if (reward !== undefined) return { kind: "reward", reward };
  if (name === "agentlightning.exception" || typeof attrs["exception.type"] === "string") {
    return { kind: "error", error: { type: str(attrs["exception.type"]), message: str(attrs["exception.message"]) } };
  }
  const call = spanModelCall(attrs);
  return call ? { kind: "model", call } : null;
}

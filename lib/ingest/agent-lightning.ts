/**
 * Agent Lightning (microsoft/agent-lightning) LightningStore -> normalized rollouts
 * (`envforge sync agent-lightning --url <store-url> --project <slug>`).
 *
 * Our contract (primary shape; what `tests/fakes/agent-lightning-server.ts` speaks):
 *   GET {url}/api/rollouts/terminal?after=<cursor>&limit=<n>
 *     -> { items: Rollout[], nextCursor: string|null, hasMore?: boolean }   (`next_cursor`/`has_more` accepted)
 *     `nextCursor` is the position after the last item (opaque); the end is `hasMore: false`, a null
 *     cursor or an empty page.
 *   GET {url}/api/rollouts/{id}/events -> { items: Event[] }   (`{ events: [...] }` or a bare array accepted)
 *     Event: { type: "model_request", sequence_id?, timestamp?, attempt_id?,
 *              request: { model?, messages: [OpenAI chat messages] },
 *              response: { id?, model?, choices: [{ message }], usage: { prompt_tokens, completion_tokens } } }
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
 *
 * Decisions: one EnvForge rollout per Agent Lightning rollout (`externalId = agl:<rollout_id>`), built
 * from its final attempt only (retries are the store's re-runs of the same task, and the rollout's
 * status is the final attempt's); earlier attempts' events are dropped and counted in
 * `metadata.attempts`. Environment key: `opts.environmentKeyFrom` > `metadata.environment_key` >
 * the input's `environment_key`/`task_id`/`id` > `agl-task-<sha256(input)[:16]>` (same task, same
 * environment). Policy: `opts.policy` > model of the last model call > `metadata.policy|model` >
 * "unknown". Reward: last reward event (the legacy rollout's `final_reward` if none).
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { NO_REWARD_FLAG, countTurns, normalizeOpenAIMessages, type RolloutInput } from "./normalized";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
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

// --- wire schemas (lenient: unknown fields pass through) ---------------------------------

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
export const aglRolloutSchema = z.preprocess(
  snakeKeys({ id: "rollout_id" }),
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
  snakeKeys({ rollouts: "items" }),
  z.looseObject({
    items: z.array(aglRolloutSchema),
    next_cursor: z.union([z.string(), z.number()]).nullish(),
    has_more: z.boolean().nullish(),
    limit: z.number().nullish(),
    offset: z.number().nullish(),
    total: z.number().nullish(),
  }),
);

/** One event of a rollout: our `model_request`/`reward`/`exception` event, or a real store Span. */
export const aglEventSchema = z.preprocess(
  snakeKeys(),
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

function parseWith<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
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
    return { items: page.items, nextCursor, hasMore: n > 0 && page.has_more !== false };
  }
  if (typeof page.offset === "number") {
    // the real store's offset page: the cursor is the next offset
    const next = page.offset + n;
    const hasMore = typeof page.total === "number" ? next < page.total : n > 0 && (!page.limit || page.limit < 0 || n >= page.limit);
    return { items: page.items, nextCursor: String(next), hasMore: n > 0 && hasMore };
  }
  return { items: page.items, nextCursor: null, hasMore: false };
}

/** Validates a rollout's event list (either shape) into events. */
export function parseEventList(value: unknown): AgentLightningEvent[] {
  return parseWith(eventListSchema, value, "the event list").events;
}

// --- conversion ---------------------------------------------------------------------------

/** Options of {@link toNormalizedRollout}. */
export interface ToNormalizedOptions {
  /** policy name; wins over the model named in the model calls */
  policy?: string;
  /** environment key of a rollout; wins over the built-in derivation */
  environmentKeyFrom?: (rollout: AgentLightningRollout) => string | undefined | null;
}

/** Flag set when a rollout's model calls could not be read as a chat trajectory. */
export const TRAJECTORY_UNREADABLE_FLAG = "trajectory_unreadable";

const COMPLETED_STATUSES = new Set(["succeeded", "success", "completed", "complete", "done"]);
const ERRORED_STATUSES = new Set(["failed", "failure", "error", "errored", "timeout", "timed_out", "unresponsive", "cancelled", "canceled"]);
const MODEL_EVENT_TYPES = new Set(["model_request", "model_call", "llm_call", "llm_request", "chat_completion"]);
const KEY_MAX = 512;

interface ModelCall {
  messages: unknown[];
  response?: Json;
  model?: string;
  responseId?: string;
  inputTokens?: number;
  outputTokens?: number;
}
interface RewardSignal {
  value: number;
  dimensions?: { name: string; value: number }[];
}
interface ErrorSignal {
  type?: string;
  message?: string;
}
type Signal = { kind: "model"; call: ModelCall } | { kind: "reward"; reward: RewardSignal | null } | { kind: "error"; error: ErrorSignal } | null;

function str(v: unknown): string | undefined {
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
  if (typeof direct === "string" && /^\s*[[{]/.test(direct)) {
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
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
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
    const numeric = Object.keys(v).filter((k) => /^\d+$/.test(k));
    if (numeric.length > 0) return numeric.sort((a, b) => Number(a) - Number(b)).map((k) => v[k]);
    return [v];
  }
  return [];
}

/** A span-recorded message: content serialized as a JSON part list is decoded; a missing role is inferred. */
function spanMessage(raw: unknown, fallbackRole?: string): Json | undefined {
  if (!isObject(raw)) return undefined;
  const msg: Json = { ...(isObject(raw.message) ? raw.message : raw) };
  if (typeof msg.content === "string" && /^\s*\[\s*{/.test(msg.content)) {
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

function contractModelCall(e: Json): ModelCall {
  const request = isObject(e.request) ? e.request : {};
  const response = isObject(e.response) ? e.response : {};
  const rawMessages = request.messages ?? e.messages;
  const messages = Array.isArray(rawMessages) ? rawMessages : [];
  const choices = Array.isArray(response.choices) ? response.choices : [];
  const first = choices[0];
  let message: Json | undefined;
  if (isObject(first) && isObject(first.message)) message = first.message;
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

function classify(event: AgentLightningEvent): Signal {
  const e: Json = isObject(event.data) ? { ...event.data, ...event } : isObject(event.payload) ? { ...event.payload, ...event } : event;
  const type = (str(e.type) ?? str(e.kind) ?? "").toLowerCase();
  if (MODEL_EVENT_TYPES.has(type)) return { kind: "model", call: contractModelCall(e) };
  if (type === "reward") return { kind: "reward", reward: contractReward(e) };
  if (type === "exception" || type === "error") {
    const err = isObject(e.error) ? e.error : isObject(e.exception) ? e.exception : e;
    return {
      kind: "error",
      error: { type: str(err.type === type ? undefined : err.type) ?? str(err.exception_type) ?? str(err.name), message: str(err.message) ?? str(err.exception_message) },
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

function toMillis(v: unknown): number | undefined {
  let n: number | undefined;
  if (typeof v === "number") n = v;
  else if (typeof v === "string" && v.trim() !== "") {
    if (/^-?\d+(\.\d+)?$/.test(v.trim())) n = Number(v);
    else {
      const parsed = Date.parse(v);
      return Number.isNaN(parsed) ? undefined : parsed;
    }
  }
  if (n === undefined || !Number.isFinite(n) || n <= 0) return undefined;
  if (n < 1e11) return n * 1000; // epoch seconds (Agent Lightning's floats)
  if (n < 1e14) return n; // milliseconds
  if (n < 1e17) return n / 1000; // microseconds
  return n / 1e6; // nanoseconds (raw OpenTelemetry)
}

function toIso(v: unknown): string | undefined {
  const ms = toMillis(v);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

function idLike(v: unknown): string | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return str(v);
}

function environmentKeyOf(rollout: AgentLightningRollout, opts: ToNormalizedOptions): string {
  const fromOpt = opts.environmentKeyFrom?.(rollout);
  const meta = rollout.metadata ?? {};
  const input = rollout.input;
  const fromInput = isObject(input)
    ? (idLike(input.environment_key) ??
      idLike(input.environmentKey) ??
      idLike(input.task_id) ??
      idLike(input.taskId) ??
      idLike(input.env_id) ??
      idLike(input.id))
    : undefined;
  const key =
    str(fromOpt) ??
    str(meta.environment_key) ??
    str(meta.environmentKey) ??
    fromInput ??
    (input !== undefined && input !== null
      ? `agl-task-${createHash("sha256").update(stableJson(input)).digest("hex").slice(0, 16)}`
      : `agl-rollout-${rollout.rollout_id}`);
  return key.slice(0, KEY_MAX);
}

/** Identity of a chat message for prefix matching (generated tool-call ids and token counts ignored). */
function messageKey(raw: unknown): string {
  try {
    const [m] = normalizeOpenAIMessages([raw]);
    return stableJson([m.role, m.content, (m.toolCalls ?? []).map((c) => [c.name, c.arguments]), m.toolCallId ?? null]);
  } catch {
    return stableJson(raw);
  }
}

/**
 * Joins model calls into one conversation: each request repeats the messages before it, so only what
 * is new is appended, then the response. A request that does not continue the conversation is
 * anchored on the latest known message it repeats; failing that it continues after the shared
 * prefix (context rewritten, or a sub-agent: a new segment).
 */
function buildConversation(calls: readonly ModelCall[]): { messages: unknown[]; segments: number } {
  const messages: unknown[] = [];
  const keys: string[] = [];
  let segments = calls.length > 0 ? 1 : 0;
  const push = (m: unknown) => {
    messages.push(m);
    keys.push(messageKey(m));
  };
  for (const call of calls) {
    const promptKeys = call.messages.map(messageKey);
    let lcp = 0;
    while (lcp < keys.length && lcp < promptKeys.length && keys[lcp] === promptKeys[lcp]) lcp++;
    let start = lcp;
    if (lcp < keys.length) {
      let anchored = false;
      for (let j = keys.length - 1; j >= lcp && !anchored; j--) {
        const at = promptKeys.lastIndexOf(keys[j]);
        if (at >= 0) {
          start = at + 1;
          anchored = true;
        }
      }
      if (!anchored) segments++;
    }
    for (const m of call.messages.slice(start)) push(m);
    if (call.response) push(call.outputTokens !== undefined ? { ...call.response, tokens: call.outputTokens } : call.response);
  }
  return { messages, segments };
}

function compact(obj: Json): Json {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined && v !== null));
}

/** Converts one Agent Lightning rollout and its events (ours or real store spans) into the API's rollout shape. */
export function toNormalizedRollout(
  rollout: AgentLightningRollout | Json,
  events: readonly unknown[],
  opts: ToNormalizedOptions = {},
): RolloutInput {
  const r = parseWith(aglRolloutSchema, rollout, "the rollout");
  const parsedEvents = parseEventList([...events]);

  // the final attempt: the rollout's own, else the last listed one, else the one the last event belongs to
  const attempts = r.attempts ?? [];
  const lastListed = [...attempts].sort((a, b) => (a.sequence_id ?? 0) - (b.sequence_id ?? 0)).at(-1);
  const attempt = r.attempt ?? lastListed ?? undefined;
  const eventAttempts = new Set(parsedEvents.map((e) => e.attempt_id).filter((a): a is string => typeof a === "string"));
  const attemptId = attempt?.attempt_id ?? [...parsedEvents].reverse().find((e) => typeof e.attempt_id === "string")?.attempt_id ?? undefined;
  const mine = parsedEvents.filter((e) => !attemptId || typeof e.attempt_id !== "string" || e.attempt_id === attemptId);
  const attemptCount = new Set([...eventAttempts, ...attempts.map((a) => a.attempt_id), ...(attemptId ? [attemptId] : [])]).size;

  // chronological order: sequence ids when every event has one, else timestamps, else as listed
  const indexed = mine.map((e, i) => ({ e, i }));
  if (indexed.every(({ e }) => typeof e.sequence_id === "number")) indexed.sort((a, b) => a.e.sequence_id! - b.e.sequence_id! || a.i - b.i);
  else {
    const times = indexed.map(({ e }) => toMillis(e.timestamp ?? e.start_time));
    if (times.every((t) => t !== undefined)) {
      const at = new Map(indexed.map((x, k) => [x, times[k]!]));
      indexed.sort((a, b) => at.get(a)! - at.get(b)! || a.i - b.i);
    }
  }

  const calls: ModelCall[] = [];
  const seenResponses = new Set<string>();
  let reward: RewardSignal | undefined;
  let rewardEvents = 0;
  let errorSignal: ErrorSignal | undefined;
  for (const { e } of indexed) {
    const signal = classify(e);
    if (!signal) continue;
    if (signal.kind === "model") {
      if (signal.call.responseId) {
        if (seenResponses.has(signal.call.responseId)) continue; // one call traced twice (e.g. SDK + proxy)
        seenResponses.add(signal.call.responseId);
      }
      calls.push(signal.call);
    } else if (signal.kind === "reward") {
      rewardEvents++;
      if (signal.reward) reward = signal.reward; // the last non-null reward wins (find_final_reward)
    } else errorSignal = { ...errorSignal, ...compact(signal.error as Json) };
  }
  if (!reward && typeof r.final_reward === "number" && Number.isFinite(r.final_reward)) reward = { value: r.final_reward };

  const flags: string[] = [];
  const meta = r.metadata ?? {};
  let trajectory: RolloutInput["trajectory"];
  let trajectoryError: string | undefined;
  let segments = 0;
  if (calls.length > 0) {
    const conversation = buildConversation(calls);
    segments = conversation.segments;
    try {
      trajectory = normalizeOpenAIMessages(conversation.messages);
    } catch (err) {
      trajectoryError = err instanceof Error ? err.message : String(err);
      flags.push(TRAJECTORY_UNREADABLE_FLAG);
    }
  }
  if (!reward) flags.push(NO_REWARD_FLAG);

  const aglStatus = r.status.toLowerCase();
  const attemptStatus = attempt?.status?.toLowerCase();
  let status: RolloutInput["status"];
  let error: RolloutInput["error"];
  if (ERRORED_STATUSES.has(aglStatus)) {
    status = "errored";
    const metaError = meta.error;
    const explicit: ErrorSignal = {
      type: str(r.error?.type) ?? (isObject(metaError) ? str(metaError.type) : undefined),
      message: str(r.error?.message) ?? (isObject(metaError) ? str(metaError.message) : str(metaError)),
    };
    const statusType = attemptStatus && ERRORED_STATUSES.has(attemptStatus) && attemptStatus !== "failed" ? attemptStatus : aglStatus;
    error = {
      type: explicit.type ?? errorSignal?.type ?? statusType,
      message:
        explicit.message ??
        errorSignal?.message ??
        `Agent Lightning rollout ${aglStatus}${attemptStatus && attemptStatus !== aglStatus ? ` (attempt ${attemptStatus})` : ""}`,
    };
  } else if (COMPLETED_STATUSES.has(aglStatus)) status = "completed";

  const inputTokens = calls.some((c) => c.inputTokens !== undefined) ? calls.reduce((n, c) => n + (c.inputTokens ?? 0), 0) : undefined;
  const outputTokens = calls.some((c) => c.outputTokens !== undefined) ? calls.reduce((n, c) => n + (c.outputTokens ?? 0), 0) : undefined;
  const model = [...calls].reverse().find((c) => c.model)?.model;
  const policy = (str(opts.policy) ?? model ?? str(meta.policy) ?? str(meta.model) ?? "unknown").slice(0, KEY_MAX);

  let task: unknown;
  if (r.input !== undefined) {
    const json = JSON.stringify(r.input);
    if (json !== undefined && json.length <= 8192) task = r.input;
  }

  const metadata = compact({
    source: "agent-lightning",
    rolloutId: r.rollout_id,
    attemptId,
    attemptSequence: attempt?.sequence_id ?? undefined,
    attempts: attemptCount > 0 ? attemptCount : undefined,
    workerId: attempt?.worker_id ?? undefined,
    mode: r.mode ?? undefined,
    resourcesId: r.resources_id ?? undefined,
    aglStatus: r.status,
    attemptStatus: attempt?.status ?? undefined,
    task,
    aglMetadata: r.metadata && Object.keys(r.metadata).length > 0 ? r.metadata : undefined,
    modelCalls: calls.length,
    rewardEvents,
    rewardDimensions: reward?.dimensions,
    trajectorySegments: segments > 1 ? segments : undefined,
    trajectoryError,
    flags: flags.length > 0 ? flags : undefined,
  });

  const out: RolloutInput = {
    externalId: `agl:${r.rollout_id}`.slice(0, KEY_MAX),
    environmentKey: environmentKeyOf(r, opts),
    policy,
    metadata,
  };
  if (reward) out.reward = reward.value;
  if (status) out.status = status;
  if (error) out.error = error;
  if (inputTokens !== undefined) out.inputTokens = inputTokens;
  if (outputTokens !== undefined) out.outputTokens = outputTokens;
  if (trajectory) {
    out.trajectory = trajectory;
    out.turns = countTurns(trajectory);
  }
  const startedAt = toIso(r.start_time ?? attempt?.start_time);
  const finishedAt = toIso(r.end_time ?? attempt?.end_time);
  if (startedAt) out.startedAt = startedAt;
  if (finishedAt) out.finishedAt = finishedAt;
  return out;
}

// --- HTTP client ----------------------------------------------------------------------------

/** A failed conversation with an Agent Lightning store; names the URL and, for HTTP errors, the status. */
export class AgentLightningError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly status?: number,
    readonly kind: "config" | "http" | "network" | "timeout" | "format" = "http",
  ) {
    super(message);
    this.name = "AgentLightningError";
  }
}

/** Options of {@link AgentLightningClient}. */
export interface AgentLightningClientOptions {
  /** the store's base URL */
  url: string;
  /** sent as `Authorization: Bearer <key>` */
  apiKey?: string;
  fetchImpl?: typeof fetch;
  /** per request (headers and body), default 30 s */
  timeoutMs?: number;
  /** tries per request on 5xx/429/network errors/timeouts, default 3 */
  tries?: number;
  /** first backoff delay, doubled each retry (a Retry-After header wins, capped at 30 s), default 500 ms */
  retryDelayMs?: number;
  /** "envforge": our contract (default); "agl-v1": a real store's `/v1/agl` routes */
  api?: "envforge" | "agl-v1";
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function detailOf(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (isObject(body)) {
      const d = body.detail ?? body.error ?? body.message;
      if (typeof d === "string") return d;
      if (d !== undefined) return JSON.stringify(d).slice(0, 300);
    }
  } catch {
    /* not JSON */
  }
  return text.trim().slice(0, 300);
}

/** Reads terminal rollouts and their events from an Agent Lightning store over HTTP. */
export class AgentLightningClient {
  readonly url: string;
  private readonly apiKey?: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly tries: number;
  private readonly retryDelayMs: number;
  private readonly api: "envforge" | "agl-v1";

  constructor(opts: AgentLightningClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(opts.url);
    } catch {
      throw new AgentLightningError(`invalid Agent Lightning store URL ${JSON.stringify(opts.url)} (check --url)`, opts.url, undefined, "config");
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new AgentLightningError(`the Agent Lightning store URL must be http(s): ${opts.url} (check --url)`, opts.url, undefined, "config");
    }
    this.url = opts.url.replace(/\/+$/, "");
    this.apiKey = opts.apiKey || undefined;
    this.fetchImpl = opts.fetchImpl ?? globalThis.fetch;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.tries = Math.max(1, opts.tries ?? 3);
    this.retryDelayMs = opts.retryDelayMs ?? 500;
    this.api = opts.api ?? "envforge";
  }

  /** One page of finished rollouts after `after` (a cursor from a previous page; none = from the start). */
  async terminalRollouts(after?: string, limit = 100): Promise<AgentLightningPage> {
    const n = Math.max(1, Math.floor(limit));
    let path: string;
    if (this.api === "agl-v1") {
      const offset = after === undefined || after === "" ? 0 : Number(after);
      if (!Number.isInteger(offset) || offset < 0) {
        throw new AgentLightningError(`cursor ${JSON.stringify(after)} is not an offset of ${this.url}`, this.url, undefined, "config");
      }
      const q = new URLSearchParams();
      for (const s of ["succeeded", "failed", "cancelled"]) q.append("status_in", s);
      q.set("sort_by", "end_time"); // finishing order: rollouts that finish later land after the cursor
      q.set("sort_order", "asc");
      q.set("limit", String(n));
      q.set("offset", String(offset));
      path = `/v1/agl/rollouts?${q}`;
    } else {
      const q = new URLSearchParams();
      if (after) q.set("after", after);
      q.set("limit", String(n));
      path = `/api/rollouts/terminal?${q}`;
    }
    const { url, body } = await this.getJson(path);
    try {
      return parseRolloutPage(body);
    } catch (err) {
      throw this.formatError(err, url);
    }
  }

  /** All events (or, from a real store, spans) of one rollout. */
  async events(rolloutId: string): Promise<AgentLightningEvent[]> {
    const path =
      this.api === "agl-v1"
        ? `/v1/agl/spans?${new URLSearchParams({ rollout_id: rolloutId, sort_by: "sequence_id", sort_order: "asc", limit: "-1" })}`
        : `/api/rollouts/${encodeURIComponent(rolloutId)}/events`;
    const { url, body } = await this.getJson(path);
    try {
      return parseEventList(body);
    } catch (err) {
      throw this.formatError(err, url);
    }
  }

  private formatError(err: unknown, url: string): Error {
    if (err instanceof AgentLightningFormatError) {
      return new AgentLightningError(`unexpected response from GET ${url}: ${err.issues.join("; ") || err.message}`, url, undefined, "format");
    }
    return err instanceof Error ? err : new Error(String(err));
  }

  private async getJson(path: string): Promise<{ url: string; body: unknown }> {
    const url = `${this.url}${path}`;
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let last: AgentLightningError | undefined;
    for (let attempt = 1; attempt <= this.tries; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.timeoutMs);
      let status: number;
      let text: string;
      let retryAfterMs: number | undefined;
      try {
        const res = await this.fetchImpl(url, { method: "GET", headers, signal: controller.signal });
        status = res.status;
        const ra = Number(res.headers.get("retry-after"));
        if (Number.isFinite(ra) && ra >= 0) retryAfterMs = Math.min(ra * 1000, 30_000);
        text = await res.text();
      } catch (err) {
        const tries = attempt === 1 ? "" : ` (${attempt} tries)`;
        if (controller.signal.aborted) {
          last = new AgentLightningError(`no answer from GET ${url} within ${this.timeoutMs} ms${tries}`, url, undefined, "timeout");
        } else {
          const cause = err instanceof Error ? ((err.cause as { code?: string; message?: string } | undefined)?.code ?? (err.cause !== undefined ? String(err.cause) : err.message)) : String(err);
          last = new AgentLightningError(`could not reach the Agent Lightning store at GET ${url}${tries}: ${cause}`, url, undefined, "network");
        }
        if (attempt < this.tries) await sleep(this.retryDelayMs * 2 ** (attempt - 1));
        continue;
      } finally {
        clearTimeout(timer);
      }
      if (status >= 200 && status < 300) {
        try {
          return { url, body: JSON.parse(text) };
        } catch {
          throw new AgentLightningError(`GET ${url} did not answer JSON: ${text.trim().slice(0, 120)}`, url, status, "format");
        }
      }
      const detail = detailOf(text);
      const suffix = detail ? `: ${detail}` : "";
      if (status === 401 || status === 403) {
        throw new AgentLightningError(
          `HTTP ${status} from GET ${url}: check --key (the store's API key${this.apiKey ? " was refused" : "; none was given"})${suffix}`,
          url,
          status,
        );
      }
      if (status === 429 || status >= 500) {
        last = new AgentLightningError(`HTTP ${status} from GET ${url}${attempt > 1 ? ` after ${attempt} tries` : ""}${suffix}`, url, status);
        if (attempt < this.tries) await sleep(retryAfterMs ?? this.retryDelayMs * 2 ** (attempt - 1));
        continue;
      }
      if (status === 404) {
        throw new AgentLightningError(`HTTP 404 from GET ${url}: is --url an Agent Lightning store?${suffix}`, url, status);
      }
      throw new AgentLightningError(`HTTP ${status} from GET ${url}${suffix}`, url, status);
    }
    throw last ?? new AgentLightningError(`GET ${url} failed`, url);
  }
}

// --- sync -------------------------------------------------------------------------------------

/** One converted page of a sync. */
export interface SyncPage {
  /** 1-based page number within this sync */
  page: number;
  rollouts: RolloutInput[];
  /** rollouts that could not be converted, with why */
  skipped: { rolloutId: string; message: string }[];
  /** save this once `rollouts` are stored; the next sync starts after it */
  cursor: string | null;
}

/** Options of {@link syncPages}. */
export interface SyncOptions extends ToNormalizedOptions {
  /** cursor saved by a previous sync */
  after?: string | null;
  /** rollouts per page, default 100 */
  limit?: number;
  /** event requests in flight at once, default 4 */
  concurrency?: number;
  /** called with each page before it is yielded (progress) */
  onPage?: (page: SyncPage) => void;
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return out;
}

/**
 * Pages through finished rollouts after `after`, fetching each one's events and converting it;
 * yields one page at a time and fetches the next only when asked, so a caller stores a page and
 * then saves its `cursor` (a rerun from that cursor fetches only what is new).
 */
export async function* syncPages(client: AgentLightningClient, opts: SyncOptions = {}): AsyncGenerator<SyncPage, void, undefined> {
  let cursor: string | null = opts.after ?? null;
  const limit = opts.limit ?? 100;
  for (let page = 1; ; page++) {
    const res = await client.terminalRollouts(cursor ?? undefined, limit);
    if (res.items.length === 0) return;
    const converted = await mapLimit(res.items, opts.concurrency ?? 4, async (r) => {
      const events = await client.events(r.rollout_id); // transport errors end the sync before the cursor moves
      try {
        return { ok: true as const, rollout: toNormalizedRollout(r, events, opts) };
      } catch (err) {
        return { ok: false as const, rolloutId: r.rollout_id, message: err instanceof Error ? err.message : String(err) };
      }
    });
    const next = res.nextCursor ?? cursor;
    if (res.hasMore && next === cursor) {
      throw new AgentLightningError(`the store at ${client.url} did not advance its cursor past ${JSON.stringify(cursor)}`, client.url, undefined, "format");
    }
    const out: SyncPage = {
      page,
      rollouts: converted.flatMap((c) => (c.ok ? [c.rollout] : [])),
      skipped: converted.flatMap((c) => (c.ok ? [] : [{ rolloutId: c.rolloutId, message: c.message }])),
      cursor: next,
    };
    opts.onPage?.(out);
    yield out;
    cursor = next;
    if (!res.hasMore) return;
  }
}

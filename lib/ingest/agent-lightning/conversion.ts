/**
 * One Agent Lightning rollout and its events (ours or real store spans) -> the API's normalized
 * rollout.
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
import { canonicalJson } from "@/lib/families/hash";
import { NO_REWARD_FLAG, countTurns, normalizeOpenAIMessages, type RolloutInput } from "../normalized";
import {
  type AgentLightningRollout,
  type ErrorSignal,
  type Json,
  type ModelCall,
  type RewardSignal,
  aglRolloutSchema,
  classify,
  isObject,
  parseEventList,
  parseWith,
  str,
} from "./dialects";

/** Options of {@link toNormalizedRollout}. */
export interface ToNormalizedOptions {
  /** policy name; wins over the model named in the model calls */
  policy?: string;
  /** environment key of a rollout; wins over the built-in derivation */
  environmentKeyFrom?: (rollout: AgentLightningRollout) => string | undefined | null;
  /** the project synced into: a rollout EnvForge exported from this project keeps the generation it was dispatched for */
  project?: string;
}

/** Flag set when a rollout's model calls could not be read as a chat trajectory. */
export const TRAJECTORY_UNREADABLE_FLAG = "trajectory_unreadable";

const COMPLETED_STATUSES = new Set(["succeeded", "success", "completed", "complete", "done"]);
const ERRORED_STATUSES = new Set([
  "failed",
  "failure",
  "error",
  "errored",
  "timeout",
  "timed_out",
  "unresponsive",
  "cancelled",
  "canceled",
]);
const KEY_MAX = 512;

function toMillis(v: unknown): number | undefined {
  let n: number | undefined;
  if (typeof v === "number") n = v;
  else if (typeof v === "string" && v.trim() !== "") {
    if (/^-?\d{1,32}(?:\.\d{1,32})?$/.test(v.trim())) n = Number(v);
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

function idLike(v: unknown): string | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return str(v);
}

/**
 * The generation a rollout was dispatched for: `metadata.generation` of a row EnvForge exported
 * (lib/dispatch/adapters/export/agent-lightning.ts), only when it was exported from the project
 * synced into; otherwise undefined (the environment's newest generation then).
 */
function generationOf(rollout: AgentLightningRollout, opts: ToNormalizedOptions): number | undefined {
  const meta = rollout.metadata ?? {};
  const g = meta.generation;
  if (typeof g !== "number" || !Number.isSafeInteger(g) || g < 0) return undefined;
  if (opts.project === undefined || meta.project !== opts.project) return undefined;
  return g;
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
      ? `agl-task-${createHash("sha256").update(canonicalJson(input)).digest("hex").slice(0, 16)}`
      : `agl-rollout-${rollout.rollout_id}`);
  return key.slice(0, KEY_MAX);
}

/** Identity of a chat message for prefix matching (generated tool-call ids and token counts ignored). */
function messageKey(raw: unknown): string {
  try {
    const [m] = normalizeOpenAIMessages([raw]);
    return canonicalJson([m.role, m.content, (m.toolCalls ?? []).map((c) => [c.name, c.arguments]), m.toolCallId ?? null]);
  } catch {
    return canonicalJson(raw);
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
  const attemptId =
    attempt?.attempt_id ?? [...parsedEvents].reverse().find((e) => typeof e.attempt_id === "string")?.attempt_id ?? undefined;
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
  let failedModelCalls = 0;
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
    } else if (signal.kind === "failed_model") failedModelCalls++;
    else if (signal.kind === "reward") {
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
    failedModelCalls: failedModelCalls > 0 ? failedModelCalls : undefined,
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
  const generation = generationOf(r, opts);
  if (generation !== undefined) out.generation = generation;
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

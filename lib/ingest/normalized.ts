/**
 * The one normalized rollout shape every reader (NDJSON, Harbor, Agent Lightning) produces and
 * `POST /api/v1/projects/{slug}/rollouts` accepts (API.md, "Rollouts").
 */
import { z } from "zod";
import { unstorableValues } from "./json-safety";
import {
  commandsFromTrajectory,
  environmentDamage,
  isMainAgentTurn,
  type AgentCommand,
  type EnvironmentDamage,
} from "@/lib/analytics/blame";
import type { RolloutFailureInput } from "@/lib/analytics/failures";

/** Largest verifier output kept, in UTF-8 bytes. */
export const VERIFIER_OUTPUT_MAX_BYTES = 64 * 1024;
/** Of the kept bytes, how many come from the head; the rest is the tail, where test runners print their verdict. */
const VERIFIER_OUTPUT_HEAD_BYTES = 16 * 1024;

/** Message roles of a normalized trajectory. */
export const MESSAGE_ROLES = ["system", "user", "assistant", "tool"] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/**
 * Flag a reader sets (in `metadata.flags`) when the trajectory is the agent's own console log, not its steps: its turns are
 * unknown, never counted from it (the log is one message).
 */
export const AGENT_LOG_FLAG = "agent_log";

/** The turns of a rollout: as given, else counted from its trajectory (not from an agent's log), else unknown. */
export function rolloutTurns(r: Pick<NormalizedRollout, "turns" | "trajectory" | "metadata">): number | null {
  if (r.turns !== undefined) return r.turns;
  if (!r.trajectory || rolloutFlags(r).includes(AGENT_LOG_FLAG)) return null;
  return countTurns(r.trajectory);
}

/** Flag a reader sets (in `metadata.flags`) when the rollout's reward is a stand-in, not a verdict. */
export const NO_REWARD_FLAG = "no_reward";

/** A tool call of an assistant message; arguments stay the raw JSON string the model wrote. */
export const toolCallSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
});

/** A document a search tool returned in a turn (search-agent family). */
export const retrievedDocumentSchema = z.strictObject({
  id: z.string().optional(),
  title: z.string().optional(),
  text: z.string().optional(),
  url: z.string().optional(),
  relevant: z.boolean().optional(),
});

/** One normalized trajectory message. */
export const messageSchema = z.strictObject({
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  toolCalls: z.array(toolCallSchema).optional(),
  toolCallId: z.string().optional(),
  retrievedDocuments: z.array(retrievedDocumentSchema).optional(),
  tokens: z.number().int().nonnegative().optional(),
  /** the model's own reasoning, kept apart from what it said (ATIF `reasoning_content`) */
  reasoning: z.string().optional(),
  /** when the step happened (ATIF step timestamp) */
  timestamp: z.string().max(64).optional(),
  /** token counts and cost of the LLM call that produced this message */
  usage: z
    .strictObject({
      promptTokens: z.number().int().nonnegative().optional(),
      completionTokens: z.number().int().nonnegative().optional(),
      cachedTokens: z.number().int().nonnegative().optional(),
      costUsd: z.number().finite().nonnegative().optional(),
    })
    .optional(),
  /** trajectories this step delegated to (ATIF `subagent_trajectory_ref`) */
  subagentRefs: z
    .array(
      z.strictObject({
        sessionId: z.string().optional(),
        trajectoryId: z.string().optional(),
        trajectoryPath: z.string().optional(),
      }),
    )
    .optional(),
  /** copied from an earlier trajectory for context (ATIF `is_copied_context`): not this run's doing */
  copiedContext: z.boolean().optional(),
  /** a subagent's step merged into the main trajectory (claude-code sidechains, ATIF `extra.is_sidechain`): not the main agent's turn */
  sidechain: z.strictObject({ agentId: z.string().max(256).optional() }).optional(),
  /** the multi-step trial step this message belongs to (Harbor `steps/<name>`) */
  step: z.string().max(256).optional(),
});

/** Largest value of a Postgres integer column (token counts, turns, generation index). */
export const PG_INT_MAX = 2_147_483_647;
const count = z.number().int().nonnegative().max(PG_INT_MAX, `must be at most ${PG_INT_MAX}`);
// Postgres has no year 0: an ISO date of year 0000 passes the format but not the database
const timestamp = z.iso.datetime({ offset: true }).refine((v) => !v.startsWith("0000"), "year 0000 does not exist (use 0001 or later)");

/** A rollout as the API accepts it: unknown keys are rejected, `metadata` is free-form. */
export const rolloutSchema = z.strictObject({
  externalId: z.string().min(1).max(512),
  environmentKey: z.string().min(1).max(512),
  /** only with ?createEnvironments=1: the config of an environment not yet known */
  environmentConfig: z.record(z.string(), z.unknown()).optional(),
  generation: count.optional(),
  policy: z.string().min(1).max(512),
  reward: z
    .number()
    .finite()
    .nullish()
    .transform((v) => v ?? undefined),
  success: z
    .boolean()
    .nullish()
    .transform((v) => v ?? undefined),
  status: z.enum(["completed", "errored"]).optional(),
  error: z.strictObject({ type: z.string(), message: z.string() }).optional(),
  inputTokens: count.optional(),
  outputTokens: count.optional(),
  turns: count.optional(),
  startedAt: timestamp.optional(),
  finishedAt: timestamp.optional(),
  trajectory: z.array(messageSchema).optional(),
  verifierOutput: z.string().transform(truncateVerifierOutput).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export type ToolCall = z.infer<typeof toolCallSchema>;
export type RetrievedDocument = z.infer<typeof retrievedDocumentSchema>;
export type Message = z.infer<typeof messageSchema>;
/** A rollout after validation (reward/success null folded into absent, verifier output truncated). */
export type NormalizedRollout = z.output<typeof rolloutSchema>;
/** A rollout as a client sends it. */
export type RolloutInput = z.input<typeof rolloutSchema>;

/** One offending field of a rejected rollout. */
export interface RolloutIssue {
  /** dotted path, e.g. `trajectory.3.role`; an unknown key is named in the path */
  path: string;
  message: string;
}

function dotted(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join(".");
}

/** Flattens a zod error into field paths; each unknown key becomes its own issue at its own path. */
export function rolloutIssues(error: z.ZodError): RolloutIssue[] {
  const out: RolloutIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        out.push({ path: dotted([...issue.path, key]), message: `unknown field "${key}"` });
      }
      continue;
    }
    out.push({ path: dotted(issue.path) || "(root)", message: issue.message });
  }
  return out;
}

/** Validates one rollout; either the normalized rollout or the list of offending fields. */
export function parseRollout(input: unknown): { ok: true; rollout: NormalizedRollout } | { ok: false; issues: RolloutIssue[] } {
  // NUL characters, lone surrogates, non-finite numbers and deep nesting are rejected, never stripped
  const unstorable = unstorableValues(input);
  if (unstorable.length) return { ok: false, issues: unstorable };
  const r = rolloutSchema.safeParse(input);
  return r.success ? { ok: true, rollout: r.data } : { ok: false, issues: rolloutIssues(r.error) };
}

/**
 * Caps a verifier output at 64 KiB of UTF-8: keeps the first 16 KiB and the last 48 KiB (the
 * verdict and failing-test summary are printed last) with the marker `\n…[truncated N bytes]\n`
 * in between, N being the bytes dropped.
 */
export function truncateVerifierOutput(text: string): string {
  // a UTF-16 code unit is at most 3 bytes of UTF-8: most outputs are answered without encoding them
  if (text.length * 3 <= VERIFIER_OUTPUT_MAX_BYTES) return text;
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= VERIFIER_OUTPUT_MAX_BYTES) return text;
  let headEnd = VERIFIER_OUTPUT_HEAD_BYTES;
  while (headEnd > 0 && (bytes[headEnd] & 0xc0) === 0x80) headEnd--; // do not cut a UTF-8 sequence
  let tailStart = bytes.length - (VERIFIER_OUTPUT_MAX_BYTES - VERIFIER_OUTPUT_HEAD_BYTES);
  while (tailStart < bytes.length && (bytes[tailStart] & 0xc0) === 0x80) tailStart++;
  const decoder = new TextDecoder();
  const dropped = tailStart - headEnd;
  return `${decoder.decode(bytes.subarray(0, headEnd))}\n…[truncated ${dropped} bytes]\n${decoder.decode(bytes.subarray(tailStart))}`;
}

// --- OpenAI chat messages ----------------------------------------------------------------

/** A trajectory that cannot be read as OpenAI chat messages. */
export class TrajectoryFormatError extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(`message ${index}: ${message}`);
    this.name = "TrajectoryFormatError";
  }
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function contentText(content: unknown, index: number): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw new TrajectoryFormatError("content must be a string or an array of parts", index);
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") parts.push(part);
    else if (isObject(part)) {
      if (typeof part.text === "string") parts.push(part.text);
      else if (typeof part.refusal === "string") parts.push(part.refusal);
      else if (part.type === "image_url" || part.type === "image") parts.push("[image]");
      else if (part.type === "input_audio" || part.type === "audio") parts.push("[audio]");
      else if (part.type === "file") parts.push("[file]");
      else parts.push(`[${String(part.type ?? "part")}]`);
    }
  }
  return parts.join("\n");
}

function roleOf(role: unknown, index: number): MessageRole {
  switch (role) {
    case "system":
    case "developer":
      return "system";
    case "user":
      return "user";
    case "assistant":
      return "assistant";
    case "tool":
    case "function":
      return "tool";
    default:
      throw new TrajectoryFormatError(`unknown role ${JSON.stringify(role)}`, index);
  }
}

function toolCallsOf(raw: unknown, index: number): ToolCall[] | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw new TrajectoryFormatError("tool_calls must be an array", index);
  return raw.map((call, j) => {
    if (!isObject(call)) throw new TrajectoryFormatError(`tool_calls[${j}] must be an object`, index);
    const fn = isObject(call.function) ? call.function : call;
    const args = fn.arguments;
    return {
      id: typeof call.id === "string" ? call.id : `call_${index}_${j}`,
      name: typeof fn.name === "string" ? fn.name : "",
      arguments: typeof args === "string" ? args : args === undefined ? "" : JSON.stringify(args),
    };
  });
}

function documentsOf(raw: unknown): RetrievedDocument[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const docs: RetrievedDocument[] = [];
  for (const d of raw) {
    if (!isObject(d)) continue;
    const doc: RetrievedDocument = {};
    if (typeof d.id === "string" || typeof d.id === "number") doc.id = String(d.id);
    if (typeof d.title === "string") doc.title = d.title;
    const text = d.text ?? d.content;
    if (typeof text === "string") doc.text = text;
    if (typeof d.url === "string") doc.url = d.url;
    if (typeof d.relevant === "boolean") doc.relevant = d.relevant;
    docs.push(doc);
  }
  return docs;
}

/**
 * Converts OpenAI chat messages (string or part-array content, `tool_calls`, `tool` role with
 * `tool_call_id`, legacy `function_call`/`function` role) to normalized messages.
 */
export function normalizeOpenAIMessages(messages: unknown): Message[] {
  if (!Array.isArray(messages)) throw new TrajectoryFormatError("a trajectory must be an array of messages", -1);
  return messages.map((raw, i) => {
    if (!isObject(raw)) throw new TrajectoryFormatError("must be an object", i);
    const role = roleOf(raw.role, i);
    const msg: Message = { role, content: contentText(raw.content, i) };
    let toolCalls = toolCallsOf(raw.tool_calls ?? raw.toolCalls, i);
    if (!toolCalls && isObject(raw.function_call)) toolCalls = toolCallsOf([{ id: `call_${i}`, function: raw.function_call }], i);
    if (toolCalls && toolCalls.length > 0) msg.toolCalls = toolCalls;
    const callId = raw.tool_call_id ?? raw.toolCallId;
    if (typeof callId === "string") msg.toolCallId = callId;
    else if (raw.role === "function" && typeof raw.name === "string") msg.toolCallId = raw.name;
    const docs = documentsOf(raw.retrieved_documents ?? raw.retrievedDocuments);
    if (docs && docs.length > 0) msg.retrievedDocuments = docs;
    if (typeof raw.tokens === "number" && Number.isInteger(raw.tokens) && raw.tokens >= 0) msg.tokens = raw.tokens;
    return msg;
  });
}

/**
 * Number of agent turns in a trajectory: its assistant messages, less those copied from an earlier
 * segment for context (they were counted where they happened) and those of a subagent.
 */
export function countTurns(trajectory: readonly Message[]): number {
  return trajectory.reduce((n, m) => n + (isMainAgentTurn(m) ? 1 : 0), 0);
}

/** The flags a reader recorded in `metadata.flags`. */
export function rolloutFlags(rollout: Pick<NormalizedRollout, "metadata">): string[] {
  const flags = rollout.metadata?.flags;
  return Array.isArray(flags) ? flags.filter((f): f is string => typeof f === "string") : [];
}

/**
 * What the failure classifier needs from a normalized rollout; `commands` are the trajectory's commands when the caller
 * has read them already (ingest reads them once for this and the behaviours).
 */
export function failureInputFromRollout(
  rollout: NormalizedRollout,
  threshold?: number,
  commands?: readonly AgentCommand[],
): RolloutFailureInput {
  const last = rollout.trajectory?.[rollout.trajectory.length - 1];
  const hasReward = rollout.reward !== undefined && !rolloutFlags(rollout).includes(NO_REWARD_FLAG);
  return {
    status: rollout.status ?? null,
    reward: hasReward ? rollout.reward : null,
    success: rollout.success ?? null,
    errorType: rollout.error?.type ?? null,
    errorMessage: rollout.error?.message ?? null,
    verifierOutput: rollout.verifierOutput ?? null,
    hasVerdict: hasReward,
    finalMessage: last?.content ?? null,
    environmentDamage: environmentDamageOf(rollout, commands),
    threshold,
  };
}

/** The agent's environment-breaking commands: as the reader recorded them, else read from the trajectory. */
export function environmentDamageOf(
  rollout: Pick<NormalizedRollout, "metadata" | "trajectory">,
  commands?: readonly AgentCommand[],
): EnvironmentDamage[] {
  const recorded = rollout.metadata?.environmentDamage;
  if (Array.isArray(recorded)) return recorded as EnvironmentDamage[];
  return environmentDamage(commands ?? commandsFromTrajectory(rollout.trajectory));
}

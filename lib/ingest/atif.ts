/**
 * Reads ATIF (Agent Trajectory Interchange Format, `schema_version` "ATIF-v1.x"), the trajectory
 * format Harbor's built-in agents write, into normalized messages. Format: Harbor's
 * `models/trajectories/*.py` (shared/reference/harbor).
 *
 * Mapping: a `system`/`user` step becomes a system/user message; an `agent` step becomes an
 * assistant message (message text, `reasoning_content` kept apart as `reasoning`, tool calls with
 * their JSON arguments, per-step token counts and cost); each observation result becomes a tool
 * message linked by `source_call_id` (ending in `(exit_code=N)` when the step's `extra` recorded
 * one, as codex's converter does). Results not tied to a call stay unlinked tool messages
 * (or system messages on a system step), so nothing the agent saw is dropped. A step of a
 * subagent merged into the main trajectory (claude-code: `extra.is_sidechain`, `extra.agent_id`)
 * keeps that mark on its messages.
 */
import type { Message } from "./normalized";

/** An ATIF document that cannot be read, with where and why. */
export class AtifFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AtifFormatError";
  }
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const ATIF_VERSION = /^ATIF-v1\.\d{1,3}$/;

/** True when a parsed JSON document declares itself ATIF (`schema_version` "ATIF-v…"). */
export function isAtifDocument(doc: unknown): doc is Json {
  return isObject(doc) && typeof doc.schema_version === "string" && doc.schema_version.startsWith("ATIF-");
}

/** What an ATIF document says about the whole run, beside its messages. */
export interface AtifSummary {
  schemaVersion: string;
  sessionId?: string;
  agent?: { name?: string; version?: string; modelName?: string };
  totalPromptTokens?: number;
  totalCompletionTokens?: number;
  totalCachedTokens?: number;
  totalCostUsd?: number;
  totalSteps?: number;
  /** file of the continuation of this trajectory, when it goes on in another document */
  continuedTrajectoryRef?: string;
  /** ids of the subagent trajectories embedded in the document */
  embeddedSubagents?: string[];
  notes?: string;
}

/** An ATIF trajectory read into normalized messages. */
export interface AtifTrajectory {
  messages: Message[];
  summary: AtifSummary;
}

function text(content: unknown, where: string): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw new AtifFormatError(`${where}: must be a string or an array of content parts`);
  return content
    .map((part, i) => {
      if (!isObject(part)) throw new AtifFormatError(`${where}[${i}]: a content part must be an object`);
      if (part.type === "text") return typeof part.text === "string" ? part.text : "";
      if (part.type === "image") {
        const src = isObject(part.source) && typeof part.source.path === "string" ? part.source.path : "";
        return `[image${src ? `: ${src}` : ""}]`;
      }
      return `[${String(part.type ?? "part")}]`;
    })
    .join("\n");
}

function nonNegInt(v: unknown): number | undefined {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined;
}

function nonNegNumber(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function definedOnly<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

function usageOf(metrics: unknown): Message["usage"] | undefined {
  if (!isObject(metrics)) return undefined;
  const usage = definedOnly({
    promptTokens: nonNegInt(metrics.prompt_tokens),
    completionTokens: nonNegInt(metrics.completion_tokens),
    cachedTokens: nonNegInt(metrics.cached_tokens),
    costUsd: nonNegNumber(metrics.cost_usd),
  });
  return Object.keys(usage).length > 0 ? usage : undefined;
}

// claude-code merges subagents/*.jsonl into the main steps by timestamp (harbor agents/installed/claude_code.py)
function sidechainOf(extra: unknown): Message["sidechain"] | undefined {
  if (!isObject(extra) || extra.is_sidechain !== true) return undefined;
  const agentId = str(extra.agent_id);
  return agentId ? { agentId: agentId.slice(0, 256) } : {};
}

function subagentRefsOf(raw: unknown): Message["subagentRefs"] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  return raw
    .filter(isObject)
    .map((r) => definedOnly({ sessionId: str(r.session_id), trajectoryId: str(r.trajectory_id), trajectoryPath: str(r.trajectory_path) }));
}

/**
 * The exit code Harbor's codex converter moved out of a tool's output into the step's `extra`
 * (agents/installed/codex.py: `tool_metadata` of a one-call step, `tool_call_details[id].metadata`
 * of a bundled one), else undefined.
 */
function recordedExitCode(extra: unknown, callId: string, calls: number): number | undefined {
  if (!isObject(extra)) return undefined;
  const details = isObject(extra.tool_call_details) ? extra.tool_call_details[callId] : undefined;
  const metadata = isObject(details) ? details.metadata : calls === 1 ? extra.tool_metadata : undefined;
  const code = isObject(metadata) ? metadata.exit_code : undefined;
  return typeof code === "number" && Number.isInteger(code) ? code : undefined;
}

/**
 * Converts one ATIF document to normalized messages and a run summary; throws AtifFormatError
 * naming the step and field when the document does not follow the format.
 */
export function readAtifTrajectory(doc: unknown): AtifTrajectory {
  if (!isAtifDocument(doc)) throw new AtifFormatError('not an ATIF document (no schema_version "ATIF-v1.x")');
  const version = doc.schema_version as string;
  if (!ATIF_VERSION.test(version))
    throw new AtifFormatError(`schema_version ${JSON.stringify(version.slice(0, 40))} is not an ATIF v1 version`);
  if (!Array.isArray(doc.steps)) throw new AtifFormatError("steps: must be an array");

  const messages: Message[] = [];
  doc.steps.forEach((step, i) => {
    const where = `steps[${i}]`;
    if (!isObject(step)) throw new AtifFormatError(`${where}: must be an object`);
    const source = step.source;
    if (source !== "system" && source !== "user" && source !== "agent") {
      throw new AtifFormatError(`${where}.source: must be "system", "user" or "agent", got ${JSON.stringify(source)}`);
    }
    const role = source === "agent" ? "assistant" : source;
    const msg: Message = { role, content: text(step.message, `${where}.message`) };
    const timestamp = str(step.timestamp);
    if (timestamp) msg.timestamp = timestamp.slice(0, 64);
    if (step.is_copied_context === true) msg.copiedContext = true;
    const sidechain = sidechainOf(step.extra);
    if (sidechain) msg.sidechain = sidechain;
    if (source === "agent") {
      const reasoning = str(step.reasoning_content);
      if (reasoning) msg.reasoning = reasoning;
      if (step.tool_calls !== undefined && step.tool_calls !== null) {
        if (!Array.isArray(step.tool_calls)) throw new AtifFormatError(`${where}.tool_calls: must be an array`);
        const calls = step.tool_calls.map((call, j) => {
          if (!isObject(call)) throw new AtifFormatError(`${where}.tool_calls[${j}]: must be an object`);
          if (typeof call.tool_call_id !== "string") throw new AtifFormatError(`${where}.tool_calls[${j}].tool_call_id: must be a string`);
          if (typeof call.function_name !== "string")
            throw new AtifFormatError(`${where}.tool_calls[${j}].function_name: must be a string`);
          return { id: call.tool_call_id, name: call.function_name, arguments: JSON.stringify(call.arguments ?? {}) };
        });
        if (calls.length > 0) msg.toolCalls = calls;
      }
      const usage = usageOf(step.metrics);
      if (usage) {
        msg.usage = usage;
        if (usage.completionTokens !== undefined) msg.tokens = usage.completionTokens;
      }
    }
    messages.push(msg);

    if (step.observation === undefined || step.observation === null) return;
    if (!isObject(step.observation) || !Array.isArray(step.observation.results)) {
      throw new AtifFormatError(`${where}.observation.results: must be an array`);
    }
    const callIds = new Set((msg.toolCalls ?? []).map((c) => c.id));
    step.observation.results.forEach((result, j) => {
      const rwhere = `${where}.observation.results[${j}]`;
      if (!isObject(result)) throw new AtifFormatError(`${rwhere}: must be an object`);
      const refs = subagentRefsOf(result.subagent_trajectory_ref);
      const callId = str(result.source_call_id);
      const out: Message = { role: source === "agent" ? "tool" : role, content: text(result.content, `${rwhere}.content`) };
      if (callId && callIds.has(callId)) {
        out.toolCallId = callId;
        // the message has no field for it: the content ends with it as other harnesses write it (lib/analytics/blame.ts reads it)
        const exitCode = recordedExitCode(step.extra, callId, callIds.size);
        if (exitCode !== undefined) out.content = `${out.content}\n\n(exit_code=${exitCode})`;
      }
      if (refs) out.subagentRefs = refs;
      if (msg.copiedContext) out.copiedContext = true;
      if (msg.sidechain) out.sidechain = msg.sidechain;
      if (timestamp) out.timestamp = msg.timestamp;
      messages.push(out);
    });
  });

  const agent = isObject(doc.agent) ? doc.agent : undefined;
  const final = isObject(doc.final_metrics) ? doc.final_metrics : undefined;
  const embedded = Array.isArray(doc.subagent_trajectories)
    ? doc.subagent_trajectories.filter(isObject).map((t) => str(t.trajectory_id) ?? str(t.session_id) ?? "?")
    : undefined;
  const summary: AtifSummary = definedOnly({
    schemaVersion: version,
    sessionId: str(doc.session_id),
    agent: agent ? definedOnly({ name: str(agent.name), version: str(agent.version), modelName: str(agent.model_name) }) : undefined,
    totalPromptTokens: nonNegInt(final?.total_prompt_tokens),
    totalCompletionTokens: nonNegInt(final?.total_completion_tokens),
    totalCachedTokens: nonNegInt(final?.total_cached_tokens),
    totalCostUsd: nonNegNumber(final?.total_cost_usd),
    totalSteps: nonNegInt(final?.total_steps),
    continuedTrajectoryRef: str(doc.continued_trajectory_ref),
    embeddedSubagents: embedded && embedded.length > 0 ? embedded : undefined,
    notes: str(doc.notes)?.slice(0, 2000),
  });
  return { messages, summary };
}

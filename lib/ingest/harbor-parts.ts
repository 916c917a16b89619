/**
 * The meaning of what a Harbor trial (or one step of a multi-step trial) leaves in its agent/ and
 * verifier/ folders: the trajectory in whichever format the agent wrote it (ATIF or OpenAI chat
 * messages), the reward files, the CTRF test report. File access is passed in, so the safe reader
 * of harbor.ts stays the only one that touches the disk.
 */
import path from "node:path";
import { parseVerifierOutput } from "@/lib/analytics/failures";
import { isAtifDocument, readAtifTrajectory, type AtifSummary } from "./atif";
import { normalizeOpenAIMessages, type Message } from "./normalized";

/** How harbor.ts reads files: undefined when the file is missing; throws with the reason otherwise. */
export interface HarborFileReader {
  readJson(file: string): Promise<unknown | undefined>;
  readText(file: string): Promise<string | undefined>;
}

/** A trajectory read from agent/trajectory.json, or why it could not be. */
export interface TrajectoryRead {
  messages?: Message[];
  /** agent-log: no trajectory.json, the agent's own log in its place (readAgentLog) */
  format?: "atif" | "openai" | "agent-log";
  atif?: AtifSummary;
  /** the file is absent */
  missing?: boolean;
  /** why the file could not be read as a trajectory (never silently empty) */
  problem?: string;
}

function describe(doc: unknown): string {
  if (doc === null) return "null";
  if (Array.isArray(doc)) return `an array of ${doc.length}`;
  if (typeof doc === "object") {
    const keys = Object.keys(doc as object).slice(0, 8);
    return `an object with keys ${keys.join(", ") || "(none)"}`;
  }
  return `a ${typeof doc}`;
}

/**
 * Reads a parsed trajectory document: ATIF (`schema_version` "ATIF-v1.x"), an OpenAI message list,
 * or `{ messages: [...] }`; anything else comes back with `problem` naming what was found.
 */
export function trajectoryFromDocument(doc: unknown): TrajectoryRead {
  try {
    if (isAtifDocument(doc)) {
      const { messages, summary } = readAtifTrajectory(doc);
      return { messages, format: "atif", atif: summary };
    }
    if (Array.isArray(doc)) return { messages: normalizeOpenAIMessages(doc), format: "openai" };
    if (typeof doc === "object" && doc !== null && Array.isArray((doc as { messages?: unknown }).messages)) {
      return { messages: normalizeOpenAIMessages((doc as { messages: unknown }).messages), format: "openai" };
    }
    return { problem: `unknown trajectory format: ${describe(doc)} (expected ATIF with schema_version, or a list of chat messages)` };
  } catch (e) {
    return { problem: (e as Error).message.slice(0, 500) };
  }
}

const MAX_CONTINUATIONS = 16;
const SAFE_SIBLING = /^[\w.-]{1,200}\.json$/;

/**
 * The first segment's summary with the run totals of the last segment read: a continuing agent
 * (terminus-2's `_dump_trajectory_with_continuation_index`) writes its running totals in each segment.
 */
function withLastTotals(first: AtifSummary | undefined, last: AtifSummary | undefined): AtifSummary | undefined {
  if (!first || !last || last === first) return first;
  const totals = {
    totalPromptTokens: last.totalPromptTokens,
    totalCompletionTokens: last.totalCompletionTokens,
    totalCachedTokens: last.totalCachedTokens,
    totalCostUsd: last.totalCostUsd,
  };
  if (Object.values(totals).every((v) => v === undefined)) return first;
  return { ...first, ...totals };
}

const MAX_SUBAGENT_FILES = 32;

/**
 * Puts the subagent trajectories a step's results point to (`subagent_trajectory_ref[].trajectory_path`, a file beside the
 * trajectory) after the message that points to them, each message marked as that subagent's: terminus-2 writes its
 * context summarization as trajectory.summarization-N-{summary,questions,answers}.json (agents/terminus_2/terminus_2.py,
 * _summarize), so without them what the agent was told about its own past was missing. A reference that leads out of the
 * folder, a file already read, a missing or unreadable one is left as the reference it was.
 */
async function withSubagents(agentDir: string, messages: Message[], io: HarborFileReader): Promise<Message[]> {
  const seen = new Set<string>();
  const out: Message[] = [];
  for (const m of messages) {
    out.push(m);
    for (const ref of m.subagentRefs ?? []) {
      const name = ref.trajectoryPath === undefined ? undefined : path.basename(ref.trajectoryPath);
      if (!name || name !== ref.trajectoryPath || !SAFE_SIBLING.test(name) || seen.has(name) || seen.size >= MAX_SUBAGENT_FILES) continue;
      seen.add(name);
      let doc: unknown;
      try {
        doc = await io.readJson(path.join(agentDir, name));
      } catch {
        continue;
      }
      if (doc === undefined) continue;
      const sub = trajectoryFromDocument(doc);
      if (!sub.messages) continue;
      const agentId = ref.sessionId ?? name;
      for (const s of sub.messages) out.push({ ...s, sidechain: s.sidechain ?? { agentId: agentId.slice(0, 256) } });
    }
  }
  return out;
}

/** Reads agent/trajectory.json of `agentDir`, following ATIF continuation files beside it. */
export async function readTrajectory(agentDir: string, io: HarborFileReader): Promise<TrajectoryRead> {
  let doc: unknown;
  try {
    doc = await io.readJson(path.join(agentDir, "trajectory.json"));
  } catch (e) {
    return { problem: (e as Error).message.slice(0, 500) };
  }
  if (doc === undefined) return { missing: true };
  const first = trajectoryFromDocument(doc);
  if (!first.messages || first.format !== "atif") return first;
  let messages = [...first.messages];
  let last = first.atif;
  const read = (): TrajectoryRead => ({ ...first, messages, atif: withLastTotals(first.atif, last) });
  let next = first.atif?.continuedTrajectoryRef;
  const seen = new Set<string>(["trajectory.json"]);
  for (let i = 0; next && i < MAX_CONTINUATIONS; i++) {
    // only a plain file beside the trajectory: a reference never leads out of the folder
    const name = path.basename(next);
    if (!SAFE_SIBLING.test(name) || seen.has(name)) break;
    seen.add(name);
    let cont: unknown;
    try {
      cont = await io.readJson(path.join(agentDir, name));
    } catch (e) {
      return { ...read(), problem: `continuation ${name}: ${(e as Error).message.slice(0, 300)}` };
    }
    if (cont === undefined) return { ...read(), problem: `continuation ${name} is missing` };
    const part = trajectoryFromDocument(cont);
    if (!part.messages) return { ...read(), problem: `continuation ${name}: ${part.problem}` };
    messages.push(...part.messages);
    last = part.atif;
    next = part.atif?.continuedTrajectoryRef;
  }
  if (messages.some((m) => m.subagentRefs?.some((r) => r.trajectoryPath))) messages = await withSubagents(agentDir, messages, io);
  return read();
}

/**
 * Where agents that write no trajectory.json keep their own log in agent/ (harbor src/harbor/agents/installed/: aider.py
 * tees its console to aider.txt, kimi_code.py kimi-code.txt, pi.py pi.txt, langgraph.py langgraph.txt, mcode.py
 * mcode.jsonl, deerflow.py deerflow.jsonl, fx.py fx.json), by Harbor's agent name (models/agent/name.py).
 */
const AGENT_LOGS: Record<string, string[]> = {
  aider: ["aider.txt"],
  "kimi-code": ["kimi-code.txt"],
  pi: ["pi.txt"],
  langgraph: ["langgraph.txt"],
  mcode: ["mcode.jsonl"],
  deerflow: ["deerflow.jsonl"],
  fx: ["fx.json"],
};
const SAFE_AGENT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Most of an agent's own log kept as its trajectory; the rest is cut, the cut said. */
export const AGENT_LOG_MAX_CHARS = 4 * 1024 * 1024;

/**
 * An agent's own log, as the trajectory of a trial that has no trajectory.json: one tool message, headed by where it
 * came from. Its turns stay unknown (a console log has no turns to count); undefined when there is none.
 */
export async function readAgentLog(
  agentDir: string,
  agentName: string | undefined,
  io: HarborFileReader,
): Promise<TrajectoryRead | undefined> {
  if (!agentName || !SAFE_AGENT_NAME.test(agentName)) return undefined;
  const names = AGENT_LOGS[agentName] ?? [`${agentName}.txt`];
  for (const name of names) {
    let text: string | undefined;
    try {
      text = await io.readText(path.join(agentDir, name));
    } catch {
      continue;
    }
    if (text === undefined || text.trim() === "") continue;
    const cut = text.length > AGENT_LOG_MAX_CHARS;
    const what = `${name}: ${agentName}'s own log; Harbor recorded no structured trajectory for this agent`;
    const header = `[${what}${cut ? `; the first ${AGENT_LOG_MAX_CHARS} of ${text.length} characters` : ""}]`;
    return { messages: [{ role: "tool", content: `${header}\n${cut ? text.slice(0, AGENT_LOG_MAX_CHARS) : text}` }], format: "agent-log" };
  }
  return undefined;
}

/** Test counts of a CTRF report (`results.summary`). */
export interface CtrfSummary {
  tests: number;
  passed: number;
  failed: number;
  skipped: number;
}

function count(v: unknown): number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : 0;
}

/** The summary of a CTRF report, or undefined when the document is not one. */
export function ctrfSummary(doc: unknown): CtrfSummary | undefined {
  const summary = (doc as { results?: { summary?: Record<string, unknown> } } | null)?.results?.summary;
  if (typeof summary !== "object" || summary === null) return undefined;
  return { tests: count(summary.tests), passed: count(summary.passed), failed: count(summary.failed), skipped: count(summary.skipped) };
}

/** Passed and failed test counts: from the CTRF report when there is one, else from pytest's summary line. */
export function testCounts(
  verifierOutput: string | undefined,
  ctrf: CtrfSummary | undefined,
): { passed: number; failed: number } | undefined {
  if (ctrf) return { passed: ctrf.passed, failed: ctrf.failed };
  if (verifierOutput === undefined) return undefined;
  const report = parseVerifierOutput(verifierOutput);
  if (!report.testsRan) return undefined;
  return { passed: report.passed, failed: report.failed + report.errors };
}

/** Reward values by key; null where the verifier wrote no number. */
export type Rewards = Record<string, number | null>;

/**
 * Harbor's reward files as its verifier reads them: reward.json (a flat object of key -> number)
 * first, else reward.txt (one number, key "reward"). Undefined when neither exists.
 */
export async function readRewardFiles(verifierDir: string, io: HarborFileReader): Promise<{ rewards?: Rewards; problem?: string }> {
  try {
    const json = await io.readJson(path.join(verifierDir, "reward.json"));
    if (json !== undefined) {
      if (typeof json !== "object" || json === null || Array.isArray(json))
        return { problem: "reward.json is not an object of reward values" };
      const rewards: Rewards = {};
      for (const [k, v] of Object.entries(json)) rewards[k] = typeof v === "number" && Number.isFinite(v) ? v : null;
      return { rewards };
    }
    const text = await io.readText(path.join(verifierDir, "reward.txt"));
    if (text === undefined) return {};
    const value = Number(text.trim());
    if (text.trim() === "" || !Number.isFinite(value))
      return { problem: `reward.txt does not hold a number (${JSON.stringify(text.trim().slice(0, 40))})` };
    return { rewards: { reward: value } };
  } catch (e) {
    return { problem: (e as Error).message.slice(0, 300) };
  }
}

/** The headline reward of a trial and how it was chosen. */
export interface HeadlineReward {
  value?: number;
  key?: string;
  /** why no headline could be taken, or why the choice needs a look */
  problem?: string;
}

/**
 * The one reward a rollout is scored by, following Harbor (metrics/base.py): a single key is the
 * reward whatever its name; with several keys Harbor scores each key apart, so the headline is
 * `rewardKey` when given, else the key named "reward", else the first key in Harbor's (sorted)
 * order, flagged so the user can pick one with --reward-key.
 */
export function headlineReward(rewards: Rewards | null | undefined, rewardKey?: string): HeadlineReward {
  const keys = Object.keys(rewards ?? {}).sort();
  if (!rewards || keys.length === 0) return {};
  const valueOf = (key: string): HeadlineReward => {
    const v = rewards[key];
    return typeof v === "number" && Number.isFinite(v) ? { value: v, key } : { key, problem: `reward "${key}" is not a number` };
  };
  if (rewardKey !== undefined) {
    if (!(rewardKey in rewards)) return { problem: `no reward named "${rewardKey}" (keys: ${keys.join(", ")})` };
    return valueOf(rewardKey);
  }
  if (keys.length === 1) return valueOf(keys[0]);
  const chosen = keys.includes("reward") ? "reward" : keys[0];
  const r = valueOf(chosen);
  return chosen === "reward"
    ? r
    : { ...r, problem: r.problem ?? `several rewards (${keys.join(", ")}): headline "${chosen}"; pick one with --reward-key` };
}

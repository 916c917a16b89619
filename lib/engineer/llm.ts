/**
 * The LLM engineer (ENGINEER.md, "The LLM engineer"): one Chat Completions conversation with any
 * OpenAI-compatible endpoint through the `openai` SDK. Structured outputs first (json_schema, then
 * json_object, then plain text with extraction and repair, stepping down on the refusals vLLM,
 * SGLang, llama.cpp and Ollama send, remembered per endpoint: ./endpoint.ts), every item validated
 * against the family and the summary, up to two repair turns that quote the errors. The prompt is
 * budgeted to the context window (ENVFORGE_ENGINEER_CONTEXT_TOKENS and what the server reports). The API key never leaves
 * the SDK's Authorization header: it is redacted from every error, progress message and run record.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { jsonrepair } from "jsonrepair";
import { difficultyTier, learnability } from "@/lib/analytics/metrics";
import { describeField } from "@/lib/families/define";
import { getFieldValue, setFieldValue } from "@/lib/families/field-path";
import type { FamilyConfig, FamilyDefinition, FieldLevel, FieldSpec } from "@/lib/families/types";
import {
  discoverContextWindow,
  endpointKey,
  isStrictCompatible,
  isStructuredOutputRefusal,
  rememberedMode,
  rememberMode,
  STRUCTURED_LADDER,
  type StructuredMode,
} from "./endpoint";
import { fitToBudget } from "./summary";
import { isHopeless, isSolved } from "./classification";
import type { EngineerInput, EngineerOutput, PopulationMember, ProposedItem } from "./types";
import { EVIDENCE_KINDS, NO_EVIDENCE_FLAG, PROPOSAL_DIRECTIONS, PROPOSAL_OPS, validateItems, type ItemError } from "./validate-items";
import { processEnvironment } from "@/lib/config/env";

/** Repair turns after the first answer (ENGINEER.md: up to two). */
export const MAX_REPAIR_TURNS = 2;
/** Errors quoted in one repair message. */
const QUOTED_ERRORS = 20;
export const DEFAULT_ENGINEER_TIMEOUT_MS = 120_000;
export const DEFAULT_ENGINEER_MAX_RETRIES = 3;
export const DEFAULT_PROMPT_BUDGET_TOKENS = 12_000;

export type { StructuredMode } from "./endpoint";
/** Tokens kept free for the answer when the context window is known (a share of it, within these bounds). */
const MIN_OUTPUT_TOKENS = 1024;
const MAX_OUTPUT_TOKENS = 4096;
/** characters / 4 undercounts JSON-heavy prompts; the prompt gets this share of what is left after the answer. */
const TOKEN_ESTIMATE_SAFETY = 0.8;

/** Connection and pricing of the LLM engineer (from the environment, or injected by tests). */
export interface LlmEngineerConfig {
  baseURL: string;
  /** null for endpoints without authentication (a local vLLM, Ollama or llama.cpp server) */
  apiKey: string | null;
  model: string;
  /** per request, in milliseconds (default 120000) */
  timeoutMs?: number;
  /** SDK retries of 408/409/429/5xx, connection errors and timeouts, with exponential backoff (default 3) */
  maxRetries?: number;
  /** USD per 1M prompt tokens; cost is null unless both prices are set */
  priceIn?: number | null;
  /** USD per 1M completion tokens */
  priceOut?: number | null;
  /** token budget of the prompt (characters / 4) */
  promptBudgetTokens?: number;
  /** the model's context window in tokens (ENVFORGE_ENGINEER_CONTEXT_TOKENS); the server's reported window wins when smaller */
  contextTokens?: number | null;
  /** ask the server for its context window (default true) */
  discoverContext?: boolean;
}

/** What one LLM engineer run cost and produced (stored with the proposal, also on failure). */
export interface LlmRunRecord {
  model: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  costUsd: number | null;
  /** HTTP requests made, SDK retries and response_format fallbacks included */
  attempts: number;
  /** the last raw answer of the model (redacted of the API key) */
  rawOutput: string | null;
  error?: string;
  /** the response_format the endpoint accepted (or was last tried when the run failed early) */
  structured: StructuredMode;
  /** repair turns used (0..MAX_REPAIR_TURNS) */
  repairTurns: number;
  /** the context window the prompt was fitted to, and where it came from (null when unknown) */
  contextWindow?: { tokens: number; source: string } | null;
}

/** A failed LLM engineer run; `run` keeps the tokens spent and the raw output. */
export class LlmEngineerError extends Error {
  override readonly name = "LlmEngineerError";
  constructor(
    message: string,
    readonly run: LlmRunRecord,
  ) {
    super(message);
  }
}

export interface LlmEngineerHooks {
  onProgress?(message: string): void;
  signal?: AbortSignal;
}

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface EngineerPrompt {
  messages: ChatMessage[];
  /** characters of all messages / 4 */
  tokenEstimate: number;
  /** population members listed in the prompt */
  environmentsShown: number;
  /** keys of the members left out for the budget (in population order) */
  omittedKeys: string[];
}

// --- Configuration -------------------------------------------------------------------------

function optionalNumber(env: Record<string, string | undefined>, name: string, check: (n: number) => boolean, what: string): number | null {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return null;
  const value = Number(raw);
  if (!Number.isFinite(value) || !check(value)) throw new Error(`${name} must be ${what} (got "${raw}").`);
  return value;
}

/**
 * The LLM engineer's configuration from environment variables (OPENAI_BASE_URL, OPENAI_API_KEY,
 * ENVFORGE_ENGINEER_MODEL, ENVFORGE_ENGINEER_TIMEOUT_MS, ENVFORGE_ENGINEER_PRICE_IN/_OUT,
 * ENVFORGE_ENGINEER_CONTEXT_TOKENS), or null
 * when the model or the base URL is missing. Throws on malformed numbers.
 */
export function llmEngineerConfigFromEnv(env: Record<string, string | undefined> = processEnvironment()): LlmEngineerConfig | null {
  const baseURL = env.OPENAI_BASE_URL?.trim();
  const model = env.ENVFORGE_ENGINEER_MODEL?.trim();
  if (!baseURL || !model) return null;
  const apiKey = env.OPENAI_API_KEY?.trim();
  const timeoutMs = optionalNumber(
    env,
    "ENVFORGE_ENGINEER_TIMEOUT_MS",
    (n) => Number.isInteger(n) && n > 0,
    "a positive whole number of milliseconds",
  );
  const nonNegative = (n: number) => n >= 0;
  return {
    baseURL,
    apiKey: apiKey ? apiKey : null,
    model,
    timeoutMs: timeoutMs ?? DEFAULT_ENGINEER_TIMEOUT_MS,
    maxRetries: DEFAULT_ENGINEER_MAX_RETRIES,
    priceIn: optionalNumber(env, "ENVFORGE_ENGINEER_PRICE_IN", nonNegative, "a non-negative price in USD per 1M tokens"),
    priceOut: optionalNumber(env, "ENVFORGE_ENGINEER_PRICE_OUT", nonNegative, "a non-negative price in USD per 1M tokens"),
    contextTokens: optionalNumber(
      env,
      "ENVFORGE_ENGINEER_CONTEXT_TOKENS",
      (n) => Number.isInteger(n) && n >= 2048,
      "a whole number of tokens, at least 2048",
    ),
  };
}

// --- Prompt --------------------------------------------------------------------------------

const SYSTEM_PROMPT = [
  "You are the environment engineer of EnvForge. You design the next generation of a curriculum of RL environments for a policy that is trained on them.",
  "Environments teach most when the policy succeeds on them sometimes but not always (learnability p(1-p) peaks at p = 0.5).",
  "",
  "You receive the environment family's config fields, a structured summary of how the policy did in the current generation (behaviour, failure clusters with exemplar rollouts, success by field value, earlier proposals) and the current population.",
  "Propose the next population as a list of items, each with an op:",
  '- "keep": an environment that still teaches stays. Give its environmentKey.',
  '- "retire": an environment leaves (solved, hopeless, unsolvable or redundant). Give its environmentKey.',
  '- "mutate": a new child of one population member. Give parentKey and either "edits" ({"field.path": newValue}, applied to the parent\'s config; preferred) or a full "config". Change 1-3 fields.',
  '- "add": a brand-new environment. Give a full "config" with every field of the family.',
  "",
  "Rules:",
  "1. Every environment listed in the population gets exactly one keep or retire item.",
  "2. Configs use only the family's fields, stay within their bounds and levels, must be solvable, and must differ from every existing environment.",
  '3. Every item cites evidence: {"kind": "cluster", "ref": <cluster id>} or {"kind": "rollout", "ref": <rollout id>} using ONLY cluster ids and exemplar rollout ids present in the summary, or {"kind": "stat", "ref": <the statistic, e.g. "environments.fields.size">}. Never invent ids.',
  "4. rationale: one sentence saying why.",
  "5. predictedSuccess: your estimate of the policy's success rate on the environment, a number in [0, 1].",
  "6. direction: what the change trains: horizon (longer plans), uncertainty (noise, hidden information), precision (exactness, coordination) or diversify (coverage at the same difficulty).",
  "Solved environments (success >= 0.8): retire them or push a child harder along the direction the failures point to least. Hopeless ones (no successes): retire or make a child easier. Unsolvable ones: retire, never mutate toward them.",
  "",
  'Answer with one JSON object and nothing else: {"items": [...]}.',
].join("\n");

function formatLevel(level: FieldLevel): string {
  return typeof level === "string" ? JSON.stringify(level) : String(level);
}

function fieldLine(field: FieldSpec): string {
  let shape: string;
  switch (field.kind) {
    case "integer":
    case "number":
      shape = `${field.kind} in [${field.min ?? "-inf"}, ${field.max ?? "inf"}]${field.scale ? ", change it by factors" : ""}`;
      break;
    case "ordinal":
      shape = `ordinal, levels easy -> hard: ${(field.levels ?? []).map(formatLevel).join(" < ")}`;
      break;
    case "nominal":
      shape = field.levels ? `nominal, one of ${field.levels.map(formatLevel).join(" | ")}` : "nominal, free text";
      break;
    case "boolean":
      shape = "boolean";
      break;
  }
  const fixed = field.mutable === false ? "; fixed: copy it from the parent" : "";
  return `- ${field.path}: ${shape}; ${describeField(field)}${fixed}`;
}

/** A config value as short text: numbers rounded to 4 decimals, plain words unquoted. */
function compactValue(value: unknown): string {
  if (value === undefined) return "-";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
  if (typeof value === "string") return /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "-";
}

interface MemberFacts {
  member: PopulationMember;
  n: number;
  s: number;
  rate: number | null;
  learnability: number;
  solved: boolean;
  hopeless: boolean;
  unsolvable: boolean;
}

function memberFacts(member: PopulationMember): MemberFacts {
  const n = Math.max(0, Math.floor(member.n));
  const s = Math.min(Math.max(0, Math.floor(member.s)), n);
  const pMax = member.validation.pMax;
  const unsolvable = member.validation.state === "unsolvable" || pMax === 0;
  const rate = n > 0 ? s / n : null;
  return {
    member,
    n,
    s,
    rate,
    learnability: unsolvable ? 0 : learnability(n, s, pMax),
    solved: isSolved(n, s),
    hopeless: isHopeless(n, s),
    unsolvable,
  };
}

function populationLine(facts: MemberFacts, fields: readonly FieldSpec[]): string {
  const { member } = facts;
  const values = fields.map((f) => compactValue(getFieldValue(member.config, f.path))).join(",");
  const tier = facts.rate === null ? "untested" : difficultyTier(facts.rate);
  const flags: string[] = [];
  if (member.validation.state !== "valid") flags.push(member.validation.state);
  const pMax = member.validation.pMax;
  if (pMax !== null && pMax < 1) flags.push(pMax > 0 && pMax < 0.001 ? "pmax<0.001" : `pmax=${compactValue(Number(pMax.toFixed(3)))}`);
  if (member.clusterIds.length > 0) flags.push(`clusters=${member.clusterIds.slice(0, 2).join(" ")}`);
  return `${member.key} | ${values} | ${facts.s}/${facts.n} | ${tier}${flags.length > 0 ? ` | ${flags.join("; ")}` : ""}`;
}

function countsText(facts: readonly MemberFacts[]): string {
  const solved = facts.filter((f) => f.solved).length;
  const hopeless = facts.filter((f) => f.hopeless).length;
  const unsolvable = facts.filter((f) => f.unsolvable).length;
  const untested = facts.filter((f) => f.n === 0).length;
  return `${solved} solved (success >= 0.8), ${hopeless} hopeless (0 successes in 4+ attempts), ${unsolvable} unsolvable, ${untested} untested`;
}

const estimateTokens = (chars: number) => Math.ceil(chars / 4);

/**
 * The engineer's messages: a system message with the role and the rules, and one user message
 * with the family's fields, the structured summary (JSON), the population (one line per
 * environment) and the task. When the whole would exceed `budgetTokens` (characters / 4), the
 * summary's lists are cut first (so they leave at least a third of the budget to the population),
 * then only the environments with the highest learnability are listed and the rest are counted.
 * Deterministic.
 */
export function buildEngineerPrompt(input: EngineerInput, budgetTokens = DEFAULT_PROMPT_BUDGET_TOKENS): EngineerPrompt {
  const { family, population, options } = input;
  const fixedWithoutSummary = estimateTokens(SYSTEM_PROMPT.length + family.fields.map(fieldLine).join("\n").length + 2000);
  const summaryRoom = Math.floor((budgetTokens * 2) / 3) - fixedWithoutSummary;
  const summary =
    estimateTokens(JSON.stringify(input.summary).length) > summaryRoom
      ? fitToBudget(input.summary, Math.max(200, summaryRoom))
      : input.summary;
  const fields = family.fields;
  const facts = population.map(memberFacts);

  const target = Math.max(1, options.populationSize ?? population.length);
  const keepMax = Math.floor(target * (options.keepShare ?? 0.5));
  const adds = Math.round(target * (options.addShare ?? 0.15));

  const head = [
    `# Family ${family.id} (version ${family.version})`,
    family.description,
    "Config fields (path: kind and bounds or levels; description; direction; difficulty):",
    ...fields.map(fieldLine),
    "",
    `# Structured summary (generation ${summary.generation}, policy ${summary.policy ?? "all"})`,
    JSON.stringify(summary),
    "",
    `# Current population (${population.length} environments)`,
    `Columns: key | config values in field order (${fields.map((f) => f.path).join(",")}) | successes/attempts | tier | flags (validation state, p_max, top failure clusters)`,
  ].join("\n");
  const totals = `Population totals: ${population.length} environments; ${countsText(facts)}.`;
  const task = [
    "",
    "# Task",
    `Propose the next population of about ${target} environments (keep + mutate + add): keep at most ${keepMax}, add about ${adds} (fresh configs or crossovers of two high-learnability parents), mutate for the rest.`,
    "Give every listed environment a keep or retire item. New environments get their keys from EnvForge: leave environmentKey out of mutate and add items.",
    "Example items:",
    '{"op": "keep", "environmentKey": "<key>", "direction": "precision", "rationale": "<one sentence>", "evidence": [{"kind": "cluster", "ref": "<cluster id>"}], "predictedSuccess": 0.5}',
    '{"op": "mutate", "parentKey": "<key>", "edits": {"<field path>": <new value>}, "direction": "horizon", "rationale": "<one sentence>", "evidence": [{"kind": "stat", "ref": "environments.fields.<field path>"}], "predictedSuccess": 0.4}',
    'Answer with the JSON object {"items": [...]} only.',
  ].join("\n");

  // Lines in population order; which of them fit is decided by learnability rank.
  const lines = facts.map((f) => populationLine(f, fields));
  const ranked = facts
    .map((f, index) => ({ f, index }))
    .sort(
      (a, b) =>
        b.f.learnability - a.f.learnability ||
        (a.f.member.key < b.f.member.key ? -1 : a.f.member.key > b.f.member.key ? 1 : a.index - b.index),
    );
  const omissionReserve = 400; // room for the "left out" line
  const fixedChars = SYSTEM_PROMPT.length + head.length + totals.length + task.length + 4;
  let available = budgetTokens * 4 - fixedChars - omissionReserve;
  const shown = new Set<number>();
  const allChars = lines.reduce((sum, line) => sum + line.length + 1, 0);
  if (allChars <= available + omissionReserve) {
    lines.forEach((_, i) => shown.add(i));
  } else {
    for (const { index } of ranked) {
      const cost = lines[index].length + 1;
      if (cost > available) break;
      shown.add(index);
      available -= cost;
    }
  }

  const omitted = facts.filter((_, i) => !shown.has(i));
  const body: string[] = [head, ...lines.filter((_, i) => shown.has(i))];
  if (omitted.length > 0) {
    body.push(
      `Left out for the token budget: ${omitted.length} environments with lower learnability (${countsText(omitted)}); write no items for them.`,
    );
  }
  body.push(totals, task);

  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: body.join("\n") },
  ];
  return {
    messages,
    tokenEstimate: estimateTokens(messages.reduce((sum, m) => sum + m.content.length, 0)),
    environmentsShown: shown.size,
    omittedKeys: omitted.map((f) => f.member.key),
  };
}

/** JSON Schema of the answer ({ items: [...] }); the family's config schema is embedded when it is self-contained. */
export function proposalJsonSchema(family: FamilyDefinition): Record<string, unknown> {
  const { $schema: _schema, title: _title, ...configSchema } = family.jsonSchema;
  const selfContained = !JSON.stringify(configSchema).includes('"$ref"');
  return {
    type: "object",
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          properties: {
            op: { type: "string", enum: [...PROPOSAL_OPS] },
            environmentKey: { type: "string", description: "keep/retire: the population member" },
            parentKey: { type: "string" },
            secondParentKey: { type: "string" },
            config: selfContained ? configSchema : { type: "object" },
            edits: { type: "object", description: "field path -> new value, applied to the parent's config", additionalProperties: true },
            direction: { type: "string", enum: [...PROPOSAL_DIRECTIONS] },
            rationale: { type: "string" },
            evidence: {
              type: "array",
              items: {
                type: "object",
                properties: { kind: { type: "string", enum: [...EVIDENCE_KINDS] }, ref: { type: "string" }, note: { type: "string" } },
                required: ["kind", "ref"],
                additionalProperties: false,
              },
            },
            predictedSuccess: { type: "number", minimum: 0, maximum: 1 },
          },
          required: ["op", "rationale", "evidence"],
          additionalProperties: false,
        },
      },
    },
    required: ["items"],
    additionalProperties: false,
  };
}

// --- Answer parsing ------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The items of an answer: reasoning blocks and ``` fences stripped, then JSON.parse; prose around one object is tolerated. */
export function parseProposalText(text: string): { ok: true; items: unknown[] } | { ok: false; message: string } {
  let body = text.replace(/<think>[\s\S]*?<\/think>/g, "").trim();
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(body);
  if (fenced) body = fenced[1].trim();
  if (body === "") return { ok: false, message: "Your answer is empty." };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    const first = body.indexOf("{");
    const last = body.lastIndexOf("}");
    let recovered = false;
    if (first >= 0 && last > first && (first > 0 || last < body.length - 1)) {
      try {
        value = JSON.parse(body.slice(first, last + 1));
        recovered = true;
      } catch {
        // report the error of the whole answer below
      }
    }
    if (!recovered) {
      // Plain-text answers of small models: trailing commas, single quotes, comments, a cut-off end.
      const start = body.search(/[[{]/);
      try {
        if (start >= 0) {
          value = JSON.parse(jsonrepair(body.slice(start)));
          recovered = true;
        }
      } catch {
        // report the original parse error below
      }
    }
    if (!recovered) return { ok: false, message: `Your answer is not valid JSON: ${(err as Error).message}.` };
  }
  if (Array.isArray(value)) return { ok: true, items: value };
  if (isRecord(value) && Array.isArray(value.items)) return { ok: true, items: value.items };
  return { ok: false, message: 'Your answer must be one JSON object {"items": [...]} with a list of items.' };
}

/**
 * The LLM's raw items made ready for validateItems: new keys for mutate/add children (the model's
 * are ignored), `edits` applied onto the parent's (or the item's own) config, unknown or fixed
 * edit paths reported as errors.
 */
function expandItems(input: EngineerInput, rawItems: readonly unknown[]): { items: unknown[]; errors: ItemError[] } {
  const members = new Map(input.population.map((m) => [m.key, m]));
  const fieldsByPath = new Map(input.family.fields.map((f) => [f.path, f]));
  const errors: ItemError[] = [];
  let child = 0;
  const items = rawItems.map((raw, index) => {
    if (!isRecord(raw)) return raw;
    const base = `items.${index}`;
    const item: Record<string, unknown> = { ...raw };
    delete item.proposer;
    delete item.flags;
    if (item.op !== "mutate" && item.op !== "add") {
      delete item.edits;
      return item;
    }
    child += 1;
    item.environmentKey = `${input.keyPrefix}llm-${child}`;
    const parent = typeof item.parentKey === "string" ? members.get(item.parentKey) : undefined;
    if (item.edits !== undefined && item.edits !== null) {
      const edits = item.edits;
      delete item.edits;
      if (!isRecord(edits)) {
        errors.push({ item: index, path: `${base}.edits`, message: 'edits must be an object {"field.path": newValue}.' });
        return item;
      }
      const start = isRecord(item.config) ? (item.config as FamilyConfig) : parent?.config;
      if (!start) {
        errors.push({
          item: index,
          path: `${base}.edits`,
          message: "edits apply to the parent's config: give a parentKey from the population, or a full config.",
        });
        return item;
      }
      let config: FamilyConfig = start;
      for (const [path, value] of Object.entries(edits)) {
        const field = fieldsByPath.get(path);
        if (!field) {
          errors.push({
            item: index,
            path: `${base}.edits.${path}`,
            message: `Unknown field "${path}": use one of ${[...fieldsByPath.keys()].join(", ")}.`,
          });
        } else {
          config = setFieldValue(config, path, value);
        }
      }
      item.config = config;
    }
    if (item.op === "mutate" && parent && isRecord(item.config)) {
      for (const field of input.family.fields) {
        if (field.mutable !== false) continue;
        const before = JSON.stringify(getFieldValue(parent.config, field.path));
        if (JSON.stringify(getFieldValue(item.config, field.path)) !== before) {
          errors.push({
            item: index,
            path: `${base}.config.${field.path}`,
            message: `"${field.path}" is fixed: keep the parent's value ${before}.`,
          });
        }
      }
    }
    return item;
  });
  return { items, errors };
}

type Interpretation = { ok: true; items: ProposedItem[] } | { ok: false; errors: ItemError[]; parseError?: string };

function interpretAnswer(input: EngineerInput, text: string): Interpretation {
  const parsed = parseProposalText(text);
  if (!parsed.ok) return { ok: false, errors: [], parseError: parsed.message };
  const expanded = expandItems(input, parsed.items);
  const validated = validateItems(input, expanded.items, { proposer: "llm" });
  const expansionFailed = new Set(expanded.errors.map((e) => e.item));
  // An item whose edits could not be applied has no usable config: its config errors would only repeat that.
  const errors = [
    ...expanded.errors,
    ...validated.errors.filter((e) => !(expansionFailed.has(e.item) && e.path.startsWith(`items.${e.item}.config`))),
  ];
  errors.sort((a, b) => a.item - b.item);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, items: validated.items };
}

function repairMessage(result: Extract<Interpretation, { ok: false }>, finishReason: string | null): string {
  const lines: string[] = [];
  if (finishReason === "length")
    lines.push("Your answer was cut off at the output token limit: propose fewer items or shorter rationales.");
  if (result.parseError) {
    lines.push(result.parseError);
    lines.push('Answer again with only the JSON object {"items": [...]}: no prose, no code fences.');
    return lines.join("\n");
  }
  const shown = result.errors.slice(0, QUOTED_ERRORS);
  lines.push(`Your answer has ${result.errors.length} problem${result.errors.length === 1 ? "" : "s"}:`);
  for (const e of shown) lines.push(`- ${e.path}: ${e.message}`);
  if (result.errors.length > shown.length) lines.push(`- ... and ${result.errors.length - shown.length} more of the same kind.`);
  lines.push(
    'Fix them and answer again with the complete corrected JSON object {"items": [...]}: every item, not only the fixed ones, and nothing else.',
  );
  return lines.join("\n");
}

function problemSummary(result: Extract<Interpretation, { ok: false }>): string {
  if (result.parseError) return result.parseError;
  const first = result.errors.slice(0, 3).map((e) => `${e.path}: ${e.message}`);
  return `${result.errors.length} validation error${result.errors.length === 1 ? "" : "s"}, e.g. ${first.join("; ")}`;
}

// --- The run -------------------------------------------------------------------------------

function refusesStructuredOutput(err: APIError): boolean {
  return isStructuredOutputRefusal(err.status, `${err.message} ${JSON.stringify(err.error ?? null)} ${err.param ?? ""}`);
}

function responseFormatFor(
  mode: StructuredMode,
  family: FamilyDefinition,
): ChatCompletionCreateParamsNonStreaming["response_format"] | undefined {
  if (mode === "json_schema") {
    const schema = proposalJsonSchema(family);
    // strict only where the schema meets strict mode's rules (OpenAI refuses strict otherwise; vLLM and SGLang ignore it)
    return { type: "json_schema", json_schema: { name: "proposal", schema, strict: isStrictCompatible(schema) } };
  }
  if (mode === "json_object") return { type: "json_object" };
  return undefined;
}

/** A user-facing message for an SDK failure (never containing the key: redacted by the caller too). */
function describeFailure(err: unknown, config: LlmEngineerConfig, timeoutMs: number, attempts: number): string {
  const tries = `${attempts} request${attempts === 1 ? "" : "s"}`;
  if (err instanceof APIUserAbortError) return "The LLM engineer run was cancelled.";
  if (err instanceof APIConnectionTimeoutError) {
    return `The engineer endpoint did not answer within the timeout of ${timeoutMs} ms (${tries}, timed out every time): raise ENVFORGE_ENGINEER_TIMEOUT_MS or check the endpoint.`;
  }
  if (err instanceof APIConnectionError) {
    return `Could not reach the engineer endpoint at ${config.baseURL} (${err.message}; ${tries}): check OPENAI_BASE_URL and that the server is running.`;
  }
  if (err instanceof APIError) {
    const status = err.status ?? "error";
    if (err.status === 401 || err.status === 403)
      return `The engineer endpoint refused the request (${status}: ${err.message}): check OPENAI_API_KEY.`;
    if (err.status === 404)
      return `The engineer endpoint answered 404 (${err.message}): check ENVFORGE_ENGINEER_MODEL ("${config.model}") and OPENAI_BASE_URL.`;
    if (err.status === 429)
      return `The engineer endpoint is rate limiting (429 after ${tries}: ${err.message}): wait and run the engineer again.`;
    if (err.status !== undefined && err.status >= 500)
      return `The engineer endpoint failed (${status} after ${tries}: ${err.message}): try again later.`;
    return `The engineer endpoint rejected the request (${status}: ${err.message}).`;
  }
  return `The LLM engineer failed: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * Run the LLM engineer once: prompt, structured answer, validation, up to two repair turns.
 * Items carry proposer "llm". Throws LlmEngineerError (with the run record and the last raw
 * answer) when the endpoint fails or the answer is still invalid after the repair turns.
 */
export async function llmEngineer(
  input: EngineerInput,
  config: LlmEngineerConfig,
  hooks: LlmEngineerHooks = {},
): Promise<{ output: EngineerOutput; run: LlmRunRecord }> {
  const timeoutMs = config.timeoutMs ?? DEFAULT_ENGINEER_TIMEOUT_MS;
  const maxRetries = config.maxRetries ?? DEFAULT_ENGINEER_MAX_RETRIES;
  const secret = config.apiKey ?? "";
  const redact = (text: string) => (secret === "" ? text : text.split(secret).join("[redacted]"));
  const progress = (message: string) => hooks.onProgress?.(redact(message));

  let attempts = 0;
  const countingFetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    attempts += 1;
    const res = await fetch(url, init);
    if (res.status < 400) return res;
    let text = await res.clone().text();
    const headers = new Headers(res.headers);
    // vLLM (before its nested errors) and SGLang answer {"object": "error", "message": ...}: the SDK reads only
    // body.error, so the message is moved there to reach err.message.
    try {
      const body = JSON.parse(text) as Record<string, unknown>;
      if (body && typeof body === "object" && body.error === undefined && typeof body.message === "string") {
        text = JSON.stringify({
          error: { message: body.message, type: body.type ?? null, param: body.param ?? null, code: body.code ?? null },
        });
        headers.delete("content-length");
      }
    } catch {
      // not JSON: left as it is
    }
    // A 500 that refuses the structured output (vLLM guidance, Ollama) will not change on a retry: tell the SDK not to.
    if (res.status >= 500 && isStructuredOutputRefusal(res.status, text)) headers.set("x-should-retry", "false");
    return new Response(text, { status: res.status, statusText: res.statusText, headers });
  };
  const client = new OpenAI({
    baseURL: config.baseURL,
    // Local servers need no key; the SDK insists on one, so a placeholder is sent instead.
    apiKey: config.apiKey ?? "unused",
    organization: null,
    project: null,
    timeout: timeoutMs,
    maxRetries,
    fetch: countingFetch,
    logLevel: "off",
  });

  const endpoint = endpointKey(config.baseURL, config.model);
  const reported =
    config.discoverContext === false
      ? null
      : await discoverContextWindow(config.baseURL, config.model, config.apiKey, { timeoutMs: Math.min(timeoutMs, 5000) });
  const configured = config.contextTokens ? { tokens: config.contextTokens, source: "ENVFORGE_ENGINEER_CONTEXT_TOKENS" } : null;
  const contextWindow = reported && (!configured || reported.tokens < configured.tokens) ? reported : configured;
  const outputReserve = contextWindow ? Math.min(MAX_OUTPUT_TOKENS, Math.max(MIN_OUTPUT_TOKENS, Math.floor(contextWindow.tokens / 4))) : 0;
  const windowBudget = contextWindow ? Math.floor((contextWindow.tokens - outputReserve) * TOKEN_ESTIMATE_SAFETY) : Infinity;
  const promptBudget = Math.min(config.promptBudgetTokens ?? DEFAULT_PROMPT_BUDGET_TOKENS, windowBudget);
  const prompt = buildEngineerPrompt(input, promptBudget);
  const messages: ChatMessage[] = [...prompt.messages];
  let structured: StructuredMode = rememberedMode(endpoint);
  let promptTokens = 0;
  let completionTokens = 0;
  let rawOutput: string | null = null;
  let repairTurns = 0;
  const started = performance.now();

  const record = (error?: string): LlmRunRecord => {
    const { priceIn, priceOut } = config;
    const costUsd =
      typeof priceIn === "number" && typeof priceOut === "number"
        ? (promptTokens * priceIn + completionTokens * priceOut) / 1_000_000
        : null;
    return {
      model: config.model,
      promptTokens,
      completionTokens,
      latencyMs: Math.round(performance.now() - started),
      costUsd,
      attempts,
      rawOutput: rawOutput === null ? null : redact(rawOutput),
      ...(error !== undefined ? { error: redact(error) } : {}),
      structured,
      repairTurns,
      contextWindow,
    };
  };
  const fail = (message: string): never => {
    const run = record(message);
    throw new LlmEngineerError(run.error!, run);
  };

  /** One turn: the SDK retries transient failures; a rejected response_format is downgraded and the turn repeated. */
  const complete = async (): Promise<{ content: string; finishReason: string | null }> => {
    for (;;) {
      const responseFormat = responseFormatFor(structured, input.family);
      // With a known window, the answer gets what the conversation leaves of it.
      const sent = estimateTokens(messages.reduce((sum, m) => sum + m.content.length, 0)) / TOKEN_ESTIMATE_SAFETY;
      const maxTokens = contextWindow ? Math.max(256, Math.floor(contextWindow.tokens - sent)) : undefined;
      try {
        const response = await client.chat.completions.create(
          {
            model: config.model,
            messages,
            ...(responseFormat ? { response_format: responseFormat } : {}),
            ...(maxTokens ? { max_tokens: maxTokens } : {}),
          },
          { signal: hooks.signal, timeout: timeoutMs, maxRetries },
        );
        promptTokens += response.usage?.prompt_tokens ?? 0;
        completionTokens += response.usage?.completion_tokens ?? 0;
        rememberMode(endpoint, structured);
        const choice = response.choices?.[0];
        const content = choice?.message?.content ?? "";
        const refusal = choice?.message?.refusal;
        return { content: content === "" && refusal ? `(refusal) ${refusal}` : content, finishReason: choice?.finish_reason ?? null };
      } catch (err) {
        if (err instanceof APIError && structured !== "none" && refusesStructuredOutput(err)) {
          const next = STRUCTURED_LADDER[STRUCTURED_LADDER.indexOf(structured) + 1];
          progress(
            `The endpoint refused response_format ${structured} (${err.status}: ${err.message.slice(0, 160)}); retrying with ${next === "none" ? "no response_format" : next}.`,
          );
          structured = next;
          continue;
        }
        return fail(describeFailure(err, config, timeoutMs, attempts));
      }
    }
  };

  const omitted = prompt.omittedKeys.length;
  progress(
    `Asking ${config.model} for a proposal (prompt about ${prompt.tokenEstimate} tokens${contextWindow ? ` of a ${contextWindow.tokens}-token window (${contextWindow.source})` : ""}, ${prompt.environmentsShown} of ${input.population.length} environments${omitted > 0 ? ` shown, ${omitted} left out for the budget` : ""}).`,
  );
  for (let turn = 0; ; turn++) {
    const { content, finishReason } = await complete();
    rawOutput = content;
    const result = interpretAnswer(input, content);
    if (result.ok) {
      progress(
        `Received ${result.items.length} valid items${repairTurns > 0 ? ` after ${repairTurns} repair turn${repairTurns === 1 ? "" : "s"}` : ""}.`,
      );
      const run = record();
      return { output: { items: result.items, dropped: [], notes: outputNotes(input, result.items, run, prompt) }, run };
    }
    if (turn === MAX_REPAIR_TURNS) {
      fail(
        `The model's answer was still invalid after ${MAX_REPAIR_TURNS} repair turns (${problemSummary(result)}). The raw answer is kept with the run.`,
      );
    }
    repairTurns += 1;
    progress(`Repair turn ${repairTurns} of ${MAX_REPAIR_TURNS}: ${problemSummary(result)}.`);
    // In a known window only the latest answer and its repair message follow the prompt (older turns would crowd it out).
    if (contextWindow) messages.splice(prompt.messages.length);
    messages.push({ role: "assistant", content }, { role: "user", content: repairMessage(result, finishReason) });
  }
}

function outputNotes(input: EngineerInput, items: readonly ProposedItem[], run: LlmRunRecord, prompt: EngineerPrompt): string[] {
  const notes = [
    `Proposed by ${run.model} (${run.structured === "none" ? "plain JSON" : `${run.structured} output`}${run.repairTurns > 0 ? `, ${run.repairTurns} repair turn${run.repairTurns === 1 ? "" : "s"}` : ""}).`,
  ];
  const decided = new Set(items.filter((i) => i.op === "keep" || i.op === "retire").map((i) => i.environmentKey));
  const undecided = input.population.filter((m) => !decided.has(m.key)).length;
  if (undecided > 0) {
    const hidden = prompt.omittedKeys.length;
    notes.push(
      `${undecided} population member${undecided === 1 ? "" : "s"} got neither keep nor retire${hidden > 0 ? ` (${hidden} were left out of the prompt for the token budget)` : ""}.`,
    );
  }
  const uncited = items.filter((i) => i.flags?.includes(NO_EVIDENCE_FLAG)).length;
  if (uncited > 0) notes.push(`${uncited} item${uncited === 1 ? "" : "s"} cite no evidence (flagged ${NO_EVIDENCE_FLAG}).`);
  return notes;
}

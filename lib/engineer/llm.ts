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
import type { FamilyDefinition } from "@/lib/families/types";
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
import type { EngineerInput, EngineerOutput, ProposedItem } from "./types";
import { NO_EVIDENCE_FLAG } from "./validate-items";
import { processEnvironment } from "@/lib/config/env";
import { buildEngineerPrompt, estimateTokens, type ChatMessage, type EngineerPrompt, DEFAULT_PROMPT_BUDGET_TOKENS } from "./llm-prompt";
import { interpretAnswer, problemSummary, proposalJsonSchema, repairMessage } from "./llm-answer";

export { buildEngineerPrompt, DEFAULT_PROMPT_BUDGET_TOKENS, type ChatMessage, type EngineerPrompt } from "./llm-prompt";
export { parseProposalText, proposalJsonSchema } from "./llm-answer";

/** Repair turns after the first answer (ENGINEER.md: up to two). */
export const MAX_REPAIR_TURNS = 2;
export const DEFAULT_ENGINEER_TIMEOUT_MS = 120_000;
export const DEFAULT_ENGINEER_MAX_RETRIES = 3;

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
    return (
      `The engineer endpoint did not answer within the timeout of ${timeoutMs} ms (${tries}, timed out every time): ` +
      `raise ENVFORGE_ENGINEER_TIMEOUT_MS or check the endpoint.`
    );
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
            `The endpoint refused response_format ${structured} (${err.status}: ${err.message.slice(0, 160)}); retrying with ` +
              `${next === "none" ? "no response_format" : next}.`,
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
    `Asking ${config.model} for a proposal (prompt about ${prompt.tokenEstimate} tokens${
      contextWindow ? ` of a ${contextWindow.tokens}-token window (${contextWindow.source})` : ""
    }, ` +
      `${prompt.environmentsShown} of ${input.population.length} environments${omitted > 0 ? ` shown, ${omitted} left out for the budget` : ""}).`,
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
    `Proposed by ${run.model} (${run.structured === "none" ? "plain JSON" : `${run.structured} output`}${
      run.repairTurns > 0 ? `, ${run.repairTurns} repair turn${run.repairTurns === 1 ? "" : "s"}` : ""
    }).`,
  ];
  const decided = new Set(items.filter((i) => i.op === "keep" || i.op === "retire").map((i) => i.environmentKey));
  const undecided = input.population.filter((m) => !decided.has(m.key)).length;
  if (undecided > 0) {
    const hidden = prompt.omittedKeys.length;
    notes.push(
      `${undecided} population member${undecided === 1 ? "" : "s"} got neither keep nor retire${
        hidden > 0 ? ` (${hidden} were left out of the prompt for the token budget)` : ""
      }.`,
    );
  }
  const uncited = items.filter((i) => i.flags?.includes(NO_EVIDENCE_FLAG)).length;
  if (uncited > 0) notes.push(`${uncited} item${uncited === 1 ? "" : "s"} cite no evidence (flagged ${NO_EVIDENCE_FLAG}).`);
  return notes;
}

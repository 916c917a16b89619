/**
 * What the LLM engineer learns about an OpenAI-compatible endpoint and keeps for the life of the
 * process (a module-level cache keyed by base URL and model; not stored in the database, so a
 * restart probes again): the response_format it accepted, and its context window as the server
 * reports it (vLLM and SGLang: GET /v1/models max_model_len; llama.cpp: GET /props n_ctx; Ollama:
 * POST /api/show num_ctx, else its 4096-token default capped by the model's context_length).
 */

export type StructuredMode = "json_schema" | "json_object" | "none";

/** The order in which response formats are tried: each refusal moves one step down. */
export const STRUCTURED_LADDER: readonly StructuredMode[] = ["json_schema", "json_object", "none"];

const acceptedModes = new Map<string, StructuredMode>();
const contextWindows = new Map<string, { tokens: number; source: string } | null>();

/** The cache key of an endpoint: its base URL (without a trailing slash) and model. */
export function endpointKey(baseURL: string, model: string): string {
  return `${baseURL.replace(/\/+$/, "")}|${model}`;
}

/** The response format this endpoint last accepted in this process (json_schema when unknown). */
export function rememberedMode(key: string): StructuredMode {
  return acceptedModes.get(key) ?? "json_schema";
}

/** Remember the response format an endpoint accepted. */
export function rememberMode(key: string, mode: StructuredMode): void {
  acceptedModes.set(key, mode);
}

/** Forget everything learnt about endpoints (tests). */
export function forgetEndpoints(): void {
  acceptedModes.clear();
  contextWindows.clear();
}

// Words of the structured-output refusals the servers send (see tests/fakes/openai-server.ts for the bodies):
// vLLM xgrammar "The provided JSON schema contains features not supported by xgrammar." (400), vLLM guidance
// "Grammar error: Unimplemented keys" (500), SGLang "Invalid grammar request" (400), llama.cpp "JSON schema
// conversion failed" (400) and "response_format type must be one of" (older builds), Ollama "invalid format"
// (400) and "failed to load model vocabulary required for format" (500), OpenAI "response_format" (400).
const REFUSAL_WORDS = new RegExp(
  [
    "response_format|response format|json_schema|json_object|json schema|structured output|guided_(json|decoding)",
    "grammar|xgrammar|outlines|guidance|invalid format|required for format",
  ].join("|"),
  "i",
);

/**
 * True when an error answer says the endpoint cannot serve the requested structured output, as
 * opposed to any other failure: 400, 422 or 500 whose body names the response format or grammar.
 */
export function isStructuredOutputRefusal(status: number | undefined, body: string): boolean {
  if (status !== 400 && status !== 422 && status !== 500 && status !== 501) return false;
  return REFUSAL_WORDS.test(body);
}

/** True when a JSON Schema meets OpenAI's strict mode (every object closed and every property required), so strict: true can be asked. */
export function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (!schema || typeof schema !== "object") return true;
  const node = schema as Record<string, unknown>;
  if (node.type === "object" || node.properties) {
    const keys = Object.keys((node.properties as Record<string, unknown>) ?? {});
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    if (node.additionalProperties !== false || keys.some((k) => !required.has(k))) return false;
  }
  return Object.entries(node).every(([k, v]) => k === "enum" || k === "const" || isStrictCompatible(v));
}

/** Ollama's context window when a model sets no num_ctx (docs/faq.md: "defaults to 4096 tokens"). */
export const OLLAMA_DEFAULT_CONTEXT = 4096;

type Fetch = typeof fetch;

async function getJson(fetchImpl: Fetch, url: string, init: RequestInit, timeoutMs: number): Promise<unknown> {
  try {
    const res = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return null;
    return await res.json();
  } catch {
    return null;
  }
}

const positiveInt = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : null);

/**
 * The model's context window as the server reports it, or null when it reports none. Probes
 * /v1/models, then /props, then /api/show (each a few seconds at most), once per endpoint and process.
 */
export async function discoverContextWindow(
  baseURL: string,
  model: string,
  apiKey: string | null,
  opts: { fetch?: Fetch; timeoutMs?: number } = {},
): Promise<{ tokens: number; source: string } | null> {
  const key = endpointKey(baseURL, model);
  if (contextWindows.has(key)) return contextWindows.get(key)!;
  const fetchImpl = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 5000;
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const base = baseURL.replace(/\/+$/, "");
  const root = base.replace(/\/v1$/, "");
  let found: { tokens: number; source: string } | null = null;

  const models = (await getJson(fetchImpl, `${base}/models`, { headers }, timeoutMs)) as { data?: Record<string, unknown>[] } | null;
  const entry = models?.data?.find((m) => m.id === model) ?? (models?.data?.length === 1 ? models.data[0] : undefined);
  const maxModelLen = positiveInt(entry?.max_model_len);
  if (maxModelLen) found = { tokens: maxModelLen, source: "/v1/models max_model_len" };

  if (!found) {
    const props = (await getJson(fetchImpl, `${root}/props`, { headers }, timeoutMs)) as {
      n_ctx?: unknown;
      default_generation_settings?: { n_ctx?: unknown };
    } | null;
    const nCtx = positiveInt(props?.default_generation_settings?.n_ctx) ?? positiveInt(props?.n_ctx);
    if (nCtx) found = { tokens: nCtx, source: "/props n_ctx" };
  }
  if (!found) {
    const show = (await getJson(
      fetchImpl,
      `${root}/api/show`,
      { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ model }) },
      timeoutMs,
    )) as { parameters?: unknown; model_info?: Record<string, unknown> } | null;
    if (show) {
      const numCtx = typeof show.parameters === "string" ? /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(show.parameters) : null;
      const trained = Object.entries(show.model_info ?? {}).find(([k]) => k.endsWith(".context_length"))?.[1];
      if (numCtx) found = { tokens: Number(numCtx[1]), source: "/api/show num_ctx" };
      else if (positiveInt(trained))
        found = { tokens: Math.min(OLLAMA_DEFAULT_CONTEXT, trained as number), source: "Ollama default num_ctx" };
    }
  }
  contextWindows.set(key, found);
  return found;
}

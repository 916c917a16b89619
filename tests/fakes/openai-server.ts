/**
 * A real HTTP server (node:http on 127.0.0.1, port 0) speaking the OpenAI Chat Completions
 * protocol (`POST /v1/chat/completions` and `POST /chat/completions`) from a script: each request
 * takes the next step of the queue. Records every request (headers and parsed body) for
 * assertions. Wire data only: no imports from lib/.
 *
 * With `server`, it also behaves like that server where the LLM engineer meets it: it refuses the
 * response formats that server refuses, with that server's own error body (below, with where each
 * body comes from), reports its context window where that server does, and answers a request
 * that does not fit the window with the server's context-length error (Ollama truncates silently:
 * the request is marked `overflow`).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer. */
export type FakeOpenAIStep =
  /** 200 with this assistant content (usage defaults to characters / 4) */
  | { content: string; usage?: { prompt_tokens: number; completion_tokens: number }; finishReason?: string }
  /** an error status; `body` defaults to an OpenAI-style error object */
  | { status: 400 | 401 | 429 | 500 | 503; body?: unknown; headers?: Record<string, string> }
  /** holds the request for hangMs (past the client's timeout), then answers `content` or 504 if still connected */
  | { hangMs: number; content?: string }
  /** 400 with an OpenAI-style error about response_format */
  | { rejectResponseFormat: true }
  /** answers with the request headers it received: as the assistant content, or in an error body with `status` */
  | { echoHeaders: true; status?: 400 | 500 };

/** Servers the fake can play. */
export type FakeServerKind = "vllm-xgrammar" | "vllm-guidance" | "vllm-outlines" | "sglang" | "llamacpp" | "ollama";

export interface FakeServerOptions {
  server?: FakeServerKind;
  /** the model's context window in tokens (counted as characters / 3.5, stricter than the client's characters / 4) */
  contextWindow?: number;
}

/**
 * The error each server sends when it cannot serve a response_format, and the formats it refuses:
 * - vLLM, xgrammar backend: 400 from validate_xgrammar_grammar (vllm/v1/structured_output/backend_xgrammar.py),
 *   body as quoted in vllm-project/vllm#16321;
 * - vLLM, guidance backend: 500 "Grammar error: Unimplemented keys" (noonghunna/club-3090#45), in vLLM's
 *   nested ErrorResponse shape;
 * - vLLM, outlines backend: 400 from validate_structured_output_request_outlines
 *   (vllm/v1/structured_output/backend_outlines.py): "Failed to transform json schema into a regex: …" for a
 *   schema outlines_core cannot compile, and "Outlines structured outputs backend does not support json_object
 *   specifications" for every json_object request, in vLLM's nested ErrorResponse shape;
 * - SGLang: the scheduler aborts with FINISH_ABORT status 400 "Invalid grammar request..." (sglang
 *   srt/managers/scheduler.py set_finish_with_abort; test_scheduler_grammar asserts the 400);
 * - llama.cpp server: 400 invalid_request_error "JSON schema conversion failed" (browseros-ai/BrowserOS#255);
 * - Ollama (/v1 compatibility): 500 "failed to load model vocabulary required for format" for any
 *   format on some models (ollama/ollama#12422), in its OpenAI error shape.
 */
const REFUSALS: Record<FakeServerKind, { refuses: string[]; status: number; body: (type: string) => unknown }> = {
  "vllm-xgrammar": {
    refuses: ["json_schema"],
    status: 400,
    body: () => ({
      object: "error",
      message: "The provided JSON schema contains features not supported by xgrammar.",
      type: "BadRequestError",
      param: null,
      code: 400,
    }),
  },
  "vllm-guidance": {
    refuses: ["json_schema"],
    status: 500,
    body: () => ({
      error: { message: 'Grammar error: Unimplemented keys: ["propertyNames"]', type: "InternalServerError", param: null, code: 500 },
    }),
  },
  "vllm-outlines": {
    refuses: ["json_schema", "json_object"],
    status: 400,
    body: (type) => ({
      error: {
        message:
          type === "json_object"
            ? "Outlines structured outputs backend does not support json_object specifications"
            : "Failed to transform json schema into a regex: Unsupported JSON Schema structure {'propertyNames': {'type': 'string'}}",
        type: "BadRequestError",
        param: null,
        code: 400,
      },
    }),
  },
  sglang: {
    refuses: ["json_schema"],
    status: 400,
    body: () => ({
      object: "error",
      message: "Invalid grammar request: key=('json', '{\"type\": \"object\"}')",
      type: "BadRequestError",
      param: null,
      code: 400,
    }),
  },
  llamacpp: {
    refuses: ["json_schema"],
    status: 400,
    body: () => ({
      error: {
        code: 400,
        message: 'JSON schema conversion failed:\nUnrecognized schema: {"description":"field path -> new value"}',
        type: "invalid_request_error",
      },
    }),
  },
  ollama: {
    refuses: ["json_schema", "json_object"],
    status: 500,
    body: () => ({ error: { message: "failed to load model vocabulary required for format", type: "api_error", param: null, code: null } }),
  },
};

export interface FakeOpenAIRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** parsed JSON body (undefined when it was not JSON) */
  body: Record<string, unknown> | undefined;
  /** prompt tokens as the fake counts them, and whether prompt + max_tokens exceeded the context window */
  promptTokens?: number;
  overflow?: boolean;
}

export interface FakeOpenAI {
  /** base URL ending in /v1 */
  url: string;
  requests: FakeOpenAIRequest[];
  /** requests to other routes (context-window probes: /v1/models, /props, /api/show) */
  probes: FakeOpenAIRequest[];
  /** steps not consumed yet */
  remaining(): number;
  close(): Promise<void>;
}

const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** Starts the fake endpoint; `close()` it when done. A request past the end of the script gets a 400. */
export async function startFakeOpenAI(script: FakeOpenAIStep[], options: FakeServerOptions = {}): Promise<FakeOpenAI> {
  const queue = [...script];
  const requests: FakeOpenAIRequest[] = [];
  const probes: FakeOpenAIRequest[] = [];
  const kind = options.server;
  const window = options.contextWindow;
  const timers = new Set<NodeJS.Timeout>();
  let counter = 0;

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.writableEnded || res.destroyed) return;
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
    res.end(text);
  };
  const apiError = (message: string, type: string, param: string | null = null, code: string | null = null) => ({
    error: { message, type, param, code },
  });

  const completion = (
    body: Record<string, unknown> | undefined,
    content: string,
    usage?: { prompt_tokens: number; completion_tokens: number },
    finishReason = "stop",
  ) => {
    counter += 1;
    const promptTokens = usage?.prompt_tokens ?? estimateTokens(JSON.stringify(body?.messages ?? ""));
    const completionTokens = usage?.completion_tokens ?? estimateTokens(content);
    return {
      id: `chatcmpl-fake-${counter}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: typeof body?.model === "string" ? body.model : "fake-model",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finishReason }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0];
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      const record: FakeOpenAIRequest = { method: req.method ?? "GET", path, headers: { ...req.headers }, body };
      if (req.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/chat/completions")) {
        probes.push(record);
        const model = typeof body?.model === "string" ? body.model : "fake-model";
        // Context-window reports, in each server's shape (only for the server played, and only with a window).
        if (kind && window && req.method === "GET" && path === "/v1/models") {
          const entry: Record<string, unknown> = { id: "fake-model", object: "model", created: 0, owned_by: kind.split("-")[0] };
          if (kind.startsWith("vllm") || kind === "sglang") entry.max_model_len = window; // vLLM/SGLang ModelCard.max_model_len
          if (kind === "llamacpp") entry.meta = { n_ctx_train: window * 16 }; // llama.cpp reports the training context here, not the runtime one
          return send(res, 200, { object: "list", data: [entry] });
        }
        if (kind === "llamacpp" && window && req.method === "GET" && path === "/props") {
          return send(res, 200, {
            default_generation_settings: { n_ctx: window, params: {} },
            total_slots: 1,
            model_path: "/models/fake.gguf",
          });
        }
        if (kind === "ollama" && window && req.method === "POST" && path === "/api/show") {
          return send(res, 200, {
            modelfile: "FROM fake",
            parameters: `num_ctx ${window}\nstop "<|im_end|>"`,
            template: "",
            details: { format: "gguf" },
            model_info: { "general.architecture": "qwen2", "qwen2.context_length": 32768 },
            model,
          });
        }
        return send(res, 404, apiError(`Unknown route ${req.method} ${path}`, "invalid_request_error"));
      }
      requests.push(record);
      if (kind) {
        const type = (body?.response_format as { type?: string } | undefined)?.type;
        const refusal = REFUSALS[kind];
        if (type && refusal.refuses.includes(type)) return send(res, refusal.status, refusal.body(type));
      }
      if (window) {
        const promptTokens = Math.ceil(JSON.stringify(body?.messages ?? "").length / 3.5);
        const maxTokens = typeof body?.max_tokens === "number" ? body.max_tokens : 0;
        record.promptTokens = promptTokens;
        if (promptTokens + maxTokens > window) {
          record.overflow = true;
          const total = promptTokens + maxTokens;
          // vLLM/SGLang (serving_engine _validate_input) and llama.cpp (exceed_context_size_error) refuse; Ollama truncates.
          if (kind === "llamacpp")
            return send(res, 400, {
              error: {
                code: 400,
                message: "the request exceeds the available context size, try increasing it",
                type: "exceed_context_size_error",
                n_prompt_tokens: promptTokens,
                n_ctx: window,
              },
            });
          if (kind !== "ollama") {
            return send(res, 400, {
              object: "error",
              message:
                `This model's maximum context length is ${window} tokens. However, you requested ${total} tokens ` +
                `(${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
              type: "BadRequestError",
              param: null,
              code: 400,
            });
          }
        }
      }
      const step = queue.shift();
      if (!step) return send(res, 400, apiError("fake OpenAI: no scripted response left", "invalid_request_error"));

      if ("rejectResponseFormat" in step) {
        const type = (body?.response_format as { type?: string } | undefined)?.type ?? "json_schema";
        return send(
          res,
          400,
          apiError(
            `Invalid parameter: 'response_format' of type '${type}' is not supported with this model.`,
            "invalid_request_error",
            "response_format",
          ),
        );
      }
      if ("echoHeaders" in step) {
        const echoed = JSON.stringify(req.headers);
        if (step.status) return send(res, step.status, apiError(`Bad request, you sent headers ${echoed}`, "invalid_request_error"));
        return send(res, 200, completion(body, echoed));
      }
      if ("hangMs" in step) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (step.content !== undefined) send(res, 200, completion(body, step.content));
          else send(res, 504, apiError("fake OpenAI: hung request released", "server_error"));
        }, step.hangMs);
        timers.add(timer);
        return;
      }
      if ("status" in step) {
        const fallback =
          step.status === 429
            ? apiError("Rate limit reached for requests", "requests", null, "rate_limit_exceeded")
            : apiError(`fake OpenAI: scripted ${step.status}`, step.status >= 500 ? "server_error" : "invalid_request_error");
        return send(res, step.status, step.body ?? fallback, step.headers);
      }
      return send(res, 200, completion(body, step.content, step.usage, step.finishReason));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    probes,
    remaining: () => queue.length,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

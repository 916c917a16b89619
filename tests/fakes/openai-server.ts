/**
 * A real HTTP server (node:http on 127.0.0.1, port 0) speaking the OpenAI Chat Completions
 * protocol (`POST /v1/chat/completions` and `POST /chat/completions`) from a script: each request
 * takes the next step of the queue. Records every request (headers and parsed body) for
 * assertions. Wire data only: no imports from lib/.
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

export interface FakeOpenAIRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** parsed JSON body (undefined when it was not JSON) */
  body: Record<string, unknown> | undefined;
}

export interface FakeOpenAI {
  /** base URL ending in /v1 */
  url: string;
  requests: FakeOpenAIRequest[];
  /** steps not consumed yet */
  remaining(): number;
  close(): Promise<void>;
}

const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** Starts the fake endpoint; `close()` it when done. A request past the end of the script gets a 400. */
export async function startFakeOpenAI(script: FakeOpenAIStep[]): Promise<FakeOpenAI> {
  const queue = [...script];
  const requests: FakeOpenAIRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let counter = 0;

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.writableEnded || res.destroyed) return;
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
    res.end(text);
  };
  const apiError = (message: string, type: string, param: string | null = null, code: string | null = null) => ({ error: { message, type, param, code } });

  const completion = (body: Record<string, unknown> | undefined, content: string, usage?: { prompt_tokens: number; completion_tokens: number }, finishReason = "stop") => {
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
      requests.push({ method: req.method ?? "GET", path, headers: { ...req.headers }, body });

      if (req.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/chat/completions")) {
        return send(res, 404, apiError(`Unknown route ${req.method} ${path}`, "invalid_request_error"));
      }
      const step = queue.shift();
      if (!step) return send(res, 400, apiError("fake OpenAI: no scripted response left", "invalid_request_error"));

      if ("rejectResponseFormat" in step) {
        const type = (body?.response_format as { type?: string } | undefined)?.type ?? "json_schema";
        return send(res, 400, apiError(`Invalid parameter: 'response_format' of type '${type}' is not supported with this model.`, "invalid_request_error", "response_format"));
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
    remaining: () => queue.length,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

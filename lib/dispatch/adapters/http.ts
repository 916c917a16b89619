/**
 * The one HTTP client of the adapters (webhook, Ray, Kubernetes): node:http/https rather than
 * fetch, because Node 20's fetch cannot be given a private CA (a Kubernetes API server's) without
 * the undici package. Timeouts, aborts and network failures become `HttpTransportError`.
 */
import http from "node:http";
import https from "node:https";
import { DeliveryError } from "../types";

export interface HttpRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  signal?: AbortSignal;
  /** https only: PEM CA bundle to trust instead of the system's, and whether to check the certificate */
  tls?: { ca?: string; rejectUnauthorized?: boolean; cert?: string; key?: string };
  /** keep the last MAX_RESPONSE_BYTES of a longer answer instead of the first (logs, whose end says why a job failed) */
  keep?: "head" | "tail";
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** body as UTF-8 text (cut at MAX_RESPONSE_BYTES: its head, or its tail when asked) */
  body: string;
  /** the answer was longer than MAX_RESPONSE_BYTES and its beginning was dropped (keep: "tail") */
  headDropped?: boolean;
}

/** Responses are read up to this size; past it the rest is dropped (logs, error pages). */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** A request that got no HTTP answer: timed out, aborted by the caller, or failed on the network. */
export class HttpTransportError extends Error {
  constructor(
    message: string,
    readonly kind: "timeout" | "aborted" | "network",
  ) {
    super(message);
    this.name = "HttpTransportError";
  }
}

/** Sends one request and reads the whole answer (any status). Throws only HttpTransportError. */
export function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      reject(new HttpTransportError(`"${req.url}" is not a valid URL`, "network"));
      return;
    }
    if (req.signal?.aborted) {
      reject(new HttpTransportError(`request to ${url.origin} was aborted`, "aborted"));
      return;
    }
    const isHttps = url.protocol === "https:";
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers["content-length"] = Buffer.byteLength(req.body);
    const options: https.RequestOptions = { method: req.method, headers };
    if (isHttps && req.tls) {
      if (req.tls.ca) options.ca = req.tls.ca;
      if (req.tls.cert && req.tls.key) {
        options.cert = req.tls.cert;
        options.key = req.tls.key;
      }
      if (req.tls.rejectUnauthorized === false) options.rejectUnauthorized = false;
    }
    let settled = false;
    const fail = (error: HttpTransportError) => {
      if (settled) return;
      settled = true;
      cleanup();
      request.destroy();
      reject(error);
    };
    const request = (isHttps ? https : http).request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let headDropped = false;
      res.on("data", (chunk: Buffer) => {
        if (req.keep === "tail") {
          chunks.push(chunk);
          size += chunk.length;
          // drop whole chunks from the front while what is left still holds the limit
          while (chunks.length > 1 && size - chunks[0].length >= MAX_RESPONSE_BYTES) {
            size -= chunks.shift()!.length;
            headDropped = true;
          }
          return;
        }
        if (size >= MAX_RESPONSE_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on("end", () => {
        if (settled) return;
        settled = true;
        cleanup();
        const all = Buffer.concat(chunks);
        const tail = req.keep === "tail" && all.length > MAX_RESPONSE_BYTES;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: (tail ? all.subarray(all.length - MAX_RESPONSE_BYTES) : all.subarray(0, MAX_RESPONSE_BYTES)).toString("utf8"),
          ...(headDropped || tail ? { headDropped: true } : {}),
        });
      });
      res.on("error", (e) => fail(new HttpTransportError(`reading the answer of ${url.origin} failed: ${e.message}`, "network")));
    });
    const timer = setTimeout(
      () => fail(new HttpTransportError(`${url.origin} did not answer within ${req.timeoutMs} ms`, "timeout")),
      req.timeoutMs,
    );
    const onAbort = () => fail(new HttpTransportError(`request to ${url.origin} was aborted`, "aborted"));
    req.signal?.addEventListener("abort", onAbort, { once: true });
    function cleanup() {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
    }
    request.on("error", (e: NodeJS.ErrnoException) =>
      fail(new HttpTransportError(`cannot reach ${url.origin}: ${e.code ?? e.message}`, "network")),
    );
    request.end(req.body);
  });
}

/** Statuses worth retrying: the receiver may answer differently later. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** Parses JSON text; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The first `max` characters of a response body on one line, for error messages. */
export function bodySnippet(text: string, max = 300): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}

/** Retry-After (seconds or an HTTP date) in milliseconds, when the answer has one. */
export function retryAfterMs(headers: http.IncomingHttpHeaders): number | undefined {
  const value = headers["retry-after"];
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Replaces every occurrence of the secret in a message (defence in depth: never log a token). */
export function redactSecret(message: string, secret: string | null): string {
  return secret && secret.length >= 4 ? message.split(secret).join("[redacted]") : message;
}

/** A transport failure as a retryable DeliveryError naming what to check. */
export function transportFailure(error: unknown, what: string): DeliveryError {
  if (error instanceof HttpTransportError) {
    return new DeliveryError(`${what}: ${error.message}`, true, { transport: error.kind });
  }
  return new DeliveryError(`${what}: ${error instanceof Error ? error.message : String(error)}`, true);
}

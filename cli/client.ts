/** The CLI's HTTP client for /api/v1: bearer auth, JSON errors turned into readable messages. */
import type { IngestSummary } from "@/lib/ingest/store";

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body?: unknown,
    /** the server's Retry-After, in milliseconds, when it sent one in seconds */
    readonly retryAfterMs?: number,
    /** status 0: the connection's error code (e.g. UND_ERR_SOCKET when the server closed it mid-request) */
    readonly cause?: string,
  ) {
    super(message);
  }
}

/** How many times postRollouts asks a busy server again before it gives up. */
export const BUSY_RETRIES = 8;

/** Connection errors of a request the server may or may not have seen (never a refused or unresolved address). */
const DROPPED_CONNECTION = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE", "UND_ERR_CLOSED"]);

export interface ClientOptions {
  server: string;
  token?: string;
  /** Milliseconds before a request is abandoned (default 10 minutes: large ingest bodies). */
  timeoutMs?: number;
}

export class EnvForgeClient {
  readonly server: string;
  private token?: string;
  private timeoutMs: number;

  constructor(opts: ClientOptions) {
    this.server = opts.server.replace(/\/+$/, "");
    this.token = opts.token;
    this.timeoutMs = opts.timeoutMs ?? 600_000;
  }

  /** One request; a non-2xx answer throws ApiError with the server's message. */
  async request<T>(
    method: string,
    path: string,
    body?: { json?: unknown; raw?: string | Blob | Uint8Array<ArrayBuffer>; contentType?: string },
  ): Promise<T> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let payload: string | Blob | Uint8Array<ArrayBuffer> | undefined;
    if (body?.json !== undefined) {
      payload = JSON.stringify(body.json);
      headers["content-type"] = "application/json";
    } else if (body?.raw !== undefined) {
      payload = body.raw;
      headers["content-type"] = body.contentType ?? "application/octet-stream";
    }
    let res: Response | undefined;
    // A kept-alive socket the server closed while idle resets the next request sent on it (ECONNRESET,
    // or EPIPE when the body was still being written): that request never reached the server, so it is
    // sent once more on a fresh connection.
    for (let attempt = 0; !res; attempt++) {
      try {
        res = await fetch(`${this.server}${path}`, { method, headers, body: payload, signal: AbortSignal.timeout(this.timeoutMs) });
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
        if ((cause === "ECONNRESET" || cause === "EPIPE") && attempt === 0) continue;
        throw new ApiError(
          `Cannot reach EnvForge at ${this.server} (${cause}): is it running? Set --server or ENVFORGE_SERVER.`,
          0,
          undefined,
          undefined,
          cause,
        );
      }
    }
    const text = await res.text();
    let data: unknown = undefined;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = text;
    }
    if (!res.ok) {
      const e = (data as { error?: { message?: string } } | undefined)?.error;
      let message = e?.message ?? `HTTP ${res.status}`;
      if (res.status === 401) message += this.token ? "" : " (no token: pass --token or set ENVFORGE_TOKEN)";
      const retryAfter = Number(res.headers.get("retry-after"));
      throw new ApiError(message, res.status, data, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
    }
    return data as T;
  }

  /**
   * POST one NDJSON body of rollouts (a string, or its bytes in pieces, each line's newline included). A busy server
   * (503 or 429, e.g. no pooled connection free within its wait) is asked again after its Retry-After (else 1, 2, 4...
   * s, at most 30 s), up to `retries` times, and so is a connection the server dropped mid-request
   * (DROPPED_CONNECTION: a kept-alive socket closed as it was reused, seen as UND_ERR_SOCKET or EPIPE when ten Harbor
   * jobs were imported at once on a loaded machine): ingest is idempotent by externalId, so a rollout a failed attempt
   * did store comes back as a duplicate, never twice. A server that refuses connections (not running, wrong address)
   * fails at once.
   */
  async postRollouts(
    project: string,
    ndjson: string | readonly Uint8Array[],
    opts: { createEnvironments?: boolean; retries?: number; sleep?: (ms: number) => Promise<void> } = {},
  ): Promise<IngestSummary> {
    const query = opts.createEnvironments ? "?createEnvironments=1" : "";
    // encoded once, here, for every attempt: fetch would otherwise check a string body for lone surrogates (toUSVString)
    // and encode it again on each attempt, 7 s of the CLI's 35 s of CPU for ten Harbor jobs (lone surrogates become
    // U+FFFD either way, as the WHATWG encoder does). Lines already encoded (uploadRollouts) are only put together.
    const body = typeof ndjson === "string" ? Buffer.from(ndjson, "utf8") : Buffer.concat(ndjson);
    const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    const retries = opts.retries ?? BUSY_RETRIES;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.request<IngestSummary>("POST", `/api/v1/projects/${encodeURIComponent(project)}/rollouts${query}`, {
          raw: body,
          contentType: "application/x-ndjson",
        });
      } catch (err) {
        const again = err instanceof ApiError && (err.status === 503 || err.status === 429 || DROPPED_CONNECTION.has(err.cause ?? ""));
        if (!again || attempt >= retries) throw err;
        await sleep(Math.min(30_000, err.retryAfterMs ?? 1000 * 2 ** attempt));
      }
    }
  }
}

/**
 * HTTP client of an Agent Lightning store: terminal-rollout pages and a rollout's events, in our
 * contract or a real store's `/v1/agl` routes; timeouts, retries of 5xx/429/network errors, and
 * errors that name the URL and what to check.
 */
import { backoffDelayMs, sleep } from "@/lib/retry/backoff";
import {
  type AgentLightningEvent,
  AgentLightningFormatError,
  type AgentLightningPage,
  type AgentLightningRollout,
  aglRolloutSchema,
  isObject,
  parseEventList,
  parseRolloutPage,
  parseWith,
} from "./dialects";

/** A failed conversation with an Agent Lightning store; names the URL and, for HTTP errors, the status. */
export class AgentLightningError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly status?: number,
    readonly kind: "config" | "http" | "network" | "timeout" | "format" = "http",
  ) {
    super(message);
    this.name = "AgentLightningError";
  }
}

/** Options of {@link AgentLightningClient}. */
export interface AgentLightningClientOptions {
  /** the store's base URL */
  url: string;
  /** sent as `Authorization: Bearer <key>` */
  apiKey?: string;
  fetchImpl?: typeof fetch;
  /** per request (headers and body), default 30 s */
  timeoutMs?: number;
  /** tries per request on 5xx/429/network errors/timeouts, default 3 */
  tries?: number;
  /** first backoff delay, doubled each retry (a Retry-After header wins, capped at 30 s), default 500 ms */
  retryDelayMs?: number;
  /** "envforge": our contract (default); "agl-v1": a real store's `/v1/agl` routes */
  api?: "envforge" | "agl-v1";
}

function detailOf(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (isObject(body)) {
      const d = body.detail ?? body.error ?? body.message;
      if (typeof d === "string") return d;
      if (d !== undefined) return JSON.stringify(d).slice(0, 300);
    }
  } catch {
    /* not JSON */
  }
  return text.trim().slice(0, 300);
}

/** Reads terminal rollouts and their events from an Agent Lightning store over HTTP. */
export class AgentLightningClient {
  readonly url: string;
  private readonly apiKey?: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly tries: number;
  private readonly retryDelayMs: number;
  private readonly api: "envforge" | "agl-v1";

  constructor(opts: AgentLightningClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(opts.url);
    } catch {
      throw new AgentLightningError(
        `invalid Agent Lightning store URL ${JSON.stringify(opts.url)} (check --url)`,
        opts.url,
        undefined,
        "config",
      );
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new AgentLightningError(
        `the Agent Lightning store URL must be http(s): ${opts.url} (check --url)`,
        opts.url,
        undefined,
        "config",
      );
    }
    this.url = opts.url.replace(/\/{1,64}$/, "");
    this.apiKey = opts.apiKey || undefined;
    this.fetchImpl = opts.fetchImpl ?? globalThis.fetch;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.tries = Math.max(1, opts.tries ?? 3);
    this.retryDelayMs = opts.retryDelayMs ?? 500;
    this.api = opts.api ?? "envforge";
  }

  /** One page of finished rollouts after `after` (a cursor from a previous page; none = from the start). */
  async terminalRollouts(after?: string, limit = 100): Promise<AgentLightningPage> {
    const n = Math.max(1, Math.floor(limit));
    let path: string;
    if (this.api === "agl-v1") {
      const offset = after === undefined || after === "" ? 0 : Number(after);
      if (!Number.isInteger(offset) || offset < 0) {
        throw new AgentLightningError(`cursor ${JSON.stringify(after)} is not an offset of ${this.url}`, this.url, undefined, "config");
      }
      const q = new URLSearchParams();
      for (const s of ["succeeded", "failed", "cancelled"]) q.append("status_in", s);
      q.set("sort_by", "end_time"); // finishing order: rollouts that finish later land after the cursor
      q.set("sort_order", "asc");
      q.set("limit", String(n));
      q.set("offset", String(offset));
      path = `/v1/agl/rollouts?${q}`;
    } else {
      const q = new URLSearchParams();
      if (after) q.set("after", after);
      q.set("limit", String(n));
      path = `/api/rollouts/terminal?${q}`;
    }
    const { url, body } = await this.getJson(path);
    try {
      return parseRolloutPage(body);
    } catch (err) {
      throw this.formatError(err, url);
    }
  }

  /** One rollout in full (1.0's GET /api/rollouts/{id} -> { rollout, attempts }), for page items that carry only ids. */
  async rolloutDetail(rolloutId: string): Promise<AgentLightningRollout> {
    const { url, body } = await this.getJson(`/api/rollouts/${encodeURIComponent(rolloutId)}`);
    try {
      const detail = isObject(body) && isObject(body.rollout) ? { ...body.rollout, attempt_ids: body.attempts } : body;
      return parseWith(aglRolloutSchema, detail, "the rollout");
    } catch (err) {
      throw this.formatError(err, url);
    }
  }

  /** All events (or, from a real store, spans) of one rollout. */
  async events(rolloutId: string): Promise<AgentLightningEvent[]> {
    const path =
      this.api === "agl-v1"
        ? `/v1/agl/spans?${new URLSearchParams({ rollout_id: rolloutId, sort_by: "sequence_id", sort_order: "asc", limit: "-1" })}`
        : `/api/rollouts/${encodeURIComponent(rolloutId)}/events`;
    const { url, body } = await this.getJson(path);
    try {
      return parseEventList(body);
    } catch (err) {
      throw this.formatError(err, url);
    }
  }

  private formatError(err: unknown, url: string): Error {
    if (err instanceof AgentLightningFormatError) {
      return new AgentLightningError(
        `unexpected response from GET ${url}: ${err.issues.join("; ") || err.message}`,
        url,
        undefined,
        "format",
      );
    }
    return err instanceof Error ? err : new Error(String(err));
  }

  private async getJson(path: string): Promise<{ url: string; body: unknown }> {
    const url = `${this.url}${path}`;
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let last: AgentLightningError | undefined;
    for (let attempt = 1; attempt <= this.tries; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.timeoutMs);
      let status: number;
      let text: string;
      let retryAfterMs: number | undefined;
      try {
        const res = await this.fetchImpl(url, { method: "GET", headers, signal: controller.signal });
        status = res.status;
        const ra = Number(res.headers.get("retry-after"));
        if (Number.isFinite(ra) && ra >= 0) retryAfterMs = Math.min(ra * 1000, 30_000);
        text = await res.text();
      } catch (err) {
        const tries = attempt === 1 ? "" : ` (${attempt} tries)`;
        if (controller.signal.aborted) {
          last = new AgentLightningError(`no answer from GET ${url} within ${this.timeoutMs} ms${tries}`, url, undefined, "timeout");
        } else {
          const cause =
            err instanceof Error
              ? ((err.cause as { code?: string; message?: string } | undefined)?.code ??
                (err.cause !== undefined ? String(err.cause) : err.message))
              : String(err);
          last = new AgentLightningError(
            `could not reach the Agent Lightning store at GET ${url}${tries}: ${cause}`,
            url,
            undefined,
            "network",
          );
        }
        if (attempt < this.tries) await sleep(backoffDelayMs(attempt, { baseMs: this.retryDelayMs }));
        continue;
      } finally {
        clearTimeout(timer);
      }
      if (status >= 200 && status < 300) {
        try {
          return { url, body: JSON.parse(text) };
        } catch {
          throw new AgentLightningError(`GET ${url} did not answer JSON: ${text.trim().slice(0, 120)}`, url, status, "format");
        }
      }
      const detail = detailOf(text);
      const suffix = detail ? `: ${detail}` : "";
      if (status === 401 || status === 403) {
        throw new AgentLightningError(
          `HTTP ${status} from GET ${url}: check --key (the store's API key${this.apiKey ? " was refused" : "; none was given"})${suffix}`,
          url,
          status,
        );
      }
      if (status === 429 || status >= 500) {
        last = new AgentLightningError(
          `HTTP ${status} from GET ${url}${attempt > 1 ? ` after ${attempt} tries` : ""}${suffix}`,
          url,
          status,
        );
        if (attempt < this.tries) await sleep(retryAfterMs ?? backoffDelayMs(attempt, { baseMs: this.retryDelayMs }));
        continue;
      }
      if (status === 404) {
        throw new AgentLightningError(`HTTP 404 from GET ${url}: is --url an Agent Lightning store?${suffix}`, url, status);
      }
      throw new AgentLightningError(`HTTP ${status} from GET ${url}${suffix}`, url, status);
    }
    throw last ?? new AgentLightningError(`GET ${url} failed`, url);
  }
}

/**
 * A loopback Agent Lightning 0.3 store (node:http on 127.0.0.1, port 0), built from
 * microsoft/agent-lightning at tag v0.3.0: agentlightning/store/client_server.py (FastAPI routes
 * under /v1/agl), agentlightning/types/core.py (Rollout, AttemptedRollout, Attempt, RolloutConfig,
 * EnqueueRolloutRequest, PaginatedResult), types/tracer.py (Span) and store/utils.py
 * (rollout_status_from_attempt). Routes:
 *   POST /v1/agl/queues/rollouts/enqueue          { rollouts: [EnqueueRolloutRequest] } -> 201 [Rollout] (ids "ro-…", status queuing)
 *   POST /v1/agl/queues/rollouts/dequeue          { limit?, worker_id? } -> [AttemptedRollout] (attempt "at-…", status preparing)
 *   POST /v1/agl/rollouts/{id}/attempts/{aid}     UpdateAttemptRequest { status? } -> Attempt; the rollout follows the attempt
 *   POST /v1/agl/spans                            Span -> 201 Span
 *   GET  /v1/agl/rollouts?status_in&sort_by&sort_order&limit&offset -> PaginatedResult { items, limit, offset, total }
 *   GET  /v1/agl/spans?rollout_id&attempt_id?&sort_by&sort_order&limit&offset -> PaginatedResult of spans
 * A sort_by that is not a field of the model, limit 0 or below -1, or a negative offset is a 400
 * { "detail": "..." } as in _validate_paginated_request; a body missing a required field is a 422.
 * 0.3 has no API key. Wire data only: no imports from lib/.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";

type Json = Record<string, unknown>;
const ROLLOUT_FIELDS = ["rollout_id", "input", "start_time", "end_time", "mode", "resources_id", "status", "config", "metadata"];
const SPAN_FIELDS = [
  "rollout_id",
  "attempt_id",
  "sequence_id",
  "trace_id",
  "span_id",
  "parent_id",
  "name",
  "status",
  "attributes",
  "events",
  "links",
  "start_time",
  "end_time",
  "context",
  "parent",
  "resource",
];
const FINISHED = new Set(["failed", "succeeded", "cancelled"]);

export interface FakeAgentLightningV03 {
  url: string;
  rollouts: Map<string, Json>;
  spans: Json[];
  requests: { method: string; path: string; query: string }[];
  /** what restarting the default in-memory store (InMemoryLightningStore) does: every rollout, attempt and span is gone */
  restart(): void;
  close(): Promise<void>;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const generateId = (n: number) => randomBytes(n).toString("hex").slice(0, n);

/** Sort like the in-memory store: by a field, missing values first, then by insertion order. */
function sortBy<T extends Json>(items: T[], field: string | null, order: string): T[] {
  if (!field) return items;
  const sorted = [...items].sort((a, b) => {
    const x = a[field] as number | string | null | undefined;
    const y = b[field] as number | string | null | undefined;
    if (x === y) return 0;
    if (x === null || x === undefined) return -1;
    if (y === null || y === undefined) return 1;
    return x < y ? -1 : 1;
  });
  return order === "desc" ? sorted.reverse() : sorted;
}

/** Starts the fake store. */
export async function startFakeAgentLightningV03(): Promise<FakeAgentLightningV03> {
  const rollouts = new Map<string, Json>();
  const attempts = new Map<string, Json[]>();
  const spans: Json[] = [];
  const queue: string[] = [];
  const requests: { method: string; path: string; query: string }[] = [];

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
  const missing = (res: http.ServerResponse, loc: (string | number)[]) =>
    send(res, 422, { detail: [{ type: "missing", loc: ["body", ...loc], msg: "Field required", input: null }] });
  const now = () => Date.now() / 1000;

  /** What GET /rollouts returns for a rollout: an AttemptedRollout when it has an attempt. */
  const view = (r: Json): Json => {
    const list = attempts.get(r.rollout_id as string) ?? [];
    return list.length ? { ...r, attempt: list[list.length - 1] } : r;
  };

  /** Query parameters checked as _validate_paginated_request does. */
  const paging = (
    url: URL,
    fields: string[],
    defaultSort: string | null,
  ): { error?: string; sort: string | null; order: string; limit: number; offset: number } => {
    const sort = url.searchParams.get("sort_by") ?? defaultSort;
    const order = url.searchParams.get("sort_order") ?? "asc";
    const limit = Number(url.searchParams.get("limit") ?? "-1");
    const offset = Number(url.searchParams.get("offset") ?? "0");
    let error: string | undefined;
    if (sort !== null && !fields.includes(sort)) error = `Invalid sort_by: ${sort}, allowed fields are: ${fields.join(", ")}`;
    else if (order !== "asc" && order !== "desc") error = `Invalid sort_order: ${order}, allowed values are: asc, desc`;
    else if (!Number.isInteger(limit) || limit === 0 || (limit < 0 && limit !== -1))
      error = "Limit must be greater than 0 or -1 for no limit";
    else if (!Number.isInteger(offset) || offset < 0) error = "Offset must be greater than or equal to 0";
    return { error, sort, order, limit, offset };
  };
  const page = (items: Json[], limit: number, offset: number) => ({
    items: limit === -1 ? items.slice(offset) : items.slice(offset, offset + limit),
    limit,
    offset,
    total: items.length,
  });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      const p = url.pathname;
      requests.push({ method: req.method ?? "", path: p, query: url.search });
      let body: unknown;
      if (chunks.length) {
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          return send(res, 422, { detail: [{ type: "json_invalid", loc: ["body"], msg: "JSON decode error", input: null }] });
        }
      }
      if (req.method === "GET" && p === "/v1/agl/health") return send(res, 200, { status: "ok" });

      if (req.method === "POST" && p === "/v1/agl/queues/rollouts/enqueue") {
        if (!isObject(body) || !Array.isArray(body.rollouts)) return missing(res, ["rollouts"]);
        const list = body.rollouts as unknown[];
        for (let i = 0; i < list.length; i++)
          if (!isObject(list[i]) || !("input" in (list[i] as Json))) return missing(res, ["rollouts", i, "input"]);
        const made = (list as Json[]).map((r) => {
          const rollout: Json = {
            rollout_id: `ro-${generateId(12)}`,
            input: r.input,
            start_time: now(),
            end_time: null,
            mode: r.mode ?? null,
            resources_id: r.resources_id ?? null,
            status: "queuing",
            config: r.config ?? { timeout_seconds: null, unresponsive_seconds: null, max_attempts: 1, retry_condition: [] },
            metadata: r.metadata ?? {},
          };
          rollouts.set(rollout.rollout_id as string, rollout);
          queue.push(rollout.rollout_id as string);
          return rollout;
        });
        return send(res, 201, made);
      }

      if (req.method === "POST" && p === "/v1/agl/queues/rollouts/dequeue") {
        const input = isObject(body) ? body : {};
        const limit = typeof input.limit === "number" ? input.limit : 1;
        const out: Json[] = [];
        while (out.length < limit && queue.length) {
          const id = queue.shift()!;
          const rollout = rollouts.get(id)!;
          const list = attempts.get(id) ?? [];
          const attempt: Json = {
            rollout_id: id,
            attempt_id: `at-${generateId(8)}`,
            sequence_id: list.length + 1,
            start_time: now(),
            end_time: null,
            status: "preparing",
            worker_id: input.worker_id ?? null,
            last_heartbeat_time: null,
            metadata: {},
          };
          attempts.set(id, [...list, attempt]);
          rollout.status = "preparing";
          out.push({ ...rollout, attempt });
        }
        return send(res, 200, out);
      }

      const am = /^\/v1\/agl\/rollouts\/([^/]+)\/attempts\/([^/]+)$/.exec(p);
      if (req.method === "POST" && am) {
        const rollout = rollouts.get(decodeURIComponent(am[1]));
        const attempt = (attempts.get(decodeURIComponent(am[1])) ?? []).find((a) => a.attempt_id === decodeURIComponent(am[2]));
        if (!rollout || !attempt) return send(res, 500, { detail: "Internal server error", error_type: "ValueError" });
        const update = isObject(body) ? body : {};
        if (typeof update.status === "string") {
          attempt.status = update.status;
          // rollout_status_from_attempt: preparing/running/succeeded pass through; failed/timeout/unresponsive end it (no retries here)
          rollout.status = ["preparing", "running", "succeeded"].includes(update.status) ? update.status : "failed";
          if (FINISHED.has(rollout.status as string)) {
            attempt.end_time = now();
            rollout.end_time = now();
          }
        }
        if (isObject(update.metadata)) attempt.metadata = update.metadata;
        return send(res, 200, attempt);
      }

      if (req.method === "POST" && p === "/v1/agl/spans") {
        if (!isObject(body)) return missing(res, ["rollout_id"]);
        for (const f of ["rollout_id", "attempt_id", "sequence_id", "trace_id", "span_id", "name"])
          if (!(f in body)) return missing(res, [f]);
        const span = {
          parent_id: null,
          status: { status_code: "UNSET", description: null },
          attributes: {},
          events: [],
          links: [],
          ...body,
        };
        spans.push(span);
        const rollout = rollouts.get(body.rollout_id as string);
        if (rollout?.status === "preparing") rollout.status = "running";
        return send(res, 201, span);
      }

      if (req.method === "GET" && p === "/v1/agl/rollouts") {
        const q = paging(url, ROLLOUT_FIELDS, null);
        if (q.error) return send(res, 400, { detail: q.error });
        const statuses = url.searchParams.getAll("status_in");
        const matching = [...rollouts.values()].filter((r) => statuses.length === 0 || statuses.includes(r.status as string));
        return send(res, 200, page(sortBy(matching, q.sort, q.order).map(view), q.limit, q.offset));
      }

      if (req.method === "GET" && p === "/v1/agl/spans") {
        const rolloutId = url.searchParams.get("rollout_id");
        if (!rolloutId)
          return send(res, 422, { detail: [{ type: "missing", loc: ["query", "rollout_id"], msg: "Field required", input: null }] });
        const q = paging(url, SPAN_FIELDS, "sequence_id");
        if (q.error) return send(res, 400, { detail: q.error });
        const attemptId = url.searchParams.get("attempt_id");
        const matching = spans.filter((s) => s.rollout_id === rolloutId && (attemptId === null || s.attempt_id === attemptId));
        return send(res, 200, page(sortBy(matching, q.sort, q.order), q.limit, q.offset));
      }
      return send(res, 404, { detail: "Not Found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    rollouts,
    spans,
    requests,
    restart() {
      rollouts.clear();
      attempts.clear();
      spans.length = 0;
      queue.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

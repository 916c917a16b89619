/**
 * A loopback Agent Lightning 1.0 server (node:http on 127.0.0.1, port 0), built from
 * microsoft/agent-lightning at tag v1.0.0: agentlightning/server/app.py (routers under /api, the
 * key as `Authorization: Bearer` or `x-api-key`), server/routes/rollouts.py, server/routes/events.py
 * and schemas.py. Routes:
 *   POST  /api/rollouts                      list[RolloutCreate] -> 201 list[Rollout]; a known rollout_id returns it unchanged
 *   GET   /api/rollouts/terminal?after&limit { items: [{ rollout_id, state, data_id, is_train }], next_after, total_terminal }
 *   GET   /api/rollouts/{id}                 { rollout, attempts: [attempt ids] }
 *   PATCH /api/rollouts/{id}                 { status: { state?, last_attempt_id?, error_message? } }; 409 on an invalid transition
 *   POST  /api/rollouts/{id}/attempt/{aid}/events  EventCreate { event_type, data } -> Event
 *   GET   /api/rollouts/{id}/events          list[Event] of the rollout's last attempt ("0" when none)
 *   DELETE /api/rollouts/{id}                204; the rollout and its events go, its id stays in the completion
 *                                            order (the terminal page skips it while next_after still counts it)
 * State lives in memory as in server/store.py: `restart()` empties it all, the completion order too
 * (ids made here keep counting up, as the real store's uuid4 ids never recur).
 * Errors as FastAPI sends them: { "detail": "..." } (404, 409, 401), 422 { "detail": [{ type, loc, msg }] }.
 * Wire data only: no imports from lib/.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

type Json = Record<string, unknown>;
const TERMINAL = new Set(["succeeded", "failed"]);
const TRANSITIONS: Record<string, string[]> = {
  queuing: ["running", "failed"],
  running: ["succeeded", "failed"],
  succeeded: [],
  failed: [],
};

export interface FakeAgentLightningV1 {
  url: string;
  rollouts: Map<string, Json>;
  requests: { method: string; path: string }[];
  /** what a process restart does to server/store.py's module-level state: everything, the completion order too, is gone */
  restart(): void;
  close(): Promise<void>;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Starts the fake; `key` is the server's API key (AGL_API_KEY), none when omitted. */
export async function startFakeAgentLightningV1(opts: { key?: string } = {}): Promise<FakeAgentLightningV1> {
  const rollouts = new Map<string, Json>();
  const events = new Map<string, Map<string, Json[]>>();
  const terminalOrder: string[] = [];
  const requests: { method: string; path: string }[] = [];
  let counter = 0;

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
  const invalid = (res: http.ServerResponse, loc: (string | number)[], msg: string) =>
    send(res, 422, { detail: [{ type: "value_error", loc: ["body", ...loc], msg, input: null }] });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      requests.push({ method: req.method ?? "", path: url.pathname });
      if (opts.key) {
        const auth = req.headers.authorization ?? "";
        if (!(auth === `Bearer ${opts.key}` || req.headers["x-api-key"] === opts.key))
          return send(res, 401, { detail: "Invalid or missing API key" });
      }
      let body: unknown;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
      } catch {
        return send(res, 422, { detail: [{ type: "json_invalid", loc: ["body"], msg: "JSON decode error" }] });
      }
      const p = url.pathname;
      if (req.method === "POST" && p === "/api/rollouts") {
        if (!Array.isArray(body)) return invalid(res, [], "Input should be a valid list");
        const out: Json[] = [];
        for (const [i, item] of body.entries()) {
          if (!isObject(item) || !("input" in item)) return invalid(res, [i, "input"], "Field required");
          // RolloutCreate is a plain BaseModel: extra keys are ignored, wrong types refused
          if (item.is_train !== undefined && typeof item.is_train !== "boolean")
            return invalid(res, [i, "is_train"], "Input should be a valid boolean");
          if (item.metadata !== undefined && item.metadata !== null && !isObject(item.metadata))
            return invalid(res, [i, "metadata"], "Input should be a valid dictionary");
          if (item.rollout_id !== undefined && item.rollout_id !== null && typeof item.rollout_id !== "string")
            return invalid(res, [i, "rollout_id"], "Input should be a valid string");
          const id = (item.rollout_id as string | undefined) ?? `r${++counter}`;
          if (!rollouts.has(id)) {
            const now = Date.now() / 1000;
            rollouts.set(id, {
              rollout_id: id,
              input: item.input,
              is_train: item.is_train ?? true,
              config: item.config ?? { timeout_seconds: 3600, local: null, k8s: null },
              metadata: { batch_idx: null, sample_idx_in_batch: null, ...((item.metadata as Json) ?? {}) },
              status: {
                state: "queuing",
                k8s_job_name: null,
                last_attempt_id: null,
                error_message: null,
                version: 1,
                created_at: now,
                updated_at: now,
              },
            });
            events.set(id, new Map());
          }
          out.push(rollouts.get(id)!);
        }
        return send(res, 201, out);
      }
      if (req.method === "GET" && p === "/api/rollouts/terminal") {
        const after = Math.max(0, Number(url.searchParams.get("after") ?? 0) || 0);
        const limit = Math.max(1, Number(url.searchParams.get("limit") ?? 1000) || 1000);
        const slice = terminalOrder.slice(after, after + limit);
        const items = slice.flatMap((id) => {
          const r = rollouts.get(id);
          if (!r) return []; // deleted: skipped, still counted in next_after
          const input = r.input as Json;
          return {
            rollout_id: id,
            state: (r.status as Json).state,
            data_id: isObject(input) ? String(input.data_id ?? input.instance_id ?? "") : "",
            is_train: r.is_train,
          };
        });
        return send(res, 200, { items, next_after: after + slice.length, total_terminal: terminalOrder.length });
      }
      const m = /^\/api\/rollouts\/([^/]+)(\/events|\/attempt\/([^/]+)\/events)?$/.exec(p);
      if (!m) return send(res, 404, { detail: "Not Found" });
      const id = decodeURIComponent(m[1]);
      if (!m[2] && req.method === "DELETE") {
        // idempotent; _terminal_order is left alone
        rollouts.delete(id);
        events.delete(id);
        res.writeHead(204);
        return res.end();
      }
      const rollout = rollouts.get(id);
      if (!rollout) return send(res, 404, { detail: `Rollout not found: ${id}` });
      const status = rollout.status as Json;
      if (!m[2] && req.method === "GET") {
        const byAttempt = events.get(id)!;
        return send(res, 200, { rollout, attempts: [...byAttempt.keys()] });
      }
      if (!m[2] && req.method === "PATCH") {
        const patch = isObject(body) && isObject(body.status) ? body.status : {};
        if (typeof patch.state === "string") {
          if (!TRANSITIONS[status.state as string]?.includes(patch.state))
            return send(res, 409, { detail: `Rollout ${id}: cannot transition ${String(status.state)} -> ${patch.state}` });
        }
        const next = { ...status, ...patch, version: (status.version as number) + 1, updated_at: Date.now() / 1000 };
        rollout.status = next;
        if (typeof patch.state === "string" && TERMINAL.has(patch.state)) terminalOrder.push(id);
        return send(res, 200, rollout);
      }
      if (m[3] && req.method === "POST") {
        if (!isObject(body) || typeof body.event_type !== "string") return invalid(res, ["event_type"], "Field required");
        const attempt = decodeURIComponent(m[3]);
        const event = {
          event_type: body.event_type,
          rollout_id: id,
          attempt_id: attempt,
          timestamp: Date.now() / 1000,
          data: isObject(body.data) ? body.data : {},
        };
        const byAttempt = events.get(id)!;
        byAttempt.set(attempt, [...(byAttempt.get(attempt) ?? []), event]);
        return send(res, 200, event);
      }
      if (m[2] === "/events" && req.method === "GET") {
        const attempt = (status.last_attempt_id as string | null) ?? "0";
        return send(res, 200, events.get(id)!.get(attempt) ?? []);
      }
      return send(res, 405, { detail: "Method Not Allowed" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    rollouts,
    requests,
    restart() {
      rollouts.clear();
      events.clear();
      terminalOrder.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/**
 * A real HTTP(S) server (node:http or node:https on 127.0.0.1, port 0) speaking the part of the
 * Kubernetes API that batch/v1 Jobs use:
 *   POST   /apis/batch/v1/namespaces/{ns}/jobs         201 with the Job; 409 Status AlreadyExists for a known name;
 *                                                      the codes given to `failJobCreates` first, one a POST
 *   GET    /apis/batch/v1/namespaces/{ns}/jobs/{name}  the Job; each GET applies the next scripted status
 *   DELETE /apis/batch/v1/namespaces/{ns}/jobs/{name}  200 Status Success (records the propagationPolicy)
 *   POST   /api/v1/namespaces/{ns}/secrets             201 with the Secret (stored in `secrets`); 409 AlreadyExists
 *   DELETE /api/v1/namespaces/{ns}/secrets/{name}      200 Status Success
 * Every request needs `Authorization: Bearer <token>` (401 Status otherwise); `forbidden` answers
 * 403 like RBAC does. Errors are `Status` objects as the API server sends them. Wire data only: no
 * imports from lib/. What a container would see: `containerEnvironment` resolves its env as the
 * kubelet does (`$(VAR)` and `$$` expanded, secretKeyRef read from the stored Secrets).
 */
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";

type Json = Record<string, unknown>;

export interface FakeJobStatus {
  active?: number;
  succeeded?: number;
  failed?: number;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
  startTime?: string;
  completionTime?: string;
}

export interface FakeKubernetesOptions {
  token: string;
  /** namespaces that exist (default ["default", "envforge"]) */
  namespaces?: string[];
  /** answer 403 to everything after authentication (a token without RBAC rights) */
  forbidden?: boolean;
  /** status script of every new Job: each GET applies the next entry (default: none, the Job stays as created) */
  script?: FakeJobStatus[];
  /** serve HTTPS with this key and certificate; with clientCa, a client certificate it signed authenticates too (as kubeconfig client-certificate users do) */
  tls?: { key: string; cert: string; clientCa?: string };
}

export interface FakeKubernetesRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Json | undefined;
}

export interface FakeKubernetes {
  url: string;
  requests: FakeKubernetesRequest[];
  /** stored Jobs by `<namespace>/<name>` */
  jobs: Map<string, Json>;
  /** stored Secrets by `<namespace>/<name>` */
  secrets: Map<string, Json>;
  /** `<namespace>/<name>` and propagationPolicy of every DELETE */
  deletions: { job: string; propagationPolicy: unknown }[];
  setStatus(namespace: string, name: string, status: FakeJobStatus): void;
  setScript(namespace: string, name: string, script: FakeJobStatus[]): void;
  /** status script of Jobs created from now on */
  setDefaultScript(script: FakeJobStatus[]): void;
  /** the next Job creates answer these codes (503, 429, 500, 422, …) as Status objects, one a POST, and create nothing */
  failJobCreates(codes: number[]): void;
  close(): Promise<void>;
}

function status(code: number, reason: string, message: string, details?: Json): Json {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: code < 400 ? "Success" : "Failure",
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

/**
 * Expand from third_party/forked/golang/expansion/expand.go (kubernetes/kubernetes), which the
 * kubelet applies to every env `value` (and command/args): `$$` -> `$`, `$(NAME)` -> its value
 * when `mapping` knows NAME (else left as written), any other `$` kept with what follows.
 */
export function kubernetesExpand(input: string, mapping: (name: string) => string | undefined): string {
  let out = "";
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== "$" || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const rest = input.slice(cursor + 1);
    let read: string;
    let advance: number;
    if (rest[0] === "$") {
      read = "$"; // escaped operator
      advance = 1;
    } else if (rest[0] === "(") {
      const close = rest.indexOf(")", 1);
      if (close >= 1) {
        const name = rest.slice(1, close);
        read = mapping(name) ?? `$(${name})`;
        advance = close + 1;
      } else {
        read = "$("; // incomplete reference
        advance = 1;
      }
    } else {
      const ch = String.fromCodePoint(rest.codePointAt(0)!);
      read = `$${ch}`;
      advance = ch.length;
    }
    out += read;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/**
 * The environment a container of a stored Job starts with, as the kubelet builds it
 * (makeEnvironmentVariables in pkg/kubelet/kubelet_pods.go): in order, each `value` expanded
 * against the variables before it, each secretKeyRef read from `secrets`.
 */
export function containerEnvironment(job: Json, containerName: string, secrets: Map<string, Json> = new Map()): Record<string, string> {
  const podSpec = (((job.spec as Json).template as Json).spec ?? {}) as Json;
  const all = [...((podSpec.initContainers as Json[] | undefined) ?? []), ...((podSpec.containers as Json[] | undefined) ?? [])];
  const container = all.find((c) => c.name === containerName);
  if (!container) throw new Error(`no container ${containerName}`);
  const namespace = String(((job.metadata ?? {}) as Json).namespace ?? "default");
  const env: Record<string, string> = {};
  for (const e of (container.env as Json[] | undefined) ?? []) {
    const name = String(e.name);
    if (typeof e.value === "string" && e.value !== "")
      env[name] = kubernetesExpand(e.value, (n) => (Object.hasOwn(env, n) ? env[n] : undefined));
    else if (e.valueFrom) {
      const ref = (e.valueFrom as Json).secretKeyRef as { name: string; key: string } | undefined;
      const secret = ref ? secrets.get(`${namespace}/${ref.name}`) : undefined;
      env[name] = String(((secret?.stringData ?? {}) as Json)[ref?.key ?? ""] ?? "");
    } else env[name] = "";
  }
  return env;
}

/** Starts the fake API server; `close()` it when done. */
export async function startFakeKubernetes(opts: FakeKubernetesOptions): Promise<FakeKubernetes> {
  const namespaces = new Set(opts.namespaces ?? ["default", "envforge"]);
  const jobs = new Map<string, Json>();
  const secrets = new Map<string, Json>();
  const scripts = new Map<string, FakeJobStatus[]>();
  const requests: FakeKubernetesRequest[] = [];
  const deletions: { job: string; propagationPolicy: unknown }[] = [];
  let uid = 0;
  let defaultScript = opts.script ?? [];
  let createFailures: number[] = [];
  const reasons: Record<number, string> = {
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
  };

  const send = (res: http.ServerResponse, code: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };

  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const [path, query = ""] = (req.url ?? "").split("?");
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: Json | undefined;
      try {
        body = raw ? (JSON.parse(raw) as Json) : undefined;
      } catch {
        return send(res, 400, status(400, "BadRequest", "the body is not valid JSON"));
      }
      requests.push({ method: req.method ?? "", path, authorization: req.headers.authorization, body });
      const certified = opts.tls?.clientCa !== undefined && (req.socket as import("node:tls").TLSSocket).authorized === true;
      if (!certified && req.headers.authorization !== `Bearer ${opts.token}`)
        return send(res, 401, status(401, "Unauthorized", "Unauthorized"));
      const sm = /^\/api\/v1\/namespaces\/([^/]+)\/secrets(?:\/([^/]+))?$/.exec(path);
      if (sm) {
        const key = `${decodeURIComponent(sm[1])}/${sm[2] ? decodeURIComponent(sm[2]) : String(((body?.metadata ?? {}) as Json).name)}`;
        if (!namespaces.has(decodeURIComponent(sm[1]))) return send(res, 404, status(404, "NotFound", `namespaces "${sm[1]}" not found`));
        if (req.method === "POST" && !sm[2]) {
          if (secrets.has(key)) return send(res, 409, status(409, "AlreadyExists", `secrets "${key.split("/")[1]}" already exists`));
          secrets.set(key, body ?? {});
          return send(res, 201, body ?? {});
        }
        if (req.method === "DELETE" && sm[2]) {
          if (!secrets.delete(key)) return send(res, 404, status(404, "NotFound", `secrets "${sm[2]}" not found`));
          return send(res, 200, status(200, "", ""));
        }
        return send(res, 405, status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"));
      }
      const m = /^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs(?:\/([^/]+))?$/.exec(path);
      if (!m) return send(res, 404, status(404, "NotFound", "the server could not find the requested resource"));
      const ns = decodeURIComponent(m[1]);
      const name = m[2] ? decodeURIComponent(m[2]) : undefined;
      const verb = req.method === "POST" ? "create" : req.method === "DELETE" ? "delete" : "get";
      if (opts.forbidden) {
        return send(
          res,
          403,
          status(
            403,
            "Forbidden",
            `jobs.batch is forbidden: User "system:serviceaccount:envforge:dispatcher" cannot ${verb} resource "jobs" in API ` +
              `group "batch" in the namespace "${ns}"`,
            {
              group: "batch",
              kind: "jobs",
            },
          ),
        );
      }
      if (!namespaces.has(ns))
        return send(res, 404, status(404, "NotFound", `namespaces "${ns}" not found`, { name: ns, kind: "namespaces" }));

      if (req.method === "POST" && !name) {
        const failWith = createFailures.shift();
        if (failWith !== undefined)
          return send(res, failWith, status(failWith, reasons[failWith] ?? "", `scripted answer ${failWith} to creating a Job`));
        const meta = (body?.metadata ?? {}) as Json;
        const jobName = meta.name;
        if (body?.kind !== "Job" || body?.apiVersion !== "batch/v1" || typeof jobName !== "string") {
          return send(
            res,
            422,
            status(422, "Invalid", "Job.batch is invalid: metadata.name: Required value", { kind: "Job", group: "batch" }),
          );
        }
        if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(jobName) || jobName.length > 63) {
          return send(
            res,
            422,
            status(422, "Invalid", `Job.batch "${jobName}" is invalid: metadata.name: Invalid value`, {
              name: jobName,
              kind: "Job",
              group: "batch",
            }),
          );
        }
        const key = `${ns}/${jobName}`;
        if (jobs.has(key))
          return send(
            res,
            409,
            status(409, "AlreadyExists", `jobs.batch "${jobName}" already exists`, { name: jobName, group: "batch", kind: "jobs" }),
          );
        const job: Json = {
          ...body,
          metadata: {
            ...meta,
            namespace: ns,
            uid: `uid-${++uid}`,
            resourceVersion: String(uid),
            creationTimestamp: new Date().toISOString(),
          },
          status: {},
        };
        jobs.set(key, job);
        scripts.set(key, [...defaultScript]);
        return send(res, 201, job);
      }
      if (!name) return send(res, 405, status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"));
      const key = `${ns}/${name}`;
      const job = jobs.get(key);
      if (!job) return send(res, 404, status(404, "NotFound", `jobs.batch "${name}" not found`, { name, group: "batch", kind: "jobs" }));
      if (req.method === "GET") {
        const next = scripts.get(key)?.shift();
        if (next) job.status = next;
        return send(res, 200, job);
      }
      if (req.method === "DELETE") {
        const fromQuery = new URLSearchParams(query).get("propagationPolicy");
        deletions.push({ job: key, propagationPolicy: body?.propagationPolicy ?? fromQuery ?? null });
        jobs.delete(key);
        return send(res, 200, status(200, "", "", { name, group: "batch", kind: "jobs", uid: (job.metadata as Json).uid }));
      }
      send(res, 405, status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"));
    });
  };

  const server = opts.tls
    ? https.createServer(
        {
          key: opts.tls.key,
          cert: opts.tls.cert,
          ...(opts.tls.clientCa ? { ca: opts.tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
        },
        handler,
      )
    : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? "https" : "http"}://127.0.0.1:${port}`,
    requests,
    jobs,
    secrets,
    deletions,
    setStatus(namespace, name, s) {
      const job = jobs.get(`${namespace}/${name}`);
      if (!job) throw new Error(`no Job ${namespace}/${name}`);
      job.status = s;
    },
    setScript(namespace, name, script) {
      scripts.set(`${namespace}/${name}`, [...script]);
    },
    setDefaultScript(script) {
      defaultScript = [...script];
    },
    failJobCreates(codes) {
      createFailures = [...codes];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

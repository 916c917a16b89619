/**
 * Ray adapter: submits a job through the Ray Jobs REST API of the head node's dashboard
 * (`POST /api/jobs/`, default port 8265) with `submission_id` = the dispatch id (`<id>-run<n>` from a
 * retry's run 2 on: Ray refuses a submission_id it has seen until that job is deleted), so a resend
 * finds the job it started instead of starting a second one. The payload travels in the job's
 * environment gzipped and base64-encoded (`runtime_env.env_vars.ENVFORGE_PAYLOAD_GZIP_BASE64`):
 * Ray runs every env_vars value through os.path.expandvars and then deletes what is left of
 * `${NAME}` (update_envs in python/ray/_private/utils.py), so JSON with a `$` in it would reach
 * the job altered, and no escape survives that. The entrypoint decodes it into
 * ENVFORGE_PAYLOAD_JSON (and the {{payloadPath}} file) before the target's command runs.
 */
import { gzipSync } from "node:zlib";
import { z } from "zod";
import { DeliveryError, type DeliveryContext, type DeliveryResult, type DispatchAdapter, type PollResult } from "../types";
import { bodySnippet, httpRequest, isRetryableStatus, parseJson, redactSecret, transportFailure, type HttpResponse } from "./http";
import {
  CALLBACK_KEY_ENV,
  fillPlaceholders,
  jobEnv,
  MAX_ENV_PAYLOAD_BYTES,
  payloadForEnv,
  PLACEHOLDERS,
  placeholderValues,
  shellQuote,
  textTail,
  unknownPlaceholders,
} from "./job-launch";
import { configErrors, parseTargetConfig } from "./target-config";

const RAY_PLACEHOLDERS = PLACEHOLDERS.filter((p) => p !== "dispatchDir");

export const rayConfigSchema = z
  .object({
    /** dashboard address of the head node, e.g. http://ray-head:8265 */
    address: z.url({ protocol: /^https?$/, error: "must be the http(s):// address of the Ray dashboard, e.g. http://ray-head:8265" }),
    /** shell command run by Ray; may use {{payloadPath}}, {{dispatchId}}, {{generation}}, {{project}} */
    entrypoint: z
      .string()
      .min(1)
      .refine((t) => unknownPlaceholders(t, RAY_PLACEHOLDERS).length === 0, {
        message: `may only use the placeholders ${RAY_PLACEHOLDERS.map((p) => `{{${p}}}`).join(", ")}`,
      }),
    /** merged under EnvForge's env_vars (Ray's runtime_env: working_dir, pip, env_vars, …) */
    runtime_env: z
      .object({ env_vars: z.record(z.string(), z.string()).optional() })
      .catchall(z.unknown())
      .optional(),
    /** merged under envforge_* keys; Ray wants string values */
    metadata: z.record(z.string(), z.string()).optional(),
    entrypoint_num_cpus: z.number().min(0).optional(),
    entrypoint_num_gpus: z.number().min(0).optional(),
    entrypoint_memory: z.number().int().min(0).optional(),
    entrypoint_resources: z.record(z.string(), z.number().min(0)).optional(),
    timeoutMs: z.number().int().min(100).max(300_000).default(10_000),
  })
  .strict();
export type RayConfig = z.infer<typeof rayConfigSchema>;

/** The submission_id of a dispatch's run: the dispatch id, then `<id>-run<n>` for a retry's run n. */
export function raySubmissionId(payload: Pick<DeliveryContext["payload"], "dispatchId">, run = 1): string {
  return run > 1 ? `${payload.dispatchId}-run${run}` : payload.dispatchId;
}

/** Where the entrypoint's `{{payloadPath}}` points on the Ray node (written from the env var before it runs). */
export function rayPayloadPath(dispatchId: string): string {
  return `/tmp/envforge-payload-${dispatchId.replace(/[^A-Za-z0-9_-]/g, "_")}.json`;
}

/** The variable that carries the payload to a Ray job: gzip, then base64 (no `$` for Ray's expandvars to touch). */
export const RAY_PAYLOAD_ENV = "ENVFORGE_PAYLOAD_GZIP_BASE64";

/** The payload as RAY_PAYLOAD_ENV carries it, or a non-retryable DeliveryError when it is too large for an env var. */
export function rayPayloadEnvValue(payload: DeliveryContext["payload"]): string {
  const json = payloadForEnv(payload, "ray"); // the decoded ENVFORGE_PAYLOAD_JSON is an env var of the command too
  const encoded = gzipSync(Buffer.from(json, "utf8")).toString("base64");
  if (encoded.length > MAX_ENV_PAYLOAD_BYTES)
    throw new DeliveryError(
      `The generation payload is ${Math.ceil(encoded.length / 1024)} KiB even gzipped, over the ${MAX_ENV_PAYLOAD_BYTES / 1024} KiB ` +
        `the ray adapter can pass in ${RAY_PAYLOAD_ENV}: dispatch it with the export or webhook adapter, or split the generation.`,
      false,
      { payloadBytes: encoded.length, limitBytes: MAX_ENV_PAYLOAD_BYTES },
    );
  return encoded;
}

// Python is on every Ray node; it writes the bytes as they are (no locale, no newline).
const DECODE_PAYLOAD = `import base64, gzip, os, sys; sys.stdout.buffer.write(gzip.decompress(base64.b64decode(os.environ["${RAY_PAYLOAD_ENV}"])))`;

/**
 * The entrypoint Ray runs (in a shell): ENVFORGE_PAYLOAD_JSON decoded from RAY_PAYLOAD_ENV and
 * exported, the payload file written when the template uses {{payloadPath}}, then the template
 * filled in. `;` keeps the target's command whole (its own `&&`/`||` bind as written).
 */
export function rayEntrypoint(template: string, ctx: Pick<DeliveryContext, "payload">): string {
  const payloadPath = rayPayloadPath(ctx.payload.dispatchId);
  const command = fillPlaceholders(template, placeholderValues(ctx.payload, { payloadPath }), shellQuote);
  // a command substitution drops trailing newlines only, and JSON.stringify ends in none
  const steps = [`ENVFORGE_PAYLOAD_JSON="$(python -c ${shellQuote(DECODE_PAYLOAD)})" || exit 1`, "export ENVFORGE_PAYLOAD_JSON"];
  if (/\{\{\s*payloadPath\s*\}\}/.test(template)) steps.push(`printf '%s' "$ENVFORGE_PAYLOAD_JSON" > ${shellQuote(payloadPath)} || exit 1`);
  return [...steps, command].join("; ");
}

/** The JSON body of `POST /api/jobs/`. */
export function raySubmitBody(config: RayConfig, ctx: Pick<DeliveryContext, "payload" | "callbackKey" | "run">): Record<string, unknown> {
  const { payload, callbackKey } = ctx;
  const runtimeEnv = { ...(config.runtime_env ?? {}) };
  runtimeEnv.env_vars = {
    ...(runtimeEnv.env_vars ?? {}),
    ...jobEnv(payload),
    [RAY_PAYLOAD_ENV]: rayPayloadEnvValue(payload),
    // the dispatch-scoped key rides in the runtime env (Ray's way to hand a job a secret)
    ...(callbackKey ? { [CALLBACK_KEY_ENV]: callbackKey } : {}),
  };
  const body: Record<string, unknown> = {
    entrypoint: rayEntrypoint(config.entrypoint, ctx),
    submission_id: raySubmissionId(payload, ctx.run),
    runtime_env: runtimeEnv,
    metadata: {
      ...(config.metadata ?? {}),
      envforge_dispatch: payload.dispatchId,
      envforge_run: String(ctx.run ?? 1),
      envforge_project: payload.project.slug,
      envforge_generation: String(payload.generation.index),
    },
  };
  for (const key of ["entrypoint_num_cpus", "entrypoint_num_gpus", "entrypoint_memory", "entrypoint_resources"] as const) {
    if (config[key] !== undefined) body[key] = config[key];
  }
  return body;
}

interface RayJobDetails {
  status?: string;
  message?: string | null;
  error_type?: string | null;
  submission_id?: string | null;
  job_id?: string | null;
  start_time?: number | null;
  end_time?: number | null;
}

const RAY_STATUS: Record<string, PollResult["status"]> = {
  PENDING: "delivered",
  RUNNING: "running",
  SUCCEEDED: "succeeded",
  FAILED: "failed",
  STOPPED: "failed",
};

class RayClient {
  constructor(
    private readonly config: RayConfig,
    private readonly ctx: DeliveryContext,
  ) {}

  request(method: "GET" | "POST", path: string, body?: unknown, keep: "head" | "tail" = "head"): Promise<HttpResponse> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    // A Ray behind an authenticating proxy: the target's secret is its bearer token.
    if (this.ctx.secret) headers.authorization = `Bearer ${this.ctx.secret}`;
    const url = `${this.config.address.replace(/\/+$/, "")}${path}`;
    return httpRequest({
      method,
      url,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: this.config.timeoutMs,
      signal: this.ctx.signal,
      keep,
    }).catch((e: unknown) => {
      throw transportFailure(e, `Ray at ${new URL(this.config.address).origin}`);
    });
  }

  /** A DeliveryError for a non-2xx answer, retryable where Ray may recover. */
  failure(res: HttpResponse, what: string): DeliveryError {
    const detail = redactSecret(bodySnippet(errorText(res)), this.ctx.secret);
    const data = { httpStatus: res.status };
    if (res.status === 401 || res.status === 403) {
      return new DeliveryError(
        `${what}: Ray (or the proxy in front of it) answered ${res.status}: check the target's secret (bearer token).`,
        false,
        data,
      );
    }
    if (res.status === 404) {
      return new DeliveryError(
        `${what}: ${new URL(this.config.address).origin} answered 404${detail ? ` (${detail})` : ""}: is the address the Ray dashboard (port 8265)?`,
        false,
        data,
      );
    }
    const retryable = isRetryableStatus(res.status);
    return new DeliveryError(
      `${what}: Ray answered ${res.status}${detail ? `: ${detail}` : ""}${retryable ? "; will retry" : ""}.`,
      retryable,
      data,
    );
  }

  async job(submissionId: string): Promise<RayJobDetails | null> {
    const res = await this.request("GET", `/api/jobs/${encodeURIComponent(submissionId)}`);
    if (res.status === 404) return null;
    if (res.status !== 200) throw this.failure(res, `Reading Ray job ${submissionId}`);
    const json = parseJson(res.body);
    if (!json || typeof json !== "object") throw new DeliveryError(`Reading Ray job ${submissionId}: the answer is not JSON.`, true);
    return json as RayJobDetails;
  }

  async logsTail(submissionId: string): Promise<string | undefined> {
    try {
      // Ray answers the whole driver log as one JSON { logs } (job_head.py, no range): a training job's runs past the
      // answer's limit, and its end is what says why it failed, so the end is kept
      const res = await this.request("GET", `/api/jobs/${encodeURIComponent(submissionId)}/logs`, undefined, "tail");
      if (res.status !== 200) return undefined;
      if (res.headDropped) return logsFromTail(res.body);
      const logs = (parseJson(res.body) as { logs?: unknown } | undefined)?.logs;
      return typeof logs === "string" ? textTail(logs) : undefined;
    } catch {
      return undefined; // logs are a nicety: the status is what matters
    }
  }
}

/**
 * The end of the `logs` string of a `{ "logs": "..." }` answer whose beginning was dropped, unescaped. The cut may fall
 * inside an escape (after the backslash of `\t`, within `\u00e9`), where the text would read wrongly, so it starts
 * after the first whole newline escape (a `\n` whose backslash run begins inside the tail and is odd): the log's lines
 * from there. A log without one is read from the first position that parses.
 */
export function logsFromTail(body: string): string | undefined {
  const end = body.trimEnd();
  if (!end.endsWith("}")) return undefined;
  const close = end.lastIndexOf('"');
  if (close < 0) return undefined;
  const escaped = end.slice(0, close);
  const parse = (from: number) => {
    try {
      return JSON.parse(`"${escaped.slice(from)}"`) as string;
    } catch {
      return undefined;
    }
  };
  for (let i = 1; i < escaped.length; i++) {
    if (escaped[i] !== "\\" || escaped[i - 1] === "\\") continue;
    let run = 0;
    while (escaped[i + run] === "\\") run++;
    if (run % 2 === 1 && escaped[i + run] === "n") {
      const text = parse(i + run + 1);
      if (text !== undefined) return textTail(text);
      break;
    }
    i += run;
  }
  for (let skip = 0; skip <= 6 && skip < escaped.length; skip++) {
    const text = parse(skip);
    if (text !== undefined) return textTail(text);
  }
  return undefined;
}

/** Ray's error bodies are a JSON `{ message }`/`{ detail }` or plain text (a traceback). */
function errorText(res: HttpResponse): string {
  const json = parseJson(res.body) as Record<string, unknown> | undefined;
  if (json && typeof json === "object") {
    for (const key of ["message", "detail", "error", "msg"]) if (typeof json[key] === "string") return json[key] as string;
  }
  return res.body;
}

async function statusOf(client: RayClient, job: RayJobDetails, submissionId: string): Promise<PollResult> {
  const rayStatus = String(job.status ?? "PENDING").toUpperCase();
  const status = RAY_STATUS[rayStatus] ?? "delivered";
  const data: Record<string, unknown> = { rayStatus };
  if (job.job_id) data.jobId = job.job_id;
  if (job.start_time) data.startTime = job.start_time;
  if (job.end_time) data.endTime = job.end_time;
  if (job.error_type) data.errorType = job.error_type;
  let message = job.message ?? undefined;
  if (status === "failed") {
    message = `Ray job ${submissionId} ${rayStatus === "STOPPED" ? "was stopped" : "failed"}${job.message ? `: ${job.message}` : ""}`;
    const tail = await client.logsTail(submissionId);
    if (tail !== undefined) data.logsTail = tail;
  }
  return { status, message, data };
}

async function deliver(ctx: DeliveryContext): Promise<DeliveryResult> {
  const config = parseTargetConfig(rayConfigSchema, ctx.config, "ray");
  const client = new RayClient(config, ctx);
  const submissionId = raySubmissionId(ctx.payload, ctx.run);
  const res = await client.request("POST", "/api/jobs/", raySubmitBody(config, ctx));
  if (res.status >= 200 && res.status < 300) {
    const json = parseJson(res.body) as { submission_id?: string; job_id?: string } | undefined;
    return {
      status: "delivered",
      externalId: json?.submission_id ?? submissionId,
      message: `submitted to Ray as ${json?.submission_id ?? submissionId}`,
      data: { jobId: json?.job_id ?? null },
    };
  }
  // Ray answers 400 (500 in older versions) "Job with submission_id … already exists": this is a resend of this run.
  if ((res.status === 400 || res.status === 500) && /already exists/i.test(res.body)) {
    const job = await client.job(submissionId);
    if (!job) throw new DeliveryError(`Ray says job ${submissionId} already exists but cannot find it; will retry.`, true);
    const current = await statusOf(client, job, submissionId);
    return {
      ...current,
      externalId: submissionId,
      message: `already submitted to Ray (${current.data?.rayStatus})${current.message ? `: ${current.message}` : ""}`,
      data: { ...current.data, duplicate: true },
    };
  }
  throw client.failure(res, `Submitting to Ray`);
}

async function poll(ctx: DeliveryContext, externalId: string): Promise<PollResult> {
  const client = new RayClient(parseTargetConfig(rayConfigSchema, ctx.config, "ray"), ctx);
  const job = await client.job(externalId);
  if (!job)
    return {
      status: "failed",
      message: `Ray does not know job ${externalId} any more (was the cluster restarted or the job deleted?).`,
      data: { rayStatus: null },
    };
  return statusOf(client, job, externalId);
}

async function cancel(ctx: DeliveryContext, externalId: string): Promise<void> {
  const client = new RayClient(parseTargetConfig(rayConfigSchema, ctx.config, "ray"), ctx);
  const res = await client.request("POST", `/api/jobs/${encodeURIComponent(externalId)}/stop`);
  if (res.status === 404 || (res.status >= 200 && res.status < 300)) return;
  throw client.failure(res, `Stopping Ray job ${externalId}`);
}

/** The Ray adapter. */
export const rayAdapter: DispatchAdapter = {
  name: "ray",
  needsSecret: false,
  checkConfig: (config) => configErrors(rayConfigSchema, config),
  deliver,
  poll,
  cancel,
};

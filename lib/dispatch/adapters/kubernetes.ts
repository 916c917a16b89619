/**
 * Kubernetes adapter: creates a batch/v1 Job through the API server, authenticated by the target's
 * secret as a bearer token, by EnvForge's own in-cluster service account, or by a kubeconfig file
 * (./kubernetes-auth.ts). The Job name is derived from the dispatch id (and the run, from a retry's
 * run 2 on), so a resend meets `409 AlreadyExists` and reports the Job it created the first time,
 * while a retry creates a Job of its own.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import {
  DeliveryError,
  type DeliveryContext,
  type DeliveryResult,
  type DispatchAdapter,
  type GenerationPayload,
  type PollResult,
} from "../types";
import { bodySnippet, httpRequest, isRetryableStatus, parseJson, redactSecret, transportFailure, type HttpResponse } from "./http";
import { inClusterCredentials, kubeconfigCredentials, SERVICE_ACCOUNT_DIR, type KubernetesCredentials } from "./kubernetes-auth";
import { CALLBACK_KEY_ENV, fillPlaceholders, jobEnv, payloadForEnv, placeholderValues, unknownPlaceholders } from "./job-launch";
import { configErrors, parseTargetConfig } from "./target-config";

export const DISPATCH_LABEL = "envforge.dev/dispatch";
export const DISPATCH_ANNOTATION = "envforge.dev/dispatch-id";
const K8S_PLACEHOLDERS = ["dispatchId", "generation", "project"];

/** The shortest ttlSecondsAfterFinished a jobTemplate may set (polls are up to 60 s apart, later when workers are busy). */
export const MIN_TTL_SECONDS_AFTER_FINISHED = 300;

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const labelValuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const containerSchema = z.looseObject({ name: z.string().min(1), image: z.string().optional() });
const jobTemplateSchema = z.looseObject({
  apiVersion: z.literal("batch/v1", { error: 'must be "batch/v1"' }).optional(),
  kind: z.literal("Job", { error: 'must be "Job"' }).optional(),
  metadata: z.looseObject({}).optional(),
  spec: z.looseObject({
    backoffLimit: z.number().int().min(0).optional(),
    // a Job deleted before a poll reads its end would be reported failed even when it succeeded
    ttlSecondsAfterFinished: z
      .number()
      .int()
      .min(MIN_TTL_SECONDS_AFTER_FINISHED, {
        error:
          `must be at least ${MIN_TTL_SECONDS_AFTER_FINISHED} (or left out): EnvForge polls a Job up to a minute apart ` +
          `and must read how it ended before Kubernetes deletes it`,
      })
      .optional(),
    template: z.looseObject({
      metadata: z.looseObject({}).optional(),
      spec: z.looseObject({
        containers: z.array(containerSchema).min(1, "needs at least one container"),
        initContainers: z.array(containerSchema).optional(),
        // a Job's pods may only be Never or OnFailure (the API server refuses Always); EnvForge sets Never when absent
        restartPolicy: z.enum(["Never", "OnFailure"], { error: 'must be "Never" or "OnFailure" for a Job\'s pods' }).optional(),
      }),
    }),
  }),
});

const commandPart = z.string().refine((t) => unknownPlaceholders(t, K8S_PLACEHOLDERS).length === 0, {
  message: `may only use the placeholders ${K8S_PLACEHOLDERS.map((p) => `{{${p}}}`).join(", ")}`,
});

export const kubernetesConfigSchema = z
  .object({
    /** how EnvForge authenticates: the target's secret as a token, its own pod's service account, or a kubeconfig file */
    auth: z.enum(["token", "inCluster", "kubeconfig"]).default("token"),
    /** API server URL, e.g. https://kubernetes.default.svc (auth "token"; the others know their server) */
    apiServer: z.url({ protocol: /^https?$/, error: "must be the http(s):// URL of the Kubernetes API server" }).optional(),
    /** auth "inCluster": where the service account is mounted */
    serviceAccountDir: z.string().min(1).default(SERVICE_ACCOUNT_DIR),
    /** auth "kubeconfig": the kubeconfig file, and its context (default: current-context) */
    kubeconfigPath: z.string().min(1).optional(),
    context: z.string().min(1).optional(),
    /** default: the service account's or the kubeconfig context's namespace, else "default" */
    namespace: z.string().max(63).regex(dns1123Label, "must be a DNS-1123 label (lowercase letters, digits, '-')").optional(),
    /** a batch/v1 Job manifest; EnvForge sets its name, labels, env and (unless given) backoffLimit 0 */
    jobTemplate: jobTemplateSchema.optional(),
    /** image and command of the default Job (when there is no jobTemplate) */
    image: z.string().min(1).optional(),
    command: z.array(commandPart).min(1).optional(),
    /** PEM CA bundle of the API server */
    caCert: z.string().includes("-----BEGIN CERTIFICATE-----", { message: "must be a PEM certificate" }).optional(),
    insecureSkipTlsVerify: z.boolean().default(false),
    timeoutMs: z.number().int().min(100).max(300_000).default(10_000),
  })
  .strict()
  .refine((c) => c.jobTemplate !== undefined || c.image !== undefined, { message: "set either jobTemplate or image", path: ["image"] })
  .refine((c) => c.auth !== "token" || c.apiServer !== undefined, { message: 'is required with auth "token"', path: ["apiServer"] })
  .refine((c) => c.auth !== "kubeconfig" || c.kubeconfigPath !== undefined, {
    message: 'is required with auth "kubeconfig"',
    path: ["kubeconfigPath"],
  });
export type KubernetesConfig = z.infer<typeof kubernetesConfigSchema>;
/** A config with its namespace resolved (the credentials' namespace when the config names none). */
type ResolvedConfig = KubernetesConfig & { namespace: string };

type Json = Record<string, unknown>;

/**
 * `envforge-<first 8 hex of the dispatch id>-g<generation>` (a sha256 prefix when the id does not start
 * with 8 hex digits), `-r<run>` appended from a retry's run 2 on.
 */
export function kubernetesJobName(payload: Pick<GenerationPayload, "dispatchId" | "generation">, run = 1): string {
  const lead = payload.dispatchId.toLowerCase().slice(0, 8);
  const hex = /^[0-9a-f]{8}$/.test(lead) ? lead : createHash("sha256").update(payload.dispatchId).digest("hex").slice(0, 8);
  return `envforge-${hex}-g${payload.generation.index}${run > 1 ? `-r${run}` : ""}`;
}

/** The dispatch id as a label value (a hash when the id is not a valid one). */
export function dispatchLabelValue(dispatchId: string): string {
  return dispatchId.length <= 63 && labelValuePattern.test(dispatchId)
    ? dispatchId
    : createHash("sha256").update(dispatchId).digest("hex").slice(0, 63);
}

function objectAt(parent: Json, key: string): Json {
  const value = parent[key];
  if (value && typeof value === "object" && !Array.isArray(value)) return value as Json;
  const created: Json = {};
  parent[key] = created;
  return created;
}

/**
 * An env value as Kubernetes must be given it to hand the container `value` unchanged: the kubelet
 * expands `$(VAR)` from the variables before it and turns `$$` into `$`
 * (third_party/forked/golang/expansion/expand.go), so every `$` is doubled.
 */
export function kubernetesEnvLiteral(value: string): string {
  return value.replace(/\$/g, () => "$$"); // a replacer function: its result is taken literally
}

/** The Secret holding a dispatch's callback key: `<job name>-key`. */
export function kubernetesKeySecretName(payload: Pick<GenerationPayload, "dispatchId" | "generation">, run = 1): string {
  return `${kubernetesJobName(payload, run)}-key`;
}

/**
 * The Job manifest for a dispatch: template (or default) + name, labels, env, backoffLimit; with
 * `keySecret`, every container reads ENVFORGE_API_KEY from that Secret (never a literal value).
 */
export function kubernetesJobManifest(config: KubernetesConfig, payload: GenerationPayload, keySecret?: string, run = 1): Json {
  const namespace = config.namespace ?? "default";
  const values = placeholderValues(payload);
  const job: Json = config.jobTemplate
    ? (structuredClone(config.jobTemplate) as Json)
    : {
        spec: {
          template: {
            spec: {
              containers: [{ name: "envforge", image: config.image, ...(config.command ? { command: config.command } : {}) }],
            },
          },
        },
      };
  const name = kubernetesJobName(payload, run);
  job.apiVersion = "batch/v1";
  job.kind = "Job";
  const metadata = objectAt(job, "metadata");
  delete metadata.generateName;
  metadata.name = name;
  metadata.namespace = namespace;
  const labels = { [DISPATCH_LABEL]: dispatchLabelValue(payload.dispatchId), "app.kubernetes.io/managed-by": "envforge" };
  metadata.labels = { ...objectAt(metadata, "labels"), ...labels };
  metadata.annotations = {
    ...objectAt(metadata, "annotations"),
    [DISPATCH_ANNOTATION]: payload.dispatchId,
    "envforge.dev/project": payload.project.slug,
    "envforge.dev/generation": String(payload.generation.index),
    "envforge.dev/run": String(run),
  };
  const spec = objectAt(job, "spec");
  if (spec.backoffLimit === undefined) spec.backoffLimit = 0;
  const podTemplate = objectAt(spec, "template");
  const podMeta = objectAt(podTemplate, "metadata");
  podMeta.labels = { ...objectAt(podMeta, "labels"), ...labels };
  const podSpec = objectAt(podTemplate, "spec");
  if (podSpec.restartPolicy === undefined) podSpec.restartPolicy = "Never";
  const env = { ...jobEnv(payload), ENVFORGE_PAYLOAD_JSON: payloadForEnv(payload, "kubernetes") };
  for (const key of ["containers", "initContainers"]) {
    const containers = podSpec[key];
    if (!Array.isArray(containers)) continue;
    for (const container of containers as Json[]) {
      const kept = Array.isArray(container.env)
        ? (container.env as Json[]).filter((e) => !(typeof e.name === "string" && e.name in env))
        : [];
      const fromSecret = keySecret
        ? [{ name: CALLBACK_KEY_ENV, valueFrom: { secretKeyRef: { name: keySecret, key: CALLBACK_KEY_ENV } } }]
        : [];
      container.env = [
        ...kept.filter((e) => e.name !== CALLBACK_KEY_ENV),
        ...Object.entries(env).map(([n, value]) => ({ name: n, value: kubernetesEnvLiteral(value) })),
        ...fromSecret,
      ];
      for (const field of ["command", "args"]) {
        if (Array.isArray(container[field]))
          container[field] = (container[field] as unknown[]).map((a) => (typeof a === "string" ? fillPlaceholders(a, values) : a));
      }
    }
  }
  return job;
}

interface KubeStatus {
  kind?: string;
  reason?: string;
  message?: string;
  code?: number;
}

function statusObject(res: HttpResponse): KubeStatus | undefined {
  const json = parseJson(res.body) as KubeStatus | undefined;
  return json && typeof json === "object" && json.kind === "Status" ? json : undefined;
}

class KubernetesClient {
  constructor(
    readonly config: ResolvedConfig,
    private readonly ctx: DeliveryContext,
    private readonly creds: KubernetesCredentials,
  ) {}

  secretsPath(name?: string): string {
    const base = `/api/v1/namespaces/${encodeURIComponent(this.config.namespace)}/secrets`;
    return name ? `${base}/${encodeURIComponent(name)}` : base;
  }

  jobsPath(name?: string): string {
    const base = `/apis/batch/v1/namespaces/${encodeURIComponent(this.config.namespace)}/jobs`;
    return name ? `${base}/${encodeURIComponent(name)}` : base;
  }

  async request(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<HttpResponse> {
    const { creds } = this;
    const headers: Record<string, string> = {
      accept: "application/json",
      ...(creds.token ? { authorization: `Bearer ${creds.token}` } : {}),
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    try {
      return await httpRequest({
        method,
        url: `${creds.apiServer.replace(/\/+$/, "")}${path}`,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: this.config.timeoutMs,
        signal: this.ctx.signal,
        tls: { ca: creds.ca, cert: creds.cert, key: creds.key, rejectUnauthorized: !creds.insecureSkipTlsVerify },
      });
    } catch (e) {
      throw transportFailure(e, `Kubernetes API server ${new URL(creds.apiServer).origin}`);
    }
  }

  /** A DeliveryError for a non-2xx answer; 401/403 name the missing rights, never the token. */
  failure(res: HttpResponse, verb: "create" | "get" | "delete", what = "Jobs"): DeliveryError {
    const status = statusObject(res);
    const detail = redactSecret(bodySnippet(status?.message ?? res.body), this.creds.token);
    const data = { httpStatus: res.status, reason: status?.reason ?? null };
    const ns = this.config.namespace;
    if (res.status === 401) {
      const fix =
        this.config.auth === "token" ? "set the secret to a valid service-account token" : `check the credentials of ${this.creds.source}`;
      return new DeliveryError(`The Kubernetes API server rejected the credentials (401 Unauthorized): ${fix}.`, false, data);
    }
    if (res.status === 403) {
      return new DeliveryError(
        `The token or certificate (${this.creds.source}) lacks rights to ${verb} ${what} in namespace ` +
          `"${ns}" (403 Forbidden${detail ? `: ${detail}` : ""}): grant it create, get and delete on jobs.batch and create ` +
          `and delete on secrets there.`,
        false,
        data,
      );
    }
    if (res.status === 404 && verb === "create")
      return new DeliveryError(
        `Kubernetes answered 404 creating a Job in namespace "${ns}"${detail ? ` (${detail})` : ""}: does the namespace exist?`,
        false,
        data,
      );
    if (res.status === 422 || status?.reason === "Invalid")
      return new DeliveryError(`Kubernetes refused the Job manifest (422 Invalid: ${detail}): fix the target's jobTemplate.`, false, data);
    const retryable = isRetryableStatus(res.status);
    return new DeliveryError(
      `Kubernetes answered ${res.status} to ${verb} a Job in "${ns}"${detail ? `: ${detail}` : ""}${retryable ? "; will retry" : ""}.`,
      retryable,
      data,
    );
  }

  async getJob(name: string): Promise<Json | null> {
    const res = await this.request("GET", this.jobsPath(name));
    if (res.status === 404) return null;
    if (res.status !== 200) throw this.failure(res, "get");
    const job = parseJson(res.body);
    if (!job || typeof job !== "object")
      throw new DeliveryError(`Reading Job ${name}: the API server's answer is not JSON; will retry.`, true);
    return job as Json;
  }
}

interface JobCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** The dispatch status of a Job object. */
export function kubernetesJobStatus(job: Json): PollResult {
  const spec = (job.spec ?? {}) as { backoffLimit?: number; completions?: number | null };
  const status = (job.status ?? {}) as {
    active?: number;
    succeeded?: number;
    failed?: number;
    conditions?: JobCondition[];
    startTime?: string;
    completionTime?: string;
  };
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const isTrue = (type: string) => conditions.find((c) => c.type === type && c.status === "True");
  const data: Record<string, unknown> = {
    active: status.active ?? 0,
    succeeded: status.succeeded ?? 0,
    failed: status.failed ?? 0,
    ...(status.startTime ? { startTime: status.startTime } : {}),
    ...(status.completionTime ? { completionTime: status.completionTime } : {}),
  };
  // FailureTarget and SuccessCriteriaMet come first, while the Job's pods are still being terminated
  const failed = isTrue("Failed") ?? isTrue("FailureTarget");
  if (failed)
    return {
      status: "failed",
      message: `Job failed: ${failed.reason ?? "Failed"}${failed.message ? `: ${failed.message}` : ""}`,
      data: { ...data, reason: failed.reason ?? null },
    };
  const completions = spec.completions ?? 1;
  if (isTrue("Complete") || isTrue("SuccessCriteriaMet") || (status.succeeded ?? 0) >= Math.max(1, completions))
    return { status: "succeeded", message: "Job completed", data };
  const suspended = isTrue("Suspended");
  if (suspended)
    return {
      status: "delivered",
      message: `waiting: the Job is suspended${suspended.message ? ` (${suspended.message})` : ""}`,
      data: { ...data, suspended: true },
    };
  const backoffLimit = spec.backoffLimit ?? 6; // Kubernetes' own default when the manifest leaves it out
  if ((status.failed ?? 0) > backoffLimit)
    return {
      status: "failed",
      message: `Job failed: ${status.failed} pod failures, over backoffLimit ${backoffLimit}`,
      data: { ...data, reason: "BackoffLimitExceeded" },
    };
  if ((status.active ?? 0) >= 1) return { status: "running", message: `${status.active} pod(s) active`, data };
  return { status: "delivered", message: "Job created, no pod running yet", data };
}

/** The credentials of a target's config (and secret). */
export async function kubernetesCredentials(config: KubernetesConfig, secret: string | null): Promise<KubernetesCredentials> {
  if (config.auth === "inCluster") return inClusterCredentials(config.serviceAccountDir);
  if (config.auth === "kubeconfig") return kubeconfigCredentials(config.kubeconfigPath!, config.context);
  if (!secret)
    throw new DeliveryError("The kubernetes target has no secret: set it to a service-account token that may create Jobs.", false);
  return {
    apiServer: config.apiServer!,
    token: secret,
    ca: config.caCert,
    insecureSkipTlsVerify: config.insecureSkipTlsVerify,
    source: "the target's token",
  };
}

async function clientFor(ctx: DeliveryContext): Promise<KubernetesClient> {
  const config = parseTargetConfig(kubernetesConfigSchema, ctx.config, "kubernetes");
  const creds = await kubernetesCredentials(config, ctx.secret);
  // the target's own settings win over what the credentials carry
  if (config.auth !== "token") {
    if (config.apiServer) creds.apiServer = config.apiServer;
    if (config.caCert) creds.ca = config.caCert;
    if (config.insecureSkipTlsVerify) creds.insecureSkipTlsVerify = true;
  }
  return new KubernetesClient({ ...config, namespace: config.namespace ?? creds.namespace ?? "default" }, ctx, creds);
}

async function deliver(ctx: DeliveryContext): Promise<DeliveryResult> {
  const client = await clientFor(ctx);
  const run = ctx.run ?? 1;
  const name = kubernetesJobName(ctx.payload, run);
  let keySecret: string | undefined;
  let createdSecret = false;
  if (ctx.callbackKey) {
    // the job's ingest key goes into a Secret of its own; the Job only references it
    keySecret = kubernetesKeySecretName(ctx.payload, run);
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: keySecret,
        namespace: client.config.namespace,
        labels: { [DISPATCH_LABEL]: dispatchLabelValue(ctx.payload.dispatchId), "app.kubernetes.io/managed-by": "envforge" },
      },
      type: "Opaque",
      stringData: { [CALLBACK_KEY_ENV]: ctx.callbackKey },
    };
    const made = await client.request("POST", client.secretsPath(), secret);
    createdSecret = made.status >= 200 && made.status < 300;
    if (!createdSecret && !(made.status === 409 && statusObject(made)?.reason === "AlreadyExists"))
      throw client.failure(made, "create", "Secrets");
  }
  const manifest = kubernetesJobManifest(client.config, ctx.payload, keySecret, run);
  const where = { namespace: client.config.namespace, name };
  const res = await client.request("POST", client.jobsPath(), manifest);
  if (res.status >= 200 && res.status < 300) {
    const created = (parseJson(res.body) ?? manifest) as Json;
    const uid = (created.metadata as Json | undefined)?.uid ?? null;
    const current = kubernetesJobStatus(created);
    return {
      status: current.status,
      externalId: name,
      message: `created Job ${client.config.namespace}/${name}`,
      data: { ...where, uid, ...current.data },
    };
  }
  if (res.status === 409 && statusObject(res)?.reason === "AlreadyExists") {
    const existing = await client.getJob(name);
    if (!existing) throw new DeliveryError(`Job ${name} already exists but cannot be read (deleted meanwhile?); will retry.`, true, where);
    const meta = (existing.metadata ?? {}) as { annotations?: Record<string, string>; labels?: Record<string, string>; uid?: string };
    const owner = meta.annotations?.[DISPATCH_ANNOTATION] ?? meta.labels?.[DISPATCH_LABEL];
    if (owner !== ctx.payload.dispatchId && owner !== dispatchLabelValue(ctx.payload.dispatchId)) {
      throw new DeliveryError(
        `A Job named ${name} in "${client.config.namespace}" belongs to another dispatch (${owner ?? "none"}): delete it, then retry.`,
        false,
        where,
      );
    }
    const current = kubernetesJobStatus(existing);
    return {
      ...current,
      externalId: name,
      message: `Job ${client.config.namespace}/${name} already exists: ${current.message}`,
      data: { ...where, uid: meta.uid ?? null, ...current.data, duplicate: true },
    };
  }
  const failure = client.failure(res, "create");
  // no Job will come of this as it stands: the Secret this call made goes (one it found is an earlier attempt's, for its Job)
  if (!failure.retryable && createdSecret && keySecret)
    await client.request("DELETE", client.secretsPath(keySecret)).catch(() => undefined);
  throw failure;
}

async function poll(ctx: DeliveryContext, externalId: string): Promise<PollResult> {
  const client = await clientFor(ctx);
  const job = await client.getJob(externalId);
  if (!job)
    return {
      status: "failed",
      message: `Job ${client.config.namespace}/${externalId} no longer exists (deleted, or removed by ttlSecondsAfterFinished).`,
    };
  return kubernetesJobStatus(job);
}

async function cancel(ctx: DeliveryContext, externalId: string): Promise<void> {
  const client = await clientFor(ctx);
  const res = await client.request("DELETE", client.jobsPath(externalId), {
    kind: "DeleteOptions",
    apiVersion: "v1",
    propagationPolicy: "Background",
  });
  // the key Secret goes with the Job (its key is revoked by EnvForge anyway)
  await client.request("DELETE", client.secretsPath(`${externalId}-key`)).catch(() => undefined);
  if (res.status === 404 || (res.status >= 200 && res.status < 300)) return;
  throw client.failure(res, "delete");
}

/**
 * The Job ended: its key Secret goes now (the Job itself stays until ttlSecondsAfterFinished, for its logs). Without
 * an externalId the delivery gave up before it had a Job: the Secret its attempts made for this run goes too, unless
 * a Job of the run's name exists after all (a create whose answer was lost, or another dispatch's), whose pods read it.
 */
async function finish(ctx: DeliveryContext, externalId: string | null): Promise<void> {
  const client = await clientFor(ctx);
  const name = externalId ?? kubernetesJobName(ctx.payload, ctx.run ?? 1);
  if (externalId === null && (await client.getJob(name)))
    throw new DeliveryError(
      `Job ${client.config.namespace}/${name} exists although the delivery never recorded it; its key Secret ${name}-key ` +
        `is left for it: delete both once it has ended.`,
      false,
    );
  const res = await client.request("DELETE", client.secretsPath(`${name}-key`));
  if (res.status === 404 || (res.status >= 200 && res.status < 300)) return;
  throw client.failure(res, "delete", "Secrets");
}

/** The Kubernetes adapter. */
export const kubernetesAdapter: DispatchAdapter = {
  name: "kubernetes",
  needsSecret: true,
  secretRequired: (config) =>
    !(config && typeof config === "object" && ["inCluster", "kubeconfig"].includes((config as { auth?: string }).auth ?? "")),
  checkConfig: (config) => configErrors(kubernetesConfigSchema, config),
  deliver,
  poll,
  cancel,
  finish,
};

/**
 * Dispatch adapters: how an approved generation reaches a sandbox or a trainer. Pure of the
 * database; the dispatch service (lib/dispatch/service.ts) owns retries, status and the queue.
 */

/** Adapter names (API: targets.adapter). */
export const ADAPTERS = ["local", "webhook", "ray", "kubernetes", "export"] as const;
export type AdapterName = (typeof ADAPTERS)[number];

/** The generation as it is delivered: one JSON document, the same for every adapter. */
export interface GenerationPayload {
  /** the dispatch id: idempotency key, Ray submission_id, Kubernetes Job name suffix */
  dispatchId: string;
  project: { slug: string; name: string; family: string; successThreshold: number };
  generation: {
    index: number;
    status: string;
    parentIndex: number | null;
    trainingSteps: number | null;
    mixWeight: number | null;
    proposalId: string | null;
  };
  target: { name: string; kind: "sandbox" | "trainer" };
  environments: {
    key: string;
    config: Record<string, unknown>;
    configHash: string;
    weight: number;
    parentKey: string | null;
    op: string;
    direction: string | null;
    /** a Harbor task's files (terminal-task environments with task files), frozen with the payload */
    files?: { path: string; sha256: string; size: number; executable: boolean }[];
  }[];
  /** where a sandbox posts validation results back (POST, JSON), and rollouts (NDJSON) */
  callbacks: {
    validation: string;
    rollouts: string;
    /** EnvForge's base URL as jobs reach it (ENVFORGE_PUBLIC_URL), this payload's URL, and where progress goes */
    baseUrl?: string;
    payload?: string;
    progress?: string;
  };
  createdAt: string;
}

/** What an adapter is given for one attempt. */
export interface DeliveryContext {
  payload: GenerationPayload;
  /** the target's non-secret config, validated by the adapter's own zod schema */
  config: Record<string, unknown>;
  /** the target's secret (webhook HMAC secret, Kubernetes bearer token, …), decrypted; never logged */
  secret: string | null;
  /** the dispatch-scoped ingest key the job posts back with (lib/dispatch/callback-key.ts); a secret, never logged */
  callbackKey?: string | null;
  /** attempt number, from 1 */
  attempt: number;
  /** the dispatch's run: 1, one more per retry of a failed dispatch (a new Ray submission_id and Kubernetes Job name from 2 on) */
  run?: number;
  signal?: AbortSignal;
  /** reads a stored file's bytes by sha256 (task files of the payload) */
  readBlob?: (sha256: string) => Promise<Buffer>;
}

/** Outcome of a delivery attempt that did not throw. */
export interface DeliveryResult {
  /** "delivered" when the target took it; "running"/"succeeded"/"failed" when it already knows more */
  status: "delivered" | "running" | "succeeded" | "failed";
  /** the target's id for it (Ray submission id, Kubernetes Job name, export folder) */
  externalId?: string;
  message?: string;
  data?: Record<string, unknown>;
}

/** Status of a delivered dispatch as the target reports it (Ray job, Kubernetes Job, local process). */
export interface PollResult {
  status: "delivered" | "running" | "succeeded" | "failed";
  message?: string;
  data?: Record<string, unknown>;
}

/** A failed attempt: `retryable` false stops retries at once (e.g. 4xx other than 408/409/429). */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DeliveryError";
  }
}

/** One adapter. */
export interface DispatchAdapter {
  name: AdapterName;
  /** Validate a target's config; returns field errors (path relative to `config`). */
  checkConfig(config: unknown): { path: string; message: string }[];
  /** Whether this adapter needs a secret (webhook: yes). */
  needsSecret: boolean;
  /** Whether a target with this config needs a secret, where that depends on the config (kubernetes: not with inCluster or kubeconfig auth). */
  secretRequired?(config: unknown): boolean;
  /** Deliver once; idempotent by payload.dispatchId and ctx.run (a resend must not start a second job; a retry's new run must start one). */
  deliver(ctx: DeliveryContext): Promise<DeliveryResult>;
  /** Status after delivery, for adapters whose targets run something (ray, kubernetes, local). */
  poll?(ctx: DeliveryContext, externalId: string): Promise<PollResult>;
  /** Stop it at the target, where the target can (ray: stop; kubernetes: delete the Job; local: kill). */
  cancel?(ctx: DeliveryContext, externalId: string): Promise<void>;
  /**
   * Clean up at the target once the dispatch has ended (kubernetes: delete the key Secret); externalId is null when
   * the delivery gave up before the target named a job.
   */
  finish?(ctx: DeliveryContext, externalId: string | null): Promise<void>;
}

/**
 * Webhook adapter: POSTs the generation payload (JSON) to the target URL, signed with the
 * target's secret (`X-EnvForge-Signature: sha256=<hex HMAC-SHA256 of the raw body>`) and keyed
 * by the dispatch id (`Idempotency-Key`) so a receiver can drop resends.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { DeliveryError, type DeliveryContext, type DeliveryResult, type DispatchAdapter } from "../types";
import { bodySnippet, httpRequest, isRetryableStatus, parseJson, redactSecret, retryAfterMs, transportFailure } from "./http";
import { configErrors, parseTargetConfig } from "./target-config";

export const SIGNATURE_HEADER = "X-EnvForge-Signature";
export const IDEMPOTENCY_HEADER = "Idempotency-Key";
export const ATTEMPT_HEADER = "X-EnvForge-Delivery-Attempt";
/** The dispatch-scoped ingest key the receiver's job posts rollouts back with (Authorization: Bearer <key>). */
export const CALLBACK_KEY_HEADER = "X-EnvForge-Callback-Key";

/** Headers the adapter sets itself; config.headers may not override them. */
const RESERVED_HEADERS = [
  "content-type",
  "content-length",
  "host",
  SIGNATURE_HEADER.toLowerCase(),
  IDEMPOTENCY_HEADER.toLowerCase(),
  ATTEMPT_HEADER.toLowerCase(),
  CALLBACK_KEY_HEADER.toLowerCase(),
];

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const webhookConfigSchema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }),
    headers: z
      .record(
        z.string().regex(headerName, "is not a valid header name"),
        z.string().refine((v) => !/[\r\n]/.test(v), "must be on one line"),
      )
      .refine((h) => Object.keys(h).every((k) => !RESERVED_HEADERS.includes(k.toLowerCase())), {
        message: `may not set ${RESERVED_HEADERS.join(", ")}: the adapter sets them`,
      })
      .optional(),
    timeoutMs: z.number().int().min(100).max(300_000).default(10_000),
  })
  .strict();
export type WebhookConfig = z.infer<typeof webhookConfigSchema>;

/** The X-EnvForge-Signature value of a body: `sha256=<hex HMAC-SHA256 of the exact bytes with the secret>`. */
export function signBody(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** Whether an X-EnvForge-Signature header matches the raw body and secret (constant-time compare). */
export function verifySignature(body: string | Buffer, secret: string, header: string | null | undefined): boolean {
  if (typeof header !== "string") return false;
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!m) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  const given = Buffer.from(m[1], "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function externalIdFrom(body: string): string | undefined {
  const json = parseJson(body);
  if (json && typeof json === "object" && !Array.isArray(json)) {
    const id = (json as Record<string, unknown>).id;
    if (typeof id === "string" && id !== "") return id;
    if (typeof id === "number" && Number.isFinite(id)) return String(id);
  }
  return undefined;
}

async function deliver(ctx: DeliveryContext): Promise<DeliveryResult> {
  const config = parseTargetConfig(webhookConfigSchema, ctx.config, "webhook");
  if (!ctx.secret)
    throw new DeliveryError("The webhook target has no secret: set one so the receiver can verify X-EnvForge-Signature.", false);
  const body = Buffer.from(JSON.stringify(ctx.payload), "utf8");
  const headers: Record<string, string> = {
    ...config.headers,
    "content-type": "application/json",
    "user-agent": "EnvForge-Dispatch/1",
    [SIGNATURE_HEADER]: signBody(body, ctx.secret),
    [IDEMPOTENCY_HEADER]: ctx.payload.dispatchId,
    [ATTEMPT_HEADER]: String(ctx.attempt),
    ...(ctx.callbackKey ? { [CALLBACK_KEY_HEADER]: ctx.callbackKey } : {}),
  };
  const where = new URL(config.url).origin;
  let res;
  try {
    res = await httpRequest({ method: "POST", url: config.url, headers, body, timeoutMs: config.timeoutMs, signal: ctx.signal });
  } catch (e) {
    throw transportFailure(e, "Webhook delivery failed");
  }
  const snippet = redactSecret(bodySnippet(res.body), ctx.secret);
  if (res.status >= 200 && res.status < 300) {
    return {
      status: "delivered",
      externalId: externalIdFrom(res.body),
      message: `${where} answered ${res.status}`,
      data: { httpStatus: res.status },
    };
  }
  // A receiver that already holds this Idempotency-Key (or is still processing it) may answer 409: it has the delivery.
  if (res.status === 409) {
    return {
      status: "delivered",
      externalId: externalIdFrom(res.body),
      message: `${where} answered 409: it already has dispatch ${ctx.payload.dispatchId} (Idempotency-Key)`,
      data: { httpStatus: 409, duplicate: true },
    };
  }
  const data: Record<string, unknown> = { httpStatus: res.status };
  if (isRetryableStatus(res.status)) {
    const wait = retryAfterMs(res.headers);
    if (wait !== undefined) data.retryAfterMs = wait;
    throw new DeliveryError(`Webhook ${where} answered ${res.status}${snippet ? `: ${snippet}` : ""}; will retry.`, true, data);
  }
  if (res.status >= 300 && res.status < 400) {
    const location = res.headers.location ? ` to ${res.headers.location}` : "";
    throw new DeliveryError(
      `Webhook ${where} answered ${res.status} (redirect${location}): set the target URL to the final address (a signed POST is not followed).`,
      false,
      data,
    );
  }
  const hint =
    res.status === 401 || res.status === 403
      ? " Check that the receiver uses the same secret as the target."
      : res.status === 404
        ? " Check the target URL."
        : " The receiver rejected the payload: fix the receiver or the target.";
  throw new DeliveryError(`Webhook ${where} answered ${res.status}${snippet ? `: ${snippet}` : ""}.${hint}`, false, data);
}

/** The webhook adapter. */
export const webhookAdapter: DispatchAdapter = {
  name: "webhook",
  needsSecret: true,
  checkConfig: (config) => configErrors(webhookConfigSchema, config),
  deliver,
};

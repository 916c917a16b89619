/**
 * What every adapter that starts a job (local, Ray, Kubernetes) hands it: the `{{placeholder}}`
 * values of its command and the ENVFORGE_* environment variables.
 */
import type { GenerationPayload } from "../types";
import { DeliveryError } from "../types";

/**
 * Largest payload JSON carried in an environment variable (ENVFORGE_PAYLOAD_JSON). Linux refuses
 * a single environment string over 128 KiB (MAX_ARG_STRLEN), so 100 KiB leaves room for the rest.
 */
export const MAX_ENV_PAYLOAD_BYTES = 100 * 1024;

/** Placeholders a command template may use. */
export const PLACEHOLDERS = ["payloadPath", "dispatchId", "generation", "project", "dispatchDir"] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/** Replaces `{{name}}` with its value; unknown names are left as they are (a checkConfig error names them). */
export function fillPlaceholders(
  template: string,
  values: Partial<Record<Placeholder, string>>,
  quote: (v: string) => string = (v) => v,
): string {
  return template.replace(/\{\{\s*([A-Za-z]+)\s*\}\}/g, (whole, name: string) => {
    const value = values[name as Placeholder];
    return value === undefined ? whole : quote(value);
  });
}

/** Names of `{{…}}` placeholders in a template that are not in `allowed`. */
export function unknownPlaceholders(template: string, allowed: readonly string[]): string[] {
  const found = [...template.matchAll(/\{\{\s*([A-Za-z]+)\s*\}\}/g)].map((m) => m[1]);
  return found.filter((name) => !allowed.includes(name));
}

/** The placeholder values of a payload (payloadPath and dispatchDir where the adapter has them). */
export function placeholderValues(
  payload: GenerationPayload,
  extra: { payloadPath?: string; dispatchDir?: string } = {},
): Partial<Record<Placeholder, string>> {
  return {
    dispatchId: payload.dispatchId,
    generation: String(payload.generation.index),
    project: payload.project.slug,
    ...extra,
  };
}

/** A POSIX shell word: as is when it is plain, else single-quoted. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** ENVFORGE_* variables every job gets (ids and callback URLs; the payload itself is added by the adapter). */
export function jobEnv(payload: GenerationPayload): Record<string, string> {
  return {
    ENVFORGE_DISPATCH_ID: payload.dispatchId,
    ENVFORGE_PROJECT: payload.project.slug,
    ENVFORGE_GENERATION: String(payload.generation.index),
    ENVFORGE_CALLBACK_VALIDATION: payload.callbacks.validation,
    ENVFORGE_CALLBACK_ROLLOUTS: payload.callbacks.rollouts,
    // what `envforge run-dispatch --dispatch "$ENVFORGE_PAYLOAD_URL" -- <command>` needs (with ENVFORGE_API_KEY)
    ...(payload.callbacks.payload ? { ENVFORGE_PAYLOAD_URL: payload.callbacks.payload } : {}),
    ...(payload.callbacks.baseUrl ? { ENVFORGE_URL: payload.callbacks.baseUrl } : {}),
  };
}

/** The payload as JSON for ENVFORGE_PAYLOAD_JSON, or a non-retryable DeliveryError when it is too large for an env var. */
export function payloadForEnv(payload: GenerationPayload, adapter: string): string {
  const json = JSON.stringify(payload);
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_ENV_PAYLOAD_BYTES) {
    throw new DeliveryError(
      `The generation payload is ${Math.ceil(bytes / 1024)} KiB, over the ${MAX_ENV_PAYLOAD_BYTES / 1024} KiB the ` +
        `${adapter} adapter can pass in ENVFORGE_PAYLOAD_JSON: dispatch it with the export or webhook adapter, or split the generation.`,
      false,
      { payloadBytes: bytes, limitBytes: MAX_ENV_PAYLOAD_BYTES },
    );
  }
  return json;
}

/** The last `max` characters of a text (logs), starting at a line break when one is near. */
export function textTail(text: string, max = 2048): string {
  if (text.length <= max) return text;
  const tail = text.slice(-max);
  const nl = tail.indexOf("\n");
  return nl >= 0 && nl < 200 ? tail.slice(nl + 1) : tail;
}

/** The variable that hands a job its dispatch-scoped ingest key (lib/dispatch/callback-key.ts). */
export const CALLBACK_KEY_ENV = "ENVFORGE_API_KEY";

/** Checking a target's config with an adapter's zod schema: field errors for the API, or a DeliveryError at send time. */
import type { z } from "zod";
import { DeliveryError } from "../types";

/** zod issues -> `{ path, message }` with dot-joined paths relative to the config ("(root)" for the whole). */
export function configErrors(schema: z.ZodType, config: unknown): { path: string; message: string }[] {
  const parsed = schema.safeParse(config);
  if (parsed.success) return [];
  const errors: { path: string; message: string }[] = [];
  for (const issue of parsed.error.issues) {
    const base = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        errors.push({ path: [...base, key].join("."), message: `Unknown field "${key}": remove it or check its spelling.` });
    } else {
      errors.push({ path: base.length ? base.join(".") : "(root)", message: issue.message });
    }
  }
  return errors;
}

/** The parsed config, or a non-retryable DeliveryError listing what to fix (a resend would fail the same way). */
export function parseTargetConfig<T extends z.ZodType>(schema: T, config: unknown, adapter: string): z.infer<T> {
  const parsed = schema.safeParse(config);
  if (parsed.success) return parsed.data;
  const errors = configErrors(schema, config);
  const list = errors.map((e) => `${e.path}: ${e.message}`).join("; ");
  throw new DeliveryError(`The ${adapter} target's config is not valid (${list}): fix the target.`, false, { configErrors: errors });
}

/** Typed domain errors (NotFound, Conflict, Invalid, Forbidden, ...) and zod parsing that names the field; HTTP mapping lives in lib/api/errors. */
import { z } from "zod";

export interface ErrorDetail {
  path?: string;
  line?: number;
  message: string;
  code?: string;
}

export class DomainError extends Error {
  /** Extra response headers (e.g. Retry-After on a 429). */
  headers: Record<string, string> = {};
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export class Invalid extends DomainError {
  constructor(message: string, details: ErrorDetail[] = [], status = 422) {
    super(status, "invalid", message, details);
  }
}
export class BadRequest extends DomainError {
  constructor(message: string, details: ErrorDetail[] = []) {
    super(400, "bad_request", message, details);
  }
}
export class Unauthorized extends DomainError {
  constructor(message = "Missing or unknown API key: send `Authorization: Bearer <key>` or sign in.") {
    super(401, "unauthorized", message);
  }
}
export class Forbidden extends DomainError {
  constructor(message: string, details: ErrorDetail[] = []) {
    super(403, "forbidden", message, details);
  }
}
export class NotFound extends DomainError {
  constructor(message: string) {
    super(404, "not_found", message);
  }
}
export class Conflict extends DomainError {
  constructor(message: string, details: ErrorDetail[] = []) {
    super(409, "conflict", message, details);
  }
}
export class PayloadTooLarge extends DomainError {
  constructor(message: string) {
    super(413, "payload_too_large", message);
  }
}
export class UnsupportedMediaType extends DomainError {
  constructor(message: string) {
    super(415, "unsupported_media_type", message);
  }
}

/** zod issues -> details with dot-joined field paths. */
export function zodDetails(error: z.ZodError, prefix = ""): ErrorDetail[] {
  return error.issues.map((issue) => {
    const keys = issue.code === "unrecognized_keys" ? (issue as { keys?: string[] }).keys : undefined;
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
    const path = keys?.length === 1 ? [base, keys[0]].filter(Boolean).join(".") : base;
    return { path: path || "(root)", message: issue.message, code: issue.code };
  });
}

/** Parse `value` with `schema` or throw Invalid naming every offending field path. */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, what = "request body", status = 422): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const details = zodDetails(parsed.error);
  const first = details[0];
  throw new Invalid(`The ${what} is not valid: ${first.path}: ${first.message}`, details, status);
}

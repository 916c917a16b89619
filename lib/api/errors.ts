/** Typed domain errors, mapped to HTTP in one place (toErrorResponse). */
import { z } from "zod";
import { describeError } from "@/lib/db/errors";

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

const PG_CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "57P01", "57P02", "57P03", "08006", "08001", "08003"]);

/** True for errors that mean the database is unreachable or restarting (Drizzle wraps them: the cause chain is followed). */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as { code?: string; message?: string; cause?: unknown } | null, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code && PG_CONNECTION_CODES.has(e.code)) return true;
    if (/Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|terminating connection/i.test(e.message ?? "")) return true;
  }
  return false;
}

// values the database refused: NUL / bad encoding (22021, 22P05), out of range (22003, 22008), too deep (54001)
const PG_BAD_VALUE_CODES = new Set(["22021", "22P05", "22003", "22008", "54001"]);

/** True when Postgres refused a value the request carried (a backstop: validation should have named the field first). */
export function isBadValue(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | null, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code && PG_BAD_VALUE_CODES.has(e.code)) return true;
  }
  return false;
}

/** Any thrown value -> the API's JSON error response. */
export function toErrorResponse(err: unknown): Response {
  if (err instanceof DomainError) {
    return Response.json({ error: { code: err.code, message: err.message, details: err.details } }, { status: err.status, headers: err.headers });
  }
  if (isBadValue(err)) {
    return Response.json(
      { error: { code: "bad_value", message: "A value in the request cannot be stored (a NUL character, or a number or date out of range).", details: [] } },
      { status: 400 },
    );
  }
  if (isDatabaseUnavailable(err)) {
    return Response.json(
      { error: { code: "database_unavailable", message: "The database is unreachable right now; retry in a moment.", details: [] } },
      { status: 503, headers: { "Retry-After": "2" } },
    );
  }
  console.error(`[api] unexpected error: ${describeError(err)}`);
  return Response.json(
    { error: { code: "internal", message: "Unexpected server error; the server log has the details.", details: [] } },
    { status: 500 },
  );
}

/** Domain errors and database failures -> the API's JSON error responses, in one place. */
import { describeError } from "@/lib/db/errors";
import { DomainError } from "@/lib/errors";

const PG_CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "57P01", "57P02", "57P03", "08006", "08001", "08003"]);

/** True for errors that mean the database is unreachable or restarting (Drizzle wraps them: the cause chain is followed). */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (
    let e = err as { code?: string; message?: string; cause?: unknown } | null, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (e.code && PG_CONNECTION_CODES.has(e.code)) return true;
    if (/Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|terminating connection/i.test(e.message ?? ""))
      return true;
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
    return Response.json(
      { error: { code: err.code, message: err.message, details: err.details } },
      { status: err.status, headers: err.headers },
    );
  }
  if (isBadValue(err)) {
    return Response.json(
      {
        error: {
          code: "bad_value",
          message: "A value in the request cannot be stored (a NUL character, or a number or date out of range).",
          details: [],
        },
      },
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

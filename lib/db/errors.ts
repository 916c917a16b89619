/** Logging database errors without their parameters. No imports: safe anywhere, including lib/api/errors.ts. */

/** The parts of a node-postgres error that name what failed without quoting any value. */
interface PgErrorFields {
  code?: string;
  message?: string;
  table?: string;
  column?: string;
  constraint?: string;
}

const QUERY_TEXT_MAX = 300;

/**
 * Postgres quotes the offending value at the end of some messages (`invalid input syntax for
 * type integer: "…"`); the value may be a key digest or a payload, so it is replaced.
 */
function withoutQuotedValue(message: string): string {
  const i = message.indexOf(': "');
  return i >= 0 && message.endsWith('"') ? `${message.slice(0, i)}: <value>` : message;
}

/**
 * One log line for an error that never prints a query's parameters (key digests, tokens,
 * payloads): for a failed query its Postgres code, table/column/constraint, message without a
 * quoted value, and the SQL text with placeholders; for anything else its name and message.
 * The stack follows without the message line, which for Drizzle's errors repeats the parameters.
 */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const query = (err as { query?: unknown }).query;
  const isQueryError = typeof query === "string" && "params" in err;
  const frames = err.stack ? err.stack.slice(Math.max(0, err.stack.indexOf("\n    at "))) : "";
  if (!isQueryError) return `${err.name}: ${err.message}${frames}`;
  const cause = (err.cause ?? {}) as PgErrorFields;
  const where = [
    cause.table && `table ${cause.table}`,
    cause.column && `column ${cause.column}`,
    cause.constraint && `constraint ${cause.constraint}`,
  ]
    .filter(Boolean)
    .join(", ");
  const sqlText = query.replace(/\s{1,1000}/g, " ").slice(0, QUERY_TEXT_MAX);
  return (
    `query failed${cause.code ? ` (${cause.code})` : ""}: ${withoutQuotedValue(cause.message ?? "no cause")}${where ? ` [${where}]` : ""}; ` +
    `query: ${sqlText}${frames}`
  );
}

/**
 * A failing query's log line names what failed (Postgres code, table, constraint, the SQL text)
 * but never its parameters: they carry key digests, tokens and payloads. Real Postgres, the real
 * error path of the API (toErrorResponse) and of the background loops (describeError).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { freshDatabase } from "./db";
import { users } from "@/lib/db/schema";
import { toErrorResponse } from "@/lib/api/errors";
import { describeError } from "@/lib/db/errors";
import { createDb, WEB_ACQUIRE_TIMEOUT_MS, WORKER_ACQUIRE_TIMEOUT_MS } from "@/lib/db/client";

let db: Awaited<ReturnType<typeof freshDatabase>>;
const SECRET = "sha256-digest-0f9e8d7c6b5a49382716";

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.drop();
});

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  const err = await run().then(
    () => null,
    (e: unknown) => e,
  );
  if (!err) throw new Error("the query was expected to fail");
  return err;
}

/** What the API's 500 path writes to the log for `err`. */
function apiLogOf(err: unknown): string {
  const spy = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    expect(toErrorResponse(err).status).toBe(500);
    return spy.mock.calls
      .map((args) => args.map((a) => (typeof a === "string" ? a : (JSON.stringify(a) ?? String(a)))).join(" "))
      .join("\n");
  } finally {
    spy.mockRestore();
  }
}

describe("query-failure logs", () => {
  it("a bad parameter: code and SQL, not the value Postgres quotes back", async () => {
    const err = await failure(() => db.db.execute(sql`select ${SECRET}::int as n`));
    // the error itself carries the value twice: in Drizzle's message and in Postgres' message
    expect(String((err as Error).message)).toContain(SECRET);
    const line = apiLogOf(err);
    expect(line).toContain("22P02");
    expect(line).toContain("select $1::int as n");
    expect(line).not.toContain(SECRET);
    expect(describeError(err)).not.toContain(SECRET);
  });

  it("a unique violation: the constraint, not the row in its detail", async () => {
    const row = { email: `${SECRET}@lab.org`, name: "A", passwordHash: `scrypt$${SECRET}`, role: "viewer" };
    await db.db.insert(users).values(row);
    const err = await failure(() => db.db.insert(users).values(row));
    const line = apiLogOf(err);
    expect(line).toContain("23505");
    expect(line).toContain("users_email_unique");
    expect(line).not.toContain(SECRET);
  });

  it("other errors keep their message", () => {
    expect(describeError(new Error("disk full"))).toMatch(/^Error: disk full/);
  });
});

describe("waiting for a pooled connection", () => {
  it("a query queued behind a busy pool fails after acquireTimeoutMs (the web's 503), and waits it out with a longer one (the worker's)", async () => {
    const short = createDb(db.url, 1, 300);
    const long = createDb(db.url, 1, 10_000);
    try {
      for (const h of [short, long]) await h.db.execute(sql`select 1`); // each pool's one connection open
      // the pool's one connection busy (pool.query starts at once; a Drizzle query only when awaited)
      const hold = (h: typeof short) => h.pool.query("select pg_sleep(0.8)");
      const heldShort = hold(short);
      const queuedShort = await failure(() => short.db.execute(sql`select 2`));
      expect((queuedShort as { cause?: Error }).cause?.message).toMatch(/timeout exceeded when trying to connect/);
      expect(toErrorResponse(queuedShort).status).toBe(503);
      await heldShort;
      const heldLong = hold(long);
      const queuedLong = await long.db.execute<{ n: number }>(sql`select 2 as n`);
      expect(queuedLong.rows[0].n).toBe(2);
      await heldLong;
    } finally {
      await short.pool.end();
      await long.pool.end();
    }
  });

  it("the worker waits far longer than the web", () => {
    expect(WORKER_ACQUIRE_TIMEOUT_MS).toBeGreaterThanOrEqual(60_000);
    expect(WEB_ACQUIRE_TIMEOUT_MS).toBeLessThanOrEqual(10_000);
  });
});

/** The shared pg pool and Drizzle instance, one per process (kept on globalThis across hot reloads). */
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema";
import { loadSettings } from "@/lib/config/env";

export type Db = NodePgDatabase<typeof schema>;
/** A transaction handle, as `db.transaction` passes it. */
export type DbTx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Either: for functions that run inside or outside a caller's transaction. */
export type Queryable = Db | DbTx;

interface DbHandle {
  pool: pg.Pool;
  db: Db;
  url: string;
}

const globalKey = Symbol.for("envforge.db");
type GlobalWithDb = typeof globalThis & { [globalKey]?: DbHandle };

/**
 * How long a query of the web process waits for a pooled connection (or a new one to open) before it fails: the API
 * answers 503 with Retry-After then, rather than keep a client waiting.
 */
export const WEB_ACQUIRE_TIMEOUT_MS = 5_000;
/**
 * The worker's wait: its jobs have no client to answer and run queries side by side on a small pool (a proposal's
 * summary sends ten at once to the worker's four connections; on a cold cache after a restart one of them waited over
 * 5 s behind the others and failed the proposal).
 */
export const WORKER_ACQUIRE_TIMEOUT_MS = 120_000;

/**
 * Create a pool and Drizzle instance for a connection string (callers own its lifetime). `acquireTimeoutMs` bounds
 * both the wait for a free connection and the opening of a new one (node-postgres' connectionTimeoutMillis).
 */
export function createDb(url: string, max = 10, acquireTimeoutMs = WEB_ACQUIRE_TIMEOUT_MS): DbHandle {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: acquireTimeoutMs });
  // a restarting database surfaces as errors on idle clients; the pool replaces them on the next query
  pool.on("error", () => {});
  return { pool, db: drizzle(pool, { schema }), url };
}

/**
 * Run `fn` in one transaction on one connection of the pool behind `db`, giving it a Drizzle instance on that
 * connection and the connection itself (for COPY, which Drizzle cannot send). Commits when `fn` resolves, rolls back
 * when it throws.
 */
export async function transactionOnConnection<T>(db: Db, fn: (tx: Db, connection: pg.PoolClient) => Promise<T>): Promise<T> {
  const connection = await (db as Db & { $client: pg.Pool }).$client.connect();
  let broken: Error | undefined;
  try {
    await connection.query("begin");
    const result = await fn(drizzle(connection, { schema }), connection);
    await connection.query("commit");
    return result;
  } catch (err) {
    // a connection that cannot roll back is not given back to the pool
    await connection.query("rollback").catch((rollbackErr: Error) => (broken = rollbackErr));
    throw err;
  } finally {
    connection.release(broken);
  }
}

/** The process-wide database handle, built from DATABASE_URL on first use. */
export function getDbHandle(): DbHandle {
  const g = globalThis as GlobalWithDb;
  const settings = loadSettings();
  const url = settings.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start EnvForge with `npm start`, which provides it.");
  if (!g[globalKey] || g[globalKey].url !== url) g[globalKey] = createDb(url, settings.ENVFORGE_DB_POOL);
  return g[globalKey];
}

/** The process-wide Drizzle instance. */
export function getDb(): Db {
  return getDbHandle().db;
}

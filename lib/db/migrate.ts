/** Apply the committed SQL migrations in drizzle/ (idempotent; safe to run from several processes). */
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";

/** Folder of the committed migrations. */
export const migrationsFolder = path.resolve(import.meta.dirname, "../../drizzle");

/** Run every pending migration against `url`, serialised by an advisory lock. */
export async function runMigrations(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // several web/worker processes may start at once on one database
    await client.query("SELECT pg_advisory_lock(727274)");
    await migrate(drizzle(client), { migrationsFolder });
  } finally {
    await client.query("SELECT pg_advisory_unlock(727274)").catch(() => {});
    await client.end();
  }
}

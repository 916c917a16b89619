/** Integration-test helpers: a fresh database per test file, cloned from the migrated template. */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { createDb } from "@/lib/db/client";

const TEMPLATE_DB = "envforge_template";

/** Create a fresh database for this test file, point DATABASE_URL at it, and return a handle. */
export async function freshDatabase() {
  const adminUrl = inject("adminDbUrl");
  const name = `ef_test_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database "${name}" template ${TEMPLATE_DB}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  const handle = createDb(url.toString(), 5);
  return {
    ...handle,
    name,
    async drop() {
      await handle.pool.end();
      const { getDbHandle } = await import("@/lib/db/client");
      await getDbHandle()
        .pool.end()
        .catch(() => {});
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

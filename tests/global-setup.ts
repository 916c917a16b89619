/** Starts one embedded Postgres for the integration run and a migrated template database. */
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../lib/db/embedded";
import { runMigrations } from "../lib/db/migrate";

declare module "vitest" {
  export interface ProvidedContext {
    adminDbUrl: string;
  }
}

export const TEMPLATE_DB = "envforge_template";

export default async function setup(project: TestProject) {
  let adminUrl = process.env.TEST_DATABASE_URL;
  let stop: (() => Promise<void>) | undefined;
  if (!adminUrl) {
    const dataDir = path.resolve(import.meta.dirname, "..", ".envforge", "test");
    const pgInstance = await startEmbeddedPostgres({ dataDir, log: (l) => console.log(`[test-db] ${l}`) });
    adminUrl = pgInstance.url;
    stop = () => pgInstance.stop();
  }
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`drop database if exists ${TEMPLATE_DB} with (force)`);
  await client.query(`create database ${TEMPLATE_DB}`);
  // leftovers of an earlier interrupted run
  const { rows } = await client.query("select datname from pg_database where datname like 'ef_test_%'");
  for (const r of rows) await client.query(`drop database if exists "${r.datname}" with (force)`);
  await client.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE_DB}`;
  await runMigrations(templateUrl.toString());
  project.provide("adminDbUrl", adminUrl);
  return async () => {
    await stop?.();
  };
}

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "@/lib/db/embedded";
import { runMigrations } from "@/lib/db/migrate";
import { getDb } from "@/lib/db/client";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { startApiServer } from "./api-server";
import { EnvForgeClient } from "@/cli/client";

// Its own database server, so stopping it does not disturb the other test files.
const TOKEN = "test-bootstrap-token-restart-012345";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ef-restart-"));
let pgServer: EmbeddedPostgres;
let server: Awaited<ReturnType<typeof startApiServer>>;
let client: EnvForgeClient;
let port: number;

async function startDb() {
  pgServer = await startEmbeddedPostgres({ dataDir, port });
  port = pgServer.port;
}

beforeAll(async () => {
  fs.chmodSync(dataDir, 0o755);
  await startDb();
  const admin = new pg.Client({ connectionString: pgServer.url });
  await admin.connect();
  await admin.query("create database restart_test");
  await admin.end();
  const url = pgServer.url.replace(/\/postgres$/, "/restart_test");
  await runMigrations(url);
  process.env.DATABASE_URL = url;
  await ensureBootstrapKey(getDb(), TOKEN);
  server = await startApiServer();
  client = new EnvForgeClient({ server: server.url, token: TOKEN });
});
afterAll(async () => {
  await server?.close();
  await pgServer?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("the database restarts while the server runs", () => {
  it("answers 503 with a clear message while it is down, then works again without a restart", async () => {
    await client.request("POST", "/api/v1/projects", { json: { slug: "before", name: "Before", family: "search-agent" } });
    await pgServer.stop();

    const health = await fetch(`${server.url}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ db: "unreachable" });
    const failed = (await client.request("GET", "/api/v1/projects").catch((e: unknown) => e)) as { status: number; message: string };
    expect(failed.status).toBe(503);
    expect(failed.message).toMatch(/database is unreachable/);

    await startDb();
    const projects = await client.request<{ projects: { slug: string }[] }>("GET", "/api/v1/projects");
    expect(projects.projects.map((p) => p.slug)).toEqual(["before"]);
    await client.request("POST", "/api/v1/projects", { json: { slug: "after", name: "After", family: "search-agent" } });
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });
});

/**
 * What the HTTP-level integration tests start from: a fresh database with the bootstrap admin key,
 * the API served on loopback, clients holding keys of a role, and a project with its generation 0
 * created through the API. Each test file still owns its data; these only spare it the boilerplate.
 */
import { createApiKey, ensureBootstrapKey } from "@/lib/auth/keys";
import type { Role } from "@/lib/auth/roles";
import { EnvForgeClient } from "@/cli/client";
import type PgBoss from "pg-boss";
import { getBoss, runWorkers, startBoss } from "@/lib/queue/boss";
import { workerHandlers } from "@/lib/worker/handlers";
import { freshDatabase } from "./db";
import { startApiServer } from "./api-server";

/** A test file's own database (see freshDatabase). */
export type TestDb = Awaited<ReturnType<typeof freshDatabase>>;
/** The API served on loopback (see startApiServer). */
export type TestServer = Awaited<ReturnType<typeof startApiServer>>;

/** A fresh database whose bootstrap admin key is `token`, the API on loopback, and a client holding that key. */
export async function startApi(token: string): Promise<{ db: TestDb; server: TestServer; admin: EnvForgeClient }> {
  const db = await freshDatabase();
  await ensureBootstrapKey(db.db, token);
  const server = await startApiServer();
  return { db, server, admin: new EnvForgeClient({ server: server.url, token }) };
}

/** A client holding a new API key with `role` (named after it unless `name`; for one project when `project`), created by `actor`. */
export async function clientWithRole(
  db: TestDb,
  server: TestServer,
  role: Role,
  { name = role, project, actor = "test" }: { name?: string; project?: string; actor?: string } = {},
): Promise<EnvForgeClient> {
  const { key } = await createApiKey(db.db, { name, role, ...(project ? { project } : {}) }, { actor });
  return new EnvForgeClient({ server: server.url, token: key });
}

/** A pg-boss worker running the app's job handlers against the test file's database (stop it with `worker.stop`). */
export async function startTestWorker(db: TestDb): Promise<PgBoss> {
  const worker = await startBoss(process.env.DATABASE_URL!, { worker: true });
  await runWorkers(worker, workerHandlers(db.db));
  return worker;
}

/** Stops what startApi started (and the producer-side queue when `queue`); safe after a setup that failed part-way. */
export async function stopApi(started: { server?: TestServer; db?: TestDb }, opts: { queue?: boolean } = {}): Promise<void> {
  if (opts.queue) await (await getBoss()).stop({ graceful: false, wait: true }).catch(() => undefined);
  await started.server?.close();
  await started.db?.drop();
}

/** Creates a project through the API and, when `environments` are given, its generation 0 with them. */
export async function createProjectWith(
  client: EnvForgeClient,
  project: { slug: string; name?: string; family?: string },
  generation?: { environments: { key: string; config: unknown }[]; status?: string },
): Promise<void> {
  const { slug, name = slug, family = "frozenlake-mapf" } = project;
  await client.request("POST", "/api/v1/projects", { json: { slug, name, family } });
  if (generation) await client.request("POST", `/api/v1/projects/${slug}/generations`, { json: generation });
}

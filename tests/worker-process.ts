/**
 * A standalone worker process for integration tests: the pg-boss worker with every handler on
 * DATABASE_URL, like `ENVFORGE_WEB=0 npm start` without the embedded database. Prints "ready".
 */
import { createDb } from "@/lib/db/client";
import { runWorkers, startBoss } from "@/lib/queue/boss";
import { workerHandlers } from "@/lib/worker/handlers";
import { sweepDispatches } from "@/lib/dispatch/service";
import { sweepImports } from "@/lib/ingest/import-sweep";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is not set");
const handle = createDb(url);
const boss = await startBoss(url, { worker: true });
await runWorkers(boss, workerHandlers(handle.db));
await sweepDispatches(handle.db);
await sweepImports(handle.db);
console.log("ready");
const stop = async () => {
  await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
  await handle.pool.end().catch(() => undefined);
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

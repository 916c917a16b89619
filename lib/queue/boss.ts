/** The Postgres-backed queue (pg-boss): every web and worker process on one database shares it. */
import PgBoss from "pg-boss";
import { z } from "zod";
import { describeError } from "@/lib/db/errors";
import { loadSettings } from "@/lib/config/env";

export const QUEUES = ["envforge.proposal", "envforge.dispatch", "envforge.import", "envforge.demo-loop", "envforge.arena"] as const;
export type QueueName = (typeof QUEUES)[number];

const globalKey = Symbol.for("envforge.boss");
type G = typeof globalThis & { [globalKey]?: Promise<PgBoss> };

/** Create and start a pg-boss instance; `worker` processes also run maintenance. */
export async function startBoss(url: string, opts: { worker: boolean }): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: url,
    schema: "pgboss",
    max: 4,
    supervise: opts.worker,
    schedule: opts.worker,
    migrate: true,
  });
  boss.on("error", (err) => console.error(`[queue] ${describeError(err)}`));
  await boss.start();
  for (const name of QUEUES) {
    await boss.createQueue(name, { name, retryLimit: 0 }).catch(() => {});
  }
  return boss;
}

/** The process's sending instance (lazily started; used by route handlers to enqueue work). */
export function getBoss(): Promise<PgBoss> {
  const g = globalThis as G;
  if (!g[globalKey]) {
    const url = loadSettings().DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set");
    g[globalKey] = startBoss(url, { worker: false }).catch((err) => {
      delete g[globalKey];
      throw err;
    });
  }
  return g[globalKey]!;
}

/** Enqueue one job whose payload follows `schema`. */
export async function enqueue<T extends z.ZodType>(name: QueueName, schema: T, data: z.infer<T>, options: PgBoss.SendOptions = {}) {
  const boss = await getBoss();
  return boss.send(name, schema.parse(data) as object, options);
}

export type JobHandler = (data: unknown) => Promise<void>;

/** Register worker handlers on a started instance; each job's payload is validated before it runs. */
export async function runWorkers(boss: PgBoss, handlers: Partial<Record<QueueName, JobHandler>>) {
  for (const [name, handler] of Object.entries(handlers) as [QueueName, JobHandler][]) {
    await boss.work(name, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async (jobs) => {
      for (const job of jobs) await handler(job.data);
    });
  }
}

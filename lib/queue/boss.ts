/** The Postgres-backed queue (pg-boss): every web and worker process on one database shares it. */
import PgBoss from "pg-boss";
import { z } from "zod";
import { describeError } from "@/lib/db/errors";
import { loadSettings } from "@/lib/config/env";

export const QUEUES = ["envforge.proposal", "envforge.dispatch", "envforge.import", "envforge.demo-loop", "envforge.arena"] as const;
export type QueueName = (typeof QUEUES)[number];

const globalKey = Symbol.for("envforge.boss");
const workersKey = Symbol.for("envforge.boss.localWorkers");
/** What runWorkers needs of a pg-boss instance. */
type WorkingBoss = Pick<PgBoss, "work" | "notifyWorker">;
type G = typeof globalThis & {
  [globalKey]?: Promise<PgBoss>;
  /** workers registered in this process, by queue (process-wide: Next's route bundles and scripts/start.ts share it) */
  [workersKey]?: Map<QueueName, { boss: WorkingBoss; id: string }[]>;
};

function localWorkers(): Map<QueueName, { boss: WorkingBoss; id: string }[]> {
  const g = globalThis as G;
  return (g[workersKey] ??= new Map());
}

/**
 * Wake this process's workers of `name` now instead of at their next poll. pg-boss polls at most every 0.5 s
 * (its minimum), which a proposal waited for on top of its own time (issue 19); a worker in another process
 * still finds the job at its next poll.
 */
export function wakeLocalWorkers(name: QueueName): number {
  const workers = localWorkers().get(name) ?? [];
  for (const w of workers) w.boss.notifyWorker(w.id);
  return workers.length;
}

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
  const id = await boss.send(name, schema.parse(data) as object, options);
  if (!options.startAfter) wakeLocalWorkers(name);
  return id;
}

export type JobHandler = (data: unknown) => Promise<void>;

/** Register worker handlers on a started instance; each job's payload is validated before it runs. */
export async function runWorkers(boss: WorkingBoss, handlers: Partial<Record<QueueName, JobHandler>>) {
  for (const [name, handler] of Object.entries(handlers) as [QueueName, JobHandler][]) {
    const id = await boss.work(name, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async (jobs) => {
      for (const job of jobs) await handler(job.data);
    });
    // enqueue() in this process wakes it at once (wakeLocalWorkers)
    localWorkers().set(name, [...(localWorkers().get(name) ?? []), { boss, id }]);
  }
}

/** The worker's job handlers, one per queue; each validates its payload with a zod schema. */
import type { Db } from "@/lib/db/client";
import { runImport } from "@/lib/ingest/imports";
import type { JobHandler, QueueName } from "./boss";

/** Handlers for every queue this build knows how to work. */
export function workerHandlers(db: Db): Partial<Record<QueueName, JobHandler>> {
  return {
    "envforge.import": (data) => runImport(db, data),
  };
}

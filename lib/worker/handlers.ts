/** The worker's job handlers, one per queue; each validates its payload with a zod schema. */
import type { Db } from "@/lib/db/client";
import { helperSession, startValidationHelper } from "@/lib/families/validation-helper";
import { runImport } from "@/lib/ingest/imports";
import { runProposal } from "@/lib/proposals";
import { runDispatchJob } from "@/lib/dispatch/service";
import { runDemoLoop } from "@/lib/demo/loop";
import { runArenaJob } from "@/lib/arena-runs/service";
import type { JobHandler, QueueName } from "@/lib/queue/boss";

/** Handlers for every queue this build knows how to work. */
export function workerHandlers(db: Db): Partial<Record<QueueName, JobHandler>> {
  // the heuristic's validation helper thread boots now (tsx compiles the families), not in the first proposal
  startValidationHelper();
  return {
    "envforge.import": (data) => runImport(db, data),
    // the heuristic validates ahead on a second thread (lib/families/validation-helper.ts)
    "envforge.proposal": (data) => runProposal(db, data, { helperSession }),
    "envforge.dispatch": (data) => runDispatchJob(db, data),
    "envforge.demo-loop": (data) => runDemoLoop(db, data),
    "envforge.arena": (data) => runArenaJob(db, data),
  };
}

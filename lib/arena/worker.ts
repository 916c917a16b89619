/** Worker thread of the arena: runs one (strategy, setting, seed) job per message and posts the SeedRun back. */
import { parentPort } from "node:worker_threads";
import { runSeed, type ArenaJob } from "./run";

const port = parentPort;
if (!port) throw new Error("lib/arena/worker.ts runs as a worker thread of runArena.");
port.on("message", (job: ArenaJob) => {
  runSeed(job).then(
    (run) => port.postMessage({ ok: true, run }),
    (err: unknown) => port.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) }),
  );
});

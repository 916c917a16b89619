/**
 * The validation helper's thread (validation-helper.ts): validates the configs of each task in order, each one only if
 * the main thread has not claimed it, then draws the task's samples; posts every answer and counts it in `posted`.
 */
import { workerData, type MessagePort } from "node:worker_threads";
import { parentPort } from "node:worker_threads";
import { getBuiltinFamily } from "./registry";
import { createRng } from "./rng";
import type { HelperAnswer, HelperTask } from "./validation-helper";

const { port, posted } = workerData as { port: MessagePort; posted: Int32Array };

function post(answer: HelperAnswer): void {
  port.postMessage(answer);
  Atomics.add(posted, 0, 1);
  Atomics.notify(posted, 0);
}

parentPort!.on("message", (task: HelperTask) => {
  const claims = new Int32Array(task.claims);
  const cancelled = () => Atomics.load(claims, claims.length - 2) !== 0;
  try {
    const family = getBuiltinFamily(task.familyId);
    if (!family) throw new Error(`no built-in family ${task.familyId}`);
    for (let i = 0; i < task.configs.length && !cancelled(); i++) {
      if (Atomics.compareExchange(claims, i, 0, 1) !== 0) continue; // the main thread computes it
      post({ session: task.session, kind: "config", index: i, result: family.validate(task.configs[i]) });
    }
    if (task.samples) {
      const rng = createRng(task.samples.seed).fork(task.samples.label);
      for (let i = 0; i < task.samples.count && !cancelled(); i++) {
        Atomics.store(claims, claims.length - 1, i + 1); // drawing the i-th: the main thread waits for it
        const config = family.sample(rng);
        post({ session: task.session, kind: "sample", index: i, config, result: family.validate(config) });
      }
    }
  } catch (err) {
    post({ session: task.session, kind: "failed", error: (err as Error).message });
  }
});

import { describe, expect, it, vi } from "vitest";
import { runWorkers, wakeLocalWorkers } from "./boss";

/** pg-boss's work/notifyWorker, recorded (the queue's polling itself is pg-boss's, not ours to fake further). */
function recordingBoss() {
  let n = 0;
  return {
    work: vi.fn(async () => `worker-${++n}`),
    notifyWorker: vi.fn(),
  };
}

describe("wakeLocalWorkers", () => {
  it("wakes this process's workers of the queue a job was sent to, and no other queue's", async () => {
    const boss = recordingBoss();
    await runWorkers(boss as never, { "envforge.proposal": async () => {}, "envforge.import": async () => {} });
    expect(boss.work).toHaveBeenCalledTimes(2);
    expect(wakeLocalWorkers("envforge.proposal")).toBe(1);
    expect(boss.notifyWorker.mock.calls).toEqual([["worker-1"]]);
    expect(wakeLocalWorkers("envforge.arena")).toBe(0);
    expect(boss.notifyWorker).toHaveBeenCalledTimes(1);
  });
});

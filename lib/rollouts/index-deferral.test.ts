import { describe, expect, it } from "vitest";
import { batchRan, deferralStep, NO_DEFERRAL, type DeferralState } from "./index-deferral";

describe("deferralStep", () => {
  it("indexes at once when no new rollouts were noted since the last look", () => {
    const a = deferralStep({ lastNewest: 500, deferringSince: null, lastBatchMs: 0 }, 500, 10_000, 5000);
    expect(a).toEqual({ run: true, state: { lastNewest: 500, deferringSince: null, lastBatchMs: 0 } });
    // the queue drained: nothing pending is not ingest
    expect(deferralStep({ lastNewest: 500, deferringSince: 9000, lastBatchMs: 800 }, 0, 10_000, 5000).run).toBe(true);
  });

  it("defers while new notes keep appearing, but takes one batch every maxDeferMs when batches are short", () => {
    let s = NO_DEFERRAL;
    const runs: number[] = [];
    // ingest commits a batch every 250 ms for 12 s; the indexer looks every 250 ms; its batches take 100 ms
    for (let t = 0, newest = 0; t <= 12_000; t += 250) {
      newest += 1000;
      const d = deferralStep(s, newest, t, 5000);
      s = d.state;
      if (d.run) {
        runs.push(t);
        s = batchRan(s, 100);
      }
    }
    expect(runs).toEqual([5000, 10_000]);
    // ingest stops: the next look indexes, and so does every one after it
    const after = deferralStep(s, s.lastNewest, 12_250, 5000);
    expect(after.run).toBe(true);
    expect(after.state.deferringSince).toBeNull();
    expect(deferralStep(after.state, s.lastNewest, 12_500, 5000).run).toBe(true);
  });

  it("while ingest writes, a long batch is followed by a wait that keeps the indexer to its share of the time", () => {
    let s: DeferralState = NO_DEFERRAL;
    const runs: number[] = [];
    // each batch takes 2 s (Harbor trials' long documents): with a 10% share the next may start 20 s after it began
    for (let t = 0, newest = 0; t <= 60_000; t += 250) {
      newest += 1000;
      const d = deferralStep(s, newest, t, 5000, 0.1);
      s = d.state;
      if (d.run) {
        runs.push(t);
        s = batchRan(s, 2000);
      }
    }
    expect(runs).toEqual([5000, 25_000, 45_000]);
    // a larger share lets batches come sooner, never sooner than maxDeferMs
    let h: DeferralState = NO_DEFERRAL;
    const half: number[] = [];
    for (let t = 0, newest = 0; t <= 20_000; t += 250) {
      newest += 1000;
      const d = deferralStep(h, newest, t, 5000, 0.5);
      h = d.state;
      if (d.run) {
        half.push(t);
        h = batchRan(h, 2000);
      }
    }
    expect(half).toEqual([5000, 10_000, 15_000, 20_000]);
  });

  it("a batch run when ingest is not writing does not slow the next deferral", () => {
    const idle = batchRan({ lastNewest: 10, deferringSince: null, lastBatchMs: 0 }, 30_000);
    expect(idle.lastBatchMs).toBe(0);
    const started = deferralStep(idle, 20, 1000, 5000).state;
    expect(deferralStep(started, 30, 6000, 5000).run).toBe(true);
  });
});

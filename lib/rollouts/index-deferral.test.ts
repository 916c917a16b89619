import { describe, expect, it } from "vitest";
import { batchRan, deferralStep, NO_DEFERRAL, type DeferralState } from "./index-deferral";

/**
 * Ingest commits a batch every 250 ms until `untilMs` and the indexer looks every 250 ms; each batch it takes runs
 * `batchMs`. The times it took a batch, and its state at the end.
 */
function whileIngesting(untilMs: number, batchMs: number, share?: number): { runs: number[]; state: DeferralState } {
  let state: DeferralState = NO_DEFERRAL;
  const runs: number[] = [];
  for (let t = 0, newest = 0; t <= untilMs; t += 250) {
    newest += 1000;
    const d = deferralStep(state, newest, t, 5000, share);
    state = d.state;
    if (d.run) {
      runs.push(t);
      state = batchRan(state, batchMs);
    }
  }
  return { runs, state };
}

describe("deferralStep", () => {
  it("indexes at once when no new rollouts were noted since the last look", () => {
    const a = deferralStep({ lastNewest: 500, deferringSince: null, lastBatchMs: 0 }, 500, 10_000, 5000);
    expect(a).toEqual({ run: true, state: { lastNewest: 500, deferringSince: null, lastBatchMs: 0 } });
    // the queue drained: nothing pending is not ingest
    expect(deferralStep({ lastNewest: 500, deferringSince: 9000, lastBatchMs: 800 }, 0, 10_000, 5000).run).toBe(true);
  });

  it("defers while new notes keep appearing, but takes one batch every maxDeferMs when batches are short", () => {
    // 12 s of ingest; the indexer's batches take 100 ms
    const { runs, state: s } = whileIngesting(12_000, 100);
    expect(runs).toEqual([5000, 10_000]);
    // ingest stops: the next look indexes, and so does every one after it
    const after = deferralStep(s, s.lastNewest, 12_250, 5000);
    expect(after.run).toBe(true);
    expect(after.state.deferringSince).toBeNull();
    expect(deferralStep(after.state, s.lastNewest, 12_500, 5000).run).toBe(true);
  });

  it("while ingest writes, a long batch is followed by a wait that keeps the indexer to its share of the time", () => {
    // each batch takes 2 s (Harbor trials' long documents): with a 10% share the next may start 20 s after it began
    expect(whileIngesting(60_000, 2000, 0.1).runs).toEqual([5000, 25_000, 45_000]);
    // a larger share lets batches come sooner, never sooner than maxDeferMs
    expect(whileIngesting(20_000, 2000, 0.5).runs).toEqual([5000, 10_000, 15_000, 20_000]);
  });

  it("a batch run when ingest is not writing does not slow the next deferral", () => {
    const idle = batchRan({ lastNewest: 10, deferringSince: null, lastBatchMs: 0 }, 30_000);
    expect(idle.lastBatchMs).toBe(0);
    const started = deferralStep(idle, 20, 1000, 5000).state;
    expect(deferralStep(started, 30, 6000, 5000).run).toBe(true);
  });
});

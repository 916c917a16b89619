import { describe, expect, it } from "vitest";
import { batchRan, deferralStep, NO_DEFERRAL, type DeferralState } from "./index-deferral";

/**
 * Ingest commits a batch every `commitEveryMs` until `untilMs` and the indexer looks every `lookEveryMs` (to `lookUntilMs`);
 * each batch it takes runs `batchMs` (the simulation does not move the clock for it). The times it took a batch, and its
 * state at the end.
 */
function whileIngesting(
  untilMs: number,
  batchMs: number,
  opts: { share?: number; commitEveryMs?: number; lookEveryMs?: number; lookUntilMs?: number } = {},
): { runs: number[]; state: DeferralState } {
  const commitEvery = opts.commitEveryMs ?? 250;
  const lookEvery = opts.lookEveryMs ?? 250;
  // an earlier look found the queue empty
  let state: DeferralState = { ...NO_DEFERRAL, lastNewest: 0 };
  const runs: number[] = [];
  for (let t = 0; t <= (opts.lookUntilMs ?? untilMs); t += lookEvery) {
    // rollout ids grow by 1,000 a commit; commits happen at 0, commitEvery, 2 x commitEvery, ... up to untilMs
    const newest = 1000 * (Math.floor(Math.min(t, untilMs) / commitEvery) + 1);
    const d = deferralStep(state, newest, t, 5000, opts.share);
    state = d.state;
    if (d.run) {
      runs.push(t);
      state = batchRan(state, batchMs);
    }
  }
  return { runs, state };
}

describe("deferralStep", () => {
  it("indexes at once when nothing new was noted for the quiet time, or nothing is pending", () => {
    const quiet = { lastNewest: 500, lastNewAt: 4000, deferringSince: null, lastBatchMs: 0 };
    expect(deferralStep(quiet, 500, 10_000, 5000)).toEqual({ run: true, state: { ...quiet } });
    // the queue drained: nothing pending is not ingest, however recent the last note
    expect(deferralStep({ lastNewest: 500, lastNewAt: 9900, deferringSince: 9000, lastBatchMs: 800 }, 0, 10_000, 5000).run).toBe(true);
    // the quiet time is its own setting: 1 s of quiet is enough with quietMs 1000
    expect(deferralStep({ ...quiet, lastNewAt: 8500 }, 500, 10_000, 5000, 0.1, 1000).run).toBe(true);
    expect(deferralStep({ ...quiet, lastNewAt: 9500 }, 500, 10_000, 5000, 0.1, 1000).run).toBe(false);
  });

  it("defers while new notes keep appearing, takes one batch every maxDeferMs when batches are short, and the backlog once ingest is quiet", () => {
    // 12 s of ingest; the indexer's batches take 100 ms
    const { runs } = whileIngesting(12_000, 100);
    expect(runs).toEqual([5000, 10_000]);
    // ingest stops at 12 s: one more deferred batch at 15 s, then from 5 s of quiet on every look indexes
    const after = whileIngesting(12_000, 100, { lookUntilMs: 18_000 });
    expect(after.runs).toEqual([5000, 10_000, 15_000, 17_000, 17_250, 17_500, 17_750, 18_000]);
    expect(after.state.deferringSince).toBeNull();
  });

  it("keeps deferring when the indexer looks more often than ingest commits (ten Harbor jobs: a commit every 1-3 s)", () => {
    // a look every second, a commit every 2.5 s: every other look sees nothing new, which must not end the deferral
    const { runs } = whileIngesting(60_000, 2000, { commitEveryMs: 2500, lookEveryMs: 1000 });
    expect(runs).toEqual([5000, 25_000, 45_000]);
  });

  it("while ingest writes, a long batch is followed by a wait that keeps the indexer to its share of the time", () => {
    // each batch takes 2 s (Harbor trials' long documents): with a 10% share the next may start 20 s after it began
    expect(whileIngesting(60_000, 2000, { share: 0.1 }).runs).toEqual([5000, 25_000, 45_000]);
    // a larger share lets batches come sooner, never sooner than maxDeferMs
    expect(whileIngesting(20_000, 2000, { share: 0.5 }).runs).toEqual([5000, 10_000, 15_000, 20_000]);
  });

  it("the first look indexes a backlog it finds (a restart), and the next look that sees new notes defers", () => {
    const first = deferralStep(NO_DEFERRAL, 5000, 0, 5000);
    expect(first.run).toBe(true);
    expect(first.state).toEqual({ lastNewest: 5000, lastNewAt: null, deferringSince: null, lastBatchMs: 0 });
    expect(deferralStep(first.state, 5000, 1000, 5000).run).toBe(true);
    expect(deferralStep(first.state, 5100, 1000, 5000).run).toBe(false);
  });

  it("a batch run when ingest is not writing does not slow the next deferral", () => {
    const idle = batchRan({ lastNewest: 10, lastNewAt: null, deferringSince: null, lastBatchMs: 0 }, 30_000);
    expect(idle.lastBatchMs).toBe(0);
    const started = deferralStep(idle, 20, 1000, 5000).state;
    expect(deferralStep(started, 30, 6000, 5000).run).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { deferralStep, NO_DEFERRAL } from "./index-deferral";

describe("deferralStep", () => {
  it("indexes at once when no new rollouts were noted since the last look", () => {
    const a = deferralStep({ lastNewest: 500, deferringSince: null }, 500, 10_000, 5000);
    expect(a).toEqual({ run: true, state: { lastNewest: 500, deferringSince: null } });
    // the queue drained: nothing pending is not ingest
    expect(deferralStep({ lastNewest: 500, deferringSince: 9000 }, 0, 10_000, 5000).run).toBe(true);
  });

  it("defers while new notes keep appearing, but takes one batch every maxDeferMs", () => {
    let s = NO_DEFERRAL;
    const runs: number[] = [];
    // ingest commits a batch every 250 ms for 12 s; the indexer looks every 250 ms
    for (let t = 0, newest = 0; t <= 12_000; t += 250) {
      newest += 1000;
      const d = deferralStep(s, newest, t, 5000);
      s = d.state;
      if (d.run) runs.push(t);
    }
    expect(runs).toEqual([5000, 10_000]);
    // ingest stops: the next look indexes, and so does every one after it
    const after = deferralStep(s, s.lastNewest, 12_250, 5000);
    expect(after.run).toBe(true);
    expect(deferralStep(after.state, s.lastNewest, 12_500, 5000).run).toBe(true);
  });
});

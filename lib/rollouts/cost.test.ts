import { describe, expect, it } from "vitest";
import { rolloutCostUsd } from "./cost";

describe("rolloutCostUsd", () => {
  it("takes the source's own total over the sum of its steps", () => {
    expect(rolloutCostUsd({ costUsd: 0.5 }, [{ usage: { costUsd: 0.01 } }])).toBe(0.5);
  });

  it("a reported zero is a known cost, not a missing one", () => {
    expect(rolloutCostUsd({ costUsd: 0 }, [{ usage: { costUsd: 0.2 } }])).toBe(0);
  });

  it("sums the priced steps when there is no total, skipping unpriced ones", () => {
    expect(rolloutCostUsd({}, [{ usage: { costUsd: 0.25 } }, {}, { usage: {} }, { usage: { costUsd: 0.5 } }])).toBe(0.75);
  });

  it("is unknown when nothing is priced, and ignores totals that are not prices", () => {
    expect(rolloutCostUsd(null, [{}, { usage: {} }])).toBeNull();
    expect(rolloutCostUsd(undefined, undefined)).toBeNull();
    expect(rolloutCostUsd({ costUsd: "1.5" }, [])).toBeNull();
    expect(rolloutCostUsd({ costUsd: -1 }, [{ usage: { costUsd: 0.1 } }])).toBe(0.1);
    expect(rolloutCostUsd({ costUsd: Number.NaN }, null)).toBeNull();
  });
});

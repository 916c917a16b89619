import { describe, expect, it } from "vitest";
import { backoffDelayMs } from "./backoff";

describe("backoffDelayMs", () => {
  it("doubles from the base delay on each retry", () => {
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, { baseMs: 500 }))).toEqual([500, 1000, 2000, 4000]);
  });

  it("stops at the cap and treats attempt 0 as the first retry", () => {
    expect(backoffDelayMs(20, { baseMs: 2000, capMs: 300_000 })).toBe(300_000);
    expect(backoffDelayMs(0, { baseMs: 2000, capMs: 300_000 })).toBe(2000);
  });
});

import { describe, expect, it } from "vitest";
import { uuidv7 } from "./uuid7";

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Unix milliseconds in the first 48 bits */
const millis = (id: string) => parseInt(id.replace(/-/g, "").slice(0, 12), 16);

describe("uuidv7", () => {
  it("is a version 7, variant 10 UUID whose first 48 bits are the milliseconds it was made at", () => {
    const now = Date.UTC(2026, 11, 3, 13, 20, 0, 123);
    const id = uuidv7(now + 10_000); // later than any id made before in this process
    expect(id).toMatch(UUID7);
    expect(millis(id)).toBe(now + 10_000);
  });

  it("increases strictly in one millisecond, across milliseconds, and when the clock goes back", () => {
    const start = Date.now() + 60_000;
    const ids = [
      ...Array.from({ length: 5000 }, () => uuidv7(start)), // more than the 12-bit counter holds: borrows the next millisecond
      ...Array.from({ length: 100 }, (_, i) => uuidv7(start + 3 + i)),
      ...Array.from({ length: 100 }, () => uuidv7(start - 1000)), // a clock set back
    ];
    for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1], `${ids[i - 1]} then ${ids[i]}`).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(UUID7);
    // never far ahead of the clock: 5,000 ids in one millisecond borrow at most two more
    expect(millis(ids[4999]) - start).toBeLessThanOrEqual(2);
  });

  it("draws the low 62 bits at random", () => {
    const now = Date.now() + 120_000;
    const tails = new Set(Array.from({ length: 1000 }, () => uuidv7(now).slice(19)));
    expect(tails.size).toBe(1000);
  });

  // last: a clock this far ahead makes every later id borrow from it
  it("keeps milliseconds above 2^32 (no 32-bit shift truncates them)", () => {
    expect(millis(uuidv7(2 ** 47 + 5))).toBe(2 ** 47 + 5);
  });
});

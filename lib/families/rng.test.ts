import { describe, expect, it } from "vitest";
import { createRng, hashSeed } from "./rng";

describe("createRng", () => {
  it("is deterministic for a seed and differs across seeds", () => {
    const a = createRng(7);
    const b = createRng(7);
    const c = createRng(8);
    const seqA = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(seqA);
    expect(createRng("7").next()).not.toBe(createRng(7).next());
  });

  it("draws uniform floats in [0, 1) and integers in the inclusive range", () => {
    const rng = createRng("uniform");
    const counts = new Map<number, number>();
    for (let i = 0; i < 6000; i++) {
      const x = rng.next();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      const k = rng.int(2, 4);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([2, 3, 4]);
    for (const n of counts.values()) expect(n).toBeGreaterThan(1800);
  });

  it("draws standard normals with mean ~0 and variance ~1", () => {
    const rng = createRng(1);
    const xs = Array.from({ length: 20000 }, () => rng.normal());
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
  });

  it("picks from arrays, shuffles to a permutation, and forks without advancing", () => {
    const rng = createRng(3);
    const items = ["a", "b", "c", "d"];
    expect(items).toContain(rng.pick(items));
    expect(() => rng.pick([])).toThrow();
    expect(rng.shuffle(items).sort()).toEqual(items);
    const before = createRng(3);
    before.next();
    before.next();
    before.next();
    const x = createRng(3);
    x.next();
    x.next();
    x.next();
    x.fork("child").next();
    expect(x.next()).toBe(before.next());
    expect(createRng(3).fork("a").next()).toBe(createRng(3).fork("a").next());
  });

  it("hashes strings to 32-bit seeds", () => {
    expect(hashSeed("abc")).toBe(hashSeed("abc"));
    expect(hashSeed("abc")).not.toBe(hashSeed("abd"));
    expect(hashSeed("abc")).toBeGreaterThanOrEqual(0);
    expect(hashSeed("abc")).toBeLessThan(2 ** 32);
  });
});

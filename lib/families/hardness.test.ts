import { describe, expect, it } from "vitest";
import { getFieldValue, setFieldValue } from "./field-path";
import { fieldHardness, hardnessProfile, numericPosition } from "./hardness";
import { createRng } from "./rng";
import { sampleField, sampleFromFields } from "./sampling";
import type { FieldSpec } from "./types";

const size: FieldSpec = { path: "size", kind: "integer", min: 3, max: 32, difficulty: "up", direction: "horizon", scale: true };
const steps: FieldSpec = { path: "max_steps", kind: "integer", min: 10, max: 110, difficulty: "down", direction: "precision" };
const level: FieldSpec = { path: "level", kind: "ordinal", levels: ["a", "b", "c"], difficulty: "up", direction: "precision" };
const refiner: FieldSpec = { path: "refiner", kind: "boolean", difficulty: "down", direction: "uncertainty" };

describe("fieldHardness", () => {
  it("maps values onto the easy(0) -> hard(1) scale using the difficulty sign", () => {
    expect(fieldHardness(steps, 10)).toBe(1);
    expect(fieldHardness(steps, 110)).toBe(0);
    expect(fieldHardness(steps, 60)).toBeCloseTo(0.5, 12);
    expect(fieldHardness(level, "b")).toBe(0.5);
    expect(fieldHardness(refiner, true)).toBe(0);
    expect(fieldHardness({ ...size, difficulty: undefined }, 10)).toBeUndefined();
    expect(fieldHardness(level, "zzz")).toBeUndefined();
  });

  it("uses a log scale for scale fields", () => {
    expect(numericPosition(size, Math.sqrt(3 * 32))).toBeCloseTo(0.5, 12);
    expect(fieldHardness(size, 3)).toBe(0);
    expect(fieldHardness(size, 32)).toBe(1);
  });
});

describe("hardnessProfile", () => {
  it("weights field hardness into a difficulty in [-3, 3] with skill loadings summing to 1", () => {
    const hardest = hardnessProfile([size, steps, level, refiner], { size: 32, max_steps: 10, level: "c", refiner: false });
    expect(hardest.difficulty).toBeCloseTo(3, 12);
    const easiest = hardnessProfile([size, steps, level, refiner], { size: 3, max_steps: 110, level: "a", refiner: true });
    expect(easiest.difficulty).toBeCloseTo(-3, 12);
    for (const profile of [hardest, easiest]) {
      expect(profile.skills.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
      expect(profile.skills.every((s) => s > 0)).toBe(true);
    }
    // Precision carries two of the four fields, so it loads most.
    expect(hardest.skills[2]).toBeGreaterThan(hardest.skills[0]);
    const weighted = hardnessProfile([size, steps], { size: 32, max_steps: 110 }, { weights: { size: 3, max_steps: 1 } });
    expect(weighted.hardness).toBeCloseTo(0.75, 12);
    expect(hardnessProfile([size], {}, { missingHardness: 0.2 }).hardness).toBeCloseTo(0.2, 12);
  });
});

describe("sampling", () => {
  it("keeps difficulty-signed fields inside the requested hardness window", () => {
    const rng = createRng("window");
    for (let i = 0; i < 300; i++) {
      for (const spec of [size, steps, level, refiner]) {
        const value = sampleField(rng, spec, { hardness: { min: 0.8, max: 1 } });
        expect(fieldHardness(spec, value), `${spec.path}=${String(value)}`).toBeGreaterThanOrEqual(0.75);
      }
    }
  });

  it("covers the whole range of integers including both ends", () => {
    const rng = createRng("ends");
    const seen = new Set(Array.from({ length: 3000 }, () => sampleField(rng, size)));
    expect(seen.has(3)).toBe(true);
    expect(seen.has(32)).toBe(true);
    expect([...seen].every((v) => Number.isInteger(v) && (v as number) >= 3 && (v as number) <= 32)).toBe(true);
  });

  it("draws every mutable field at its path and leaves identity fields alone", () => {
    const identity: FieldSpec = { path: "meta.name", kind: "nominal", mutable: false };
    const nested: FieldSpec = { path: "grid.size", kind: "integer", min: 1, max: 2 };
    const config = sampleFromFields(createRng(1), [identity, nested, level], undefined, { meta: { name: "kept" } });
    expect(getFieldValue(config, "meta.name")).toBe("kept");
    expect([1, 2]).toContain(getFieldValue(config, "grid.size"));
    expect(["a", "b", "c"]).toContain(config.level);
  });
});

describe("field paths", () => {
  it("read and write nested values without mutating the input", () => {
    const config = { grid: { size: 3 }, mode: "x" };
    const next = setFieldValue(config, "grid.size", 5);
    expect(next).toEqual({ grid: { size: 5 }, mode: "x" });
    expect(config.grid.size).toBe(3);
    expect(getFieldValue(next, "grid.size")).toBe(5);
    expect(getFieldValue(next, "grid.size.deeper")).toBeUndefined();
    expect(setFieldValue(next, "mode", undefined)).toEqual({ grid: { size: 5 } });
  });
});

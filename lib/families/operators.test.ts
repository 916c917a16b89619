import { describe, expect, it } from "vitest";
import { frozenlakeFields } from "./frozenlake-mapf";
import { crossover, distance, fieldDistance, mutateConfig, mutateField, novelty, stepHarder } from "./operators";
import { builtinFamilies } from "./registry";
import { createRng } from "./rng";
import { sampleField } from "./sampling";
import type { FieldSpec } from "./types";

const allFields: FieldSpec[] = Object.values(builtinFamilies).flatMap((family) => family.fields.filter((f) => f.mutable !== false));
const field = (path: string) => frozenlakeFields.find((f) => f.path === path) as FieldSpec;

function inBounds(spec: FieldSpec, value: unknown): boolean {
  switch (spec.kind) {
    case "integer":
      return Number.isInteger(value) && (value as number) >= (spec.min as number) && (value as number) <= (spec.max as number);
    case "number":
      return typeof value === "number" && value >= (spec.min as number) && value <= (spec.max as number);
    case "ordinal":
    case "nominal":
      return (spec.levels ?? []).includes(value as never);
    case "boolean":
      return typeof value === "boolean";
  }
}

describe("mutateField", () => {
  it("keeps 1,000 random mutations inside the bounds and always changes the value", () => {
    const rng = createRng("mutations");
    for (let i = 0; i < 1000; i++) {
      const spec = rng.pick(allFields);
      const value = sampleField(rng, spec);
      const mutated = mutateField(rng, spec, value);
      expect(inBounds(spec, mutated), `${spec.path}: ${String(value)} -> ${String(mutated)}`).toBe(true);
      expect(mutated, spec.path).not.toEqual(value);
    }
  });

  it("moves ordinals exactly one level, including at both ends", () => {
    const rng = createRng(1);
    const spec: FieldSpec = { path: "v", kind: "ordinal", levels: ["a", "b", "c", "d"] };
    for (let i = 0; i < 200; i++) {
      const from = rng.pick(spec.levels as string[]);
      const to = mutateField(rng, spec, from) as string;
      expect(Math.abs(spec.levels!.indexOf(to) - spec.levels!.indexOf(from))).toBe(1);
    }
    expect(mutateField(rng, spec, "a")).toBe("b");
    expect(mutateField(rng, spec, "d")).toBe("c");
  });

  it("resamples nominals to a different level and flips booleans", () => {
    const rng = createRng(2);
    const spec: FieldSpec = { path: "m", kind: "nominal", levels: ["x", "y", "z"] };
    const seen = new Set<unknown>();
    for (let i = 0; i < 100; i++) {
      const to = mutateField(rng, spec, "x");
      expect(to).not.toBe("x");
      seen.add(to);
    }
    expect([...seen].sort()).toEqual(["y", "z"]);
    expect(mutateField(rng, { path: "b", kind: "boolean" }, true)).toBe(false);
    expect(mutateField(rng, { path: "b", kind: "boolean" }, false)).toBe(true);
  });

  it("steps plain integers by exactly one and reflects at the bounds", () => {
    const rng = createRng(3);
    const spec = field("min_goal_distance");
    for (let i = 0; i < 100; i++) expect(Math.abs((mutateField(rng, spec, 30) as number) - 30)).toBe(1);
    expect(mutateField(rng, spec, spec.min)).toBe((spec.min as number) + 1);
    expect(mutateField(rng, spec, spec.max)).toBe((spec.max as number) - 1);
  });

  it("mutates scale fields multiplicatively with at least one step", () => {
    const rng = createRng(4);
    const spec: FieldSpec = { path: "memory_mb", kind: "integer", min: 256, max: 65536, scale: true };
    const logRatios: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const to = mutateField(rng, spec, 4096) as number;
      expect(to).not.toBe(4096);
      logRatios.push(Math.log(to / 4096));
    }
    const sd = Math.sqrt(logRatios.reduce((s, x) => s + x * x, 0) / logRatios.length);
    expect(sd).toBeGreaterThan(0.13);
    expect(sd).toBeLessThan(0.17);
    for (let i = 0; i < 50; i++) expect(Math.abs((mutateField(rng, field("num_agents"), 1) as number) - 1)).toBeGreaterThanOrEqual(1);
  });

  it("adds Gaussian steps of 0.05 x range to numbers, reflected at the bounds", () => {
    const rng = createRng(5);
    const spec = field("slip_probability");
    const steps = Array.from({ length: 4000 }, () => (mutateField(rng, spec, 0.25) as number) - 0.25);
    const sd = Math.sqrt(steps.reduce((s, x) => s + x * x, 0) / steps.length);
    expect(sd).toBeGreaterThan(0.05 * 0.5 * 0.9);
    expect(sd).toBeLessThan(0.05 * 0.5 * 1.1);
    for (let i = 0; i < 200; i++) {
      const v = mutateField(rng, spec, 0.5) as number;
      expect(v).toBeLessThan(0.5);
      expect(v).toBeGreaterThanOrEqual(0);
    }
  });

  it("redraws diversify integers (seeds) and samples missing values", () => {
    const rng = createRng(6);
    const seedField = field("seed");
    const draws = new Set(Array.from({ length: 50 }, () => mutateField(rng, seedField, 5)));
    expect(draws.has(5)).toBe(false);
    expect(draws.size).toBeGreaterThan(40);
    expect(inBounds(field("size"), mutateField(rng, field("size"), undefined))).toBe(true);
    expect(mutateField(rng, { path: "task_name", kind: "nominal", mutable: false }, "t")).toBe("t");
  });
});

describe("stepHarder", () => {
  const ordinal: FieldSpec = { path: "o", kind: "ordinal", levels: ["short", "long"], difficulty: "up" };
  it("moves one step toward harder or easier and stops at the bounds", () => {
    expect(stepHarder(ordinal, "short", 1)).toBe("long");
    expect(stepHarder(ordinal, "long", 1)).toBe("long");
    expect(stepHarder(ordinal, "long", -1)).toBe("short");
    expect(stepHarder(field("min_goal_distance"), 10, 1)).toBe(11);
    expect(stepHarder(field("min_goal_distance"), 60, 1)).toBe(60);
    expect(stepHarder(field("slip_probability"), 0.1, 1)).toBeCloseTo(0.15, 10);
    expect(stepHarder(field("slip_probability"), 0.48, 1)).toBe(0.5);
  });

  it("respects the difficulty sign: harder max_steps means fewer steps", () => {
    const maxSteps = field("max_steps");
    const harder = stepHarder(maxSteps, 100, 1) as number;
    expect(harder).toBeLessThan(100);
    expect(harder).toBe(Math.round(100 * Math.exp(-0.15)));
    expect(stepHarder(maxSteps, 100, -1)).toBe(Math.round(100 * Math.exp(0.15)));
    expect(stepHarder(maxSteps, 4, 1)).toBe(4);
    expect(stepHarder({ path: "r", kind: "boolean", difficulty: "down" }, true, 1)).toBe(false);
  });

  it("leaves unsigned fields alone", () => {
    expect(stepHarder(field("collision"), "soft", 1)).toBe("soft");
    expect(stepHarder(field("seed"), 5, 1)).toBe(5);
  });
});

describe("mutateConfig and crossover", () => {
  const family = builtinFamilies["search-agent"];
  it("makes the requested number of edits and reports them", () => {
    const rng = createRng(7);
    const parent = family.sample(rng);
    const { config, edits } = mutateConfig(rng, family.fields, parent, { edits: 2 });
    expect(edits).toHaveLength(2);
    for (const edit of edits) {
      expect((config as Record<string, unknown>)[edit.path]).toEqual(edit.to);
      expect((parent as Record<string, unknown>)[edit.path]).toEqual(edit.from);
    }
    const onlyHorizon = mutateConfig(rng, family.fields, parent, { edits: 3, direction: "horizon" });
    expect(onlyHorizon.edits.map((e) => e.path)).toEqual(["hops"]);
  });

  it("takes each field from one of the parents", () => {
    const rng = createRng(8);
    const a = family.sample(rng);
    const b = family.sample(rng);
    const child = crossover(rng, family.fields, a, b) as Record<string, unknown>;
    for (const spec of family.fields)
      expect([a[spec.path as keyof typeof a], b[spec.path as keyof typeof b]]).toContainEqual(child[spec.path]);
  });
});

describe("distance", () => {
  const family = builtinFamilies["frozenlake-mapf"];
  const base = {
    size: 8,
    num_agents: 2,
    obstacle_density: 0.1,
    slip_probability: 0.1,
    max_steps: 50,
    min_goal_distance: 5,
    collision: "soft",
    seed: 1,
  };

  it("is 0 for equal configs, symmetric, and in [0, 1]", () => {
    expect(distance(family, base, { ...base })).toBe(0);
    const other = { ...base, size: 16, collision: "block_both" };
    expect(distance(family, base, other)).toBe(distance(family, other, base));
    const rng = createRng(9);
    for (let i = 0; i < 50; i++) {
      const d = distance(family, family.sample(rng), family.sample(rng));
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(1);
    }
  });

  it("averages normalised L1 on numbers and Hamming on nominals over the fields", () => {
    // obstacle_density 0.1 -> 0.325 is half the range; collision differs: (0.5 + 1) / 8 fields.
    expect(distance(family, base, { ...base, obstacle_density: 0.325, collision: "block_both" })).toBeCloseTo(1.5 / 8, 10);
    // Seeds are identities: any change counts fully.
    expect(distance(family, base, { ...base, seed: 2 })).toBeCloseTo(1 / 8, 10);
    const ordinal: FieldSpec = { path: "o", kind: "ordinal", levels: ["a", "b", "c"] };
    expect(fieldDistance(ordinal, "a", "b")).toBe(0.5);
    expect(fieldDistance(ordinal, "a", undefined)).toBe(1);
    // size is a scale field, so its distance is measured on the log scale: 8 -> 32 is log(4) / log(32 / 3).
    const sizeStep = Math.log(4) / Math.log(32 / 3) / 8;
    expect(
      novelty(family, base, [
        { ...base, seed: 2 },
        { ...base, size: 32 },
      ]),
    ).toBeCloseTo(sizeStep, 10);
    expect(novelty(family, base, [{ ...base, seed: 2 }, { ...base, size: 32 }, { ...base }])).toBe(0);
  });
});

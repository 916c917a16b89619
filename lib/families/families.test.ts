import { describe, expect, it } from "vitest";
import { stepHarder } from "./operators";
import { parseConfig } from "./parse";
import { BUILTIN_FAMILY_IDS, builtinFamilies, getBuiltinFamily } from "./registry";
import { createRng } from "./rng";
import type { FamilyConfig, FamilyDefinition, FieldSpec } from "./types";

const families = Object.values(builtinFamilies);

function setField(config: FamilyConfig, path: string, value: unknown): FamilyConfig {
  return { ...config, [path]: value };
}

describe.each(families.map((family) => [family.id, family] as const))("%s", (_id, family: FamilyDefinition) => {
  it("samples configs that validate for 200 seeds, deterministically", () => {
    for (let seed = 0; seed < 200; seed++) {
      const config = family.sample(createRng(seed));
      const result = family.validate(config);
      expect(result.errors, JSON.stringify(config)).toEqual([]);
      expect(result.state).toBe("valid");
      if (result.pMax !== undefined) {
        expect(result.pMax).toBeGreaterThan(0);
        expect(result.pMax).toBeLessThanOrEqual(1);
      }
    }
    expect(family.sample(createRng("same"))).toEqual(family.sample(createRng("same")));
  });

  it("rejects unknown keys naming the key", () => {
    const config = { ...family.sample(createRng(1)), colour: "blue" };
    const parsed = parseConfig(family, config);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors.map((e) => e.path)).toEqual(["colour"]);
    const result = family.validate(config);
    expect(result.state).toBe("invalid");
    expect(result.errors[0].path).toBe("colour");
  });

  it("rejects wrong types and out-of-range values naming the field", () => {
    const base = family.sample(createRng(2));
    for (const field of family.fields) {
      const wrongType = field.kind === "boolean" ? "yes" : field.kind === "integer" || field.kind === "number" ? "12" : 12;
      const parsed = parseConfig(family, setField(base, field.path, wrongType));
      expect(parsed.ok, field.path).toBe(false);
      if (!parsed.ok) expect(parsed.errors.map((e) => e.path)).toEqual([field.path]);
      if (field.kind === "integer" || field.kind === "number") {
        const below = parseConfig(family, setField(base, field.path, (field.min as number) - 1));
        const above = parseConfig(family, setField(base, field.path, (field.max as number) + 1));
        expect(below.ok || above.ok, field.path).toBe(false);
        if (!below.ok) expect(below.errors[0].path).toBe(field.path);
        expect(parseConfig(family, setField(base, field.path, field.min)).ok, field.path).toBe(true);
        expect(parseConfig(family, setField(base, field.path, field.max)).ok, field.path).toBe(true);
      }
      if (field.kind === "integer")
        expect(parseConfig(family, setField(base, field.path, (field.min as number) + 0.5)).ok, field.path).toBe(false);
      if (field.levels) {
        for (const level of field.levels)
          expect(parseConfig(family, setField(base, field.path, level)).ok, `${field.path}=${String(level)}`).toBe(true);
        expect(parseConfig(family, setField(base, field.path, "not-a-level")).ok).toBe(false);
      }
    }
    const notObject = parseConfig(family, 5);
    expect(notObject.ok).toBe(false);
    if (!notObject.ok) expect(notObject.errors[0].path).toBe("(root)");
  });

  it("publishes a strict draft 2020-12 JSON Schema with every field", () => {
    expect(family.jsonSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(family.jsonSchema.additionalProperties).toBe(false);
    const properties = family.jsonSchema.properties as Record<string, Record<string, unknown>>;
    for (const field of family.fields) {
      expect(properties[field.path], field.path).toBeDefined();
      if (field.min !== undefined) expect(properties[field.path].minimum).toBe(field.min);
      if (field.max !== undefined) expect(properties[field.path].maximum).toBe(field.max);
      if (field.levels && typeof field.levels[0] === "string") expect(properties[field.path].enum).toEqual(field.levels);
    }
  });

  it("declares sensible field metadata", () => {
    const paths = family.fields.map((f) => f.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const field of family.fields) {
      if (field.kind === "integer" || field.kind === "number")
        expect((field.min as number) <= (field.max as number), field.path).toBe(true);
      if (field.kind === "ordinal") expect(field.levels?.length ?? 0, field.path).toBeGreaterThan(1);
      if (field.kind === "nominal" && field.mutable !== false) expect(field.levels?.length ?? 0, field.path).toBeGreaterThan(1);
      if (field.difficulty) expect(["horizon", "uncertainty", "precision"], field.path).toContain(field.direction);
      if (field.path === "seed") expect(field.direction).toBe("diversify");
    }
  });

  it("has a hidden difficulty that rises with every signed field and stays in range", () => {
    const rng = createRng(`difficulty:${family.id}`);
    const signed = family.fields.filter((f) => f.difficulty && f.mutable !== false);
    let moved = 0;
    for (let i = 0; i < 30; i++) {
      const config = family.sample(rng);
      const base = family.difficulty!(config);
      expect(base.difficulty).toBeGreaterThanOrEqual(-3);
      expect(base.difficulty).toBeLessThanOrEqual(3);
      expect(base.pMax).toBeGreaterThanOrEqual(0);
      expect(base.pMax).toBeLessThanOrEqual(1);
      expect(base.skills).toHaveLength(3);
      expect(base.skills.every((s) => s >= 0)).toBe(true);
      expect(base.skills.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
      for (const field of signed) {
        const value = (config as Record<string, unknown>)[field.path];
        const harder = stepHarder(field, value, 1);
        if (harder === value || value === undefined) continue;
        moved++;
        const after = family.difficulty!(setField(config, field.path, harder));
        expect(after.difficulty, field.path).toBeGreaterThan(base.difficulty);
      }
    }
    expect(moved).toBeGreaterThan(20);
  });

  it("samples harder configs when asked for the hard end", () => {
    const mean = (window: { min: number; max: number }) => {
      const rng = createRng(`window:${family.id}:${window.min}`);
      let sum = 0;
      for (let i = 0; i < 60; i++) sum += family.difficulty!(family.sample(rng, { hardness: window })).difficulty;
      return sum / 60;
    };
    expect(mean({ min: 0.75, max: 1 })).toBeGreaterThan(mean({ min: 0, max: 0.25 }) + 1);
  });
});

describe("p_max of difficulty() is monotone in the difficulty-signed fields", () => {
  // persuasion-game: num_rounds is excluded because more rounds give the persuader more chances
  // (its horizon cost is in the hidden difficulty); only bayesian and motivated decision makers are
  // checked, since an expansive affine or Grether distortion moves beliefs even without evidence.
  const cases: [string, string[]][] = [
    ["frozenlake-mapf", ["size", "num_agents", "obstacle_density", "slip_probability", "max_steps", "min_goal_distance"]],
    ["search-agent", ["hops", "max_turns", "distractor_ratio", "context_refiner", "answer_match"]],
    ["persuasion-game", ["evidence_strength", "target_belief", "motivation_strength", "prior"]],
  ];
  it.each(cases)("%s", (id, paths) => {
    const family = getBuiltinFamily(id)!;
    const rng = createRng(`pmax-monotone:${id}`);
    for (let i = 0; i < 80; i++) {
      const config = family.sample(rng);
      if (id === "persuasion-game" && !["bayesian", "motivated"].includes(config.decision_model as string)) continue;
      const base = family.difficulty!(config).pMax;
      for (const path of paths) {
        const field = family.fields.find((f) => f.path === path) as FieldSpec;
        const value = (config as Record<string, unknown>)[path];
        if (value === undefined) continue;
        const harder = setField(config, path, stepHarder(field, value, 1));
        if (family.validate(harder).state === "invalid") continue;
        expect(family.difficulty!(harder).pMax, `${path} in ${JSON.stringify(config)}`).toBeLessThanOrEqual(base + 1e-12);
      }
    }
  });
});

describe("registry", () => {
  it("lists the four built-in families by id", () => {
    expect(Object.keys(builtinFamilies).sort()).toEqual([...BUILTIN_FAMILY_IDS].sort());
    for (const id of BUILTIN_FAMILY_IDS) {
      expect(getBuiltinFamily(id)?.id).toBe(id);
      expect(getBuiltinFamily(id)?.builtin).toBe(true);
    }
    expect(getBuiltinFamily("nope")).toBeUndefined();
  });
});

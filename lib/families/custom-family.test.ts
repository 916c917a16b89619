import { describe, expect, it } from "vitest";
import { validateJsonSchema } from "./json-schema";
import { parseConfig } from "./parse";
import { customFamilyFromDefinition, familyRegistrationSchema } from "./registry";
import { createRng } from "./rng";
import type { FieldSpec } from "./types";

const jsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["grid", "mode"],
  properties: {
    grid: {
      type: "object",
      additionalProperties: false,
      required: ["size"],
      properties: {
        size: { type: "integer", minimum: 2, maximum: 40 },
        wrap: { type: "boolean" },
      },
    },
    mode: { type: "string", enum: ["easy", "normal", "hard"] },
    noise: { type: "number", minimum: 0, maximum: 1 },
    tags: { type: "array", items: { type: "string", minLength: 1 }, maxItems: 3 },
  },
};
const fields: FieldSpec[] = [
  { path: "grid.size", kind: "integer", min: 4, max: 32, difficulty: "up", direction: "horizon", scale: true },
  { path: "grid.wrap", kind: "boolean", difficulty: "down", direction: "uncertainty" },
  { path: "mode", kind: "ordinal", difficulty: "up", direction: "precision" },
  { path: "noise", kind: "number", difficulty: "up", direction: "uncertainty" },
];

function build() {
  const result = customFamilyFromDefinition({ id: "my-grid", version: "2", jsonSchema, fields });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.family;
}

describe("custom families", () => {
  it("validate configs against the JSON Schema with dot-joined paths", () => {
    const family = build();
    expect(family.validate({ grid: { size: 10 }, mode: "easy" })).toEqual({ state: "valid", errors: [] });
    const paths = (config: unknown) => family.validate(config).errors.map((e) => e.path);
    expect(paths({ grid: { size: 10.5 }, mode: "easy" })).toEqual(["grid.size"]);
    expect(paths({ grid: { size: 100 }, mode: "easy" })).toEqual(["grid.size"]);
    expect(paths({ grid: {}, mode: "easy" })).toEqual(["grid.size"]);
    expect(paths({ grid: { size: 10, colour: 1 }, mode: "easy" })).toEqual(["grid.colour"]);
    expect(paths({ grid: { size: 10 }, mode: "expert", extra: true })).toEqual(["mode", "extra"]);
    expect(paths({ grid: { size: 10 }, mode: "easy", tags: ["a", ""] })).toEqual(["tags.1"]);
    expect(paths({ grid: { size: 10 }, mode: "easy", tags: ["a", "b", "c", "d"] })).toEqual(["tags"]);
    expect(paths({ grid: "big", mode: "easy" })).toEqual(["grid"]);
    expect(paths(null)).toEqual(["(root)"]);
  });

  it("also enforce the field bounds, which may be tighter than the schema", () => {
    const family = build();
    const result = family.validate({ grid: { size: 3 }, mode: "easy" });
    expect(result.state).toBe("invalid");
    expect(result.errors).toEqual([{ path: "grid.size", message: "Must be >= 4." }]);
  });

  it("parse through parseConfig like built-in families", () => {
    const family = build();
    const parsed = parseConfig(family, { grid: { size: 10, x: 1 }, mode: "easy" });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors).toEqual([{ path: "grid.x", message: expect.stringContaining("Unknown field") }]);
    expect(parseConfig(family, { grid: { size: 10 }, mode: "hard" })).toEqual({ ok: true, config: { grid: { size: 10 }, mode: "hard" } });
  });

  it("fill bounds and levels from the schema and sample valid configs", () => {
    const family = build();
    expect(family.fields.find((f) => f.path === "mode")?.levels).toEqual(["easy", "normal", "hard"]);
    expect(family.fields.find((f) => f.path === "noise")).toMatchObject({ min: 0, max: 1 });
    for (let seed = 0; seed < 200; seed++) {
      const config = family.sample(createRng(seed));
      expect(family.validate(config).errors, JSON.stringify(config)).toEqual([]);
    }
    const hard = family.difficulty!({ grid: { size: 32, wrap: false }, mode: "hard", noise: 1 });
    const easy = family.difficulty!({ grid: { size: 4, wrap: true }, mode: "easy", noise: 0 });
    expect(hard.difficulty).toBeCloseTo(3, 10);
    expect(easy.difficulty).toBeCloseTo(-3, 10);
  });

  it("reject field specs that do not fit the schema, with paths like fields.2.levels", () => {
    const result = customFamilyFromDefinition({
      id: "broken",
      version: 1,
      jsonSchema: { ...jsonSchema, properties: { ...jsonSchema.properties, label: { type: "string" } } },
      fields: [
        { path: "grid.depth", kind: "integer", min: 1, max: 3 },
        { path: "grid.size", kind: "integer", min: 9, max: 5 },
        { path: "label", kind: "ordinal" },
        { path: "mode", kind: "nominal", levels: ["easy", "extreme"] },
        { path: "grid.wrap", kind: "number", min: 0, max: 1 },
        { path: "mode", kind: "nominal", difficulty: "up" },
      ],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.errors.map((e) => e.path);
    expect(paths).toContain("fields.0.path");
    expect(paths).toContain("fields.1.min");
    expect(paths).toContain("fields.2.levels");
    expect(paths).toContain("fields.3.levels.1");
    expect(paths).toContain("fields.4.kind");
    expect(paths).toContain("fields.5.path");
    expect(paths).toContain("fields.5.difficulty");
    expect(paths).not.toContain("fields.3.levels.0");
  });

  it("reject schemas outside the supported subset and built-in ids", () => {
    const result = customFamilyFromDefinition({
      id: "refs",
      version: "1",
      jsonSchema: { type: "object", properties: { a: { oneOf: [{ type: "string" }] }, b: { type: "decimal" } } },
      fields: [{ path: "a", kind: "nominal", levels: ["x"] }],
    });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors.map((e) => e.path)).toEqual(
        expect.arrayContaining(["jsonSchema.properties.a.oneOf", "jsonSchema.properties.b.type"]),
      );
    const notObject = customFamilyFromDefinition({ id: "scalar", version: "1", jsonSchema: { type: "integer" }, fields: [] });
    expect(notObject.ok).toBe(false);
    if (!notObject.ok) expect(notObject.errors.map((e) => e.path)).toContain("jsonSchema.type");
    const builtin = customFamilyFromDefinition({ id: "frozenlake-mapf", version: "1", jsonSchema, fields });
    expect(builtin.ok).toBe(false);
    if (!builtin.ok) expect(builtin.errors[0].path).toBe("id");
  });
});

describe("familyRegistrationSchema", () => {
  it("accepts a registration and turns an integer version into a string", () => {
    const parsed = familyRegistrationSchema.parse({ id: "my-grid", version: 3, jsonSchema, fields });
    expect(parsed.version).toBe("3");
    expect(parsed.fields).toHaveLength(4);
  });

  it("rejects bad ids, unknown field keys and bad kinds with their paths", () => {
    const result = familyRegistrationSchema.safeParse({
      id: "My Grid",
      version: "1",
      jsonSchema,
      fields: [
        { path: "mode", kind: "ordinal", colour: "red" },
        { path: "noise", kind: "float" },
      ],
    });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((i) => [...i.path].join("."));
    expect(paths).toEqual(expect.arrayContaining(["id", "fields.0", "fields.1.kind"]));
  });
});

describe("validateJsonSchema", () => {
  it("handles type lists, const, exclusive bounds, patterns and additionalProperties schemas", () => {
    const schema = {
      type: "object",
      properties: { n: { type: ["integer", "null"], exclusiveMinimum: 0 }, k: { const: "x" }, s: { type: "string", pattern: "^[a-z]+$" } },
      additionalProperties: { type: "number" },
    };
    expect(validateJsonSchema(schema, { n: null, k: "x", s: "abc", extra: 2 })).toEqual([]);
    const errors = validateJsonSchema(schema, { n: 0, k: "y", s: "ABC", extra: "two" });
    expect(errors.map((e) => e.path)).toEqual(["n", "k", "s", "extra"]);
    expect(validateJsonSchema({ type: "number" }, 3)).toEqual([]);
    expect(validateJsonSchema({ type: "integer" }, 3.5)[0].path).toBe("(root)");
  });
});

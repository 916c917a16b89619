import { describe, expect, it } from "vitest";
import { validateJsonSchema } from "./json-schema";

const schema = {
  type: "object",
  additionalProperties: false,
  required: ["size"],
  properties: {
    size: { type: "integer", minimum: 2, exclusiveMaximum: 40 },
    name: { type: "string", minLength: 2, pattern: "^[a-z]+$", format: "hostname" },
    tags: { type: "array", items: { type: "string" }, maxItems: 1 },
    mode: { enum: ["easy", "hard"] },
  },
};

describe("validateJsonSchema (zod's JSON Schema support)", () => {
  it("names the field path and says what is wrong in the family's words", () => {
    expect(validateJsonSchema(schema, { size: 1, name: "A", tags: ["a", "b"], mode: "x", extra: 1 })).toEqual([
      { path: "size", message: "Must be >= 2." },
      { path: "name", message: "Must have at least 2 characters." },
      { path: "name", message: "Must match the pattern ^[a-z]+$." },
      { path: "tags", message: "Must have at most 1 items." },
      { path: "mode", message: 'Expected one of "easy", "hard".' },
      { path: "extra", message: 'Unknown field "extra": remove it (the schema does not define it).' },
    ]);
    expect(validateJsonSchema(schema, { size: 40 })).toEqual([{ path: "size", message: "Must be < 40." }]);
    expect(validateJsonSchema(schema, {})).toEqual([{ path: "size", message: "Required field is missing." }]);
  });

  it("leaves format to annotation, as registration promises", () => {
    expect(validateJsonSchema(schema, { size: 3, name: "notahostnameatall" })).toEqual([]);
  });
});

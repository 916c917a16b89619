import { describe, expect, it } from "vitest";
import {
  EMPTY_FIELD,
  STARTER_SCHEMA,
  draftBody,
  draftProblems,
  fieldsFromSchema,
  parseLevels,
  type FamilyDraft,
} from "@/components/families/family-draft";

const draft = (patch: Partial<FamilyDraft> = {}): FamilyDraft => ({
  id: "my-grid",
  version: "1",
  description: "",
  schemaText: STARTER_SCHEMA,
  fields: fieldsFromSchema(STARTER_SCHEMA),
  ...patch,
});

describe("register-a-family draft", () => {
  it("the starter schema's fields make a family the server's checks accept", () => {
    expect(draft().fields.map((f) => [f.path, f.kind])).toEqual([
      ["grid_size", "integer"],
      ["noise", "number"],
      ["layout", "ordinal"],
    ]);
    expect(draftProblems(draft())).toEqual([]);
  });

  it("schema text that is not JSON names jsonSchema and the line", () => {
    const problems = draftProblems(draft({ schemaText: '{\n  "type": "object",\n  oops\n}' }));
    expect(problems).toHaveLength(1);
    expect(problems[0].path).toBe("jsonSchema");
    expect(problems[0].message).toMatch(/line 3/);
  });

  it("a bad id, a field naming no property and a non-numeric bound are each named by path", () => {
    const fields = [
      { ...EMPTY_FIELD, path: "grid_size", kind: "integer" as const, min: "abc" },
      { ...EMPTY_FIELD, path: "missing", kind: "boolean" as const },
    ];
    const paths = draftProblems(draft({ id: "My Grid", fields })).map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(["id", "fields.0.min"]));
    // zod refuses first; once the shape is right, the family check finds the unknown property
    const second = draftProblems(draft({ fields: [{ ...EMPTY_FIELD, path: "missing", kind: "boolean" }] }));
    expect(second).toEqual([expect.objectContaining({ path: "fields.0.path" })]);
  });

  it("an ordinal field's typed levels must fit the schema", () => {
    const fields = [{ ...EMPTY_FIELD, path: "layout", kind: "ordinal" as const, levels: "open, lava" }];
    expect(draftProblems(draft({ fields }))).toEqual([expect.objectContaining({ path: "fields.0.levels.1" })]);
  });

  it("levels become JSON values; empty bounds are left out of the body", () => {
    expect(parseLevels("1, 2.5, true, open, ")).toEqual([1, 2.5, true, "open"]);
    const built = draftBody(
      draft({ fields: [{ ...EMPTY_FIELD, path: "grid_size", kind: "integer", min: "", max: "8", difficulty: "up" }] }),
    );
    expect("body" in built && built.body.fields).toEqual([{ path: "grid_size", kind: "integer", max: 8, difficulty: "up" }]);
  });
});

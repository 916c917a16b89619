/** User-registered families: a JSON Schema (supported subset) plus field metadata -> FamilyDefinition. */
import { z } from "zod";
import { getFieldValue } from "./field-path";
import { hardnessProfile } from "./hardness";
import { checkJsonSchemaSubset, jsonEqual, subschemaAt, validateJsonSchema, type JsonSchema } from "./json-schema";
import { ROOT_PATH } from "./parse";
import type { Rng } from "./rng";
import { sampleFromFields } from "./sampling";
import type { FamilyConfig, FamilyDefinition, FieldError, FieldSpec, ValidationResult } from "./types";

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*$/;

/** zod schema of one field's metadata (FieldSpec), strict. */
export const fieldSpecSchema = z.strictObject({
  path: z.string().max(200).regex(FIELD_PATH, "Use a dot-joined property path such as grid.size."),
  kind: z.enum(["integer", "number", "ordinal", "nominal", "boolean"]),
  min: z.number().optional(),
  max: z.number().optional(),
  levels: z
    .array(z.union([z.string(), z.number(), z.boolean()]))
    .min(1)
    .max(200)
    .optional(),
  difficulty: z.enum(["up", "down"]).optional(),
  direction: z.enum(["horizon", "uncertainty", "precision", "diversify"]).optional(),
  mutable: z.boolean().optional(),
  scale: z.boolean().optional(),
  description: z.string().max(1000).optional(),
});

/** zod schema of the POST body that registers a family: { id, version, jsonSchema, fields, description? }. */
export const familyRegistrationSchema = z.strictObject({
  id: z.string().min(2).max(64).regex(SLUG, "Use lowercase letters, digits and single dashes, e.g. my-gridworld."),
  version: z.union([z.string().min(1).max(64), z.int().nonnegative()]).transform((v) => String(v)),
  description: z.string().max(2000).optional(),
  jsonSchema: z.record(z.string(), z.unknown()),
  fields: z.array(fieldSpecSchema).min(1).max(200),
});

export type FamilyRegistration = z.input<typeof familyRegistrationSchema>;

function schemaTypes(schema: JsonSchema): string[] | undefined {
  if (schema.type === undefined) return undefined;
  return (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[];
}

function checkField(field: FieldSpec, index: number, jsonSchema: JsonSchema): { field: FieldSpec; errors: FieldError[] } {
  const at = (key: string) => `fields.${index}.${key}`;
  const errors: FieldError[] = [];
  const sub = subschemaAt(jsonSchema, field.path);
  if (!sub)
    return {
      field,
      errors: [{ path: at("path"), message: `No property "${field.path}" in jsonSchema.properties: fix the path or add the property.` }],
    };
  const types = schemaTypes(sub);
  const allows = (...wanted: string[]) => types === undefined || types.some((t) => wanted.includes(t));
  const normalized: FieldSpec = { ...field };
  switch (field.kind) {
    case "integer":
    case "number": {
      if (!allows(...(field.kind === "integer" ? ["integer", "number"] : ["number", "integer"]))) {
        errors.push({ path: at("kind"), message: `The schema types "${field.path}" as ${types?.join("/")}, not a number.` });
      }
      normalized.min = field.min ?? (typeof sub.minimum === "number" ? sub.minimum : undefined);
      normalized.max = field.max ?? (typeof sub.maximum === "number" ? sub.maximum : undefined);
      if (normalized.min === undefined)
        errors.push({ path: at("min"), message: "Numeric fields need a min (in the field or as the schema's minimum)." });
      if (normalized.max === undefined)
        errors.push({ path: at("max"), message: "Numeric fields need a max (in the field or as the schema's maximum)." });
      if (normalized.min !== undefined && normalized.max !== undefined && normalized.min > normalized.max) {
        errors.push({ path: at("min"), message: `min (${normalized.min}) must be <= max (${normalized.max}).` });
      }
      if (field.kind === "integer") {
        for (const key of ["min", "max"] as const) {
          const v = normalized[key];
          if (v !== undefined && !Number.isInteger(v))
            errors.push({ path: at(key), message: `Integer fields need whole-number bounds; ${key} is ${v}.` });
        }
      }
      if (typeof sub.minimum === "number" && normalized.min !== undefined && normalized.min < sub.minimum) {
        errors.push({ path: at("min"), message: `min (${normalized.min}) is below the schema's minimum (${sub.minimum}).` });
      }
      if (typeof sub.maximum === "number" && normalized.max !== undefined && normalized.max > sub.maximum) {
        errors.push({ path: at("max"), message: `max (${normalized.max}) is above the schema's maximum (${sub.maximum}).` });
      }
      if (field.scale && normalized.min !== undefined && normalized.min <= 0) {
        errors.push({ path: at("scale"), message: "Scale fields mutate multiplicatively and need min > 0." });
      }
      break;
    }
    case "boolean":
      if (!allows("boolean"))
        errors.push({ path: at("kind"), message: `The schema types "${field.path}" as ${types?.join("/")}, not boolean.` });
      break;
    case "ordinal":
    case "nominal": {
      if (!allows("string", "number", "integer", "boolean")) {
        errors.push({
          path: at("kind"),
          message: `The schema types "${field.path}" as ${types?.join("/")}; ${field.kind} fields need scalar levels.`,
        });
      }
      const levels = field.levels ?? (Array.isArray(sub.enum) ? (sub.enum as FieldSpec["levels"]) : undefined);
      const identity = field.kind === "nominal" && field.mutable === false;
      if (!levels || levels.length === 0) {
        if (!identity)
          errors.push({ path: at("levels"), message: `${field.kind} fields need levels (in the field or as the schema's enum).` });
      } else {
        normalized.levels = levels;
        levels.forEach((level, j) => {
          if (levels.findIndex((other) => jsonEqual(other, level)) !== j)
            errors.push({ path: `${at("levels")}.${j}`, message: `Duplicate level ${JSON.stringify(level)}.` });
          const problems = validateJsonSchema(sub, level);
          if (problems.length > 0)
            errors.push({
              path: `${at("levels")}.${j}`,
              message: `Level ${JSON.stringify(level)} does not fit the schema: ${problems[0].message}`,
            });
        });
      }
      if (field.kind === "nominal" && field.difficulty)
        errors.push({
          path: at("difficulty"),
          message: "Nominal levels are unordered, so a nominal field has no difficulty sign: use ordinal.",
        });
      break;
    }
  }
  return { field: normalized, errors };
}

/**
 * Check a family definition: the JSON Schema stays in the supported subset and describes an object,
 * and every field names an existing property with usable bounds or levels. Returns the fields with
 * bounds/levels filled in from the schema, and errors with paths like "fields.2.levels".
 */
export function checkFamilyDefinition(def: { jsonSchema: JsonSchema; fields: FieldSpec[] }): { fields: FieldSpec[]; errors: FieldError[] } {
  const errors = checkJsonSchemaSubset(def.jsonSchema, ["jsonSchema"]);
  const rootTypes = schemaTypes(def.jsonSchema);
  if (!rootTypes || rootTypes.length !== 1 || rootTypes[0] !== "object")
    errors.push({ path: "jsonSchema.type", message: 'A family config is a JSON object: set "type": "object".' });
  if (typeof def.jsonSchema.properties !== "object" || def.jsonSchema.properties === null) {
    errors.push({ path: "jsonSchema.properties", message: "Describe the config's properties." });
  }
  const seen = new Map<string, number>();
  const fields: FieldSpec[] = [];
  def.fields.forEach((field, index) => {
    const previous = seen.get(field.path);
    if (previous !== undefined)
      errors.push({ path: `fields.${index}.path`, message: `Field "${field.path}" is already declared at fields.${previous}.` });
    seen.set(field.path, index);
    const checked = checkField(field, index, def.jsonSchema);
    fields.push(checked.field);
    errors.push(...checked.errors);
  });
  return { fields, errors };
}

/** Errors of a config value against the field metadata (bounds and levels of present values). */
export function fieldValueErrors(fields: readonly FieldSpec[], config: unknown): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of fields) {
    const value = getFieldValue(config, field.path);
    if (value === undefined) continue;
    if ((field.kind === "integer" || field.kind === "number") && typeof value === "number") {
      if (field.kind === "integer" && !Number.isInteger(value)) errors.push({ path: field.path, message: "Must be an integer." });
      if (field.min !== undefined && value < field.min) errors.push({ path: field.path, message: `Must be >= ${field.min}.` });
      if (field.max !== undefined && value > field.max) errors.push({ path: field.path, message: `Must be <= ${field.max}.` });
    } else if (
      (field.kind === "ordinal" || field.kind === "nominal") &&
      field.levels &&
      !field.levels.some((level) => jsonEqual(level, value))
    ) {
      errors.push({ path: field.path, message: `Expected one of ${field.levels.map((l) => JSON.stringify(l)).join(", ")}.` });
    }
  }
  return errors;
}

function minimalValue(schema: JsonSchema): unknown {
  if ("default" in schema) return schema.default;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = schemaTypes(schema)?.[0];
  switch (type) {
    case "integer":
      return typeof schema.minimum === "number"
        ? Math.ceil(schema.minimum)
        : typeof schema.maximum === "number"
          ? Math.min(0, Math.floor(schema.maximum))
          : 0;
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : typeof schema.maximum === "number" ? Math.min(0, schema.maximum) : 0;
    case "string":
      return "x".repeat(typeof schema.minLength === "number" ? schema.minLength : 0);
    case "boolean":
      return false;
    case "array": {
      const count = typeof schema.minItems === "number" ? schema.minItems : 0;
      const items = typeof schema.items === "object" && schema.items !== null ? (schema.items as JsonSchema) : {};
      return Array.from({ length: count }, () => minimalValue(items));
    }
    case "null":
      return null;
    default: {
      const out: Record<string, unknown> = {};
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      for (const name of (schema.required ?? []) as string[]) if (properties[name]) out[name] = minimalValue(properties[name]);
      return out;
    }
  }
}

export interface CustomFamilyInput {
  id: string;
  version: string | number;
  description?: string;
  jsonSchema: JsonSchema;
  fields: FieldSpec[];
}

/**
 * Build a FamilyDefinition for a registered family (no built-in id check: see registry.ts).
 * Configs are validated against the JSON Schema and the field bounds/levels; the sampler fills
 * required properties with defaults and draws every field; difficulty() uses the signed fields.
 */
export function buildCustomFamily(input: CustomFamilyInput): { ok: true; family: FamilyDefinition } | { ok: false; errors: FieldError[] } {
  const { fields, errors } = checkFamilyDefinition(input);
  if (errors.length > 0) return { ok: false, errors };
  const jsonSchema = input.jsonSchema;
  const configErrors = (value: unknown): FieldError[] => {
    const schemaErrors = validateJsonSchema(jsonSchema, value);
    return schemaErrors.length > 0 ? schemaErrors : fieldValueErrors(fields, value);
  };
  const schema = z.custom<FamilyConfig>().superRefine((value, ctx) => {
    for (const error of configErrors(value)) {
      ctx.addIssue({ code: "custom", message: error.message, path: error.path === ROOT_PATH ? [] : error.path.split(".") });
    }
  });
  const validate = (config: unknown): ValidationResult => {
    const found = configErrors(config);
    return found.length > 0 ? { state: "invalid", errors: found } : { state: "valid", errors: [] };
  };
  return {
    ok: true,
    family: {
      id: input.id,
      version: String(input.version),
      description:
        input.description ?? (typeof jsonSchema.description === "string" ? jsonSchema.description : `User-registered family ${input.id}`),
      builtin: false,
      fields,
      schema,
      jsonSchema,
      sample: (rng: Rng, opts) => sampleFromFields(rng, fields, opts, minimalValue(jsonSchema) as FamilyConfig),
      validate,
      difficulty: (config) => {
        const profile = hardnessProfile(fields, config);
        return { difficulty: profile.difficulty, pMax: 1, skills: profile.skills };
      },
    },
  };
}

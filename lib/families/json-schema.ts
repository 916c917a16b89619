/**
 * The JSON Schema subset user-registered families may use, checked at registration, and
 * validation of configs against such a schema by zod's JSON Schema support (z.fromJSONSchema),
 * with error messages naming the field path. The subset:
 * type (object, integer, number, string, boolean, array, null, or a list of them), properties,
 * required, additionalProperties (boolean or schema), enum, const, minimum, maximum,
 * exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, items, minItems, maxItems.
 * Annotations ($schema, $id, title, description, default, examples, format, ...) are ignored.
 */
import { z } from "zod";
import { issuesToFieldErrors, joinPath } from "./parse";
import type { FieldError } from "./types";

export type JsonSchema = Record<string, unknown>;

const SUPPORTED_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "enum",
  "const",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "items",
  "minItems",
  "maxItems",
]);
const ANNOTATION_KEYWORDS = new Set([
  "$schema",
  "$id",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "format",
  "deprecated",
  "readOnly",
  "writeOnly",
]);
const TYPES = new Set(["object", "integer", "number", "string", "boolean", "array", "null"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNonNegativeInteger(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** Structural equality of JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Errors for keywords outside the supported subset or malformed keyword values, with paths from `prefix`. */
export function checkJsonSchemaSubset(schema: unknown, prefix: (string | number)[] = []): FieldError[] {
  const errors: FieldError[] = [];
  const at = (...more: (string | number)[]) => joinPath([...prefix, ...more]);
  if (!isRecord(schema)) return [{ path: at(), message: "A schema must be a JSON object." }];
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATION_KEYWORDS.has(key)) continue;
    if (!SUPPORTED_KEYWORDS.has(key)) {
      errors.push({ path: at(key), message: `Unsupported JSON Schema keyword "${key}": use only ${[...SUPPORTED_KEYWORDS].join(", ")}.` });
      continue;
    }
    switch (key) {
      case "type": {
        const types = Array.isArray(value) ? value : [value];
        if (types.length === 0 || !types.every((t) => typeof t === "string" && TYPES.has(t))) {
          errors.push({ path: at(key), message: `type must be one of ${[...TYPES].join(", ")} (or a list of them).` });
        }
        break;
      }
      case "properties":
        if (!isRecord(value)) errors.push({ path: at(key), message: "properties must be an object of schemas." });
        else for (const [name, sub] of Object.entries(value)) errors.push(...checkJsonSchemaSubset(sub, [...prefix, key, name]));
        break;
      case "required":
        if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
          errors.push({ path: at(key), message: "required must be a list of property names." });
        break;
      case "additionalProperties":
        if (typeof value !== "boolean") errors.push(...checkJsonSchemaSubset(value, [...prefix, key]));
        break;
      case "items":
        errors.push(...checkJsonSchemaSubset(value, [...prefix, key]));
        break;
      case "enum":
        if (!Array.isArray(value) || value.length === 0) errors.push({ path: at(key), message: "enum must be a non-empty list." });
        break;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        if (typeof value !== "number" || !Number.isFinite(value)) errors.push({ path: at(key), message: `${key} must be a number.` });
        break;
      case "minLength":
      case "maxLength":
      case "minItems":
      case "maxItems":
        if (!isNonNegativeInteger(value)) errors.push({ path: at(key), message: `${key} must be a non-negative integer.` });
        break;
      case "pattern":
        try {
          new RegExp(String(value), "u");
          if (typeof value !== "string") throw new Error("not a string");
        } catch {
          errors.push({ path: at(key), message: "pattern must be a valid regular expression." });
        }
        break;
    }
  }
  return errors;
}

/** A JSON Schema's keywords with `format` left out at every schema position (annotations are not checked). */
function withoutFormats(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "format") continue;
    if (key === "properties" && isRecord(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutFormats(sub)]));
    else if (key === "items" || key === "additionalProperties") out[key] = withoutFormats(value);
    else out[key] = value;
  }
  return out;
}

/** Messages in our words ("Must be >= 2.", "Required field is missing.") for zod's issues on JSON Schema keywords. */
function issueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "Required field is missing." : undefined;
    case "too_small":
    case "too_big": {
      const min = issue.code === "too_small";
      const bound = String(min ? issue.minimum : issue.maximum);
      if (issue.origin === "number" || issue.origin === "int") return `Must be ${min ? ">" : "<"}${issue.inclusive ? "=" : ""} ${bound}.`;
      if (issue.origin === "string") return `Must have at ${min ? "least" : "most"} ${bound} characters.`;
      if (issue.origin === "array") return `Must have at ${min ? "least" : "most"} ${bound} items.`;
      return undefined;
    }
    case "invalid_value":
      return issue.values.length === 1
        ? `Expected ${JSON.stringify(issue.values[0])}.`
        : `Expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}.`;
    case "invalid_format":
      return issue.format === "regex" && "pattern" in issue
        ? `Must match the pattern ${String(issue.pattern).replace(/^\/(.*)\/[a-z]*$/, "$1")}.`
        : undefined;
    default:
      return undefined;
  }
}

const compiled = new WeakMap<JsonSchema, z.ZodType>();

/** The schema as zod (its JSON Schema support), compiled once per schema object. */
function zodOf(schema: JsonSchema): z.ZodType {
  let out = compiled.get(schema);
  if (!out) {
    out = z.fromJSONSchema(withoutFormats(schema) as Parameters<typeof z.fromJSONSchema>[0]);
    compiled.set(schema, out);
  }
  return out;
}

/** Validate a JSON value against a schema of the supported subset; errors carry dot-joined paths ("(root)" for the value itself). */
export function validateJsonSchema(schema: JsonSchema, value: unknown): FieldError[] {
  const parsed = zodOf(schema).safeParse(value, { error: (issue) => issueMessage(issue) });
  if (parsed.success) return [];
  return issuesToFieldErrors(parsed.error.issues).map((e) =>
    e.message.startsWith("Unknown field")
      ? { ...e, message: e.message.replace("(the family does not define it)", "(the schema does not define it)") }
      : e,
  );
}

/** The subschema at a dot-joined property path ("grid.size"), following `properties`; undefined when absent. */
export function subschemaAt(schema: JsonSchema, path: string): JsonSchema | undefined {
  let node: unknown = schema;
  for (const key of path.split(".")) {
    if (!isRecord(node) || !isRecord(node.properties)) return undefined;
    node = node.properties[key];
  }
  return isRecord(node) ? node : undefined;
}

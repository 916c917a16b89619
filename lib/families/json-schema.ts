/**
 * A small JSON Schema validator for the subset user-registered families may use:
 * type (object, integer, number, string, boolean, array, null, or a list of them), properties,
 * required, additionalProperties (boolean or schema), enum, const, minimum, maximum,
 * exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, items, minItems, maxItems.
 * Annotations ($schema, $id, title, description, default, examples, format, ...) are ignored.
 */
import { joinPath } from "./parse";
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
        if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) errors.push({ path: at(key), message: "required must be a list of property names." });
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

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === "number") return actual === "number" || actual === "integer";
  return actual === type;
}

function describeType(value: unknown): string {
  const t = typeOf(value);
  return t === "integer" ? "number" : t;
}

function validateNode(schema: JsonSchema, value: unknown, path: (string | number)[], errors: FieldError[]): void {
  const at = (...more: (string | number)[]) => joinPath([...path, ...more]);
  if (schema.type !== undefined) {
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[];
    if (!types.some((t) => matchesType(value, t))) {
      errors.push({ path: at(), message: `Expected ${types.join(" or ")}, received ${describeType(value)}.` });
      return;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => jsonEqual(option, value))) {
    errors.push({ path: at(), message: `Expected one of ${schema.enum.map((o) => JSON.stringify(o)).join(", ")}.` });
  }
  if ("const" in schema && !jsonEqual(schema.const, value)) {
    errors.push({ path: at(), message: `Expected ${JSON.stringify(schema.const)}.` });
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) errors.push({ path: at(), message: `Must be >= ${schema.minimum}.` });
    if (typeof schema.maximum === "number" && value > schema.maximum) errors.push({ path: at(), message: `Must be <= ${schema.maximum}.` });
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) errors.push({ path: at(), message: `Must be > ${schema.exclusiveMinimum}.` });
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) errors.push({ path: at(), message: `Must be < ${schema.exclusiveMaximum}.` });
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) errors.push({ path: at(), message: `Must have at least ${schema.minLength} characters.` });
    if (typeof schema.maxLength === "number" && length > schema.maxLength) errors.push({ path: at(), message: `Must have at most ${schema.maxLength} characters.` });
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) errors.push({ path: at(), message: `Must match the pattern ${schema.pattern}.` });
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) errors.push({ path: at(), message: `Must have at least ${schema.minItems} items.` });
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) errors.push({ path: at(), message: `Must have at most ${schema.maxItems} items.` });
    if (isRecord(schema.items)) value.forEach((item, i) => validateNode(schema.items as JsonSchema, item, [...path, i], errors));
  }
  if (isRecord(value)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const name of schema.required as string[]) {
        if (!(name in value) || value[name] === undefined) errors.push({ path: at(name), message: "Required field is missing." });
      }
    }
    for (const [name, child] of Object.entries(value)) {
      if (child === undefined) continue;
      const sub = properties[name];
      if (isRecord(sub)) validateNode(sub, child, [...path, name], errors);
      else if (schema.additionalProperties === false) errors.push({ path: at(name), message: `Unknown field "${name}": remove it (the schema does not define it).` });
      else if (isRecord(schema.additionalProperties)) validateNode(schema.additionalProperties, child, [...path, name], errors);
    }
  }
}

/** Validate a JSON value against a schema of the supported subset; errors carry dot-joined paths ("(root)" for the value itself). */
export function validateJsonSchema(schema: JsonSchema, value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  validateNode(schema, value, [], errors);
  return errors;
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

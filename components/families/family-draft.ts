/** The register-a-family form's state, turned into the POST /api/v1/families body and checked with the server's own rules. */
import { checkFamilyDefinition, familyRegistrationSchema } from "@/lib/families/custom-family";
import type { FieldSpec } from "@/lib/families/types";

/** One row of the field-metadata table, as typed (numbers and levels still text). */
export interface FieldDraft {
  path: string;
  kind: FieldSpec["kind"];
  min: string;
  max: string;
  levels: string;
  difficulty: "" | "up" | "down";
  direction: "" | NonNullable<FieldSpec["direction"]>;
}

/** The whole form as typed. */
export interface FamilyDraft {
  id: string;
  version: string;
  description: string;
  schemaText: string;
  fields: FieldDraft[];
}

/** A problem with the draft: `path` names the form field, as the API does (id, jsonSchema, fields.2.levels…). */
export interface DraftProblem {
  path: string;
  message: string;
}

export const FIELD_KINDS: FieldSpec["kind"][] = ["integer", "number", "ordinal", "nominal", "boolean"];
export const DIRECTIONS: NonNullable<FieldSpec["direction"]>[] = ["horizon", "uncertainty", "precision", "diversify"];

export const EMPTY_FIELD: FieldDraft = { path: "", kind: "integer", min: "", max: "", levels: "", difficulty: "", direction: "" };

/** A starting schema a researcher edits: every supported kind once. */
export const STARTER_SCHEMA = `{
  "type": "object",
  "properties": {
    "grid_size": { "type": "integer", "minimum": 4, "maximum": 16 },
    "noise": { "type": "number", "minimum": 0, "maximum": 0.5 },
    "layout": { "type": "string", "enum": ["open", "rooms", "maze"] }
  },
  "required": ["grid_size", "noise", "layout"],
  "additionalProperties": false
}`;

/** A bound as typed: empty is absent, a number is a number, anything else stays text so the schema names it. */
function bound(text: string): unknown {
  const t = text.trim();
  if (t === "") return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/** Levels typed as a comma-separated list: numbers and true/false become JSON values, the rest strings. */
export function parseLevels(text: string): (string | number | boolean)[] | undefined {
  const parts = text
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (parts.length === 0) return undefined;
  return parts.map((p) => (p === "true" ? true : p === "false" ? false : p !== "" && Number.isFinite(Number(p)) ? Number(p) : p));
}

/** Where a JSON.parse error points, as "line L, column C" when the engine says a position. */
function jsonErrorAt(text: string, error: Error): string {
  const position = /position (\d+)/.exec(error.message);
  if (!position) return error.message;
  const before = text.slice(0, Number(position[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `${error.message.replace(/ in JSON at position \d+.*$/, "")} at line ${line}, column ${column}`;
}

/** The request body of the draft, or the problem that the schema text is not JSON. */
export function draftBody(draft: FamilyDraft): { body: Record<string, unknown> } | { problem: DraftProblem } {
  let jsonSchema: unknown;
  try {
    jsonSchema = JSON.parse(draft.schemaText);
  } catch (e) {
    return { problem: { path: "jsonSchema", message: `Not JSON: ${jsonErrorAt(draft.schemaText, e as Error)}.` } };
  }
  const fields = draft.fields.map((f) => {
    const spec: Record<string, unknown> = { path: f.path.trim(), kind: f.kind };
    if (f.kind === "integer" || f.kind === "number") {
      spec.min = bound(f.min);
      spec.max = bound(f.max);
    }
    if (f.kind === "ordinal" || f.kind === "nominal") spec.levels = parseLevels(f.levels);
    if (f.difficulty) spec.difficulty = f.difficulty;
    if (f.direction) spec.direction = f.direction;
    return Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== undefined));
  });
  const body: Record<string, unknown> = { id: draft.id.trim(), version: draft.version.trim(), jsonSchema, fields };
  if (draft.description.trim()) body.description = draft.description.trim();
  return { body };
}

/**
 * Every problem the server would report for this draft, found in the browser with the same code: the
 * registration's zod schema first, then the family checks (schema subset, fields against the schema).
 */
export function draftProblems(draft: FamilyDraft): DraftProblem[] {
  const built = draftBody(draft);
  if ("problem" in built) return [built.problem];
  const parsed = familyRegistrationSchema.safeParse(built.body);
  if (!parsed.success) {
    return parsed.error.issues.map((issue) => {
      const keys = issue.code === "unrecognized_keys" ? (issue as { keys?: string[] }).keys : undefined;
      const path = [...issue.path.map(String), ...(keys?.length === 1 ? keys : [])].join(".");
      return { path: path || "(root)", message: issue.message };
    });
  }
  return checkFamilyDefinition({ jsonSchema: parsed.data.jsonSchema, fields: parsed.data.fields }).errors;
}

/** Field rows for every property the schema declares (nested objects as dot paths): integer, number, boolean, or ordinal from an enum. */
export function fieldsFromSchema(schemaText: string): FieldDraft[] {
  let schema: unknown;
  try {
    schema = JSON.parse(schemaText);
  } catch {
    return [];
  }
  const rows: FieldDraft[] = [];
  const walk = (node: unknown, prefix: string) => {
    const properties = node && typeof node === "object" ? (node as { properties?: unknown }).properties : undefined;
    if (!properties || typeof properties !== "object") return;
    for (const [name, sub] of Object.entries(properties as Record<string, Record<string, unknown>>)) {
      const path = prefix ? `${prefix}.${name}` : name;
      if (!sub || typeof sub !== "object") continue;
      if (Array.isArray(sub.enum)) rows.push({ ...EMPTY_FIELD, path, kind: "ordinal" });
      else if (sub.type === "integer" || sub.type === "number" || sub.type === "boolean")
        rows.push({ ...EMPTY_FIELD, path, kind: sub.type });
      else if (sub.type === "object") walk(sub, path);
    }
  };
  walk(schema, "");
  return rows;
}

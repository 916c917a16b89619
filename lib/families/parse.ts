/** Parsing a config against its family's strict schema, with dot-joined error paths. */
import type { z } from "zod";
import type { FamilyConfig, FamilyDefinition, FieldError, ParseResult } from "./types";

/** Path used for errors about the config as a whole. */
export const ROOT_PATH = "(root)";

/** Join path segments with "." ("(root)" for the empty path). */
export function joinPath(segments: readonly PropertyKey[]): string {
  const text = segments.map((s) => String(s)).join(".");
  return text === "" ? ROOT_PATH : text;
}

/** zod issues -> field errors; an unknown key is reported at its own path ("grid.colour"). */
export function issuesToFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        errors.push({
          path: joinPath([...issue.path, key]),
          message: `Unknown field "${key}": remove it (the family does not define it).`,
        });
      }
    } else {
      errors.push({ path: joinPath(issue.path), message: issue.message });
    }
  }
  return errors;
}

/** Parse a config with the family's strict schema: the typed config, or every error with its field path. */
export function parseConfig<C extends FamilyConfig>(family: Pick<FamilyDefinition<C>, "schema">, config: unknown): ParseResult<C> {
  const parsed = family.schema.safeParse(config);
  if (parsed.success) return { ok: true, config: parsed.data };
  return { ok: false, errors: issuesToFieldErrors(parsed.error.issues) };
}

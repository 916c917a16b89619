/** The built-in families and the construction of user-registered ones. */
import { buildCustomFamily, type CustomFamilyInput } from "./custom-family";
import { frozenlakeMapfFamily } from "./frozenlake-mapf";
import { persuasionGameFamily } from "./persuasion-game";
import { searchAgentFamily } from "./search-agent";
import { terminalTaskFamily } from "./terminal-task";
import type { FamilyDefinition, FieldError } from "./types";

export const BUILTIN_FAMILY_IDS = ["terminal-task", "frozenlake-mapf", "persuasion-game", "search-agent"] as const;
export type BuiltinFamilyId = (typeof BUILTIN_FAMILY_IDS)[number];

/** The built-in families by id. */
export const builtinFamilies: Readonly<Record<BuiltinFamilyId, FamilyDefinition>> = {
  "terminal-task": terminalTaskFamily,
  "frozenlake-mapf": frozenlakeMapfFamily,
  "persuasion-game": persuasionGameFamily,
  "search-agent": searchAgentFamily,
};

/** True when `id` names a built-in family. */
export function isBuiltinFamilyId(id: string): id is BuiltinFamilyId {
  return (BUILTIN_FAMILY_IDS as readonly string[]).includes(id);
}

/** The built-in family with this id, or undefined. */
export function getBuiltinFamily(id: string): FamilyDefinition | undefined {
  return isBuiltinFamilyId(id) ? builtinFamilies[id] : undefined;
}

/**
 * A FamilyDefinition for a user-registered family ({ id, version, jsonSchema, fields }), or the
 * errors that prevent it (paths like "id", "jsonSchema.properties.size.oneOf", "fields.2.levels").
 */
export function customFamilyFromDefinition(
  input: CustomFamilyInput,
): { ok: true; family: FamilyDefinition } | { ok: false; errors: FieldError[] } {
  if (isBuiltinFamilyId(input.id)) {
    return { ok: false, errors: [{ path: "id", message: `"${input.id}" is a built-in family: choose another id.` }] };
  }
  return buildCustomFamily(input);
}

export { familyRegistrationSchema, fieldSpecSchema, type CustomFamilyInput } from "./custom-family";

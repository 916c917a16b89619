/**
 * Public API of environment families (pure: no db, no Next.js, no node built-ins).
 * configHash lives in "@/lib/families/hash" (server-side: it uses node:crypto).
 */
export * from "./types";
export { createRng, hashSeed, type Rng } from "./rng";
export { parseConfig, issuesToFieldErrors, joinPath, ROOT_PATH } from "./parse";
export { getFieldValue, setFieldValue } from "./field-path";
export { fieldHardness, fieldPosition, hardnessProfile, type HardnessProfile } from "./hardness";
export { isSampleable, sampleField, sampleFromFields } from "./sampling";
export { crossover, distance, fieldDistance, mutateConfig, mutateField, novelty, stepHarder, type FieldEdit } from "./operators";
export { checkJsonSchemaSubset, subschemaAt, validateJsonSchema, type JsonSchema } from "./json-schema";
export { checkFamilyDefinition, fieldValueErrors, type FamilyRegistration } from "./custom-family";
export {
  BUILTIN_FAMILY_IDS,
  builtinFamilies,
  customFamilyFromDefinition,
  familyRegistrationSchema,
  fieldSpecSchema,
  getBuiltinFamily,
  isBuiltinFamilyId,
  type BuiltinFamilyId,
  type CustomFamilyInput,
} from "./registry";
export { terminalTaskFamily, type TerminalTaskConfig } from "./terminal-task";
export { frozenlakeMapfFamily, type FrozenLakeConfig } from "./frozenlake-mapf";
export { persuasionGameFamily, type PersuasionConfig } from "./persuasion-game";
export { searchAgentFamily, type SearchAgentConfig } from "./search-agent";

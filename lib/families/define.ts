/** Assembling a FamilyDefinition from a zod schema, field metadata and the family's own checks. */
import { z } from "zod";
import { parseConfig } from "./parse";
import type { Rng } from "./rng";
import type { DifficultyEstimate, FamilyConfig, FamilyDefinition, FieldSpec, SampleOptions, ValidationResult } from "./types";

export interface FamilySpec<C extends FamilyConfig> {
  id: string;
  version: string;
  description: string;
  fields: FieldSpec[];
  schema: z.ZodType<C>;
  sample(rng: Rng, opts?: SampleOptions): C;
  /** Semantic validation of a schema-valid config; defaults to "valid". */
  check?(config: C): ValidationResult;
  difficulty?(config: C): DifficultyEstimate;
  builtin?: boolean;
}

/** A FamilyDefinition whose validate() is schema parse then `check`, and whose jsonSchema is generated from the zod schema. */
export function defineFamily<C extends FamilyConfig>(spec: FamilySpec<C>): FamilyDefinition<C> {
  const generated = z.toJSONSchema(spec.schema, { target: "draft-2020-12" }) as Record<string, unknown>;
  const jsonSchema = { ...generated, title: spec.id, description: spec.description };
  return {
    id: spec.id,
    version: spec.version,
    description: spec.description,
    builtin: spec.builtin ?? true,
    fields: spec.fields,
    schema: spec.schema,
    jsonSchema,
    sample: spec.sample,
    validate(config: unknown): ValidationResult {
      const parsed = parseConfig(spec, config);
      if (!parsed.ok) return { state: "invalid", errors: parsed.errors };
      return spec.check ? spec.check(parsed.config) : { state: "valid", errors: [] };
    },
    difficulty: spec.difficulty,
  };
}

/** A zod description for a field, taken from its spec (shown in the JSON Schema the LLM engineer reads). */
export function describeField(field: FieldSpec): string {
  const parts = [field.description ?? field.path];
  if (field.direction) parts.push(`direction: ${field.direction}`);
  if (field.difficulty) parts.push(`raising it makes the task ${field.difficulty === "up" ? "harder" : "easier"}`);
  return parts.join("; ");
}

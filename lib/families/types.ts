/** Shared types of environment families: field metadata, definitions, validation results. */
import type { z } from "zod";
import type { Rng } from "./rng";

export type FieldKind = "integer" | "number" | "ordinal" | "nominal" | "boolean";
export type Direction = "horizon" | "uncertainty" | "precision" | "diversify";
export type DifficultySign = "up" | "down";
export type FieldLevel = string | number | boolean;

/** The three difficulty directions, in the order used by `DifficultyEstimate.skills`. */
export const SKILL_DIRECTIONS = ["horizon", "uncertainty", "precision"] as const;
export type SkillDirection = (typeof SKILL_DIRECTIONS)[number];

/**
 * Metadata of one config field. `path` is dot-joined ("grid.size"). Ordinal `levels` are listed
 * easy -> hard; nominal levels are unordered. `difficulty: "up"` means raising the value (or moving
 * to a later level, or true over false) makes the task harder. `scale` fields mutate
 * multiplicatively. A nominal field without `levels` is an open identity string (never sampled).
 */
export interface FieldSpec {
  path: string;
  kind: FieldKind;
  min?: number;
  max?: number;
  levels?: FieldLevel[];
  difficulty?: DifficultySign;
  direction?: Direction;
  /** Defaults to true; identity fields (e.g. a Harbor task name) are not mutable. */
  mutable?: boolean;
  scale?: boolean;
  description?: string;
}

export type FamilyConfig = Record<string, unknown>;

export interface FieldError {
  path: string;
  message: string;
}

export type ValidationState = "valid" | "invalid" | "unsolvable";

export interface ValidationResult {
  state: ValidationState;
  /** Best achievable success rate, where the family has a validator that can compute it. */
  pMax?: number;
  errors: FieldError[];
  details?: unknown;
}

/** Hidden per-config difficulty for the curriculum arena. */
export interface DifficultyEstimate {
  /** Higher is harder, roughly in [-3, 3]. */
  difficulty: number;
  /** Best achievable success rate in [0, 1]. */
  pMax: number;
  /** Non-negative loadings over SKILL_DIRECTIONS (horizon, uncertainty, precision), summing to 1. */
  skills: number[];
}

export interface SampleOptions {
  /**
   * Restrict difficulty-signed fields to this window of their easy(0) -> hard(1) scale,
   * e.g. { min: 0.7, max: 1 } samples the hard end. Defaults to the whole range.
   */
  hardness?: { min: number; max: number };
}

export type ParseResult<C> = { ok: true; config: C } | { ok: false; errors: FieldError[] };

export interface FamilyDefinition<C extends FamilyConfig = FamilyConfig> {
  id: string;
  version: string;
  description: string;
  builtin: boolean;
  fields: FieldSpec[];
  /** Strict zod schema of a config (unknown keys rejected). */
  schema: z.ZodType<C>;
  /** JSON Schema (draft 2020-12) of a config. */
  jsonSchema: Record<string, unknown>;
  /** Draw a config that validates, deterministically for the rng state. */
  sample(rng: Rng, opts?: SampleOptions): C;
  /** Schema check plus the family's own validator (solvability, p_max). */
  validate(config: unknown): ValidationResult;
  /** Hidden difficulty, p_max and skill loadings (monotone in the difficulty-signed fields). */
  difficulty?(config: C): DifficultyEstimate;
}

/** Where a field value sits on its easy -> hard scale, and a config's hidden difficulty from that. */
import { getFieldValue } from "./field-path";
import { SKILL_DIRECTIONS, type FieldSpec } from "./types";

/** True when the field is numeric with finite bounds and mutates on a log scale (scale field, positive min). */
export function usesLogScale(field: FieldSpec): boolean {
  return field.scale === true && field.min !== undefined && field.min > 0 && field.max !== undefined && field.max > field.min;
}

/** Position of a numeric value within the field bounds in [0, 1] (log scale for scale fields); undefined without bounds. */
export function numericPosition(field: FieldSpec, value: number): number | undefined {
  if (field.min === undefined || field.max === undefined) return undefined;
  if (field.max === field.min) return 0;
  const t = usesLogScale(field)
    ? (Math.log(value) - Math.log(field.min)) / (Math.log(field.max) - Math.log(field.min))
    : (value - field.min) / (field.max - field.min);
  return Math.min(1, Math.max(0, t));
}

/** Inverse of numericPosition: the value at position t in [0, 1] of the field bounds (unrounded). */
export function valueAtPosition(field: FieldSpec, t: number): number {
  const min = field.min ?? 0;
  const max = field.max ?? min;
  const u = Math.min(1, Math.max(0, t));
  if (usesLogScale(field)) return Math.exp(Math.log(min) + u * (Math.log(max) - Math.log(min)));
  return min + u * (max - min);
}

/** Raw position of a value on the field's own order in [0, 1] (levels or bounds), ignoring the difficulty sign. */
export function fieldPosition(field: FieldSpec, value: unknown): number | undefined {
  switch (field.kind) {
    case "integer":
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? numericPosition(field, value) : undefined;
    case "ordinal": {
      const levels = field.levels ?? [];
      const index = levels.indexOf(value as never);
      if (index < 0) return undefined;
      return levels.length > 1 ? index / (levels.length - 1) : 0;
    }
    case "boolean":
      return typeof value === "boolean" ? (value ? 1 : 0) : undefined;
    case "nominal":
      return undefined;
  }
}

/** Hardness of a value in [0, 1] (0 easiest, 1 hardest) for difficulty-signed fields; undefined otherwise. */
export function fieldHardness(field: FieldSpec, value: unknown): number | undefined {
  if (!field.difficulty) return undefined;
  const position = fieldPosition(field, value);
  if (position === undefined) return undefined;
  return field.difficulty === "up" ? position : 1 - position;
}

/**
 * The hardness window a curriculum's first generation is drawn from (SampleOptions.hardness): the
 * easier half of the config space, short of its easiest tenth, where a policy that has not trained
 * yet passes some attempts and fails others. The demo project's first generation (lib/demo/seed.ts)
 * and the arena's engineers' first population (lib/arena/engineer-strategy.ts) start here, as
 * threshold stepping and RLVE start at their easiest level; drawn from the whole generator, the
 * arena's first population put 12 of its 32 frozenlake-mapf groups under 10% success on tuning seed 0
 * (docs/BENCHMARKS.md, "Issue 16, seventeenth round").
 */
export const FIRST_GENERATION_HARDNESS: Readonly<{ min: number; max: number }> = Object.freeze({ min: 0.1, max: 0.55 });

export interface HardnessProfile {
  /** Weighted mean hardness of the difficulty-signed fields, in [0, 1]. */
  hardness: number;
  /** -3 + 6 * hardness, the arena's hidden difficulty scale. */
  difficulty: number;
  /** Loadings over SKILL_DIRECTIONS, non-negative, summing to 1. */
  skills: number[];
}

/**
 * Hidden difficulty of a config from its difficulty-signed fields: a weighted mean of their
 * hardness (missing values count as `missingHardness`), and skill loadings that grow with the
 * weight and hardness of each direction's fields. Monotone in every signed field by construction.
 */
export function hardnessProfile(
  fields: readonly FieldSpec[],
  config: unknown,
  opts: { weights?: Record<string, number>; missingHardness?: number; values?: Record<string, unknown> } = {},
): HardnessProfile {
  const missing = opts.missingHardness ?? 0.5;
  let weighted = 0;
  let totalWeight = 0;
  const load = SKILL_DIRECTIONS.map(() => 0);
  for (const field of fields) {
    if (!field.difficulty) continue;
    const weight = opts.weights?.[field.path] ?? 1;
    if (weight <= 0) continue;
    const value = opts.values && field.path in opts.values ? opts.values[field.path] : getFieldValue(config, field.path);
    const h = fieldHardness(field, value) ?? missing;
    weighted += weight * h;
    totalWeight += weight;
    const skill = SKILL_DIRECTIONS.indexOf(field.direction as never);
    const share = weight * (0.25 + h);
    if (skill >= 0) load[skill] += share;
    else for (let i = 0; i < load.length; i++) load[i] += share / load.length;
  }
  const hardness = totalWeight > 0 ? weighted / totalWeight : missing;
  const loadSum = load.reduce((a, b) => a + b, 0);
  const skills = loadSum > 0 ? load.map((x) => x / loadSum) : load.map(() => 1 / load.length);
  return { hardness, difficulty: -3 + 6 * hardness, skills };
}

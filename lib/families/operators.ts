/** Mutation, directed stepping, crossover and novelty distance over a family's fields (ENGINEER.md). */
import { getFieldValue, setFieldValue } from "./field-path";
import { numericPosition } from "./hardness";
import type { Rng } from "./rng";
import { sampleField } from "./sampling";
import type { Direction, FamilyConfig, FieldSpec } from "./types";

/** Multiplicative mutation spread of scale fields: x exp(N(0, SCALE_SIGMA)). */
export const SCALE_SIGMA = 0.15;
/** Gaussian step of number fields as a share of their range. */
export const NUMBER_SIGMA_SHARE = 0.05;
/** Directed step of number fields (stepHarder) as a share of their range. */
export const NUMBER_STEP_SHARE = 0.1;
const NUMBER_DECIMALS = 1e4;

function clamp(value: number, min: number | undefined, max: number | undefined): number {
  let v = value;
  if (min !== undefined && v < min) v = min;
  if (max !== undefined && v > max) v = max;
  return v;
}

function roundNumber(value: number, field: FieldSpec): number {
  return clamp(Math.round(value * NUMBER_DECIMALS) / NUMBER_DECIMALS, field.min, field.max);
}

function reflect(value: number, min: number, max: number): number {
  if (max <= min) return min;
  let v = value;
  for (let i = 0; i < 8 && (v < min || v > max); i++) v = v > max ? 2 * max - v : 2 * min - v;
  return clamp(v, min, max);
}

function isInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value);
}

/** An integer step of at least one unit from `value` in direction `dir`, falling back to the other direction at a bound. */
function integerStep(field: FieldSpec, value: number, proposed: number, dir: number): number {
  let next = proposed === value ? value + dir : proposed;
  next = clamp(next, field.min, field.max);
  if (next === value) next = clamp(value - dir, field.min, field.max);
  return next;
}

function mutateInteger(rng: Rng, field: FieldSpec, value: number): number {
  const { min, max } = field;
  if (min !== undefined && max !== undefined && min >= max) return value;
  if (field.direction === "diversify") {
    if (min === undefined || max === undefined) return value + rng.int(1, 1_000_000);
    const lo = Math.ceil(min);
    const hi = Math.floor(max);
    if (hi <= lo) return value;
    const draw = rng.int(lo, hi - 1);
    return draw >= value ? draw + 1 : draw;
  }
  if (field.scale && value > 0) {
    const factor = Math.exp(SCALE_SIGMA * rng.normal());
    return integerStep(field, value, Math.round(value * factor), factor >= 1 ? 1 : -1);
  }
  const dir = rng.bool() ? 1 : -1;
  return integerStep(field, value, value + dir, dir);
}

function mutateNumber(rng: Rng, field: FieldSpec, value: number): number {
  const { min, max } = field;
  if (min !== undefined && max !== undefined && min >= max) return value;
  let next: number;
  if (field.scale && value > 0) {
    next = clamp(value * Math.exp(SCALE_SIGMA * rng.normal()), min, max);
  } else if (min !== undefined && max !== undefined) {
    next = reflect(value + NUMBER_SIGMA_SHARE * (max - min) * rng.normal(), min, max);
  } else {
    next = clamp(value + NUMBER_SIGMA_SHARE * Math.max(1, Math.abs(value)) * rng.normal(), min, max);
  }
  next = roundNumber(next, field);
  if (next === value) {
    // Too small a draw to show after rounding: take the smallest visible step inwards.
    const dir = max !== undefined && value >= max ? -1 : 1;
    next = roundNumber(value + dir / NUMBER_DECIMALS, field);
  }
  return next;
}

/**
 * One random edit of a field value (ENGINEER.md): integers +-1 (seeds redrawn), scale fields
 * x exp(N(0, 0.15)) rounded with at least one step, numbers + N(0, (0.05 range)^2) reflected at the
 * bounds, ordinals one level up or down, nominals a different level, booleans flipped. A missing
 * or ill-typed value is freshly sampled; immutable fields are returned unchanged.
 */
export function mutateField(rng: Rng, field: FieldSpec, value: unknown): unknown {
  if (field.mutable === false) return value;
  switch (field.kind) {
    case "integer":
      return isInteger(value) ? mutateInteger(rng, field, value) : sampleField(rng, field);
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? mutateNumber(rng, field, value) : sampleField(rng, field);
    case "boolean":
      return typeof value === "boolean" ? !value : sampleField(rng, field);
    case "ordinal": {
      const levels = field.levels ?? [];
      const index = levels.indexOf(value as never);
      if (index < 0) return sampleField(rng, field);
      if (levels.length < 2) return value;
      if (index === 0) return levels[1];
      if (index === levels.length - 1) return levels[index - 1];
      return levels[index + (rng.bool() ? 1 : -1)];
    }
    case "nominal": {
      const others = (field.levels ?? []).filter((level) => level !== value);
      return others.length > 0 ? rng.pick(others) : value;
    }
  }
}

/**
 * Move a difficulty-signed field one step harder (sign 1) or easier (sign -1), staying inside its
 * bounds: integers one unit (scale fields x exp(0.15), at least one unit), numbers 0.1 of the range
 * (scale fields x exp(0.15)), ordinals one level, booleans to their hard/easy value. Returns the value
 * unchanged at a bound, for unsigned fields and for missing values.
 */
export function stepHarder(field: FieldSpec, value: unknown, sign: 1 | -1 = 1): unknown {
  if (!field.difficulty) return value;
  const dir = field.difficulty === "up" ? sign : -sign;
  switch (field.kind) {
    case "integer": {
      if (!isInteger(value)) return value;
      const proposed = field.scale && value > 0 ? Math.round(value * Math.exp(SCALE_SIGMA * dir)) : value + dir;
      const next = clamp(proposed === value ? value + dir : proposed, field.min, field.max);
      return next;
    }
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) return value;
      const range = field.min !== undefined && field.max !== undefined ? field.max - field.min : Math.max(1, Math.abs(value));
      const proposed = field.scale && value > 0 ? value * Math.exp(SCALE_SIGMA * dir) : value + dir * NUMBER_STEP_SHARE * range;
      return roundNumber(proposed, field);
    }
    case "ordinal": {
      const levels = field.levels ?? [];
      const index = levels.indexOf(value as never);
      if (index < 0) return value;
      return levels[Math.min(levels.length - 1, Math.max(0, index + dir))];
    }
    case "boolean":
      return typeof value === "boolean" ? dir > 0 : value;
    case "nominal":
      return value;
  }
}

export interface FieldEdit {
  path: string;
  from: unknown;
  to: unknown;
}

/**
 * A child config with `edits` random field mutations (distinct mutable fields, optionally only
 * those of one direction). Returns the child and the list of edits that changed something.
 */
export function mutateConfig<C extends FamilyConfig>(
  rng: Rng,
  fields: readonly FieldSpec[],
  config: C,
  opts: { edits?: number; direction?: Direction } = {},
): { config: C; edits: FieldEdit[] } {
  const candidates = fields.filter(
    (f) =>
      f.mutable !== false &&
      (opts.direction === undefined || f.direction === opts.direction) &&
      (f.kind !== "nominal" || (f.levels?.length ?? 0) > 1),
  );
  const chosen = rng.shuffle(candidates).slice(0, Math.max(0, opts.edits ?? rng.int(1, 3)));
  let child = config;
  const edits: FieldEdit[] = [];
  for (const field of chosen) {
    const from = getFieldValue(child, field.path);
    const to = mutateField(rng, field, from);
    if (to === undefined || to === from) continue;
    child = setFieldValue(child, field.path, to);
    edits.push({ path: field.path, from, to });
  }
  return { config: child, edits };
}

/** Uniform crossover: each mutable field from parent a or b with equal probability (identity fields from a). */
export function crossover<C extends FamilyConfig>(rng: Rng, fields: readonly FieldSpec[], a: C, b: C): C {
  let child = a;
  for (const field of fields) {
    if (field.mutable === false || !rng.bool()) continue;
    child = setFieldValue(child, field.path, getFieldValue(b, field.path));
  }
  return child;
}

/**
 * Distance of two values of one field in [0, 1]: normalised L1 on numbers (log scale for scale fields) and ordinals, Hamming on
 * nominals, booleans and seeds.
 */
export function fieldDistance(field: FieldSpec, a: unknown, b: unknown): number {
  if (a === undefined && b === undefined) return 0;
  if (a === undefined || b === undefined) return 1;
  if (a === b) return 0;
  if ((field.kind === "integer" || field.kind === "number") && field.direction !== "diversify") {
    if (typeof a !== "number" || typeof b !== "number") return 1;
    const pa = numericPosition(field, a);
    const pb = numericPosition(field, b);
    if (pa !== undefined && pb !== undefined) return Math.abs(pa - pb);
    return Math.min(1, Math.abs(a - b) / (Math.abs(a) + Math.abs(b)));
  }
  if (field.kind === "ordinal") {
    const levels = field.levels ?? [];
    const ia = levels.indexOf(a as never);
    const ib = levels.indexOf(b as never);
    if (ia < 0 || ib < 0 || levels.length < 2) return 1;
    return Math.abs(ia - ib) / (levels.length - 1);
  }
  return 1;
}

/** Novelty distance of two configs in [0, 1]: the mean of fieldDistance over the family's fields. */
export function distance(family: { fields: readonly FieldSpec[] }, a: unknown, b: unknown): number {
  if (family.fields.length === 0) return 0;
  let sum = 0;
  for (const field of family.fields) sum += fieldDistance(field, getFieldValue(a, field.path), getFieldValue(b, field.path));
  return sum / family.fields.length;
}

/** Novelty of a config: its distance to the nearest member of a population (1 for an empty population). */
export function novelty(family: { fields: readonly FieldSpec[] }, config: unknown, population: readonly unknown[]): number {
  let best = 1;
  for (const other of population) best = Math.min(best, distance(family, config, other));
  return best;
}

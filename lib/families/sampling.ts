/** Sampling config values from field metadata (the generic sampler behind every family). */
import { setFieldValue } from "./field-path";
import { fieldHardness, usesLogScale, valueAtPosition } from "./hardness";
import type { Rng } from "./rng";
import type { FamilyConfig, FieldLevel, FieldSpec, SampleOptions } from "./types";

/** True when the sampler can draw values for the field (bounds for numbers, levels for ordinal/nominal). */
export function isSampleable(field: FieldSpec): boolean {
  switch (field.kind) {
    case "integer":
    case "number":
      return field.min !== undefined && field.max !== undefined && field.min <= field.max;
    case "ordinal":
    case "nominal":
      return (field.levels?.length ?? 0) > 0;
    case "boolean":
      return true;
  }
}

function clampWindow(opts?: SampleOptions): { min: number; max: number } {
  const lo = Math.min(1, Math.max(0, opts?.hardness?.min ?? 0));
  const hi = Math.min(1, Math.max(0, opts?.hardness?.max ?? 1));
  return lo <= hi ? { min: lo, max: hi } : { min: hi, max: lo };
}

function pickInWindow(rng: Rng, field: FieldSpec, candidates: FieldLevel[], window: { min: number; max: number }): FieldLevel {
  if (!field.difficulty) return rng.pick(candidates);
  const inside = candidates.filter((level) => {
    const h = fieldHardness(field, level) ?? 0;
    return h >= window.min - 1e-9 && h <= window.max + 1e-9;
  });
  if (inside.length > 0) return rng.pick(inside);
  const centre = (window.min + window.max) / 2;
  let best = candidates[0];
  for (const level of candidates) {
    if (Math.abs((fieldHardness(field, level) ?? 0) - centre) < Math.abs((fieldHardness(field, best) ?? 0) - centre)) best = level;
  }
  return best;
}

/**
 * Draw one value for a field: integers uniform (log-uniform for scale fields), numbers uniform,
 * levels uniform, booleans fair; difficulty-signed fields stay inside opts.hardness.
 * Returns undefined for fields the sampler cannot draw (open nominal identities).
 */
export function sampleField(rng: Rng, field: FieldSpec, opts?: SampleOptions): FieldLevel | undefined {
  if (!isSampleable(field)) return undefined;
  const window = clampWindow(opts);
  switch (field.kind) {
    case "integer":
    case "number": {
      const min = field.min as number;
      const max = field.max as number;
      const h = rng.float(window.min, window.max);
      const t = field.difficulty === "down" ? 1 - h : field.difficulty === "up" ? h : rng.next();
      if (field.kind === "number") return Math.min(max, Math.max(min, valueAtPosition(field, t)));
      const lo = Math.ceil(min);
      const hi = Math.floor(max);
      if (usesLogScale(field)) {
        // Half-integer margins give the end points their fair share of the log-uniform mass.
        const a = Math.log(lo - 0.5);
        const value = Math.round(Math.exp(a + t * (Math.log(hi + 0.5) - a)));
        return Math.min(hi, Math.max(lo, value));
      }
      return Math.min(hi, Math.max(lo, Math.floor(lo + t * (hi - lo + 1))));
    }
    case "ordinal":
    case "nominal":
      return pickInWindow(rng, field, field.levels as FieldLevel[], window);
    case "boolean":
      return pickInWindow(rng, field, [false, true], window) as boolean;
  }
}

/** A config with every sampleable mutable field drawn (starting from `base`); identity fields are left as in `base`. */
export function sampleFromFields(rng: Rng, fields: readonly FieldSpec[], opts?: SampleOptions, base: FamilyConfig = {}): FamilyConfig {
  let config = base;
  for (const field of fields) {
    if (field.mutable === false) continue;
    const value = sampleField(rng, field, opts);
    if (value !== undefined) config = setFieldValue(config, field.path, value);
  }
  return config;
}

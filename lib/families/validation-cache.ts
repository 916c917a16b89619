/**
 * Validators that remember their answers: a family whose validator remembers every answer for one
 * engineer run, and a bounded memo of the most recent answers for a costly check.
 */
import { canonicalJson } from "./hash";
import type { FamilyDefinition, ValidationResult } from "./types";

/** Wrap `family.validate` with a cache keyed by the config's canonical JSON (for one engineer run). */
export function withValidationCache<F extends FamilyDefinition>(family: F): F {
  const cache = new Map<string, ValidationResult>();
  return {
    ...family,
    validate(config: unknown): ValidationResult {
      const key = canonicalJson(config);
      let result = cache.get(key);
      if (!result) {
        result = family.validate(config);
        cache.set(key, result);
      }
      return result;
    },
  };
}

/**
 * Wrap a costly check with a memo of its `limit` most recently used answers, keyed by the config's
 * canonical JSON. The frozenlake sampler validates the config it returns and the engineer validates
 * that same config right after; with this the second call is a lookup, with memory bounded however
 * long the process runs. Any answer may be remembered (persuasion-game's p_max is a number, 0 included).
 */
export function rememberRecent<C, R = ValidationResult>(check: (config: C) => R, limit: number): (config: C) => R {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be an integer >= 1, got ${limit}`);
  const recent = new Map<string, R>();
  return (config: C) => {
    const key = canonicalJson(config);
    if (recent.has(key)) {
      const known = recent.get(key) as R;
      recent.delete(key); // most recently used goes last
      recent.set(key, known);
      return known;
    }
    const result = check(config);
    recent.set(key, result);
    if (recent.size > limit) recent.delete(recent.keys().next().value as string); // the least recently used
    return result;
  };
}

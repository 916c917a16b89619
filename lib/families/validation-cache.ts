/** A family whose validator remembers its answers, so one run never validates the same config twice. */
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

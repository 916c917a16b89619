import { describe, expect, it } from "vitest";
import { getBuiltinFamily } from "./registry";
import { createRng } from "./rng";
import { withValidationCache } from "./validation-cache";

describe("withValidationCache", () => {
  it("answers like the family and validates each config once", () => {
    const family = getBuiltinFamily("frozenlake-mapf")!;
    let calls = 0;
    const counted = { ...family, validate: (c: unknown) => (calls++, family.validate(c)) };
    const cached = withValidationCache(counted);
    const config = family.sample(createRng(1));
    expect(cached.validate(config)).toEqual(family.validate(config));
    cached.validate({ ...config }); // same content, another object
    expect(calls).toBe(1);
    expect(cached.validate({ ...config, size: 999 }).state).toBe("invalid");
    expect(calls).toBe(2);
  });
});

import { describe, expect, it } from "vitest";
import { getBuiltinFamily } from "./registry";
import { createRng } from "./rng";
import type { ValidationResult } from "./types";
import { rememberRecent, withValidationCache } from "./validation-cache";

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

describe("rememberRecent", () => {
  const counting = () => {
    const seen: string[] = [];
    const check = (c: { id: number; tag?: string }): ValidationResult => {
      seen.push(JSON.stringify(c));
      return { state: c.id % 2 ? "valid" : "invalid", errors: [] };
    };
    return { seen, check };
  };

  it("answers a config it saw from memory, by content rather than object or key order", () => {
    const { seen, check } = counting();
    const memo = rememberRecent(check, 4);
    const first = memo({ id: 1, tag: "a" });
    expect(memo({ tag: "a", id: 1 })).toBe(first);
    expect(seen).toHaveLength(1);
    expect(memo({ id: 2, tag: "a" }).state).toBe("invalid");
    expect(seen).toHaveLength(2);
  });

  it("keeps the most recently used answers and forgets the least recently used beyond its limit", () => {
    const { seen, check } = counting();
    const memo = rememberRecent(check, 2);
    memo({ id: 1 });
    memo({ id: 2 });
    memo({ id: 1 }); // 1 is now the most recent; 2 is the least
    memo({ id: 3 }); // evicts 2
    expect(seen).toHaveLength(3);
    memo({ id: 1 });
    expect(seen).toHaveLength(3);
    memo({ id: 2 });
    expect(seen).toHaveLength(4);
    expect(() => rememberRecent(check, 0)).toThrow(/limit/);
  });

  it("remembers any answer, a falsy one too (persuasion-game's p_max of 0)", () => {
    let calls = 0;
    const memo = rememberRecent((c: { id: number }) => (calls++, c.id > 1 ? c.id / 10 : 0), 4);
    expect(memo({ id: 1 })).toBe(0);
    expect(memo({ id: 1 })).toBe(0);
    expect(memo({ id: 3 })).toBe(0.3);
    expect(calls).toBe(2);
  });

  it("frozenlake's validator gives the same answer remembered as computed", () => {
    const family = getBuiltinFamily("frozenlake-mapf")!;
    for (let seed = 0; seed < 5; seed++) {
      const config = family.sample(createRng(seed));
      expect(family.validate(config)).toEqual(family.validate(JSON.parse(JSON.stringify(config))));
    }
  });
});

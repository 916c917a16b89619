import { describe, expect, it } from "vitest";
import { builtinFamilies } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import type { FamilyConfig } from "@/lib/families/types";
import { canonicalJson } from "@/lib/families/hash";
import { arenaConfig, createWorld, runArena } from "./run";
import { catalogueConfig, trapCell, trapMap, type ArenaWorld } from "./world";
import { TRAP_KINDS } from "./types";

const family = builtinFamilies["search-agent"];
const small = { ...arenaConfig(true), budget: 2048, targetSize: 32 };

/** Generator draws of a world until `count` of them fall in a trap of the given kind. */
function trapsOf(world: ArenaWorld, kind: string, count: number): FamilyConfig[] {
  const rng = createRng("test:traps");
  const out: FamilyConfig[] = [];
  for (let i = 0; out.length < count && i < 20_000; i++) {
    const config = world.generate(rng);
    if (world.task(config).trap === kind) out.push(config);
  }
  return out;
}

describe("traps", () => {
  it("cover 10-20% of the generator's mass in sixths (every kind present), deterministically for a seed, nested across shares", () => {
    const rng = createRng("test:mass");
    const draws = Array.from({ length: 3000 }, () => family.sample(rng));
    for (const seed of [0, 1, 2]) {
      const traps = trapMap(family, seed, 0.15);
      const kinds = draws.map((c) => traps(trapCell(family, c)));
      const share = kinds.filter((k) => k !== null).length / draws.length;
      expect(share, `seed ${seed}`).toBeGreaterThanOrEqual(0.1);
      expect(share, `seed ${seed}`).toBeLessThanOrEqual(0.2);
      for (const kind of TRAP_KINDS) expect(kinds.filter((k) => k === kind).length / draws.length, kind).toBeGreaterThan(0.005);
      const again = trapMap(family, seed, 0.15);
      expect(draws.map((c) => again(trapCell(family, c)))).toEqual(kinds);
      // the trap regions of 0.15 are inside those of 0.3 (so one target set avoids both)
      const wider = trapMap(family, seed, 0.3);
      draws.forEach((c, i) => {
        if (kinds[i] !== null) expect(wider(trapCell(family, c))).not.toBeNull();
      });
    }
  }, 60_000);

  it("exist only in the traps setting", () => {
    const clean = createWorld({ family: family.id, strategy: "uniform", setting: "clean", seed: 0, quick: true }, small);
    const rng = createRng("test:clean");
    for (let i = 0; i < 500; i++) expect(clean.task(clean.generate(rng)).trap).toBeNull();
  });

  it("noisy TVs succeed half the time whatever the skills, teach nothing and pass the validator", () => {
    const world = createWorld(
      { family: family.id, strategy: "uniform", setting: "traps", seed: 0, quick: true },
      { ...small, learner: { ...small.learner, forgetting: 0 } },
    );
    const tvs = trapsOf(world, "noisy_tv", 16);
    expect(tvs).toHaveLength(16);
    const before = Array.from(world.learner.theta);
    const results = world.run(tvs);
    expect(Array.from(world.learner.theta)).toEqual(before);
    const rate = results.reduce((a, r) => a + r.s, 0) / results.reduce((a, r) => a + r.n, 0);
    expect(rate).toBeGreaterThan(0.35);
    expect(rate).toBeLessThan(0.65);
    for (const config of tvs) {
      expect(world.learner.successProbability(world.task(config))).toBe(0.5);
      expect(world.validate(config).state).toBe("valid");
    }
    world.learner.theta.fill(4);
    expect(world.learner.successProbability(world.task(tvs[0]))).toBe(0.5);
  });

  it("unsolvable ones never succeed and the validator says so; invalid ones spend their rollouts and are flagged", () => {
    const world = createWorld({ family: family.id, strategy: "uniform", setting: "traps", seed: 1, quick: true }, small);
    const unsolvable = trapsOf(world, "unsolvable", 8);
    const invalid = trapsOf(world, "invalid", 8);
    for (const config of unsolvable) expect(world.validate(config)).toMatchObject({ state: "unsolvable", pMax: 0 });
    for (const config of invalid) expect(world.validate(config).state).toBe("invalid");
    const charged = world.validatorRollouts;
    // one rollout a first call (a config drawn twice is charged once)
    expect(charged).toBe(world.validatorCalls);
    expect(charged).toBeGreaterThan(8);
    world.learner.theta.fill(6);
    const results = world.run([...unsolvable, ...invalid]);
    expect(results.every((r) => r.s === 0)).toBe(true);
    expect(results.filter((r) => r.invalid)).toHaveLength(invalid.length);
    expect(world.rollouts).toBe(16 * world.groupSize + charged);
    expect(world.trapRollouts).toBe(16 * world.groupSize);
    expect(world.stats().invalidRate).toBeCloseTo(0.5, 12);
  });
});

describe("the world", () => {
  it("never spends more than its budget and records the target after every batch", () => {
    const world = createWorld({ family: family.id, strategy: "uniform", setting: "clean", seed: 3, quick: true }, small);
    const rng = createRng("test:budget");
    const results = world.run(Array.from({ length: 400 }, () => world.generate(rng)));
    expect(results).toHaveLength(small.budget / world.groupSize);
    expect(world.rollouts).toBe(small.budget);
    expect(world.exhausted).toBe(true);
    expect(world.run([world.generate(rng)])).toHaveLength(0);
    expect(world.curve.rollouts[0]).toBe(0);
    expect(world.curve.rollouts).toHaveLength(1 + Math.ceil(results.length / small.batchSize));
    for (const s of world.curve.success) {
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    }
  });

  it("holds out the same hard-end target in both settings, and training raises success on it", () => {
    const clean = createWorld({ family: family.id, strategy: "uniform", setting: "clean", seed: 4, quick: true }, small);
    const traps = createWorld({ family: family.id, strategy: "uniform", setting: "traps", seed: 4, quick: true }, small);
    expect(clean.targetSuccess()).toBeCloseTo(traps.targetSuccess(), 12);
    expect(clean.targetSize).toBe(Math.max(64, small.targetSize));
    const start = clean.targetSuccess();
    expect(start).toBeLessThan(0.1);
    // train on the configs that teach most (the oracle's pick) until the budget is spent
    const rng = createRng("test:train");
    while (!clean.exhausted) {
      const pool = Array.from({ length: 64 }, () => clean.generate(rng));
      clean.run(pool.sort((a, b) => clean.expectedGain(b) - clean.expectedGain(a)).slice(0, 32));
    }
    expect(clean.targetSuccess()).toBeGreaterThan(start);
    expect(clean.targetCvar(0.1)).toBeLessThanOrEqual(clean.targetSuccess());
  });

  it("gives every seed its own hidden difficulties, the same for every strategy of that seed", () => {
    const config = family.sample(createRng("test:config"));
    const a = createWorld({ family: family.id, strategy: "uniform", setting: "clean", seed: 5, quick: true }, small).task(config);
    const b = createWorld({ family: family.id, strategy: "plr", setting: "clean", seed: 5, quick: true }, small).task(config);
    const c = createWorld({ family: family.id, strategy: "uniform", setting: "clean", seed: 6, quick: true }, small).task(config);
    expect(b).toEqual(a);
    expect(c.difficulty).not.toBe(a.difficulty);
    expect(a.skills.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
    expect(a.pMax).toBeCloseTo(family.difficulty!(config).pMax, 12);
  });
});

describe("the generator's catalogue", () => {
  it("gives a hardness window the same configs whichever window of its rounding came first in the thread", () => {
    // two windows that round to the same 4 decimals (0.3125-0.7125); a family id no other test uses, so `a` comes first
    const a = { min: 0.31246, max: 0.71246 };
    const b = { min: 0.312536, max: 0.712536 };
    const lake = { ...builtinFamilies["frozenlake-mapf"], id: "catalogue-order" };
    const draw = (hardness: { min: number; max: number }) => [0, 1, 2, 3].map((i) => canonicalJson(catalogueConfig(lake, i, { hardness })));
    // what any order gives: the catalogue's own stream drawn from the rounded window, not from the first caller's window
    const rng = createRng("arena:catalogue:catalogue-order:0.3125-0.7125");
    const rounded = [0, 1, 2, 3].map(() => canonicalJson(lake.sample(rng, { hardness: { min: 0.3125, max: 0.7125 } })));
    expect(draw(a)).toEqual(rounded);
    expect(draw(b)).toEqual(rounded);
  });

  it("makes a quick matrix cell's figures the same with one thread or two", async () => {
    const run = (workers: number) =>
      runArena({ seeds: 10, quick: true, family: "search-agent", traps: 0.15, strategies: ["heuristic"], workers });
    const [one, two] = [await run(0), await run(2)];
    expect(two.settings).toEqual(one.settings);
    expect(two.curves).toEqual(one.curves);
  }, 120_000);
});

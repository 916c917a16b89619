import { describe, expect, it } from "vitest";
import { builtinFamilies } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import type { FamilyConfig } from "@/lib/families/types";
import type { EngineerInput } from "@/lib/engineer/types";
import { engineerStrategy } from "./engineer-strategy";
import { goalChecks, oracleMissesToo, ratioText } from "./goal";
import { learnerVariant } from "./learners";
import { gainShapeValue } from "./learner";
import { arenaConfig, createWorld, type ArenaJob } from "./run";
import { freshLevels } from "./strategies";
import type { GoalCheck, StrategyResult } from "./types";
import { MIN_TARGET_SIZE, targetConfigs, type ArenaWorld } from "./world";

const family = builtinFamilies["search-agent"];
const small = { ...arenaConfig(true), budget: 4096, targetSize: 32 };
const job = (over: Partial<ArenaJob> = {}): ArenaJob => ({
  family: family.id,
  strategy: "uniform",
  setting: "traps",
  seed: 1000,
  quick: true,
  ...over,
});

function trapsOf(world: ArenaWorld, kind: string, count: number): FamilyConfig[] {
  const rng = createRng(`test:held-out:${kind}`);
  const out: FamilyConfig[] = [];
  for (let i = 0; out.length < count && i < 40_000; i++) {
    const config = world.generate(rng);
    if (world.task(config).trap === kind) out.push(config);
  }
  return out;
}

describe("the same information for every strategy", () => {
  it("gives no strategy a validator in mode none: validate refuses, screening passes everything and charges nothing", () => {
    const world = createWorld(job({ validator: "none" }), small);
    const config = world.generate(createRng("test:none"));
    expect(world.hasValidator).toBe(false);
    expect(() => world.validate(config)).toThrow(/no strategy a validator/);
    expect(world.screen(config)).toBe(true);
    expect(world.rollouts).toBe(0);
  });

  it("never hands p_max to a strategy: the shared validator answers a state only, also where p_max < 1", () => {
    const world = createWorld(job({ setting: "clean" }), small);
    const rng = createRng("test:pmax");
    let capped = 0;
    for (let i = 0; i < 300; i++) {
      const config = world.generate(rng);
      const result = world.validate(config);
      if (result.state === "valid") expect(result.pMax).toBeUndefined();
      if (world.task(config).pMax > 0 && world.task(config).pMax < 0.9) capped += 1;
    }
    expect(capped).toBeGreaterThan(0);
  });

  it("charges the first validator call on a config validatorCost rollouts, counted in the budget, and a repeat nothing", () => {
    for (const cost of [1, 3]) {
      const world = createWorld(job({ validatorCost: cost }), small);
      const rng = createRng("test:charge");
      const a = world.generate(rng);
      let b = world.generate(rng);
      while (JSON.stringify(b) === JSON.stringify(a)) b = world.generate(rng);
      world.validate(a);
      world.validate(a);
      world.validate(b);
      expect(world.validatorCalls).toBe(2);
      expect(world.validatorRollouts).toBe(2 * cost);
      expect(world.rollouts).toBe(2 * cost);
      expect(world.remaining).toBe(small.budget - 2 * cost);
    }
  });

  it("lets baselines screen fresh levels through the shared validator: no invalid or unsolvable level is played, and screening is paid for", () => {
    const world = createWorld(job({ trapShare: 0.3 }), small);
    const levels = freshLevels(world, createRng("test:screen"), 200);
    expect(levels.length).toBeGreaterThan(100);
    for (const config of levels) expect(["invalid", "unsolvable"]).not.toContain(world.task(config).trap);
    expect(world.validatorRollouts).toBeGreaterThanOrEqual(levels.length);
  });

  it("shows the engineers no p_max without a validator (members unvalidated) and no p_max with one", async () => {
    for (const validator of ["none", "shared-charged"] as const) {
      const world = createWorld(job({ strategy: "heuristic", validator }), small);
      const seen: EngineerInput[] = [];
      const strategy = engineerStrategy(
        (input) => {
          seen.push(input);
          return { items: [], dropped: [], notes: [] };
        },
        { label: "probe", populationSize: 16 },
      );
      await strategy(world, createRng("test:engineer"));
      expect(seen.length).toBeGreaterThan(2);
      for (const input of seen)
        for (const m of input.population) {
          expect(m.validation.pMax ?? null).toBeNull();
          if (validator === "none") expect(m.validation.state).toBe("unvalidated");
        }
      if (validator === "none") expect(world.validatorRollouts).toBe(0);
      else expect(world.validatorRollouts).toBeGreaterThan(0);
    }
  });
});

describe("held-out traps", () => {
  const world = () => createWorld(job({ trapShare: 0.3, learner: "default" }), { ...small, learner: { ...small.learner, forgetting: 0 } });

  it("a drifting TV's success rises with play while it teaches nothing, and the validator passes it", () => {
    const w = world();
    const [tv] = trapsOf(w, "drifting_tv", 1);
    expect(tv).toBeDefined();
    expect(w.validate(tv).state).toBe("valid");
    const before = Array.from(w.learner.theta);
    const rates: number[] = [];
    for (let round = 0; round < 6; round++) {
      const results = w.run(Array.from({ length: 8 }, () => tv));
      rates.push(results.reduce((a, r) => a + r.s, 0) / results.reduce((a, r) => a + r.n, 0));
    }
    expect(Array.from(w.learner.theta)).toEqual(before);
    expect(rates[5]).toBeGreaterThan(rates[0] + 0.2);
  });

  it("a hidden-unsolvable config passes the validator and never succeeds; a deceptive one looks learnable and unlearns", () => {
    const w = world();
    const hidden = trapsOf(w, "hidden_unsolvable", 4);
    for (const config of hidden) expect(w.validate(config).state).toBe("valid");
    w.learner.theta.fill(6);
    expect(w.run(hidden).every((r) => r.s === 0)).toBe(true);
    const w2 = world();
    const deceptive = trapsOf(w2, "deceptive", 8);
    expect(deceptive.length).toBe(8);
    for (const config of deceptive) expect(w2.validate(config).state).toBe("valid");
    // near its frontier a deceptive config succeeds sometimes (looks learnable), and training on it lowers the skills
    w2.learner.theta.fill(0);
    const before = w2.learner.theta.reduce((a, b) => a + b, 0);
    for (let i = 0; i < 20; i++) w2.run(deceptive);
    expect(w2.learner.theta.reduce((a, b) => a + b, 0)).toBeLessThan(before);
    expect(w2.expectedGain(deceptive[0])).toBeLessThanOrEqual(0);
  });
});

describe("held-out learners", () => {
  it("differ from the default one: gains peaking away from 1/2, per-skill forgetting, interference, a warped hidden difficulty", () => {
    const base = arenaConfig(true).learner;
    const d = learnerVariant("default").params(base, 1000);
    const drift = learnerVariant("drift").params(base, 1000);
    const tangled = learnerVariant("tangled").params(base, 1000);
    const peak = (shape: readonly [number, number]) => shape[0] / (shape[0] + shape[1]);
    expect(Math.abs(peak(drift.gainShape) - 0.5)).toBeGreaterThanOrEqual(0.25);
    expect(gainShapeValue(peak(drift.gainShape), drift.gainShape)).toBeCloseTo(0.25, 12);
    expect(Array.isArray(drift.forgetting) && new Set(drift.forgetting as number[]).size).toBe(3);
    expect(tangled.transfer).toBeLessThan(0);
    expect(d.transfer).toBeGreaterThan(0);
    const config = family.sample(createRng("test:warp"));
    const plain = createWorld(job({ setting: "clean" }), small).task(config);
    const warped = createWorld(job({ setting: "clean", learner: "tangled" }), small).task(config);
    expect(warped.skills).toEqual(plain.skills);
    expect(Math.abs(warped.difficulty - plain.difficulty)).toBeGreaterThan(1e-6);
    expect(() => learnerVariant("nope")).toThrow(/Unknown learner "nope": use default, drift, tangled/);
  });

  it("a learner with interference gains less on the skills it is not trained on than the default one, which gains them by transfer", () => {
    const run = (learner: "default" | "tangled") => {
      const w = createWorld(job({ setting: "clean", learner }), { ...small, learner: { ...small.learner, forgetting: 0 } });
      const rng = createRng("test:interference");
      const configs: FamilyConfig[] = [];
      // configs loading mostly on skill 0, near the frontier
      for (let i = 0; configs.length < 32 && i < 20_000; i++) {
        const c = w.generate(rng);
        const t = w.task(c);
        if (t.trap === null && t.pMax > 0.5 && t.skills[0] > 0.6 && Math.abs(t.difficulty - 1) < 1.5) configs.push(c);
      }
      w.learner.theta.fill(0);
      for (let k = 0; k < 10; k++) w.run(configs);
      return Array.from(w.learner.theta);
    };
    const plain = run("default");
    const tangled = run("tangled");
    // interference widens the gap between the trained skill and the others
    expect(tangled[0] - tangled[2]).toBeGreaterThan(plain[0] - plain[2] + 0.1);
    expect(tangled[2]).toBeLessThan(plain[2]);
  });
});

describe("target sets", () => {
  it("hold at least 64 configs on frozenlake-mapf and persuasion-game (whose hard ends are nearly empty)", () => {
    for (const id of ["frozenlake-mapf", "persuasion-game"] as const)
      for (const seed of [1000]) {
        const configs = targetConfigs(builtinFamilies[id], seed, 64, { min: 0.75, max: 1 });
        expect(configs.length, `${id} seed ${seed}`).toBeGreaterThanOrEqual(MIN_TARGET_SIZE);
        for (const c of configs) expect(builtinFamilies[id].validate(c).state).toBe("valid");
      }
  }, 120_000);
});

describe("the goal", () => {
  const r = (to50: number | null, to80: number | null): StrategyResult => ({
    rolloutsTo50: to50,
    rolloutsTo50CI: [0, 0],
    rolloutsTo80: to80,
    rolloutsTo80CI: [0, 0],
    auc: 0,
    aucCI: [0, 0],
    finalSuccess: 0,
    cvar10: 0,
    zeroSignal: 0,
    invalidRate: 0,
    diversity: 0,
    reached50: 1,
    reached80: 1,
  });

  it("wins a check at <= 0.6x uniform and <= each other baseline, counts never as the budget, and is met only when every check is won", () => {
    const settings = {
      clean: { uniform: r(1000, null), heuristic: r(600, 6000), plr: r(599, 7000) },
      traps: { uniform: r(1000, 9000), heuristic: r(601, 5000), plr: r(700, null) },
    };
    const goal = goalChecks(settings, 10_000);
    const check = (setting: string, level: number, baseline: string) =>
      goal.checks.find((c) => c.setting === setting && c.level === level && c.baseline === baseline)!;
    expect(goal.checks).toHaveLength(8);
    expect(check("clean", 50, "uniform").won).toBe(true);
    expect(check("clean", 50, "plr").won).toBe(false);
    expect(check("clean", 80, "uniform")).toMatchObject({ other: 10_000, won: true });
    expect(check("traps", 50, "uniform").won).toBe(false);
    expect(check("traps", 80, "plr")).toMatchObject({ other: 10_000, won: true });
    expect(goal.lost).toBe(2);
    expect(goal.met).toBe(false);
    const allWon = goalChecks(
      { clean: { uniform: r(1000, 1000), heuristic: r(500, 500) }, traps: { uniform: r(1000, 1000), heuristic: r(500, 500) } },
      10_000,
    );
    expect(allWon.met).toBe(true);
  });

  it("reports each check's ratio to three decimals and the 50% ratios against uniform and PLR per setting", () => {
    const settings = {
      clean: { uniform: r(1000, 3000), heuristic: r(600, 2000), plr: r(599, 7000), threshold: r(0, 1) },
      traps: { uniform: r(1000, 9000), heuristic: r(601, 5000), plr: r(700, null) },
    };
    const goal = goalChecks(settings, 10_000);
    const check = (setting: string, level: number, baseline: string) =>
      goal.checks.find((c) => c.setting === setting && c.level === level && c.baseline === baseline)!;
    // heuristic / other, rounded to 1/1000; an other of 0 rollouts divides by 1, not by 0
    expect(check("clean", 50, "uniform")).toMatchObject({ heuristic: 600, other: 1000, ratio: 0.6, limit: 0.6, won: true });
    expect(check("clean", 80, "uniform")).toMatchObject({ heuristic: 2000, other: 3000, ratio: 0.667, won: false });
    expect(check("clean", 50, "plr").ratio).toBe(1.002);
    expect(check("traps", 50, "plr").ratio).toBe(0.859);
    expect(check("clean", 50, "threshold")).toMatchObject({ other: 0, ratio: 600, won: false });
    expect(check("clean", 80, "threshold")).toMatchObject({ other: 1, ratio: 2000, won: false });
    // the summary ratios are the 50% checks of each setting, null where that baseline did not run
    expect(goal.heuristicVsUniform50).toEqual({ clean: 0.6, traps: 0.601 });
    expect(goal.heuristicVsPlr50).toEqual({ clean: 1.002, traps: 0.859 });
    const noPlr = goalChecks({ clean: { uniform: r(1000, 1000), heuristic: r(500, 500) }, traps: {} }, 10_000);
    expect(noPlr.heuristicVsPlr50).toEqual({ clean: null, traps: null });
    expect(noPlr.heuristicVsUniform50).toEqual({ clean: 0.5, traps: null });
  });

  it("says of every check whether the oracle would meet it (a level it never reached counts as the budget), and nothing without an oracle", () => {
    const settings = {
      // clean: the oracle meets 0.6x uniform at 50% (590 <= 600) but not at 80% (it never gets there: the budget)
      clean: { uniform: r(1000, 9000), heuristic: r(700, 9500), threshold: r(650, 8000), oracle: r(590, null) },
      // traps: the oracle exactly at threshold's figure meets it (<=), one rollout more would not
      traps: { uniform: r(1000, 9000), heuristic: r(900, 9000), threshold: r(800, 6000), oracle: r(800, 6001) },
    };
    const goal = goalChecks(settings, 10_000);
    const check = (setting: string, level: number, baseline: string) =>
      goal.checks.find((c) => c.setting === setting && c.level === level && c.baseline === baseline)!;
    expect(check("clean", 50, "uniform")).toMatchObject({ won: false, oracle: 590, oracleWon: true });
    expect(check("clean", 80, "uniform")).toMatchObject({ won: false, oracle: 10_000, oracleWon: false });
    expect(check("clean", 50, "threshold")).toMatchObject({ won: false, oracle: 590, oracleWon: true });
    expect(check("clean", 80, "threshold")).toMatchObject({ won: false, oracle: 10_000, oracleWon: false });
    expect(check("traps", 50, "threshold")).toMatchObject({ won: false, oracle: 800, oracleWon: true });
    expect(check("traps", 80, "threshold")).toMatchObject({ won: false, oracle: 6001, oracleWon: false });
    expect(check("traps", 80, "uniform")).toMatchObject({ won: false, oracle: 6001, oracleWon: false });
    // the oracle is no rival: it adds no check, and the counts are the rivals' alone
    expect(goal.checks.some((c) => c.baseline === "oracle")).toBe(false);
    expect(goal.checks).toHaveLength(8);
    const withoutOracle = goalChecks({ clean: { uniform: r(1000, 1000), heuristic: r(500, 500) }, traps: {} }, 10_000);
    expect(withoutOracle.checks[0]).not.toHaveProperty("oracle");
    expect(withoutOracle.checks[0]).not.toHaveProperty("oracleWon");
  });

  it("marks a check as one the oracle misses too only when it is lost, the oracle loses it and its figure is a number", () => {
    const lost: GoalCheck = {
      setting: "clean",
      level: 80,
      baseline: "uniform",
      heuristic: 900,
      other: 1000,
      ratio: 0.9,
      limit: 0.6,
      won: false,
    };
    expect(oracleMissesToo({ ...lost, oracle: 700, oracleWon: false })).toBe(true);
    expect(oracleMissesToo({ ...lost, oracle: 500, oracleWon: true })).toBe(false);
    expect(oracleMissesToo({ ...lost, won: true, oracle: 700, oracleWon: false })).toBe(false);
    expect(oracleMissesToo(lost)).toBe(false);
    // a crafted upload: a verdict without a figure, or a figure that is no number, draws no remark (never "NaN")
    expect(oracleMissesToo({ ...lost, oracleWon: false })).toBe(false);
    expect(oracleMissesToo({ ...lost, oracle: "x" as unknown as number, oracleWon: false })).toBe(false);
  });

  it("writes a check's ratio on the side of its limit that its verdict says, with as few decimals as that takes", () => {
    const check = (heuristic: number, other: number, limit: number) => ({ heuristic, other, limit, won: heuristic <= limit * other });
    // lost by 20 rollouts in 45,000 (the matrix's search-agent · tangled traps 0.3 against threshold): not "1.00"
    expect(ratioText(check(45_063, 45_043, 1))).toBe("1.0004");
    // lost against uniform x0.6 by 0.3%: not "0.60"
    expect(ratioText(check(17_731, 29_411, 0.6))).toBe("0.603");
    // won exactly at the limit, won just under it, lost clearly, and a baseline that never got there (the budget)
    expect(ratioText(check(600, 1000, 0.6))).toBe("0.60");
    expect(ratioText(check(9_999, 10_000, 1))).toBe("1.00");
    expect(ratioText(check(28_572, 27_040, 1))).toBe("1.06");
    expect(ratioText(check(49_152, 49_152, 0.6))).toBe("1.00");
    expect(ratioText(check(15_246, 0, 1))).toBe("15246.00");
    // a verdict the figures contradict (a crafted upload) still prints a number, at most six decimals
    expect(ratioText({ heuristic: 500, other: 1000, limit: 0.6, won: false })).toBe("0.500000");
  });

  it("makes no check without the heuristic, and a goal without checks is not met", () => {
    const goal = goalChecks({ clean: { uniform: r(1000, 1000), plr: r(500, 500) }, traps: { uniform: r(1000, 1000) } }, 10_000);
    expect(goal.checks).toEqual([]);
    expect(goal).toMatchObject({ won: 0, lost: 0, met: false });
    expect(goal.heuristicVsUniform50).toEqual({ clean: null, traps: null });
  });
});

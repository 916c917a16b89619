import { describe, expect, it } from "vitest";
import { startFakeOpenAI } from "@/tests/fakes/openai-server";
import { heuristicEngineer } from "@/lib/engineer/heuristic";
import { configHash } from "@/lib/families/hash";
import { createRng } from "@/lib/families/rng";
import { engineerStrategy } from "./engineer-strategy";
import { arenaConfig, createWorld, resolveStrategies, runArena, runArenaMatrix, runSeed, summarizeRuns } from "./run";
import { ARENA_SETTINGS, STRATEGY_IDS, type SeedRun, type StrategyId } from "./types";

const tiny = { ...arenaConfig(true), budget: 2048, targetSize: 32 };

describe("runSeed", () => {
  it("is deterministic for a seed, and differs across seeds", async () => {
    for (const strategy of ["uniform", "threshold", "rlve", "sfl", "plr", "accel", "heuristic", "oracle"] as StrategyId[]) {
      const job = { family: "search-agent", strategy, setting: "traps" as const, seed: 3, quick: true };
      const a = await runSeed(job, tiny);
      const b = await runSeed(job, tiny);
      expect(b, strategy).toEqual(a);
      expect(a.curve.rollouts[a.curve.rollouts.length - 1]).toBeLessThanOrEqual(tiny.budget);
      expect(a.curve.rollouts[a.curve.rollouts.length - 1]).toBeGreaterThan(tiny.budget - 8 * tiny.batchSize);
      const other = await runSeed({ ...job, seed: 4 }, tiny);
      expect(other.curve.success, strategy).not.toEqual(a.curve.success);
    }
  }, 30_000);

  it("draws the engineers' own randomness again under another engineer seed, and nothing else", async () => {
    const job = { family: "search-agent", setting: "traps" as const, seed: 3, quick: true };
    const heuristic = await runSeed({ ...job, strategy: "heuristic" }, tiny);
    // 0 is the recorded draw: the same run as no engineer seed at all.
    expect(await runSeed({ ...job, strategy: "heuristic", engineerSeed: 0 }, tiny)).toEqual(heuristic);
    const other = await runSeed({ ...job, strategy: "heuristic", engineerSeed: 5 }, tiny);
    expect(other.curve.success).not.toEqual(heuristic.curve.success);
    expect(await runSeed({ ...job, strategy: "heuristic", engineerSeed: 5 }, tiny)).toEqual(other);
    // The arena and the baselines do not move: the same world, the same uniform and oracle runs.
    for (const strategy of ["uniform", "threshold", "oracle"] as StrategyId[]) {
      expect(await runSeed({ ...job, strategy, engineerSeed: 5 }, tiny), strategy).toEqual(await runSeed({ ...job, strategy }, tiny));
    }
  }, 30_000);

  it("refuses an engineer seed that is not a whole number in [0, 2^31), and says so in the notes when it is not 0", async () => {
    const base = {
      seeds: 1,
      quick: true,
      families: ["search-agent"],
      learners: ["default" as const],
      trapShares: [0.15],
      strategies: ["uniform"],
    };
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 31])
      await expect(runArenaMatrix({ ...base, engineerSeed: bad })).rejects.toThrow(/engineer seed/);
    const [plain] = await runArenaMatrix(base);
    expect(plain.notes.join(" ")).not.toMatch(/XOR/);
    const [other] = await runArenaMatrix({ ...base, engineerSeed: 7 });
    expect(other.notes.join(" ")).toMatch(/proposal seeds XOR 7/);
  }, 30_000);

  it("counts SFL's scoring rollouts as probes within the budget", async () => {
    const run = await runSeed({ family: "search-agent", strategy: "sfl", setting: "clean", seed: 0, quick: true }, tiny);
    expect(run.probeRollouts).toBeGreaterThan(0);
    expect(run.probeRollouts).toBeLessThanOrEqual(run.curve.rollouts[run.curve.rollouts.length - 1]);
  });
});

describe("the heuristic engineer as a strategy", () => {
  it("keeps its population at size with configs it has never had before", async () => {
    const world = createWorld(
      { family: "search-agent", strategy: "heuristic", setting: "traps", seed: 2, quick: true },
      { ...tiny, budget: 4096 },
    );
    const seen = new Set<string>();
    let generations = 0;
    const strategy = engineerStrategy(
      (input) => {
        generations += 1;
        expect(input.population.length).toBe(32);
        expect(input.options.groupSize).toBe(8);
        for (const m of input.population) expect(m.n).toBe(8);
        const out = heuristicEngineer(input);
        for (const item of out.items) {
          if (item.op !== "mutate" && item.op !== "add") continue;
          const hash = configHash(item.config);
          expect(seen.has(hash) || input.knownHashes.has(hash)).toBe(false);
          seen.add(hash);
          expect(world.validate(item.config).state).toBe("valid");
        }
        return out;
      },
      { label: "test" },
    );
    await strategy(world, createRng("test:heuristic"));
    expect(generations).toBeGreaterThan(5);
    expect(world.rollouts).toBeLessThanOrEqual(4096);
  });
});

describe("the LLM engineer as a strategy", () => {
  const llmFor = (url: string) => ({ baseURL: url, apiKey: null, model: "fake-model", timeoutMs: 5_000, maxRetries: 0 });

  it("asks the endpoint every generation and trains on what it keeps", async () => {
    const fake = await startFakeOpenAI(Array.from({ length: 10 }, () => ({ content: '{"items": []}' })));
    try {
      const run = await runSeed(
        { family: "search-agent", strategy: "llm", setting: "clean", seed: 0, quick: true },
        tiny,
        llmFor(fake.url),
      );
      // 2048 rollouts: 4 generations of 64 x 8, a proposal after each but the last
      expect(fake.requests).toHaveLength(3);
      expect(JSON.stringify(fake.requests[0].body)).toContain("search-agent");
      expect(run.curve.rollouts[run.curve.rollouts.length - 1]).toBe(tiny.budget);
    } finally {
      await fake.close();
    }
  });

  it("keeps the population through a failed proposal and gives up after three in a row", async () => {
    const fake = await startFakeOpenAI([]);
    try {
      await expect(
        runSeed(
          { family: "search-agent", strategy: "llm", setting: "clean", seed: 0, quick: true },
          { ...tiny, budget: 8192 },
          llmFor(fake.url),
        ),
      ).rejects.toThrow(/engineer endpoint rejected/);
      expect(fake.requests).toHaveLength(3);
    } finally {
      await fake.close();
    }
  });
});

describe("summaries", () => {
  const run = (over: Partial<SeedRun>): SeedRun => ({
    strategy: "uniform",
    setting: "clean",
    seed: 0,
    budget: 1000,
    curve: { rollouts: [0, 1000], success: [0, 1] },
    rolloutsTo50: 500,
    rolloutsTo80: null,
    auc: 0.5,
    finalSuccess: 1,
    cvar10: 0.9,
    zeroSignal: 0.2,
    invalidRate: 0,
    diversity: 0.3,
    probeRollouts: 0,
    trapRollouts: 0,
    validatorRollouts: 0,
    ...over,
  });

  it("takes IQMs over seeds, counting a seed that never reaches a level as the budget", () => {
    const runs = [100, 200, 300, 400].map((x, seed) => run({ seed, rolloutsTo50: x, rolloutsTo80: seed < 2 ? 900 : null }));
    const r = summarizeRuns(runs, 1000);
    expect(r.rolloutsTo50).toBe(250);
    expect(r.reached50).toBe(4);
    expect(r.rolloutsTo80).toBe(950); // IQM of 900, 900, 1000, 1000
    expect(r.reached80).toBe(2);
    expect(r.rolloutsTo50CI[0]).toBeLessThanOrEqual(250);
    expect(r.rolloutsTo50CI[1]).toBeGreaterThanOrEqual(250);
    const never = summarizeRuns([run({ rolloutsTo80: null }), run({ rolloutsTo80: null })], 1000);
    expect(never.rolloutsTo80).toBeNull();
    expect(never.reached80).toBe(0);
  });

  it("runs every strategy except the LLM engineer unless an endpoint is configured, and checks names", () => {
    expect(resolveStrategies(undefined, false)).toEqual(STRATEGY_IDS.filter((s) => s !== "llm"));
    expect(resolveStrategies(undefined, true)).toEqual([...STRATEGY_IDS]);
    expect(resolveStrategies(["plr", "uniform"], false)).toEqual(["uniform", "plr"]);
    expect(() => resolveStrategies(["nope"], false)).toThrow(/Unknown strategy "nope"/);
    expect(() => resolveStrategies(["llm"], false)).toThrow(/OPENAI_BASE_URL/);
  });
});

describe("runArena", () => {
  it("returns a well-formed report for 2 quick seeds", async () => {
    const progress: number[] = [];
    const report = await runArena({ seeds: 2, quick: true, onProgress: (done) => progress.push(done) });
    const strategies = STRATEGY_IDS.filter((s) => s !== "llm" || report.settings.clean.llm);
    expect(report).toMatchObject({
      version: 1,
      seeds: 2,
      quick: true,
      family: "search-agent",
      budget: { rollouts: arenaConfig(true).budget },
    });
    expect(new Date(report.createdAt).toString()).not.toBe("Invalid Date");
    expect(progress).toEqual(Array.from({ length: 2 * 2 * strategies.length }, (_, i) => i + 1));
    for (const setting of ARENA_SETTINGS) {
      expect(Object.keys(report.settings[setting]).sort()).toEqual([...strategies].sort());
      for (const strategy of strategies) {
        const r = report.settings[setting][strategy]!;
        for (const key of ["auc", "finalSuccess", "cvar10", "zeroSignal", "invalidRate", "diversity"] as const) {
          expect(r[key], `${setting} ${strategy} ${key}`).toBeGreaterThanOrEqual(0);
          expect(r[key], `${setting} ${strategy} ${key}`).toBeLessThanOrEqual(1);
        }
        expect(r.reached50).toBeLessThanOrEqual(2);
        if (r.rolloutsTo50 !== null) {
          expect(r.rolloutsTo50CI[0]).toBeLessThanOrEqual(r.rolloutsTo50);
          expect(r.rolloutsTo50CI[1]).toBeGreaterThanOrEqual(r.rolloutsTo50);
        }
        expect(r.aucCI[0]).toBeLessThanOrEqual(r.auc);
        const curve = report.curves[setting][strategy]!;
        expect(curve.rollouts).toHaveLength(101);
        expect(curve.success).toHaveLength(101);
        expect(curve.rollouts[100]).toBe(report.budget.rollouts);
      }
      expect(report.settings[setting].oracle!.invalidRate).toBe(0);
    }
    // with the shared validator, uniform screens its levels and never plays an invalid one
    expect(report.settings.clean.uniform!.invalidRate).toBe(0);
    expect(report.settings.traps.uniform!.invalidRate).toBe(0);
    for (const ratio of [report.goal.heuristicVsUniform50, report.goal.heuristicVsPlr50]) {
      for (const setting of ARENA_SETTINGS) if (ratio[setting] !== null) expect(ratio[setting]).toBeGreaterThan(0);
    }
    // 2 settings x 2 levels x 6 baselines
    expect(report.goal.checks).toHaveLength(24);
    for (const c of report.goal.checks) expect(c.won).toBe(c.heuristic <= c.limit * c.other);
    expect(report.goal.met).toBe(report.goal.lost === 0);
    expect(report).toMatchObject({ seedBase: 1000, learner: "default", trapShare: 0.15, validator: { mode: "shared-charged", cost: 1 } });
    expect(report.notes.length).toBeGreaterThan(0);
    expect(report.durationMs).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  }, 120_000);
});

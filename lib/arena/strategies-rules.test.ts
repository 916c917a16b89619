/**
 * The rules of the arena's baselines one at a time, against a scripted world (a fake at the
 * ArenaWorld boundary) that records every batch in order (probe or training): the validator's
 * screen and its draw cap, threshold stepping's exact steps and holds, RLVE's window, prompt count
 * and raise threshold, SFL's probe cadence, kept share and half-buffer batches, PLR's and ACCEL's
 * half-full rule, ACCEL's edits, the oracle's candidate draw. Written against the survivors of a
 * mutation run (docs/BENCHMARKS.md, "Mutation testing"): each test fails when its rule is inverted.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "@/lib/families/rng";
import type { FamilyConfig } from "@/lib/families/types";
import {
  BASELINE_DEFAULTS,
  accelStrategy,
  freshLevels,
  groupScore,
  oracleStrategy,
  plrStrategy,
  rlveStrategy,
  sflStrategy,
  thresholdStrategy,
  uniformStrategy,
  type StrategyRun,
} from "./strategies";
import type { ArenaWorld, GroupResult } from "./world";

interface Script {
  /** successes of a group of 10 on a config (default 5) */
  successes?: (config: FamilyConfig) => number;
  batches: number;
  batchSize?: number;
  /** the shared validator's verdict (default: every level passes) */
  screen?: (config: FamilyConfig) => boolean;
  gain?: (config: FamilyConfig) => number;
  /** validator calls the budget pays for, as the real world charges them (default: unlimited) */
  screenBudget?: number;
}

/**
 * Validator calls after which the fake gives up on a strategy that never returns (a free validator
 * costs no budget, so a retry loop would spin forever; a synchronous loop cannot be stopped by a
 * test timeout). No rule here needs more than a few thousand calls.
 */
const RUNAWAY_SCREENS = 200_000;

const FLAGS = ["a", "b", "c", "d", "e", "f"];

/** A world of `batches` batches (probes count), groups of 10; configs carry an id, the centre `h` of their hardness window and six flags ACCEL can edit. */
function scriptedWorld(script: Script) {
  const draws: { min: number; max: number }[] = [];
  const runs: { probe: boolean; configs: FamilyConfig[] }[] = [];
  let drawn = 0;
  let screens = 0;
  const world = {
    batchSize: script.batchSize ?? 4,
    family: { id: "scripted", fields: FLAGS.map((path) => ({ path, kind: "boolean", difficulty: "up", direction: "horizon" })) },
    get exhausted() {
      return runs.length >= script.batches || screens >= (script.screenBudget ?? Infinity);
    },
    screen(config: FamilyConfig) {
      screens += 1;
      if (screens > RUNAWAY_SCREENS) throw new Error(`the strategy called the validator ${RUNAWAY_SCREENS} times without ending`);
      return script.screen?.(config) ?? true;
    },
    generate(_rng: unknown, opts?: { hardness?: { min: number; max: number } }) {
      const window = opts?.hardness ?? { min: 0, max: 1 };
      draws.push(window);
      drawn += 1;
      return { id: drawn, h: (window.min + window.max) / 2, ...Object.fromEntries(FLAGS.map((f) => [f, false])) };
    },
    targetGradient: () => [1],
    expectedTargetGain: (config: FamilyConfig) => script.gain?.(config) ?? 0,
    run(configs: readonly FamilyConfig[], opts: { probe?: boolean } = {}): GroupResult[] {
      runs.push({ probe: opts.probe === true, configs: [...configs] });
      return configs.map((config) => ({ config, key: JSON.stringify(config), n: 10, s: script.successes?.(config) ?? 5, invalid: false }));
    },
  };
  const training = () => runs.filter((r) => !r.probe).map((r) => r.configs);
  return { world: world as unknown as ArenaWorld, draws, runs, training };
}

const centre = (w: { min: number; max: number }) => (w.min + w.max) / 2;
/** RLVE's level index of a drawn window (20 levels of width 0.05). */
const rlveLevel = (w: { min: number; max: number }) => Math.round(w.min * BASELINE_DEFAULTS.rlve.levels);

describe("freshLevels and an all-rejecting validator", () => {
  it("draws at most 4 x count + 8 levels when the validator rejects every one, and count when it passes them", () => {
    const rejecting = scriptedWorld({ batches: 1, screen: () => false });
    expect(freshLevels(rejecting.world, createRng(1), 3)).toEqual([]);
    expect(rejecting.draws).toHaveLength(4 * 3 + 8);
    const passing = scriptedWorld({ batches: 1 });
    expect(freshLevels(passing.world, createRng(1), 3).map((c) => c.id)).toEqual([1, 2, 3]);
  });

  const strategies: [string, StrategyRun][] = [
    ["uniform", uniformStrategy()],
    ["threshold", thresholdStrategy()],
    ["rlve", rlveStrategy()],
    ["sfl", sflStrategy()],
    ["plr", plrStrategy()],
    ["accel", accelStrategy()],
  ];
  // catches: an empty batch played, or a strategy that dereferences the missing results
  it.each(strategies)("%s stops without running anything when the validator rejects every level", (_, strategy) => {
    // the fake charges validator calls as the real world does (validator cost > 0): the budget ends every run
    const { world, runs } = scriptedWorld({ batches: 50, screen: () => false, screenBudget: 1000 });
    strategy(world, createRng(1));
    expect(runs).toEqual([]);
  });

  // catches: a strategy that retries an empty batch for as long as the budget lasts, which never ends when validator
  // calls are free (validator cost 0); the timeout only guards the run, the runaway guard of the fake is what fails
  it.each(strategies)(
    "%s stops when the validator rejects every level and its calls are free",
    (_, strategy) => {
      const { world, runs, draws } = scriptedWorld({ batches: 50, screen: () => false });
      strategy(world, createRng(1));
      expect(runs).toEqual([]);
      expect(draws.length).toBeGreaterThan(0);
    },
    30_000,
  );
});

describe("thresholdStrategy's steps", () => {
  it("steps by exactly the step knob, down as well as up, and holds in the band at any level", () => {
    // succeed below hardness 0.2, fail from there: 0 -> 0.1 -> 0.2 -> back to 0.1 -> 0.2 ...
    const bounce = scriptedWorld({ successes: (c) => ((c.h as number) < 0.2 ? 10 : 0), batches: 6 });
    thresholdStrategy()(bounce.world, createRng(1));
    const perBatch = bounce.runs.map((r) => centre(bounce.draws[(r.configs[0].id as number) - 1]));
    expect(perBatch.map((x) => x.toFixed(3))).toEqual(["0.050", "0.100", "0.200", "0.100", "0.200", "0.100"]);

    // a rate inside [0.3, 0.7] holds the level where it is (here 0.3), also exactly at 0.3
    for (const inBand of [5, 3]) {
      const hold = scriptedWorld({ successes: (c) => ((c.h as number) < 0.3 ? 10 : inBand), batches: 10 });
      thresholdStrategy()(hold.world, createRng(1));
      const tail = hold.runs.slice(4).map((r) => centre(hold.draws[(r.configs[0].id as number) - 1]).toFixed(3));
      expect(tail).toEqual(Array(6).fill("0.300"));
    }
  });

  it("takes its step from the knob, rounded to the 0.05 grid, and tops out at the window [0.9, 1]", () => {
    const wide = scriptedWorld({ successes: () => 10, batches: 4 });
    thresholdStrategy({ step: 0.15 })(wide.world, createRng(1));
    expect(wide.runs.map((r) => centre(wide.draws[(r.configs[0].id as number) - 1]).toFixed(3))).toEqual([
      "0.050",
      "0.150",
      "0.300",
      "0.450",
    ]);
    const top = scriptedWorld({ successes: () => 10, batches: 14 });
    thresholdStrategy()(top.world, createRng(1));
    expect(top.draws[top.draws.length - 1]).toEqual({ min: 0.9, max: 1 });
    for (const w of top.draws) expect(w.max - w.min).toBeCloseTo(0.1, 12);
  });
});

describe("rlveStrategy's window", () => {
  it("draws full batches from a window of 4 levels of width 0.05 ending at the top, and never beyond the last level", () => {
    const { world, draws, runs } = scriptedWorld({ successes: () => 10, batches: 500 });
    rlveStrategy()(world, createRng(5));
    for (const r of runs) expect(r.configs).toHaveLength(4);
    let highest = 0;
    for (const w of draws) {
      expect(w.max - w.min).toBeCloseTo(1 / BASELINE_DEFAULTS.rlve.levels, 12);
      const level = rlveLevel(w);
      expect(level).toBeGreaterThanOrEqual(highest - (BASELINE_DEFAULTS.rlve.window - 1));
      highest = Math.max(highest, level);
    }
    expect(highest).toBe(BASELINE_DEFAULTS.rlve.levels - 1);
    expect(Math.max(...draws.map((w) => w.max))).toBeCloseTo(1, 12);
  });

  it("raises the top only after 8 prompts at it, on the first chance when they all succeed", () => {
    const { world, draws } = scriptedWorld({ successes: () => 10, batches: 40 });
    rlveStrategy()(world, createRng(1));
    const levels = draws.map(rlveLevel);
    for (let k = 0; k < 4; k++) {
      const firstAbove = levels.indexOf(k + 1);
      expect(firstAbove).toBeGreaterThan(-1);
      expect(levels.slice(0, firstAbove).filter((l) => l === k).length).toBeGreaterThanOrEqual(BASELINE_DEFAULTS.rlve.minPrompts);
    }
    // the first 8 prompts (two batches) are all at level 0 and the third batch may already draw level 1
    expect(levels.slice(0, 8)).toEqual(Array(8).fill(0));
    expect(levels.slice(8, 12)).toContain(1);
  });

  it("raises at an accuracy of exactly the threshold, not below it, and reads the accuracy knob", () => {
    const top = (successes: number, overrides?: { accuracy: number }) => {
      const { world, draws } = scriptedWorld({ successes: () => successes, batches: 30 });
      rlveStrategy(overrides)(world, createRng(2));
      return Math.max(...draws.map(rlveLevel));
    };
    // n = 10 a group: at a threshold of 0.5, 5 of 10 raise and 4 of 10 do not
    expect(top(5, { accuracy: 0.5 })).toBeGreaterThan(0);
    expect(top(4, { accuracy: 0.5 })).toBe(0);
    // the tuned default (0.4): 4 of 10 raise, 3 of 10 do not
    expect(BASELINE_DEFAULTS.rlve.accuracy).toBe(0.4);
    expect(top(4)).toBeGreaterThan(0);
    expect(top(3)).toBe(0);
    expect(top(8, { accuracy: 0.9 })).toBe(0);
  });

  it("counts only the prompts at the top level", () => {
    // levels 0 and 1 always pass, level 2 always fails: the easier levels in the window must not carry it past 2
    const { world, draws } = scriptedWorld({ successes: (c) => ((c.h as number) < 0.1 ? 10 : 0), batches: 200 });
    rlveStrategy()(world, createRng(3));
    expect(Math.max(...draws.map(rlveLevel))).toBe(2);
  });
});

describe("sflStrategy's schedule", () => {
  it("probes `candidates` levels every 8 training batches, each training batch half from the kept set and half fresh", () => {
    const { world, runs } = scriptedWorld({ successes: (c) => (c.id as number) % 11, batches: 30 });
    sflStrategy({ candidates: 16 })(world, createRng(1));
    expect(runs.map((r) => (r.probe ? "P" : "t")).join("")).toBe(("P" + "t".repeat(8)).repeat(3) + "P" + "tt");
    let probedIds = new Set<unknown>();
    for (const r of runs) {
      if (r.probe) {
        expect(r.configs).toHaveLength(16);
        probedIds = new Set(r.configs.map((c) => c.id));
        continue;
      }
      expect(r.configs).toHaveLength(4);
      expect(r.configs.filter((c) => probedIds.has(c.id))).toHaveLength(2);
    }
  });

  it("keeps max(8, 2% of the candidates) levels, the best by p(1-p), ties in probe order", () => {
    // 512 candidates keep 11; distinct scores by id, so the kept set is the 11 best
    const wide = scriptedWorld({ successes: (c) => Math.min(10, Math.floor((c.id as number) / 50)), batches: 9, batchSize: 40 });
    sflStrategy({ candidates: 512 })(wide.world, createRng(1));
    const probe = wide.runs[0].configs;
    const kept = new Set(wide.training().flatMap((b) => b.filter((c) => (c.id as number) <= probe.length).map((c) => c.id)));
    expect(kept.size).toBe(Math.ceil(0.02 * 512));
    const best = Math.max(...probe.map((c) => groupScore({ n: 10, s: Math.min(10, Math.floor((c.id as number) / 50)) })));
    for (const id of kept) expect(groupScore({ n: 10, s: Math.min(10, Math.floor((id as number) / 50)) })).toBe(best);

    // every probed level scores the same: the first 8 probed are kept (128 candidates, and the default's 32)
    for (const [overrides, candidates] of [
      [{ candidates: 128 }, 128],
      [undefined, BASELINE_DEFAULTS.sfl.candidates],
    ] as const) {
      const flat = scriptedWorld({ batches: 9, batchSize: 40 });
      sflStrategy(overrides)(flat.world, createRng(1));
      expect(flat.runs[0].configs).toHaveLength(candidates);
      const keptFlat = new Set(flat.training().flatMap((b) => b.filter((c) => (c.id as number) <= candidates).map((c) => c.id)));
      expect([...keptFlat].sort((a, b) => (a as number) - (b as number))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    }
  });

  it("keeps its set when a refresh finds no valid level", () => {
    // the second probe's draws (ids 33-104: 16 candidates, at most 72 draws) are all rejected
    const { world, runs } = scriptedWorld({ batches: 14, screen: (c) => !((c.id as number) >= 33 && (c.id as number) <= 104) });
    sflStrategy({ candidates: 16 })(world, createRng(1));
    const firstProbe = new Set(runs[0].configs.map((c) => c.id));
    const afterRefresh = runs.slice(9).filter((r) => !r.probe);
    expect(afterRefresh.length).toBeGreaterThan(0);
    for (const r of afterRefresh) expect(r.configs.filter((c) => firstProbe.has(c.id))).toHaveLength(2);
  });
});

describe("plrStrategy and accelStrategy: replay once half full", () => {
  const capacity = BASELINE_DEFAULTS.plr.capacity;
  const probesBeforeFirstReplay = (runs: { probe: boolean }[]) => runs.findIndex((r) => !r.probe);

  it("PLR only probes until its buffer is half full, then replays about 80% of its batches", () => {
    const { world, runs } = scriptedWorld({ successes: (c) => (c.id as number) % 10, batches: 600 });
    plrStrategy()(world, createRng(1));
    expect(probesBeforeFirstReplay(runs)).toBe((BASELINE_DEFAULTS.plr.minFill * capacity) / 4);
    const after = runs.slice(probesBeforeFirstReplay(runs));
    const replayShare = after.filter((r) => !r.probe).length / after.length;
    expect(replayShare).toBeGreaterThan(0.7);
    expect(replayShare).toBeLessThan(0.9);
  });

  it("PLR reads its temperature knob: a flat temperature replays the buffer more evenly", () => {
    const distinctReplayed = (overrides?: { temperature: number }) => {
      const { world, training } = scriptedWorld({ successes: (c) => (c.id as number) % 10, batches: 200 });
      plrStrategy(overrides)(world, createRng(1));
      return new Set(
        training()
          .flat()
          .map((c) => c.id),
      ).size;
    };
    expect(distinctReplayed({ temperature: 100 })).toBeGreaterThan(distinctReplayed() + 20);
  });

  it("ACCEL probes fresh and edited levels, trains on replays only, and edits each replayed level with the edits knob", () => {
    for (const edits of [1, BASELINE_DEFAULTS.accel.edits]) {
      const { world, runs } = scriptedWorld({ successes: (c) => (c.id as number) % 10, batches: 200 });
      accelStrategy({ edits })(world, createRng(1));
      expect(probesBeforeFirstReplay(runs)).toBe((BASELINE_DEFAULTS.plr.minFill * capacity) / 4);
      let replays = 0;
      runs.forEach((r, i) => {
        if (r.probe) return;
        replays += 1;
        const next = runs[i + 1];
        if (!next) return;
        expect(next.probe).toBe(true);
        expect(next.configs.map((c) => c.id)).toEqual(r.configs.map((c) => c.id));
        next.configs.forEach((child, k) => {
          const changed = FLAGS.filter((f) => child[f] !== r.configs[k][f]).length;
          expect(changed).toBe(edits);
        });
      });
      expect(replays).toBeGreaterThan(10);
      // after the buffer is half full, about 80% of the batches it chooses (replay or fresh) are replays
      const chosen = runs.slice(probesBeforeFirstReplay(runs)).filter((r, i, after) => i === 0 || after[i - 1].probe);
      const share = chosen.filter((r) => !r.probe).length / chosen.length;
      expect(share).toBeGreaterThan(0.7);
      expect(share).toBeLessThan(0.9);
    }
  });

  it("ACCEL drops edited copies the validator rejects and goes on spending its budget", () => {
    const { world, runs } = scriptedWorld({ batches: 300, screen: (c) => FLAGS.every((f) => c[f] === false) });
    accelStrategy()(world, createRng(1));
    expect(runs).toHaveLength(300);
    expect(runs.some((r) => !r.probe)).toBe(true);
    for (const r of runs) for (const c of r.configs) for (const f of FLAGS) expect(c[f]).toBe(false);
  });
});

describe("oracleStrategy's candidates", () => {
  it("draws 8 x batch candidates a batch, alternating the whole generator and windows of width 0.2 on a 0.1 grid", () => {
    const { world, draws } = scriptedWorld({ batches: 3 });
    oracleStrategy()(world, createRng(1));
    expect(draws).toHaveLength(3 * BASELINE_DEFAULTS.oracle.candidates * 4);
    draws.forEach((w, i) => {
      if (i % 2 === 0) expect(w).toEqual({ min: 0, max: 1 });
      else {
        expect(w.max - w.min).toBeCloseTo(0.2, 12);
        expect(Math.round(w.min * 10)).toBeCloseTo(w.min * 10, 9);
        expect(w.min).toBeGreaterThanOrEqual(0);
        expect(w.max).toBeLessThanOrEqual(1 + 1e-12);
      }
    });
  });

  it("plays the first candidates drawn when their gains tie", () => {
    const { world, training } = scriptedWorld({ batches: 2 });
    oracleStrategy()(world, createRng(1));
    expect(training().map((b) => b.map((c) => c.id))).toEqual([
      [1, 2, 3, 4],
      [33, 34, 35, 36],
    ]);
  });
});

/**
 * The arena's adaptive baselines against a scripted world: RLVE's window rises only on success,
 * SFL trains on the probed levels that teach most (p(1-p)), PLR and ACCEL replay levels they have
 * seen, ACCEL edits what it replayed. Generic on purpose: the knobs are tuned elsewhere.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "@/lib/families/rng";
import type { FamilyConfig } from "@/lib/families/types";
import { accelStrategy, plrStrategy, rlveStrategy, sflStrategy } from "./strategies";
import type { ArenaWorld, GroupResult } from "./world";

function scriptedWorld(successes: (config: FamilyConfig, n: number) => number, batches: number) {
  const windows: { min: number; max: number }[] = [];
  const played: FamilyConfig[][] = [];
  const probed: GroupResult[] = [];
  let runs = 0;
  let drawn = 0;
  const world = {
    batchSize: 4,
    family: { id: "scripted", fields: [{ path: "h", kind: "number", min: 0, max: 1, difficulty: "up", direction: "horizon" }] },
    get exhausted() {
      return runs >= batches;
    },
    screen: () => true,
    generate(_rng: unknown, opts?: { hardness?: { min: number; max: number } }) {
      const window = opts?.hardness ?? { min: 0, max: 1 };
      windows.push(window);
      drawn += 1;
      return { id: drawn, h: (window.min + window.max) / 2 };
    },
    run(configs: readonly FamilyConfig[], opts: { probe?: boolean } = {}): GroupResult[] {
      runs += 1;
      const results = configs.map((config) => ({ config, key: JSON.stringify(config), n: 10, s: successes(config, 10), invalid: false }));
      if (opts.probe) probed.push(...results);
      else played.push([...configs]);
      return results;
    },
  };
  return { world: world as unknown as ArenaWorld, windows, played, probed };
}

describe("rlveStrategy", () => {
  it("raises the top of its window when the policy succeeds, and never when it fails", () => {
    const up = scriptedWorld((_, n) => n, 40);
    rlveStrategy()(up.world, createRng(1));
    const tops = up.windows.map((w) => w.max);
    expect(tops[tops.length - 1]).toBeGreaterThan(tops[0]);
    const down = scriptedWorld(() => 0, 40);
    rlveStrategy()(down.world, createRng(1));
    expect(Math.max(...down.windows.map((w) => w.max))).toBe(down.windows[0].max);
  });
});

describe("sflStrategy", () => {
  it("probes fresh levels and trains on the ones with the highest p(1-p)", () => {
    // success count by id: id % 11 of 10, so p(1-p) peaks at ids with id % 11 == 5
    const { world, played, probed } = scriptedWorld((config) => (config.id as number) % 11, 20);
    sflStrategy()(world, createRng(2));
    expect(probed.length).toBeGreaterThan(0);
    const probedIds = new Set(probed.map((r) => r.config.id));
    const replayed = played.flat().filter((c) => probedIds.has(c.id));
    expect(replayed.length).toBeGreaterThan(0);
    const score = (c: FamilyConfig) => {
      const p = ((c.id as number) % 11) / 10;
      return p * (1 - p);
    };
    const meanProbed = probed.reduce((a, r) => a + score(r.config), 0) / probed.length;
    const meanReplayed = replayed.reduce((a, c) => a + score(c), 0) / replayed.length;
    expect(meanReplayed).toBeGreaterThan(meanProbed);
    expect(meanReplayed).toBeGreaterThan(0.2);
  });
});

describe("plrStrategy and accelStrategy", () => {
  const teaching = (config: FamilyConfig) => ((config.id as number) % 2 === 0 ? 5 : 0);

  it("PLR replays levels it has seen once its buffer fills, mostly those that teach", () => {
    const { world, played } = scriptedWorld(teaching, 400);
    plrStrategy()(world, createRng(3));
    // replay batches train (not probes); a level counts once for its first play as a probe
    const seen = new Map<string, number>();
    for (const c of played.flat()) seen.set(JSON.stringify(c), (seen.get(JSON.stringify(c)) ?? 0) + 1);
    let teachingReplays = 0;
    let otherReplays = 0;
    for (const [key, count] of seen) {
      if ((JSON.parse(key).id as number) % 2 === 0) teachingReplays += count;
      else otherReplays += count;
    }
    expect(teachingReplays + otherReplays).toBeGreaterThan(0);
    expect(teachingReplays).toBeGreaterThan(2 * otherReplays);
  });

  it("ACCEL follows a replay batch with edited copies of the replayed levels", () => {
    const { world, played, probed } = scriptedWorld(teaching, 400);
    accelStrategy()(world, createRng(4));
    const edited = [...played.flat(), ...probed.map((r) => r.config)].filter((c) => c.h !== 0.5);
    expect(edited.length).toBeGreaterThan(0);
    for (const c of edited) {
      expect(c.h as number).toBeGreaterThanOrEqual(0);
      expect(c.h as number).toBeLessThanOrEqual(1);
    }
  });
});

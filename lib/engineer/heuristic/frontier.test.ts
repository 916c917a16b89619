import { describe, expect, it } from "vitest";
import type { FamilyDefinition, FieldSpec, SampleOptions } from "@/lib/families/types";
import type { EngineerInput, PopulationMember } from "../types";
import { heuristicEngineer } from ".";
import { parentSteps } from "./directed";
import {
  FRONTIER_AIM,
  FRONTIER_HALF_WIDTH,
  FRONTIER_MIN_MEMBERS,
  competenceFrontier,
  frontierRising,
  frontierWindow,
  memberHardness,
} from "./frontier";
import type { Scored } from "./model";
import { flInput } from "./test-input";

// One difficulty-signed field on 0..100: a config's hardness is its value / 100.
const field: FieldSpec = { path: "size", kind: "integer", min: 0, max: 100, difficulty: "up", direction: "horizon" };
const family = { id: "toy", fields: [field] } as unknown as FamilyDefinition;

function member(size: number, s: number, n = 8, state: PopulationMember["validation"]["state"] = "valid", history: number[] = []): Scored {
  return {
    member: { key: `m${size}`, config: { size }, n, s, validation: { state, pMax: null }, history } as unknown as PopulationMember,
    index: 0,
    q: n > 0 ? s / n : null,
    mean: (s + 1) / (n + 2),
    learnability: 0,
    priority: 0,
    hardnessWeight: 1,
    progress: 0,
    retire: state === "unsolvable" ? "unsolvable" : null,
    failure: { failures: n - s, dominant: null, top: null },
    infra: false,
  };
}

/** Members on a grid of hardness with success falling from 8/8 to 0/8 around `mid` (a logistic of slope 20). */
function population(mid: number): Scored[] {
  return [5, 15, 25, 35, 45, 55, 65, 75, 85, 95].map((size) => {
    const p = 1 / (1 + Math.exp(20 * (size / 100 - mid)));
    return member(size, Math.round(8 * p));
  });
}

describe("competence frontier", () => {
  it("reads a member's hardness from its difficulty-signed fields", () => {
    expect(memberHardness(family, { size: 30 })).toBeCloseTo(0.3, 6);
    expect(memberHardness({ ...family, fields: [{ ...field, difficulty: "down" }] } as FamilyDefinition, { size: 30 })).toBeCloseTo(0.7, 6);
    expect(memberHardness({ ...family, fields: [{ ...field, difficulty: undefined }] } as FamilyDefinition, { size: 30 })).toBeUndefined();
  });

  it("sits where the fitted success is 65%, a little easier than the 50% point, and follows the population", () => {
    const low = competenceFrontier(family, population(0.3)) as number;
    const high = competenceFrontier(family, population(0.7)) as number;
    // The 65% point of a falling curve lies below its 50% point (logit 0.62 / slope 20 = 0.03).
    expect(low).toBeGreaterThan(0.2);
    expect(low).toBeLessThan(0.3);
    expect(high).toBeGreaterThan(0.6);
    expect(high).toBeLessThan(0.7);
    expect(high - low).toBeGreaterThan(0.3);
    expect(FRONTIER_AIM).toBeCloseTo(Math.log(0.65 / 0.35), 1);
  });

  it("gives no frontier when success rises with hardness, with too few members, or from unsolvable and unmeasured ones", () => {
    const rising = population(0.5).map((sc, i, all) => ({
      ...sc,
      member: { ...sc.member, config: all[all.length - 1 - i].member.config },
    }));
    expect(competenceFrontier(family, rising)).toBeNull();
    expect(competenceFrontier(family, population(0.5).slice(0, 7))).toBeNull();
    const padded = [...population(0.5).slice(0, 7), member(50, 0, 8, "unsolvable"), member(60, 0, 0)];
    expect(competenceFrontier(family, padded)).toBeNull();
  });

  it("leaves unsolvable members out of the fit (their zeros would pull the frontier easier)", () => {
    const base = population(0.6);
    const withTraps = [...base, ...[30, 35, 40, 45].map((size) => member(size, 0, 8, "unsolvable"))];
    expect(competenceFrontier(family, withTraps)).toBeCloseTo(competenceFrontier(family, base) as number, 6);
  });

  it("is the 65% point (log-odds FRONTIER_AIM = 0.62) of the ridge-penalised maximum-likelihood logistic fit", () => {
    // expected values from an independent fit (plain gradient ascent on the same penalised log-likelihood, run to a
    // gradient below 1e-12): a = -1.98963, b = -9.82245 for mid 0.3, and the mirror image for mid 0.7
    expect(competenceFrontier(family, population(0.3))).toBeCloseTo(0.2343196, 5);
    expect(competenceFrontier(family, population(0.7))).toBeCloseTo(0.6394389, 5);
  });

  it("fits from exactly FRONTIER_MIN_MEMBERS measured members, and counts no infra-dominated, invalid or unmeasured one", () => {
    const eight = population(0.5).slice(1, 9);
    expect(eight).toHaveLength(FRONTIER_MIN_MEMBERS);
    const frontier = competenceFrontier(family, eight) as number;
    expect(frontier).not.toBeNull();
    // easy members that never pass would pull the frontier easier, were they counted
    const noise = [20, 25, 30, 35].flatMap((size) => [
      { ...member(size, 0), infra: true },
      { ...member(size, 0, 8, "invalid"), retire: "invalid" as const },
    ]);
    expect(competenceFrontier(family, [...eight, ...noise])).toBeCloseTo(frontier, 9);
    expect(competenceFrontier(family, [...eight.slice(1), ...noise])).toBeNull();
    expect(competenceFrontier(family, [...eight.slice(1), member(20, 0, 0)])).toBeNull();
  });

  it("windows FRONTIER_HALF_WIDTH either side, kept inside [0, 1]", () => {
    const mid = frontierWindow(0.5);
    expect(mid.min).toBeCloseTo(0.5 - FRONTIER_HALF_WIDTH, 9);
    expect(mid.max).toBeCloseTo(0.5 + FRONTIER_HALF_WIDTH, 9);
    expect(frontierWindow(0.02)).toEqual({ min: 0, max: 2 * FRONTIER_HALF_WIDTH });
    const top = frontierWindow(0.99);
    expect(top.max).toBe(1);
    expect(top.min).toBeCloseTo(1 - 2 * FRONTIER_HALF_WIDTH, 9);
  });
});

describe("parentSteps", () => {
  it("takes more steps the farther a parent is past the frontier, never fewer than the population's, at most 4", () => {
    expect(parentSteps(member(50, 8), 1, 1)).toBe(3); // posterior 0.9: logit 2.2
    expect(parentSteps(member(50, 7), 1, 1)).toBe(2); // posterior 0.8: logit 1.4
    expect(parentSteps(member(50, 4), 1, 1)).toBe(1);
    expect(parentSteps(member(50, 4), 1, 3)).toBe(3);
    expect(parentSteps(member(50, 40, 40), 1, 1)).toBe(4);
  });

  // catches: the ratchet counting measurements below the frontier, not stopping at the first one not above, or touching easier steps
  it("ratchets harder steps: one more per earlier measurement in a row above 0.6, at most 6", () => {
    expect(parentSteps(member(50, 8, 8, "valid", [0.875]), 1, 1)).toBe(4);
    expect(parentSteps(member(50, 8, 8, "valid", [0.75, 0.875]), 1, 1)).toBe(5);
    expect(parentSteps(member(50, 8, 8, "valid", [0.875, 0.5, 0.875]), 1, 1)).toBe(4); // the run stops at 0.5
    expect(parentSteps(member(50, 8, 8, "valid", [0.875, 0.5]), 1, 1)).toBe(3);
    expect(parentSteps(member(50, 8, 8, "valid", [0.625]), 1, 1)).toBe(4); // 5 of 8 is above 0.6
    expect(parentSteps(member(50, 8, 8, "valid", [0.6]), 1, 1)).toBe(3); // 0.6 itself is not
    expect(parentSteps(member(50, 8, 8, "valid", [0.9, 0.9, 0.9, 0.9, 0.9]), 1, 1)).toBe(6);
    expect(parentSteps(member(50, 6, 8, "valid", [0.75]), 1, 1)).toBe(2); // posterior 0.7: 1, plus 1
    expect(parentSteps(member(50, 6, 8, "valid", [0.75]), 1, 4)).toBe(4); // never below the population's
    expect(parentSteps(member(50, 4, 8, "valid", [0.75, 0.875]), 1, 1)).toBe(1); // now at 0.5: no run
    // easier steps ignore the run (a 6/8 parent with the run would take 1 + floor(-0.85) + 2 = 2)
    expect(parentSteps(member(50, 6, 8, "valid", [0.875, 0.875]), -1, 1)).toBe(1);
    expect(parentSteps(member(50, 8, 8, "valid", [0.875, 0.875]), -1, 1)).toBe(1);
    expect(parentSteps(member(50, 0, 8, "valid", [0.875, 0.875]), -1, 1)).toBe(3);
  });

  // catches: the ratchet's cap of 6 applied without a run (a parent of 100/100 asks for 1 + floor(logit(101/102)) = 5)
  it("keeps the cap at 4 without a run", () => {
    expect(parentSteps(member(50, 100, 100), 1, 1)).toBe(4);
    expect(parentSteps(member(50, 100, 100, "valid", [0.9]), 1, 1)).toBe(6);
  });

  // catches: computing steps for a member without a measured rate (q null: an unsolvable one, or no attempts)
  it("gives an unmeasured parent the population's steps", () => {
    expect(parentSteps({ ...member(50, 4), q: null }, -1, 1)).toBe(1);
    expect(parentSteps({ ...member(50, 4), q: null }, 1, 2)).toBe(2);
    expect(parentSteps(member(50, 0, 0), 1, 3)).toBe(3);
  });

  it("counts easier steps from the failing side", () => {
    expect(parentSteps(member(50, 0), -1, 1)).toBe(3);
    expect(parentSteps(member(50, 1), -1, 1)).toBe(2);
    expect(parentSteps(member(50, 8), -1, 1)).toBe(1);
    expect(parentSteps(member(50, 0, 0), -1, 2)).toBe(2);
  });
});

describe("fresh samples at the frontier", () => {
  it("with freshAtFrontier, asks the family's sampler for the frontier window for two of every three fresh samples; with false, never", () => {
    const windows: (SampleOptions["hardness"] | undefined)[] = [];
    const sample = flInput.family.sample;
    const spied = {
      ...flInput.family,
      sample: (rng: Parameters<typeof sample>[0], opts?: SampleOptions) => (windows.push(opts?.hardness), sample(rng, opts)),
    };
    // 15% adds (ENGINEER.md's default; the heuristic's own is one add), so that several fresh samples are drawn
    const options = { ...flInput.options, addShare: 0.15 };
    heuristicEngineer({ ...flInput, family: spied, options: { ...options, freshAtFrontier: false } });
    expect(windows.length).toBeGreaterThan(0);
    expect(windows.every((w) => w === undefined)).toBe(true);
    windows.length = 0;
    const out = heuristicEngineer({ ...flInput, family: spied, options: { ...options, freshAtFrontier: true } });
    const fresh = out.items.filter((i) => i.flags?.includes("fresh_sample")).length;
    expect(fresh).toBeGreaterThanOrEqual(2);
    const windowed = windows.filter((w) => w !== undefined);
    expect(windowed.length).toBeGreaterThanOrEqual(Math.floor((2 * fresh) / 3));
    expect(windows.length - windowed.length).toBeGreaterThanOrEqual(1);
    for (const w of windowed) expect(w!.max - w!.min).toBeCloseTo(2 * FRONTIER_HALF_WIDTH, 9);
  });
});

/** Members measured now at the success curve around `now`, their previous rates on the curve around `before`. */
function moved(now: number, before: number, count = 10): Scored[] {
  return [5, 15, 25, 35, 45, 55, 65, 75, 85, 95].slice(0, count).map((size) => {
    const p = 1 / (1 + Math.exp(20 * (size / 100 - now)));
    const prev = 1 / (1 + Math.exp(20 * (size / 100 - before)));
    return member(size, Math.round(8 * p), 8, "valid", [0.1, Math.round(8 * prev) / 8]);
  });
}

/**
 * The engineer's proposal for `scored` as a population of kept members, with a toy family whose sampler records the
 * hardness window it was asked for on every draw (distinct configs, so the batch accepts them): the windows in order
 * and the proposal's notes.
 */
function proposeRecording(scored: Scored[], options: EngineerInput["options"]) {
  const windows: (SampleOptions["hardness"] | undefined)[] = [];
  let k = 0;
  const spied = {
    ...family,
    sample: (_rng: unknown, opts?: SampleOptions) => (windows.push(opts?.hardness), { size: 1 + (k++ % 99) }),
    validate: () => ({ state: "valid", errors: [] }),
  } as unknown as FamilyDefinition;
  const population = scored.map((sc, i) => ({
    ...sc.member,
    key: `m${i}`,
    configHash: `h${i}`,
    parentKey: null,
    op: "keep",
    direction: null,
    age: 3,
    clusterIds: [],
  })) as PopulationMember[];
  const out = heuristicEngineer({
    ...flInput,
    family: spied,
    population,
    summary: { ...flInput.summary, family: "toy" },
    options,
    knownHashes: new Set<string>(),
  });
  return { windows, notes: out.notes.join(" ") };
}

describe("frontierRising (fresh samples at the frontier by default)", () => {
  it("is true when the re-measured members' frontier moved harder since their last measurement, false when it stood or fell", () => {
    expect(frontierRising(family, moved(0.6, 0.4))).toBe(true);
    expect(frontierRising(family, moved(0.4, 0.6))).toBe(false);
    expect(frontierRising(family, moved(0.5, 0.5))).toBe(false);
  });

  it("reads only the last history entry, and only members measured before", () => {
    // an older entry says nothing: the previous rates are the last ones
    const older = moved(0.6, 0.4).map((sc) => ({ ...sc, member: { ...sc.member, history: [0.99, ...sc.member.history] } }));
    expect(frontierRising(family, older)).toBe(true);
    // fresh members (no history) do not count: with fewer than FRONTIER_MIN_MEMBERS re-measured there is no comparison
    const few = [
      ...moved(0.6, 0.4, FRONTIER_MIN_MEMBERS - 1),
      ...population(0.9).map((sc) => ({ ...sc, member: { ...sc.member, history: [] } })),
    ];
    expect(frontierRising(family, few)).toBe(false);
    expect(frontierRising(family, moved(0.6, 0.4, FRONTIER_MIN_MEMBERS))).toBe(true);
  });

  it("is false when the previous rates give no fit (flat), however far the current one lies", () => {
    const flatBefore = moved(0.6, 0.4).map((sc) => ({ ...sc, member: { ...sc.member, history: [0.1, 0.5] } }));
    expect(competenceFrontier(family, moved(0.6, 0.4))).not.toBeNull();
    expect(frontierRising(family, flatBefore)).toBe(false);
  });

  it("leaves out members never measured before and members not measured now, whatever their rates", () => {
    // fresh members at the easy end failing everything and a re-measured one without attempts now: counted, they would
    // bend the fits (no history to compare, no current rate)
    const fresh = [5, 15, 25].map((size) => ({ ...member(size + 1, 0), member: { ...member(size + 1, 0).member, history: [] } }));
    const idle = { ...member(50, 0, 0), member: { ...member(50, 0, 0).member, history: [0.1, 1] } };
    expect(frontierRising(family, [...moved(0.6, 0.4), ...fresh, idle])).toBe(true);
  });

  it("turns the windowed fresh samples on by default only while the frontier rises", () => {
    const sizes = (rising: boolean) =>
      proposeRecording(rising ? moved(0.6, 0.4) : moved(0.4, 0.6), { seed: 3, populationSize: 10, addShare: 0.5 }).windows;
    expect(sizes(true).some((w) => w !== undefined)).toBe(true);
    expect(sizes(false).length).toBeGreaterThan(0);
    expect(sizes(false).every((w) => w === undefined)).toBe(true);
  });

  // catches: the extra fresh samples gated the wrong way (while the policy fails most of its population), drawn from the
  // whole generator, or made without a rising frontier
  it("adds a tenth of the population as fresh samples from the window while it rises and the members pass 0.55 on average", () => {
    const run = (now: number, before: number) => proposeRecording(moved(now, before), { seed: 3, populationSize: 30 });
    // rising both times: members passing 0.6 on average (8,8,8,8,8,6,2,0,0,0 of 8), then 0.5 (8,8,8,8,6,2,0,...)
    const mostly = run(0.6, 0.4);
    const half = run(0.5, 0.3);
    expect(frontierRising(family, moved(0.6, 0.4))).toBe(true);
    expect(frontierRising(family, moved(0.5, 0.3))).toBe(true);
    // (the toy family cannot fill the mutations, so fresh samples fill the rest of the population either way: what
    // differs is where the first ones come from) the frontier's three first, every one from the window; without them
    // the third fresh sample comes from the whole generator
    expect(mostly.notes).toContain("Fresh samples: 3 from the hardness window");
    expect(mostly.notes).toContain("as the members passed 60% of their attempts on average (55% or more)");
    expect(mostly.windows.slice(0, 4).every((w) => w !== undefined)).toBe(true);
    expect(half.notes).toContain("Fresh samples: two of every three from the hardness window");
    expect(half.windows.slice(0, 3).map((w) => w !== undefined)).toEqual([true, true, false]);
    // not rising: no window and no extra, however much the members pass
    const still = run(0.6, 0.8);
    expect(still.windows.length).toBeGreaterThan(0);
    expect(still.windows.every((w) => w === undefined)).toBe(true);
    expect(still.notes).not.toContain("Fresh samples:");
  });
});

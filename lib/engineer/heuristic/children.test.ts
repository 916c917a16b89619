/**
 * The child strategies (children.ts) on their own rules: the batch's duplicate check, validator and validation budget,
 * its keys and counts; the harder step's share, the replay thresholds, the crossover's most distant second parent and
 * the fresh sample's nearest reference, the carries that refill the population whatever pool is empty, the steps per
 * field a harder or an easier child takes, and a timed-out parent's easier step along precision first. Each test
 * fails when the rule it names is inverted (a bound made strict, a comparison flipped, a count or carry dropped).
 */
import { describe, expect, it } from "vitest";
import { configHash } from "@/lib/families/hash";
import { createRng } from "@/lib/families/rng";
import { distance } from "@/lib/families/operators";
import { builtinFamilies } from "@/lib/families/registry";
import type { FamilyConfig, FamilyDefinition, FieldSpec } from "@/lib/families/types";
import { HEURISTIC_DEFAULTS, heuristicEngineer } from ".";
import type { EngineerInput, EngineerOptions, PopulationMember } from "../types";
import type { ChildBudget } from "./budget";
import { ChildBatch, childContext, proposeChildren } from "./children";
import type { Candidate, DirectionEvidence, Scored } from "./model";
import { midHardnessInput } from "./test-input";

type ValidationState = "valid" | "invalid" | "unsolvable";

/** A family whose validator answers what the config's `state` says, counting its calls. */
function toyFamily() {
  const calls: FamilyConfig[] = [];
  const family = {
    id: "toy",
    fields: [],
    validate: (config: FamilyConfig) => {
      calls.push(config);
      return { state: (config as { state?: ValidationState }).state ?? "valid", pMax: 0.5 };
    },
  } as unknown as FamilyDefinition;
  return { family, calls };
}

function batchOf(
  opts: { budget?: number; target?: number; population?: PopulationMember[]; known?: FamilyConfig[]; flags?: string[] } = {},
) {
  const { family, calls } = toyFamily();
  const population = opts.population ?? [];
  const input = {
    family,
    population,
    knownHashes: new Set((opts.known ?? []).map((c) => configHash(c))),
    keyPrefix: "g5-",
  } as unknown as EngineerInput;
  const describe = () => ({ rationale: "r", evidence: [], ...(opts.flags ? { flags: opts.flags } : { flags: undefined }) });
  const batch = new ChildBatch(input, opts.budget ?? 100, opts.target ?? 10, describe, (_c, pMax) => pMax ?? 0.9);
  return { batch, calls };
}

const parentScored = (key: string) => ({ member: { key } }) as unknown as Scored;
const cand = (config: object, kind: Candidate["kind"] = "harder", parent?: Scored): Candidate => ({
  kind,
  config: config as FamilyConfig,
  direction: "diversify",
  edits: [],
  ...(parent ? { parent } : {}),
});
const member = (key: string, config: object) => ({ key, config, configHash: configHash(config) }) as unknown as PopulationMember;

describe("ChildBatch", () => {
  it("validates each new config once, counts invalid and unsolvable ones, and skips a rejected config without counting it again", () => {
    const { batch, calls } = batchOf();
    expect(batch.accept(cand({ x: 1, state: "invalid" }))).toBe(false);
    expect(batch.accept(cand({ x: 2, state: "unsolvable" }))).toBe(false);
    expect(batch.accept(cand({ x: 1, state: "invalid" }))).toBe(false);
    expect(batch.dropped).toEqual({ invalid: 1, unsolvable: 1, duplicate: 0 });
    expect(calls).toHaveLength(2);
    expect(batch.validations).toBe(2);
    expect(batch.accept(cand({ x: 3 }))).toBe(true);
    expect(batch.validations).toBe(3);
    expect(batch.items.map((i) => i.predictedSuccess)).toEqual([0.5]);
  });

  it("drops a known hash, a population member's hash and a config already proposed as duplicates, without validating them", () => {
    const { batch, calls } = batchOf({ known: [{ x: 1 }], population: [member("m0", { x: 2 })] });
    expect(batch.accept(cand({ x: 1 }))).toBe(false);
    expect(batch.accept(cand({ x: 2 }))).toBe(false);
    expect(batch.accept(cand({ x: 3 }))).toBe(true);
    expect(batch.accept(cand({ x: 3 }))).toBe(false);
    expect(batch.dropped.duplicate).toBe(3);
    expect(calls).toHaveLength(1);
    // a duplicate seen again is skipped, not counted twice
    expect(batch.accept(cand({ x: 1 }))).toBe(false);
    expect(batch.dropped.duplicate).toBe(3);
  });

  it("stops at exactly its validation budget, rejected configs included", () => {
    const { batch, calls } = batchOf({ budget: 3 });
    expect(batch.accept(cand({ x: 1, state: "invalid" }))).toBe(false);
    expect(batch.accept(cand({ x: 2 }))).toBe(true);
    expect(batch.exhausted).toBe(false);
    expect(batch.accept(cand({ x: 3 }))).toBe(true);
    expect(batch.exhausted).toBe(true);
    expect(batch.accept(cand({ x: 4 }))).toBe(false);
    expect(calls).toHaveLength(3);
    expect(batch.accept(null)).toBe(false);
  });

  it("numbers children past the population's keys, counts them by kind and lists each parent's children", () => {
    const { batch } = batchOf({ population: [member("g5-001", { x: 0 }), member("g5-003", { x: -1 })], target: 12345 });
    const p = parentScored("m7");
    expect(batch.accept(cand({ x: 1 }, "harder", p))).toBe(true);
    expect(batch.accept(cand({ x: 2 }, "harder", p))).toBe(true);
    expect(batch.accept(cand({ x: 3 }, "fresh"))).toBe(true);
    // width: max(3, digits of the target) = 5 here
    expect(batch.items.map((i) => i.environmentKey)).toEqual(["g5-00001", "g5-00002", "g5-00003"]);
    expect(batch.made).toEqual({ harder: 2, easier: 0, replay: 0, crossover: 0, fresh: 1 });
    expect(batch.childrenOf.get("m7")).toEqual(["g5-00001", "g5-00002"]);
    expect([...batch.childrenOf.keys()]).toEqual(["m7"]);
    expect(batch.items.map((i) => i.op)).toEqual(["mutate", "mutate", "add"]);
    expect(batch.items[0].parentKey).toBe("m7");
    expect("parentKey" in batch.items[2]).toBe(false);
  });

  it("skips keys the population holds", () => {
    const { batch } = batchOf({ population: [member("g5-001", { x: 0 }), member("g5-002", { x: -1 })] });
    batch.accept(cand({ x: 1 }, "fresh"));
    expect(batch.items[0].environmentKey).toBe("g5-003");
  });

  it("leaves out an unset flags field and keeps a set one", () => {
    const bare = batchOf();
    bare.batch.accept(cand({ x: 1 }));
    expect("flags" in bare.batch.items[0]).toBe(false);
    const flagged = batchOf({ flags: ["fresh_sample"] });
    flagged.batch.accept(cand({ x: 1 }));
    expect(flagged.batch.items[0].flags).toEqual(["fresh_sample"]);
  });
});

/** A measured population of `family` sampled at mid hardness, with a summary that has no field statistics or clusters. */
const inputOf = (family: FamilyDefinition, outcomes: { s: number; n: number }[], options: EngineerOptions): EngineerInput =>
  midHardnessInput("children", family, outcomes, options);

const family = builtinFamilies["frozenlake-mapf"];
const parentQ = (input: EngineerInput, key: string | undefined) => {
  const m = input.population.find((x) => x.key === key) as PopulationMember;
  return m.s / m.n;
};

describe("child strategies", () => {
  it("gives solved parents exactly their share of the mutations: half, rounded up, when there are replay parents", () => {
    // 20 members: 10 solved (8/8), 10 at the frontier (4/8); keep 10, add max(1, round(0.03 * 20)) = 1 (HEURISTIC_DEFAULTS.addShare),
    // mutate 9, harder ceil(9 / 2) = 5
    const input = inputOf(
      family,
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? { s: 8, n: 8 } : { s: 4, n: 8 })),
      { seed: 3 },
    );
    const out = heuristicEngineer(input);
    const mutated = out.items.filter((i) => i.op === "mutate" && !i.flags?.includes("crossover"));
    expect(mutated.filter((i) => parentQ(input, i.parentKey) === 1)).toHaveLength(5);
    expect(mutated).toHaveLength(9);
  });

  it("fills the population back to its size whichever parent pool is empty", () => {
    const cases: [string, { s: number; n: number }[]][] = [
      ["all solved (no replay parents)", Array.from({ length: 16 }, () => ({ s: 8, n: 8 }))],
      ["none solved (no harder parents)", Array.from({ length: 16 }, (_, i) => ({ s: 2 + (i % 5), n: 8 }))],
      ["mixed", Array.from({ length: 16 }, (_, i) => ({ s: i % 3 === 0 ? 8 : 3 + (i % 3), n: 8 }))],
    ];
    for (const [name, outcomes] of cases) {
      const input = inputOf(family, outcomes, { seed: 5, addShare: 0.25 });
      const out = heuristicEngineer(input);
      const alive = out.items.filter((i) => i.op !== "retire");
      expect(alive.length, name).toBe(input.population.length);
    }
  });

  const { easierBelow, replayHarderAbove } = HEURISTIC_DEFAULTS;
  it(`replays parents at exactly q = ${easierBelow} and q = ${replayHarderAbove} with random edits, neither easier nor harder`, () => {
    for (const s of [2, 6]) {
      const input = inputOf(
        family,
        Array.from({ length: 16 }, () => ({ s, n: 10 })),
        { seed: 7, addShare: 0 },
      );
      const out = heuristicEngineer(input);
      const mutated = out.items.filter((i) => i.op === "mutate");
      expect(mutated.length, `${s}/10`).toBeGreaterThan(0);
      for (const child of mutated) expect(child.rationale, `${s}/10`).toMatch(/^Replayed/);
    }
  });

  it("makes parents just below q = 0.2 easier and pushes those just above 0.6 harder", () => {
    for (const [s, pattern] of [
      [1, /^Too hard/],
      [7, /^Mostly passed/],
    ] as const) {
      const input = inputOf(
        family,
        Array.from({ length: 16 }, () => ({ s, n: 10 })),
        { seed: 7, addShare: 0, keepShare: 0.5 },
      );
      const out = heuristicEngineer(input);
      const mutated = out.items.filter((i) => i.op === "mutate");
      expect(mutated.length, `${s}/10`).toBeGreaterThan(0);
      for (const child of mutated) expect(child.rationale, `${s}/10`).toMatch(pattern);
    }
  });

  it("crosses each first parent with the kept parent most distant from it", () => {
    // 12 members: keep 6 (the crossover pool: at most 9, so every other kept member is looked at)
    const input = inputOf(
      family,
      Array.from({ length: 12 }, (_, i) => ({ s: 3 + (i % 3), n: 8 })),
      { seed: 2, addShare: 0.5 },
    );
    const out = heuristicEngineer(input);
    const kept = out.items.filter((i) => i.op === "keep").map((i) => i.environmentKey);
    const config = (key: string) => (input.population.find((m) => m.key === key) as PopulationMember).config;
    const crossovers = out.items.filter((i) => i.flags?.includes("crossover"));
    expect(crossovers.length).toBeGreaterThan(0);
    for (const child of crossovers) {
      const a = child.parentKey as string;
      const b = child.secondParentKey as string;
      expect(b).not.toBe(a);
      const farthest = Math.max(...kept.filter((k) => k !== a).map((k) => distance(family, config(a), config(k))));
      expect(distance(family, config(a), config(b))).toBe(farthest);
    }
  });

  it("cites as a fresh sample's nearest environment the reference member closest to it", () => {
    // 20 members: fewer than the 32 reference configs, so every member is in the reference set
    const input = inputOf(
      family,
      Array.from({ length: 20 }, (_, i) => ({ s: 3 + (i % 3), n: 8 })),
      { seed: 4, addShare: 0.5 },
    );
    const out = heuristicEngineer(input);
    const fresh = out.items.filter((i) => i.flags?.includes("fresh_sample"));
    expect(fresh.length).toBeGreaterThan(0);
    for (const child of fresh) {
      const cited = child.evidence.find((e) => e.ref.startsWith("env:"));
      expect(cited).toBeDefined();
      const nearest = Math.min(...input.population.map((m) => distance(family, child.config, m.config)));
      const key = (cited as { ref: string }).ref.slice(4);
      const m = input.population.find((x) => x.key === key) as PopulationMember;
      expect(distance(family, child.config, m.config)).toBe(nearest);
    }
  });
});

describe("carries: a share a strategy cannot fill passes on to the next", () => {
  /** Two measured frozenlake members (the crossover parents), a replay parent with no set field, and a batch over them. */
  function setup(sameCrossParents: boolean) {
    const input = midHardnessInput("carries", family, [
      { s: 4, n: 8 },
      { s: 5, n: 8 },
    ]);
    const [a, b] = input.population;
    if (sameCrossParents) Object.assign(b, { config: a.config, configHash: a.configHash });
    const scoredOf = (m: PopulationMember, index: number) =>
      ({
        member: m,
        index,
        q: m.s / m.n,
        mean: 0.5,
        learnability: 0.2,
        progress: 0,
        retire: null,
        infra: false,
        failure: { failures: m.n - m.s, dominant: null, top: null },
      }) as Scored;
    // Random edits touch only set fields: a parent with none cannot be replayed, so its share passes on.
    const bare = scoredOf({ ...a, key: "bare", config: {} as FamilyConfig, configHash: configHash({}) }, 2);
    const budget: ChildBudget = {
      childrenTarget: 6,
      addTarget: 2,
      frontierFresh: 0,
      mutateTarget: 4,
      harderPool: [],
      replayPool: [bare],
      crossPool: [scoredOf(a, 0), scoredOf(b, 1)],
      harderTarget: 0,
      crossTarget: 1,
    };
    const batch = new ChildBatch(
      input,
      100,
      6,
      () => ({ rationale: "r", evidence: [] }),
      () => 0.5,
    );
    proposeChildren(childContext({ rng: createRng(9), family, evidence: [], budget, batch, reference: [], scored: [] }));
    return batch;
  }

  it("passes the replay share it could not make to the crossovers, which fill it and pass nothing more on", () => {
    const batch = setup(false);
    expect(batch.made).toEqual({ harder: 0, easier: 0, replay: 0, crossover: 5, fresh: 1 });
    expect(batch.items).toHaveLength(6);
  });

  it("passes both shares to the fresh samples when the crossovers can only copy their parents", () => {
    const batch = setup(true);
    expect(batch.made.crossover).toBe(0);
    expect(batch.made.fresh).toBe(6);
    expect(batch.dropped.duplicate).toBeGreaterThan(0);
  });
});

/** A mutable, difficulty-signed integer field on 0..100 without a scale: a step is exactly 1. */
const intField = (path: string, direction: string) =>
  ({ path, kind: "integer", min: 0, max: 100, difficulty: "up", direction, mutable: true }) as unknown as FieldSpec;

/** A toy family over `fields` whose validator passes everything. */
const toyOf = (id: string, fields: FieldSpec[]) =>
  ({ id, fields, validate: () => ({ state: "valid", errors: [], pMax: 1 }) }) as unknown as FamilyDefinition;

/** A scored member measured s of n, with no history, optionally failing mostly in one way. */
function scoredMember(key: string, config: FamilyConfig, s: number, n: number, dominant: object | null = null): Scored {
  return {
    member: { key, config, configHash: configHash(config), n, s, history: [], age: 1 } as unknown as PopulationMember,
    index: 0,
    q: n > 0 ? s / n : null,
    mean: (s + 1) / (n + 2),
    learnability: 0.2,
    progress: 0,
    retire: null,
    infra: false,
    failure: { failures: n - s, dominant, top: null },
  } as unknown as Scored;
}

/** The one child of `parent` from the harder pool or the replay pool, with the population's steps per field given. */
function onlyChild(
  family: FamilyDefinition,
  evidence: DirectionEvidence[],
  parent: Scored,
  pool: "harder" | "replay",
  steps: { harder: number; easier: number },
  seed: number,
): FamilyConfig {
  const input = { family, population: [parent.member], knownHashes: new Set(), keyPrefix: "g1-" } as unknown as EngineerInput;
  const batch = new ChildBatch(
    input,
    100,
    1,
    () => ({ rationale: "r", evidence: [] }),
    () => 0.5,
  );
  const budget: ChildBudget = {
    childrenTarget: 1,
    addTarget: 0,
    frontierFresh: 0,
    mutateTarget: 1,
    harderPool: pool === "harder" ? [parent] : [],
    replayPool: pool === "replay" ? [parent] : [],
    crossPool: [],
    harderTarget: pool === "harder" ? 1 : 0,
    crossTarget: 0,
  };
  const rng = createRng(seed);
  proposeChildren({
    rng,
    mutRng: rng.fork("mutate"),
    family,
    evidence,
    budget,
    batch,
    reference: [],
    harderSteps: steps.harder,
    easierSteps: steps.easier,
  });
  expect(batch.items).toHaveLength(1);
  return batch.items[0].config;
}

describe("steps per field follow the step's sign", () => {
  // one field: the child's value tells the steps it took
  const size = intField("size", "horizon");
  const toy = toyOf("toy-steps", [size]);
  const evidence: DirectionEvidence[] = [{ direction: "horizon", fields: [size], drop: null, lift: null, score: 0, top: null }];
  const scoredOf = (key: string, s: number, n: number) => scoredMember(key, { size: 50 } as FamilyConfig, s, n);
  const childOf = (parent: Scored, pool: "harder" | "replay", steps: { harder: number; easier: number }) =>
    onlyChild(toy, evidence, parent, pool, steps, 4).size as number;

  it("pushes a solved parent harder by the population's harder steps, not its easier ones", () => {
    // 8 of 8 asks for 3 steps of its own (posterior 0.9); the population asks for 4 harder, 1 easier
    expect(childOf(scoredOf("solved", 8, 8), "harder", { harder: 4, easier: 1 })).toBe(54);
    expect(childOf(scoredOf("solved", 8, 8), "harder", { harder: 1, easier: 4 })).toBe(53);
  });

  it("makes a too-hard replay parent easier by the population's easier steps, not its harder ones", () => {
    // 1 of 10 asks for 2 easier steps of its own (posterior 1/6); the population asks for 4 easier, 1 harder
    expect(childOf(scoredOf("hard", 1, 10), "replay", { harder: 1, easier: 4 })).toBe(46);
    expect(childOf(scoredOf("hard", 1, 10), "replay", { harder: 4, easier: 1 })).toBe(48);
  });

  it("reads the population's harder and easier steps from its mean success on the matching side of the frontier", () => {
    const rng = createRng(1);
    const input = { family: toy, population: [], knownHashes: new Set(), keyPrefix: "g1-" } as unknown as EngineerInput;
    const batch = new ChildBatch(
      input,
      100,
      1,
      () => ({ rationale: "r", evidence: [] }),
      () => 0.5,
    );
    const ctxAt = (s: number) =>
      childContext({
        rng,
        family: toy,
        evidence,
        budget: {} as ChildBudget,
        batch,
        reference: [],
        scored: Array.from({ length: 8 }, (_, i) => scoredOf(`m${i}`, s, 10)),
      });
    // mean 0.9: logit 2.2, so 1 + 2 harder steps and the least, 1, easier; mean 0.1 the other way round
    expect(ctxAt(9)).toMatchObject({ harderSteps: 3, easierSteps: 1 });
    expect(ctxAt(1)).toMatchObject({ harderSteps: 1, easierSteps: 3 });
  });
});

describe("a timed-out parent's easier step", () => {
  const size = intField("size", "horizon");
  const checks = intField("checks", "precision");
  const toy = toyOf("toy-timeout", [size, checks]);
  // the evidence ranks horizon first for an easier step (its score is the higher); no budget field can move
  const evidence: DirectionEvidence[] = [
    { direction: "precision", fields: [checks], drop: null, lift: null, score: 0.1, top: null },
    { direction: "horizon", fields: [size], drop: null, lift: null, score: 0.9, top: null },
  ];
  const easierChild = (kind: "timeout" | "verifier") => {
    const dominant = { kind, category: "agent_timeout", count: 9, exact: true, cluster: {} };
    const parent = scoredMember("p", { size: 50, checks: 50 } as FamilyConfig, 1, 10, dominant);
    return onlyChild(toy, evidence, parent, "replay", { harder: 1, easier: 1 }, 2) as { size: number; checks: number };
  };

  it("moves along precision first when its failures are timeouts, and along the evidence's first direction otherwise", () => {
    const timedOut = easierChild("timeout");
    expect(timedOut.size).toBe(50);
    expect(timedOut.checks).toBeLessThan(50);
    const failedTests = easierChild("verifier");
    expect(failedTests.checks).toBe(50);
    expect(failedTests.size).toBeLessThan(50);
  });
});

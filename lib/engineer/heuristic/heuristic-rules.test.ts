/**
 * The heuristic engineer's rules end to end on small populations built for each rule: it keeps the
 * most learnable members (not the least), retires by reason, pushes solved parents harder and
 * failing ones easier along each field's difficulty sign. These fail when the keep order, the
 * retire rule or the direction of a directed mutation is inverted.
 */
import { describe, expect, it } from "vitest";
import { learnability } from "@/lib/analytics/metrics";
import { getFieldValue } from "@/lib/families/field-path";
import { configHash } from "@/lib/families/hash";
import { fieldHardness, valueAtPosition } from "@/lib/families/hardness";
import { builtinFamilies } from "@/lib/families/registry";
import { hashSeed } from "@/lib/families/rng";
import type { FamilyConfig, FamilyDefinition, SampleOptions, ValidationResult } from "@/lib/families/types";
import { HEURISTIC_DEFAULTS, heuristicEngineer } from ".";
import type { EngineerInput, EngineerOptions, PopulationMember, SummaryCluster, SummaryField } from "../types";
import { frontierWindow } from "./frontier";
import { flInput, midHardnessInput, perTest } from "./test-input";

type Outcome = Pick<PopulationMember, "s" | "n"> & Partial<PopulationMember>;

/** A measured population of `family` (configs sampled at mid hardness so they can move both ways) and a summary without field statistics or clusters. */
const inputOf = (
  family: FamilyDefinition,
  outcomes: Outcome[],
  options: EngineerOptions = { seed: 5 },
  fields: SummaryField[] = [],
): EngineerInput => midHardnessInput("rules", family, outcomes, options, fields);

const fate = (input: EngineerInput, out: ReturnType<typeof heuristicEngineer>) =>
  new Map(input.population.map((m) => [m.key, out.items.find((i) => i.environmentKey === m.key)]));

describe("keep order", () => {
  // s of 8 attempts: learnability ranks 4 > 3 = 5 > 2 = 6 > 1 = 7
  const rates = [1, 4, 7, 3, 2, 5, 6, 4, 3, 2, 5, 6];
  const input = inputOf(
    builtinFamilies["frozenlake-mapf"],
    rates.map((s) => ({ s, n: 8 })),
  );
  const out = perTest(() => heuristicEngineer(input));
  const fates = () => fate(input, out());

  it("keeps the most learnable half and retires the least learnable as outranked", () => {
    const kept = input.population.filter((m) => fates().get(m.key)?.op === "keep").map((m) => m.s);
    expect(kept.sort()).toEqual([3, 3, 4, 4, 5, 5]);
    for (const m of input.population.filter((x) => [1, 2, 6, 7].includes(x.s))) {
      expect(fates().get(m.key)?.op, `${m.s}/8`).toBe("retire");
      expect(fates().get(m.key)?.flags).toContain("retire:outranked");
    }
  });

  it("never keeps a member less learnable than one it retires as outranked (gaps of 1/8 outweigh the hardness bias)", () => {
    const L = (key: string) => {
      const m = input.population.find((x) => x.key === key) as PopulationMember;
      return learnability(m.n, m.s);
    };
    const kept = out()
      .items.filter((i) => i.op === "keep")
      .map((i) => L(i.environmentKey));
    const outranked = out()
      .items.filter((i) => i.flags?.includes("retire:outranked"))
      .map((i) => L(i.environmentKey));
    expect(Math.min(...kept)).toBeGreaterThan(Math.max(...outranked));
  });

  it("keeps more with a larger keep share, still the most learnable first", () => {
    const wide = heuristicEngineer({ ...input, options: { seed: 5, keepShare: 0.75 } });
    const wideFates = fate(input, wide);
    const kept = input.population.filter((m) => wideFates.get(m.key)?.op === "keep").map((m) => m.s);
    expect(kept.sort()).toEqual([2, 2, 3, 3, 4, 4, 5, 5, 6]);
  });

  // twelve 3/8 members (equal learnability, each at its first measurement) on one config whose size grows with the
  // key: hardness rises with it
  const risingHardness = (options?: EngineerOptions) => {
    const family = builtinFamilies["frozenlake-mapf"];
    const base = inputOf(family, [{ s: 4, n: 8 }]).population[0].config as FamilyConfig;
    const outcomes = Array.from({ length: 12 }, (_, i) => {
      const config = { ...base, size: 8 + 2 * i, seed: 500 + i };
      return { s: 3, n: 8, config, configHash: configHash(config) };
    });
    return inputOf(family, outcomes, options);
  };

  it("among equally learnable members keeps the harder half, and says by how much hardness weighed", () => {
    const tied = risingHardness();
    const out = heuristicEngineer(tied);
    const fates = fate(tied, out);
    const kept = tied.population.filter((m) => fates.get(m.key)?.op === "keep").map((m) => m.key);
    expect(kept.sort()).toEqual(["m10", "m11", "m6", "m7", "m8", "m9"]);
    expect(fates.get("m11")?.rationale).toMatch(
      /learnability 0\.\d{3} x hardness weight 1\.\d\d \(hardness 0\.\d\d\) = 0\.\d{3} ranks 1 of 12/,
    );
    expect(fates.get("m0")?.rationale).toMatch(/^Outranked: learnability 0\.\d{3} x hardness weight 0\.\d\d /);
    expect(out.notes[0]).toMatch(/keep cut: priority 0\.\d{3}, the learnability weighed by hardness/);
  });

  it("discounts a member passed half the time where the policy passes most configs as hard, and says so", () => {
    // every difficulty-signed numeric field at position t = 0.1 + 0.07 i of its easy -> hard scale, so hardness grows
    // with the key; success falls with it (7-8 of 8 up to m4, 0-1 of 8 from m6), except m1, passed 4 of 8 among
    // members passed 7-8 of 8 (capped, or noisy), and m5, passed 4 of 8 where success falls
    const family = builtinFamilies["frozenlake-mapf"];
    const base = inputOf(family, [{ s: 4, n: 8 }]).population[0].config as FamilyConfig;
    const passes = [8, 4, 7, 8, 7, 4, 1, 1, 0, 1, 0, 0];
    const outcomes = passes.map((s, i) => {
      const config: FamilyConfig = { ...base, seed: 700 + i };
      const t = 0.1 + 0.07 * i;
      for (const f of family.fields.filter((x) => x.difficulty && (x.kind === "integer" || x.kind === "number"))) {
        const v = valueAtPosition(f, f.difficulty === "up" ? t : 1 - t);
        config[f.path] = f.kind === "integer" ? Math.round(v) : v;
      }
      return { s, n: 8, config, configHash: configHash(config), age: 2, history: [s / 8] };
    });
    const input = inputOf(family, outcomes);
    const out = heuristicEngineer(input);
    const fates = fate(input, out);
    const weightOf = (key: string) => Number(/frontier weight (\d\.\d\d)/.exec(fates.get(key)?.rationale ?? "")?.[1] ?? 1);
    expect(fates.get("m1")?.rationale).toMatch(/x frontier weight 0\.\d\d \(fitted success 0\.\d\d at hardness 0\.\d\d\) = 0\.\d{3}/);
    expect(weightOf("m1")).toBeLessThan(0.8);
    // m5, as learnable, lies near the frontier: a smaller discount or none, and it ranks above m1
    expect(weightOf("m5")).toBeGreaterThan(weightOf("m1") + 0.1);
    const rank = (key: string) => Number(/ranks (\d+) of/.exec(fates.get(key)?.rationale ?? "")?.[1]);
    expect(rank("m5")).toBeLessThan(rank("m1"));
    expect(out.notes[0]).toMatch(/keep cut: priority 0\.\d{3}, the learnability weighed by hardness and the frontier/);
  });

  it("draws parents by the same priority: the hardest of equally learnable members is a parent on nearly every seed", () => {
    // four children of 12: by learnability alone (all tied) m11 was a parent on 3 of these 10 seeds, by priority on all 10
    let parentOfChild = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const out = heuristicEngineer(risingHardness({ seed, populationSize: 12 }));
      if (out.items.some((i) => i.op === "mutate" && i.parentKey === "m11")) parentOfChild += 1;
    }
    expect(parentOfChild).toBeGreaterThanOrEqual(8);
  });
});

describe("retire rule", () => {
  it("retires solved, hopeless and unsolvable members by name and keeps the frontier", () => {
    const input = inputOf(builtinFamilies["frozenlake-mapf"], [
      { s: 8, n: 8 },
      { s: 0, n: 8, history: [0] },
      { s: 4, n: 8, validation: { state: "unsolvable", pMax: 0 } },
      { s: 4, n: 8 },
      { s: 3, n: 8 },
      { s: 5, n: 8 },
    ]);
    const fates = fate(input, heuristicEngineer({ ...input, options: { seed: 1, keepShare: 1 } }));
    expect(fates.get("m0")?.flags).toContain("retire:solved");
    expect(fates.get("m1")?.flags).toContain("retire:hopeless");
    expect(fates.get("m2")?.flags).toContain("retire:unsolvable");
    for (const key of ["m3", "m4", "m5"]) expect(fates.get(key)?.op, key).toBe("keep");
  });
});

describe("direction of directed mutations", () => {
  for (const familyId of ["frozenlake-mapf", "search-agent"] as const) {
    const family = builtinFamilies[familyId];
    // solved (q > 0.8), too hard (q < 0.2, first time at zero or nearly), and frontier members
    const outcomes: Outcome[] = Array.from({ length: 24 }, (_, i) => {
      switch (i % 4) {
        case 0:
          return { s: 8, n: 8 };
        case 1:
          return { s: i % 8 === 1 ? 0 : 1, n: 8 };
        default:
          return { s: 3 + (i % 3), n: 8 };
      }
    });
    const input = inputOf(family, outcomes, { seed: 9, keepShare: 0.25 });
    const out = perTest(() => heuristicEngineer(input));
    const byKey = new Map(input.population.map((m) => [m.key, m]));
    const directed = (pred: (q: number) => boolean) =>
      out().items.filter(
        (i) => i.op === "mutate" && !i.flags?.includes("crossover") && pred((byKey.get(i.parentKey as string) as PopulationMember).s / 8),
      );

    /** Net change in hardness per difficulty-signed field edited (positive = harder). */
    const moves = (parent: PopulationMember, config: FamilyConfig) =>
      family.fields
        .filter((f) => f.difficulty)
        .map((f) => {
          const from = getFieldValue(parent.config, f.path);
          const to = getFieldValue(config, f.path);
          if (from === to) return 0;
          // a field unset on the parent starts where the family's hidden difficulty assumes missing values: the middle
          return (fieldHardness(f, to) as number) - (from === undefined ? 0.5 : (fieldHardness(f, from) as number));
        })
        .filter((d) => d !== 0);

    it(`${familyId}: pushes solved parents (q > 0.8) harder on every difficulty-signed field it edits`, () => {
      const harder = directed((q) => q > 0.8);
      expect(harder.length).toBeGreaterThan(0);
      for (const child of harder) {
        const parent = byKey.get(child.parentKey as string) as PopulationMember;
        const deltas = moves(parent, child.config);
        expect(deltas.length, child.rationale).toBeGreaterThan(0);
        for (const d of deltas) expect(d, child.rationale).toBeGreaterThan(0);
        expect(child.predictedSuccess as number).toBeLessThan((parent.s + 1) / (parent.n + 2));
      }
    });

    it(`${familyId}: makes parents with q < 0.2 easier on every difficulty-signed field it edits`, () => {
      const easier = directed((q) => q < 0.2);
      expect(easier.length).toBeGreaterThan(0);
      for (const child of easier) {
        const parent = byKey.get(child.parentKey as string) as PopulationMember;
        const deltas = moves(parent, child.config);
        expect(deltas.length, child.rationale).toBeGreaterThan(0);
        for (const d of deltas) expect(d, child.rationale).toBeLessThan(0);
        expect(child.predictedSuccess as number).toBeGreaterThan((parent.s + 1) / (parent.n + 2));
      }
    });
  }
});

/**
 * A frozenlake-mapf population of 24 (a third passed 8/8, a third 1/8, a third 4/8) whose summary has one field, along
 * which success falls from 0.9 to 0.1: the evidence points along that field's direction, nowhere else. `directed`
 * picks the directed children (not crossovers) of parents whose rate passes `pred`.
 */
function evidenceAlong(path: string, direction: "horizon" | "uncertainty", kind: "integer" | "number", labels: [string, string]) {
  const field = {
    path,
    kind,
    direction,
    difficulty: "up",
    buckets: [
      { label: labels[0], environments: 6, rollouts: 48, successRate: 0.9 },
      { label: labels[1], environments: 6, rollouts: 48, successRate: 0.1 },
    ],
  } as SummaryField;
  const outcomes: Outcome[] = Array.from({ length: 24 }, (_, i) =>
    i % 3 === 0 ? { s: 8, n: 8 } : i % 3 === 1 ? { s: 1, n: 8 } : { s: 4, n: 8 },
  );
  const input = inputOf(builtinFamilies["frozenlake-mapf"], outcomes, { seed: 4, keepShare: 0.25 }, [field]);
  const out = perTest(() => heuristicEngineer(input));
  const byKey = new Map(input.population.map((m) => [m.key, m]));
  const directed = (pred: (q: number) => boolean) =>
    out().items.filter(
      (i) => i.op === "mutate" && !i.flags?.includes("crossover") && pred((byKey.get(i.parentKey as string) as PopulationMember).s / 8),
    );
  return { input, out, directed };
}

describe("which direction a directed mutation takes", () => {
  // Success falls from 0.9 to 0.1 across slip_probability: the evidence points along uncertainty, nowhere else.
  const { input, directed } = evidenceAlong("slip_probability", "uncertainty", "number", ["0–0.1", "0.2–0.3"]);

  // (uncertainty goes last for a harder step whatever the evidence says, HEURISTIC_DEFAULTS.harderLast: "least" and
  // "most" swapped is caught by the next block, where the evidence points along horizon)
  it("pushes solved parents harder where the evidence points least (the policy has mastered it), not along uncertainty", () => {
    const harder = directed((q) => q > 0.8);
    expect(harder.length).toBeGreaterThan(0);
    for (const child of harder) expect(child.direction, child.rationale).not.toBe("uncertainty");
  });

  // catches: the saturation rule dropped or inverted (a parent pushed further along the direction it is already near the hard end of)
  it("pushes a solved parent already near horizon's hard end along another direction, and names horizon in its rationale", () => {
    // at mid hardness (where the rule does not bind) the evidence ties horizon and precision and some harder children take horizon
    expect(directed((q) => q > 0.8).some((child) => child.direction === "horizon")).toBe(true);
    // the solved members moved to size 32 and a goal distance of 50 (horizon hardness 0.92) with the most steps (precision's easy end)
    const nearHard: EngineerInput = {
      ...input,
      population: input.population.map((m) =>
        m.s === 8 ? { ...m, config: { ...m.config, size: 32, min_goal_distance: 50, max_steps: 1000 } as FamilyConfig } : m,
      ),
    };
    nearHard.knownHashes = new Set(nearHard.population.map((m) => configHash(m.config)));
    const proposal = heuristicEngineer(nearHard);
    const harder = proposal.items.filter(
      (i) => i.op === "mutate" && !i.flags?.includes("crossover") && /^Solved/.test(i.rationale) && i.rationale.includes("pushed harder"),
    );
    expect(harder.length).toBeGreaterThan(0);
    for (const child of harder) {
      expect(child.direction, child.rationale).toBe("precision");
      expect(child.rationale).toMatch(/among the directions it is not already near the hard end of \(not horizon, at hardness 0\.9\d\)/);
    }
  });

  it("makes failing parents easier where the evidence points most: along uncertainty", () => {
    const easier = directed((q) => q < 0.2);
    expect(easier.length).toBeGreaterThan(0);
    for (const child of easier) expect(child.direction, child.rationale).toBe("uncertainty");
  });
});

describe("a harder step takes noise last", () => {
  // Success falls from 0.9 to 0.1 across size: the evidence points along horizon; precision and uncertainty tie at 0.
  const { out, directed } = evidenceAlong("size", "horizon", "integer", ["3–8", "20–32"]);

  // catches: "least" and "most" swapped between the harder and the easier step (harder along horizon), and the rule
  // dropped (HEURISTIC_DEFAULTS.harderLast empty: precision and uncertainty tie, and some harder children take uncertainty)
  it("pushes solved parents along precision, not horizon (the evidence points there most) nor uncertainty (noise), and says why", () => {
    const harder = directed((q) => q > 0.8);
    expect(harder.length).toBeGreaterThan(2);
    for (const child of harder) {
      expect(child.direction, child.rationale).toBe("precision");
      expect(child.rationale).toContain("that add no noise (not uncertainty: noise caps the success a policy can reach)");
    }
    expect(out().notes.join(" ")).toContain(
      "harder steps prefer precision (where a parent is not already near its hard end; uncertainty last: noise caps",
    );
  });

  it("makes failing parents easier where the evidence points most: along horizon", () => {
    const easier = directed((q) => q < 0.2);
    expect(easier.length).toBeGreaterThan(0);
    for (const child of easier) expect(child.direction, child.rationale).toBe("horizon");
  });
});

describe("replay parents that mostly pass", () => {
  // catches: the replay rule's threshold or direction inverted (mostly-passed parents made easier, or failing ones pushed harder)
  for (const familyId of ["frozenlake-mapf", "search-agent"] as const) {
    const family = builtinFamilies[familyId];
    // no solved parents: every child is a replay; 6 of 8 (q 0.75 > replayHarderAbove) and 3 of 8 (below it)
    const outcomes: Outcome[] = Array.from({ length: 24 }, (_, i) => ({ s: i % 2 === 0 ? 6 : 3, n: 8 }));
    const input = inputOf(family, outcomes, { seed: 11, keepShare: 0.25, addShare: 0 });
    const out = perTest(() => heuristicEngineer(input));
    const byKey = new Map(input.population.map((m) => [m.key, m]));
    const children = (s: number) => out().items.filter((i) => i.op === "mutate" && byKey.get(i.parentKey as string)?.s === s);
    const hardness = (config: FamilyConfig) =>
      family.fields.filter((f) => f.difficulty).map((f) => fieldHardness(f, getFieldValue(config, f.path)) ?? 0.5);

    it(`${familyId}: pushes parents above ${HEURISTIC_DEFAULTS.replayHarderAbove} harder on every difficulty-signed field it edits`, () => {
      const harder = children(6);
      expect(harder.length).toBeGreaterThan(0);
      for (const child of harder) {
        const parent = byKey.get(child.parentKey as string) as PopulationMember;
        const from = hardness(parent.config);
        const to = hardness(child.config);
        const deltas = to.map((h, j) => h - from[j]).filter((d) => d !== 0);
        expect(deltas.length, child.rationale).toBeGreaterThan(0);
        for (const d of deltas) expect(d, child.rationale).toBeGreaterThan(0);
        expect(child.rationale).toMatch(/^Mostly passed \(.*\): pushed harder/);
      }
    });

    it(`${familyId}: gives parents at or below ${HEURISTIC_DEFAULTS.replayHarderAbove} random (undirected) edits`, () => {
      const replayed = children(3);
      expect(replayed.length).toBeGreaterThan(0);
      for (const child of replayed) expect(child.rationale).not.toMatch(/pushed harder|made easier/i);
    });
  }
});

describe("the proposal's validation cap, dropped counts and notes", () => {
  const family = builtinFamilies["frozenlake-mapf"];
  const outcomes: Outcome[] = Array.from({ length: 16 }, (_, i) => ({ s: 2 + (i % 5), n: 8 }));

  it("validates at most 1.5x the children wanted plus 4, and lists every rejection it counted, none at zero", () => {
    const input = inputOf(family, outcomes, { seed: 3 });
    const rejecting = {
      ...family,
      validate: (): ValidationResult => ({ state: "invalid", errors: [{ path: "", message: "rejected by the test" }] }),
    };
    const out = heuristicEngineer({ ...input, family: rejecting });
    // keep 8 of 16: 8 children wanted, so 12 + 4 validations, every one rejected and none accepted
    expect(out.items.filter((i) => i.op === "mutate" || i.op === "add")).toHaveLength(0);
    expect(out.dropped).toEqual([{ reason: "invalid", count: Math.ceil(1.5 * 8) + 4 }]);
    const clean = heuristicEngineer(input);
    for (const d of clean.dropped) expect(d.count, d.reason).toBeGreaterThan(0);
    expect(clean.dropped.map((d) => d.reason)).not.toContain("invalid");
  });

  it("notes a summary of another family, and only then", () => {
    const input = inputOf(family, outcomes, { seed: 3 });
    const mismatch = /^The summary is for family search-agent, the population for frozenlake-mapf/;
    const other = heuristicEngineer({ ...input, summary: { ...input.summary, family: "search-agent" } });
    expect(other.notes.some((n) => mismatch.test(n))).toBe(true);
    expect(heuristicEngineer(input).notes.some((n) => /^The summary is for family/.test(n))).toBe(false);
  });
});

describe("the direction evidence leaves infra-dominated members out", () => {
  // Failing members (1 of 8) sit far along horizon and fill the verifier cluster with 6 infra-dominated members (their
  // failures mostly sandbox crashes) that sit far along uncertainty: counted, they would make uncertainty the direction
  // the failures point to most; left out (index.ts), horizon is.
  const family = builtinFamilies["frozenlake-mapf"];
  const at = (config: FamilyConfig, direction: string, t: number) => {
    const out: FamilyConfig = { ...config };
    for (const f of family.fields.filter((x) => x.direction === direction && x.difficulty && x.kind !== "ordinal")) {
      const v = valueAtPosition(f, f.difficulty === "up" ? t : 1 - t);
      out[f.path] = f.kind === "integer" ? Math.round(v) : v;
    }
    return out;
  };
  const outcomes: Outcome[] = [
    ...Array.from({ length: 24 }, (_, i): Outcome => (i % 3 === 0 ? { s: 8, n: 8 } : i % 3 === 1 ? { s: 1, n: 8 } : { s: 4, n: 8 })),
    ...Array.from({ length: 6 }, (): Outcome => ({ s: 2, n: 8 })),
  ];
  const make = () => {
    const input = inputOf(family, outcomes, { seed: 6, keepShare: 0.25 });
    const failing = input.population.filter((m) => m.s === 1);
    const infra = input.population.slice(24);
    for (const m of failing) {
      m.config = at(m.config, "horizon", 0.85);
      m.clusterIds = ["cl-verifier"];
    }
    for (const m of infra) {
      m.config = at(at(at(m.config, "uncertainty", 0.95), "horizon", 0.05), "precision", 0.05);
      m.clusterIds = ["cl-infra", "cl-verifier"];
    }
    for (const m of input.population) m.configHash = configHash(m.config);
    const cluster = (
      id: string,
      category: SummaryCluster["category"],
      count: number,
      keys: string[],
      isInfra: boolean,
    ): SummaryCluster => ({
      id,
      category,
      signature: `${category}: ${id}`,
      count,
      environments: keys.length,
      environmentKeys: keys,
      exemplarRolloutIds: [],
      excerpt: "",
      infra: isInfra,
    });
    const clusters = [
      cluster(
        "cl-verifier",
        "verifier_failed",
        20,
        [...failing, ...infra].map((m) => m.key),
        false,
      ),
      cluster(
        "cl-infra",
        "infra_error",
        90,
        infra.map((m) => m.key),
        true,
      ),
    ];
    return {
      ...input,
      summary: { ...input.summary, failures: { categories: [], clusters } },
      knownHashes: new Set(input.population.map((m) => m.configHash)),
    };
  };

  it("makes failing parents easier along horizon, where the failures of the members that teach point", () => {
    const input = make();
    const out = heuristicEngineer(input);
    const byKey = new Map(input.population.map((m) => [m.key, m]));
    for (const key of input.population.slice(24).map((m) => m.key)) {
      const item = out.items.find((i) => i.environmentKey === key);
      expect(item?.flags, key).toContain("infra");
    }
    const easier = out.items.filter(
      (i) => i.op === "mutate" && !i.flags?.includes("crossover") && byKey.get(i.parentKey as string)?.s === 1,
    );
    expect(easier.length).toBeGreaterThan(1);
    for (const child of easier) expect(child.direction, child.rationale).toBe("horizon");
  });
});

describe("the proposal's seed, frontier and task pool notes", () => {
  const family = builtinFamilies["frozenlake-mapf"];
  const outcomes: Outcome[] = Array.from({ length: 16 }, (_, i) => ({ s: 2 + (i % 5), n: 8 }));

  it("seeds from the project and generation when no seed is given, from options.seed otherwise", () => {
    const input = inputOf(family, outcomes, {});
    const seedOf = (out: ReturnType<typeof heuristicEngineer>) => /^Heuristic engineer, seed (\d+):/.exec(out.notes[0])?.[1];
    const derived = hashSeed(`${input.summary.project}:${input.summary.generation}`);
    expect(seedOf(heuristicEngineer(input))).toBe(String(derived));
    const next = { ...input, summary: { ...input.summary, generation: input.summary.generation + 1 } };
    expect(seedOf(heuristicEngineer(next))).toBe(String(hashSeed(`${input.summary.project}:${input.summary.generation + 1}`)));
    expect(seedOf(heuristicEngineer({ ...input, options: { seed: 12345 } }))).toBe("12345");
    // the same proposal as with that seed given
    expect(heuristicEngineer(input).items).toEqual(heuristicEngineer({ ...input, options: { seed: derived } }).items);
  });

  it("with freshAtFrontier, notes the hardness window its fresh samples were drawn from; without fresh samples or the option, no note", () => {
    const windows: { min: number; max: number }[] = [];
    const spied = {
      ...flInput.family,
      sample: (rng: Parameters<FamilyDefinition["sample"]>[0], opts?: SampleOptions) => {
        if (opts?.hardness) windows.push(opts.hardness);
        return flInput.family.sample(rng, opts);
      },
    };
    const note =
      /^Fresh samples: two of every three from the hardness window (\d\.\d\d)-(\d\.\d\d) around the competence frontier \(.* at hardness (\d\.\d\d)\)/;
    const out = heuristicEngineer({ ...flInput, family: spied, options: { ...flInput.options, freshAtFrontier: true } });
    expect(out.items.some((i) => i.flags?.includes("fresh_sample"))).toBe(true);
    const m = out.notes.map((n) => note.exec(n)).find((x) => x !== null);
    expect(m, out.notes.join("\n")).toBeDefined();
    expect(windows.length).toBeGreaterThan(0);
    for (const w of windows) {
      expect(m![1]).toBe(w.min.toFixed(2));
      expect(m![2]).toBe(w.max.toFixed(2));
    }
    // the window around the frontier the note names (which it prints to 2 decimals)
    const h = Number(m![3]);
    const expected = frontierWindow(h);
    expect(Math.abs(windows[0].min - expected.min)).toBeLessThanOrEqual(0.006);
    expect(Math.abs(windows[0].max - expected.max)).toBeLessThanOrEqual(0.006);
    const off = heuristicEngineer({ ...flInput, family: spied });
    expect(off.notes.some((n) => n.startsWith("Fresh samples:"))).toBe(false);
    const noFresh = heuristicEngineer({ ...flInput, options: { ...flInput.options, freshAtFrontier: true, addShare: 0 } });
    expect(noFresh.items.some((i) => i.flags?.includes("fresh_sample"))).toBe(false);
    expect(noFresh.notes.some((n) => n.startsWith("Fresh samples:"))).toBe(false);
  });
});

describe("ties at the keep cut", () => {
  // 3/8 and 5/8 have equal learnability: with one 4/8 above them, keeping 6 of 12 cuts through the tie group.
  // Every member is one config with its own seed (equal hardness), so the hardness bias moves no priority.
  const family = builtinFamilies["frozenlake-mapf"];
  const tieNote = / on a tie at the keep cut with (\d+) retired members? \(/;
  const sameHardness = (i: number) => {
    const config = { ...(inputOf(family, [{ s: 4, n: 8 }]).population[0].config as FamilyConfig), seed: 1000 + i };
    return { config, configHash: configHash(config) };
  };

  for (const tied of [6, 7]) {
    it(`names in the rationale of each kept member at the cut how many tied members were retired (${tied - 5} of ${tied})`, () => {
      const rates = [4, ...Array.from({ length: tied }, (_, i) => (i % 2 === 0 ? 3 : 5)), 1, 7, 1, 7, 1, 7].slice(0, 12);
      const input = inputOf(
        family,
        rates.map((s, i) => ({ s, n: 8, ...sameHardness(i) })),
      );
      const out = heuristicEngineer(input);
      const fates = fate(input, out);
      const tiedOut = input.population.filter((m) => (m.s === 3 || m.s === 5) && fates.get(m.key)?.op === "retire");
      expect(tiedOut).toHaveLength(tied - 5);
      for (const m of tiedOut) expect(fates.get(m.key)?.rationale).toMatch(/^Outranked on a tie/);
      const atCut = input.population.filter((m) => (m.s === 3 || m.s === 5) && fates.get(m.key)?.op === "keep");
      expect(atCut).toHaveLength(5);
      for (const m of atCut) {
        const rationale = fates.get(m.key)?.rationale ?? "";
        expect(tieNote.exec(rationale)?.[1], rationale).toBe(String(tied - 5));
        expect(rationale).toContain(tied - 5 === 1 ? "1 retired member (" : `${tied - 5} retired members (`);
      }
      const above = input.population.find((m) => m.s === 4) as PopulationMember;
      expect(fates.get(above.key)?.rationale).not.toMatch(tieNote);
    });
  }
});

describe("the fresh-sample cut", () => {
  // catches: index.ts not passing what the fresh samples measured to the budget, or the cut inverted
  it("adds fewer fresh samples after the last ones came back passed, and mutates more", () => {
    const family = builtinFamilies["frozenlake-mapf"];
    const outcomes = (freshS: number): Outcome[] => [
      ...Array.from({ length: 16 }, (_, i) => ({ s: 2 + (i % 5), n: 8, age: 2, history: [0.4] })),
      ...Array.from({ length: 16 }, () => ({ s: freshS, n: 8, op: "add", age: 1 })),
    ];
    const count = (out: ReturnType<typeof heuristicEngineer>) => ({
      fresh: out.items.filter((i) => i.flags?.includes("fresh_sample")).length,
      mutated: out.items.filter((i) => i.op === "mutate").length,
    });
    const options = { seed: 5, populationSize: 32, addShare: 0.25 };
    const atLevel = count(heuristicEngineer(inputOf(family, outcomes(4), options)));
    const tooEasy = count(heuristicEngineer(inputOf(family, outcomes(8), options)));
    // addShare 0.25 of 32: 8 adds, 4 crossovers and 4 fresh; cut: 5 adds (2 crossovers, 3 fresh), 3 more mutations
    expect(atLevel.fresh).toBe(4);
    expect(tooEasy.fresh).toBe(3);
    expect(tooEasy.mutated).toBe(atLevel.mutated + 3);
  });
});

import { describe, expect, it } from "vitest";
import { fieldBreakdown } from "@/lib/analytics/metrics";
import { getFieldValue } from "@/lib/families/field-path";
import { fieldHardness, valueAtPosition } from "@/lib/families/hardness";
import { configHash } from "@/lib/families/hash";
import { stepHarder } from "@/lib/families/operators";
import { builtinFamilies } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import type { FamilyConfig, FamilyDefinition, FieldSpec } from "@/lib/families/types";
import { UNSET_DEFAULTS, heuristicEngineer } from ".";
import type { EngineerInput, EngineerOutput, PopulationMember, StructuredSummary, SummaryCluster } from "../types";

type Outcome = { s: number; n: number; history: number[]; validation?: PopulationMember["validation"] };

/** Outcomes by position: solved, hopeless, first-time zero, unsolvable, invalid and a spread of frontier rates. */
function outcomeFor(i: number): Outcome {
  switch (i % 10) {
    case 0:
      return { s: 8, n: 8, history: [0.75] };
    case 1:
      return { s: 8, n: 8, history: [] };
    case 2:
      return { s: 0, n: 8, history: [0] };
    case 3:
      return { s: 0, n: 8, history: [] };
    case 5:
      return i === 5 ? { s: 0, n: 8, history: [], validation: { state: "unsolvable", pMax: 0 } } : { s: 3, n: 8, history: [0.25] };
    case 7:
      return i === 7 ? { s: 0, n: 0, history: [], validation: { state: "invalid", pMax: null } } : { s: 5, n: 8, history: [0.5] };
    default:
      return { s: 1 + (i % 7), n: 8, history: [0.3] };
  }
}

function buildSummary(family: FamilyDefinition, population: PopulationMember[], clusters: SummaryCluster[]): StructuredSummary {
  const fields = family.fields
    .filter((f) => f.mutable !== false)
    .map((f) => {
      const breakdown = fieldBreakdown(
        population.map((m) => ({ value: getFieldValue(m.config, f.path), env: { n: m.n, s: m.s, rewardSum: m.s } })),
        { kind: f.kind, levels: f.levels },
      );
      return {
        path: f.path,
        kind: f.kind,
        direction: f.direction ?? null,
        difficulty: f.difficulty ?? null,
        buckets: breakdown.buckets.map((b) => ({
          label: b.label,
          environments: b.environments,
          rollouts: b.rollouts,
          successRate: b.successRate,
        })),
      };
    });
  const rollouts = population.reduce((a, m) => a + m.n, 0);
  const successes = population.reduce((a, m) => a + m.s, 0);
  return {
    project: "demo",
    family: family.id,
    generation: 3,
    policy: null,
    successThreshold: 1,
    behaviour: {
      rollouts,
      environments: population.length,
      successRate: rollouts > 0 ? successes / rollouts : null,
      meanReward: null,
      passAtK: {},
      turns: { median: null, p90: null },
      outputTokens: { median: null, p90: null },
      infraErrorRate: 0,
      zeroSignalFraction: null,
      learnability: null,
      tiers: { frontier: 0, advanced: 0, core: 0, solved: 0 },
    },
    failures: { categories: [], clusters },
    environments: { fields, solved: [], frontier: [], hopeless: [], unvalidated: [], unsolvable: [] },
    history: { proposals: [], predictions: [] },
    tokenEstimate: 0,
    truncated: [],
  };
}

/** A synthetic base generation of `size` environments with measured results, failure clusters and a summary. */
function buildInput(family: FamilyDefinition, size: number, opts: { seed?: number; knownHashes?: Iterable<string> } = {}): EngineerInput {
  const rng = createRng(`population:${family.id}:${size}`);
  const population: PopulationMember[] = [];
  for (let i = 0; i < size; i++) {
    const config = family.sample(rng, { hardness: { min: 0, max: 0.5 } }) as FamilyConfig;
    const outcome = outcomeFor(i);
    const validated = family.validate(config);
    population.push({
      key: `g3-${String(i).padStart(3, "0")}`,
      config,
      configHash: configHash(config),
      parentKey: null,
      op: "seed",
      direction: null,
      validation: outcome.validation ?? { state: validated.state, pMax: validated.pMax ?? null },
      n: outcome.n,
      s: outcome.s,
      age: 1 + outcome.history.length,
      history: outcome.history,
      clusterIds: [],
    });
  }
  const failing = population.filter((m) => m.s < m.n);
  const clusters: SummaryCluster[] = [
    {
      id: "cl-timeout",
      category: "agent_timeout",
      signature: "agent_timeout: ran out of steps",
      count: 40,
      environments: Math.ceil(failing.length / 2),
      environmentKeys: failing
        .filter((_, i) => i % 2 === 0)
        .map((m) => m.key)
        .slice(0, 10),
      exemplarRolloutIds: ["ro-1", "ro-2"],
      excerpt: "step budget exhausted",
      infra: false,
    },
    {
      id: "cl-verifier",
      category: "verifier_failed",
      signature: "verifier_failed: fell into a hole",
      count: 25,
      environments: Math.floor(failing.length / 2),
      environmentKeys: failing
        .filter((_, i) => i % 2 === 1)
        .map((m) => m.key)
        .slice(0, 10),
      exemplarRolloutIds: ["ro-3"],
      excerpt: "agent 0 fell into a hole at (2, 3)",
      infra: false,
    },
    {
      id: "cl-infra",
      category: "infra_error",
      signature: "infra_error: sandbox crashed",
      count: 3,
      environments: 1,
      environmentKeys: [failing[0]?.key ?? "none"],
      exemplarRolloutIds: ["ro-9"],
      excerpt: "sandbox crashed",
      infra: true,
    },
  ];
  failing.forEach((m, i) => {
    m.clusterIds =
      i === 0 ? ["cl-infra", i % 2 === 0 ? "cl-timeout" : "cl-verifier"] : [i % 2 === 0 ? "cl-timeout" : "cl-verifier", "cl-unknown"];
  });
  return {
    family,
    summary: buildSummary(family, population, clusters),
    population,
    options: opts.seed === undefined ? {} : { seed: opts.seed },
    knownHashes: new Set([...population.map((m) => m.configHash), ...(opts.knownHashes ?? [])]),
    keyPrefix: "g4-",
  };
}

const children = (out: EngineerOutput) => out.items.filter((item) => item.op === "mutate" || item.op === "add");

function inBounds(spec: FieldSpec, value: unknown): boolean {
  switch (spec.kind) {
    case "integer":
      return Number.isInteger(value) && (value as number) >= (spec.min as number) && (value as number) <= (spec.max as number);
    case "number":
      return typeof value === "number" && value >= (spec.min as number) && value <= (spec.max as number);
    case "ordinal":
    case "nominal":
      return spec.levels === undefined || spec.levels.includes(value as never);
    case "boolean":
      return typeof value === "boolean";
  }
}

const frozenlake = builtinFamilies["frozenlake-mapf"];
const terminal = builtinFamilies["terminal-task"];
const flInput = buildInput(frozenlake, 40, { seed: 7 });
const flOut = heuristicEngineer(flInput);
const ttInput = buildInput(terminal, 60, { seed: 11 });
const ttOut = heuristicEngineer(ttInput);

describe("heuristicEngineer: determinism", () => {
  it("gives a deep-equal proposal for the same seed", () => {
    expect(heuristicEngineer(flInput)).toEqual(flOut);
    expect(heuristicEngineer(ttInput)).toEqual(ttOut);
  });

  it("gives different children for a different seed", () => {
    const other = heuristicEngineer({ ...flInput, options: { seed: 8 } });
    const hashes = (out: EngineerOutput) => children(out).map((c) => configHash(c.config));
    expect(hashes(other)).not.toEqual(hashes(flOut));
  });

  it("defaults the seed to a hash of project and generation", () => {
    const input = { ...flInput, options: {} };
    expect(heuristicEngineer(input)).toEqual(heuristicEngineer(input));
  });
});

describe("heuristicEngineer: the fate of every member", () => {
  for (const [name, input, out] of [
    ["frozenlake-mapf", flInput, flOut],
    ["terminal-task", ttInput, ttOut],
  ] as const) {
    it(`${name}: gives each population member exactly one keep or retire item`, () => {
      const fates = out.items.filter((i) => i.op === "keep" || i.op === "retire");
      expect(fates).toHaveLength(input.population.length);
      expect(new Set(fates.map((i) => i.environmentKey))).toEqual(new Set(input.population.map((m) => m.key)));
      for (const item of fates) {
        const member = input.population.find((m) => m.key === item.environmentKey) as PopulationMember;
        expect(item.config).toEqual(member.config);
      }
    });

    it(`${name}: keeps at most half of the population, the most learnable first`, () => {
      const keeps = out.items.filter((i) => i.op === "keep");
      expect(keeps.length).toBeGreaterThan(0);
      expect(keeps.length).toBeLessThanOrEqual(Math.floor(input.population.length / 2));
      const total = out.items.filter((i) => i.op !== "retire").length;
      expect(total).toBeLessThanOrEqual(input.population.length);
    });
  }

  it("retires unsolvable and invalid environments with that reason", () => {
    const byKey = new Map(flOut.items.map((i) => [i.environmentKey, i]));
    const unsolvable = byKey.get("g3-005");
    expect(unsolvable?.op).toBe("retire");
    expect(unsolvable?.rationale).toMatch(/^Unsolvable/);
    const invalid = byKey.get("g3-007");
    expect(invalid?.op).toBe("retire");
    expect(invalid?.rationale).toMatch(/^Invalid/);
    // never used as parents
    for (const child of children(flOut)) {
      expect(["g3-005", "g3-007"]).not.toContain(child.parentKey);
      expect(["g3-005", "g3-007"]).not.toContain(child.secondParentKey);
    }
  });

  it("retires hopeless environments only after two generations at zero", () => {
    const byKey = new Map(flOut.items.map((i) => [i.environmentKey, i]));
    expect(byKey.get("g3-002")?.rationale).toMatch(/^Hopeless/);
    expect(byKey.get("g3-003")?.rationale ?? "").not.toMatch(/^Hopeless/);
  });

  it("retires solved environments and names every retirement's reason", () => {
    for (const item of flOut.items.filter((i) => i.op === "retire")) {
      expect(item.rationale).toMatch(/^(Solved|Hopeless|Unsolvable|Invalid|Outranked)/);
    }
    for (const key of ["g3-000", "g3-001", "g3-010"]) {
      const item = flOut.items.find((i) => i.environmentKey === key);
      expect(item?.op).toBe("retire");
      expect(item?.rationale).toMatch(/^Solved \(8\/8/);
    }
  });
});

describe("heuristicEngineer: children", () => {
  it("proposes children that validate, with unique keys and fresh hashes", () => {
    for (const [input, out] of [
      [flInput, flOut],
      [ttInput, ttOut],
    ] as const) {
      const kids = children(out);
      expect(kids.length).toBeGreaterThan(0);
      const hashes = kids.map((c) => configHash(c.config));
      expect(new Set(hashes).size).toBe(hashes.length);
      for (const [i, child] of kids.entries()) {
        expect(input.family.validate(child.config).state, child.environmentKey).toBe("valid");
        expect(input.knownHashes.has(hashes[i])).toBe(false);
        expect(child.environmentKey).toMatch(/^g4-\d{3}$/);
        expect(child.proposer).toBe("heuristic");
        expect(child.direction).toBeDefined();
        expect(child.predictedSuccess).toBeGreaterThanOrEqual(0);
        expect(child.predictedSuccess).toBeLessThanOrEqual(1);
      }
      const keys = out.items.map((i) => i.environmentKey);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it("never lets a known hash in again, and counts the duplicates it dropped", () => {
    const first = children(flOut).map((c) => configHash(c.config));
    const input = { ...flInput, knownHashes: new Set([...flInput.knownHashes, ...first]) };
    const again = heuristicEngineer(input);
    for (const child of children(again)) expect(input.knownHashes.has(configHash(child.config))).toBe(false);
    expect(again.dropped.find((d) => d.reason === "duplicate")?.count ?? 0).toBeGreaterThan(0);
  });

  it("fills the population back to its size with mutations, fresh samples and crossovers", () => {
    const ops = (op: string) => flOut.items.filter((i) => i.op === op).length;
    expect(ops("keep") + ops("mutate") + ops("add")).toBe(flInput.population.length);
    expect(ops("add")).toBe(Math.round(0.15 * flInput.population.length));
    expect(flOut.items.some((i) => i.flags?.includes("crossover") && i.secondParentKey)).toBe(true);
    expect(flOut.items.some((i) => i.flags?.includes("fresh_sample") && !i.parentKey)).toBe(true);
  });

  it("pushes solved parents harder by one step along a difficulty direction", () => {
    const byKey = new Map(flInput.population.map((m) => [m.key, m]));
    const harder = children(flOut).filter((c) => c.rationale.startsWith("Solved"));
    expect(harder.length).toBeGreaterThan(0);
    for (const child of harder) {
      const parent = byKey.get(child.parentKey as string) as PopulationMember;
      expect(["horizon", "uncertainty", "precision"]).toContain(child.direction);
      let directedEdits = 0;
      for (const field of frozenlake.fields) {
        const from = getFieldValue(parent.config, field.path);
        const to = getFieldValue(child.config, field.path);
        if (from === to) continue;
        if (field.difficulty) {
          expect(field.direction).toBe(child.direction);
          expect(to, field.path).toBe(stepHarder(field, from, 1));
          expect(fieldHardness(field, to)).toBeGreaterThan(fieldHardness(field, from) as number);
          directedEdits += 1;
        } else {
          expect(field.direction, `${field.path} may change only as a reseed`).toBe("diversify");
        }
      }
      expect(directedEdits).toBeGreaterThanOrEqual(1);
      expect(directedEdits).toBeLessThanOrEqual(3);
      expect(child.predictedSuccess as number).toBeLessThan((parent.s + 1) / (parent.n + 2));
    }
  });

  it("makes parents with q < 0.2 easier along a difficulty direction", () => {
    const out = heuristicEngineer({ ...ttInput, options: { seed: 11, keepShare: 0.1 } });
    const byKey = new Map(ttInput.population.map((m) => [m.key, m]));
    const easier = children(out).filter((c) => c.rationale.startsWith("Too hard"));
    expect(easier.length).toBeGreaterThan(0);
    let timeoutDriven = 0;
    for (const child of easier) {
      const parent = byKey.get(child.parentKey as string) as PopulationMember;
      expect(parent.s / parent.n).toBeLessThan(0.2);
      // A timeout-driven step raises the budget (agent_timeout_sec) several steps at once; every other field moves one step.
      const timedOut = /timed out \(agent_timeout\)/.test(child.rationale);
      if (timedOut) timeoutDriven += 1;
      for (const field of terminal.fields.filter((f) => f.difficulty)) {
        const from = getFieldValue(parent.config, field.path);
        const to = getFieldValue(child.config, field.path);
        if (from === to) continue;
        if (timedOut && field.path === "agent_timeout_sec") {
          let steps = 0;
          for (let v = from; v !== to && steps < 10; steps++) v = stepHarder(field, v, -1);
          expect(steps, field.path).toBeGreaterThanOrEqual(1);
          expect(steps, field.path).toBeLessThanOrEqual(4);
        } else expect(to, field.path).toBe(stepHarder(field, from, -1));
      }
    }
    expect(timeoutDriven).toBeGreaterThan(0);
  });

  it("keeps numeric fields in bounds, moves ordinals one level and resamples nominals among their levels", () => {
    for (const [input, out] of [
      [flInput, flOut],
      [ttInput, ttOut],
    ] as const) {
      const byKey = new Map(input.population.map((m) => [m.key, m]));
      for (const child of children(out)) {
        for (const field of input.family.fields) {
          const to = getFieldValue(child.config, field.path);
          if (to !== undefined) expect(inBounds(field, to), `${child.environmentKey} ${field.path}=${String(to)}`).toBe(true);
        }
        if (child.op !== "mutate") continue;
        const parent = byKey.get(child.parentKey as string) as PopulationMember;
        for (const field of input.family.fields) {
          const from = getFieldValue(parent.config, field.path);
          const to = getFieldValue(child.config, field.path);
          if (from === to) continue;
          expect(field.mutable, `${field.path} is an identity field`).not.toBe(false);
          if (field.kind === "ordinal" && from !== undefined) {
            const levels = field.levels as unknown[];
            expect(Math.abs(levels.indexOf(to) - levels.indexOf(from)), field.path).toBe(1);
          }
          if (field.kind === "nominal") expect(field.levels).toContain(to);
        }
      }
    }
    const ordinalMoves = children(ttOut).filter((c) => c.op === "mutate");
    expect(ordinalMoves.length).toBeGreaterThan(0);
  });
});

describe("heuristicEngineer: evidence", () => {
  it("cites only clusters and rollouts of the summary, and only real environments and fields", () => {
    for (const [input, out] of [
      [flInput, flOut],
      [ttInput, ttOut],
    ] as const) {
      const clusterIds = new Set(input.summary.failures.clusters.map((c) => c.id));
      const rolloutIds = new Set(input.summary.failures.clusters.flatMap((c) => c.exemplarRolloutIds));
      const envKeys = new Set(input.population.map((m) => m.key));
      const paths = new Set(input.family.fields.map((f) => f.path));
      let clusterRefs = 0;
      for (const item of out.items) {
        expect(item.rationale.length).toBeGreaterThan(10);
        for (const ref of item.evidence) {
          if (ref.kind === "cluster") {
            expect(clusterIds.has(ref.ref), ref.ref).toBe(true);
            clusterRefs += 1;
          } else if (ref.kind === "rollout") {
            expect(rolloutIds.has(ref.ref), ref.ref).toBe(true);
          } else {
            const [kind, name] = [ref.ref.slice(0, ref.ref.indexOf(":")), ref.ref.slice(ref.ref.indexOf(":") + 1)];
            if (kind === "env") expect(envKeys.has(name), ref.ref).toBe(true);
            else {
              expect(kind).toBe("field");
              expect(paths.has(name), ref.ref).toBe(true);
            }
          }
        }
        if (item.op !== "add") expect(item.evidence.length, item.environmentKey).toBeGreaterThan(0);
      }
      expect(clusterRefs).toBeGreaterThan(0);
    }
  });

  it("cites an infra cluster only on items flagged infra, and writes rationales with numbers", () => {
    // g3-002's failures are mostly infrastructure (the fixture's cl-infra): its retire item cites it, nothing else does.
    for (const item of flOut.items) {
      const cited = item.evidence.filter((e) => e.kind === "cluster").map((e) => e.ref);
      if (cited.includes("cl-infra")) expect(item.flags, item.environmentKey).toContain("infra");
    }
    expect(flOut.items.find((i) => i.environmentKey === "g3-002")?.flags).toContain("infra");
    const harder = children(flOut).find((c) => c.rationale.startsWith("Solved"));
    expect(harder?.rationale).toMatch(
      /Solved \(8\/8, q 1\.00.*\): pushed harder along \w+, which the failure evidence points to least: \w+ [\d.]+→[\d.]+/,
    );
  });

  it("notes the direction evidence and the child counts", () => {
    expect(flOut.notes.some((n) => n.startsWith("Failure evidence by direction"))).toBe(true);
    expect(flOut.notes.some((n) => n.startsWith("Children:"))).toBe(true);
  });
});

describe("heuristicEngineer: options and edge cases", () => {
  it("honours populationSize, keepShare and addShare", () => {
    const out = heuristicEngineer({ ...ttInput, options: { seed: 3, populationSize: 30, keepShare: 0.2, addShare: 0.3 } });
    expect(out.items.filter((i) => i.op === "keep")).toHaveLength(6);
    expect(out.items.filter((i) => i.op === "add")).toHaveLength(9);
    expect(out.items.filter((i) => i.op !== "retire")).toHaveLength(30);
  });

  it("uses the GRPO group learnability when a group size is given", () => {
    const out = heuristicEngineer({ ...ttInput, options: { seed: 11, groupSize: 8 } });
    expect(out.items.filter((i) => i.op === "keep").length).toBe(ttOut.items.filter((i) => i.op === "keep").length);
    expect(out.items.find((i) => i.op === "keep")?.evidence[0].note).toMatch(/learnability 0\.\d+/);
  });

  it("handles an empty population", () => {
    const input = buildInput(terminal, 0, { seed: 1 });
    expect(heuristicEngineer(input)).toMatchObject({ items: [], dropped: [] });
    const grown = heuristicEngineer({ ...input, options: { seed: 1, populationSize: 5 } });
    expect(grown.items.filter((i) => i.op === "add")).toHaveLength(5);
  });
});

describe("heuristicEngineer: learning progress and step sizes", () => {
  /** flInput with some members replaced by the given outcomes (summary rebuilt). */
  function withOutcomes(edit: (m: PopulationMember, i: number) => Partial<PopulationMember>): EngineerInput {
    const population = flInput.population.map((m, i) => ({ ...m, ...edit(m, i) }));
    return { ...flInput, population, summary: buildSummary(frozenlake, population, flInput.summary.failures.clusters) };
  }

  it("retires a member trained for three generations without its success rate rising, and never breeds from it", () => {
    const input = withOutcomes((m, i) =>
      i === 4 ? { s: 4, n: 8, history: [0.5, 0.5], age: 3 } : i === 6 ? { s: 5, n: 8, history: [0.25, 0.5], age: 3 } : {},
    );
    const out = heuristicEngineer(input);
    const flat = out.items.find((i) => i.environmentKey === "g3-004");
    expect(flat?.op).toBe("retire");
    expect(flat?.flags).toContain("retire:plateaued");
    expect(flat?.rationale).toMatch(/^Plateaued \(learnability without learning progress\): success rates 0\.50 → 0\.50 → 0\.50/);
    for (const child of children(out)) {
      expect(child.parentKey).not.toBe("g3-004");
      expect(child.secondParentKey).not.toBe("g3-004");
    }
    // rising from 0.25 to 0.5 and 0.625 is progress
    expect(out.items.find((i) => i.environmentKey === "g3-006")?.flags ?? []).not.toContain("retire:plateaued");
    expect(out.notes[0]).toMatch(/plateaued 1,/);
    // plateauGenerations 0 turns it off
    const off = heuristicEngineer({ ...input, options: { seed: 7, plateauGenerations: 0 } });
    expect(off.items.find((i) => i.environmentKey === "g3-004")?.flags ?? []).not.toContain("retire:plateaued");
  });

  it("takes several steps a numeric field when the policy has outgrown the population, ordinals still one level", () => {
    const input = withOutcomes((m, i) => (m.validation.state === "valid" ? { s: i % 3 === 0 ? 7 : 8, n: 8, history: [] } : {}));
    const out = heuristicEngineer(input);
    const byKey = new Map(input.population.map((m) => [m.key, m]));
    const harder = children(out).filter((c) => c.rationale.startsWith("Solved") || c.rationale.startsWith("Nearly solved"));
    expect(harder.length).toBeGreaterThan(0);
    let multi = 0;
    for (const child of harder) {
      const parent = byKey.get(child.parentKey as string) as PopulationMember;
      for (const field of frozenlake.fields.filter((f) => f.difficulty)) {
        const from = getFieldValue(parent.config, field.path);
        const to = getFieldValue(child.config, field.path);
        if (from === to) continue;
        expect(fieldHardness(field, to) as number).toBeGreaterThan(fieldHardness(field, from) as number);
        let steps = 0;
        for (let v = from; v !== to && steps < 10; steps++) v = stepHarder(field, v, 1);
        expect(steps, field.path).toBeLessThanOrEqual(field.kind === "integer" || field.kind === "number" ? 4 : 1);
        if (steps > 1) multi += 1;
      }
    }
    expect(multi).toBeGreaterThan(0);
  });
});

describe("heuristicEngineer: failure-aware on a Harbor-like import", () => {
  type Breakdown = Partial<Record<"infra" | "timeout" | "format" | "tests", number>>;
  const clusterSpec = {
    infra: {
      id: "cl-h-infra",
      category: "infra_error",
      signature: "verifier setup: curl: command not found (apt: package not found)",
      infra: true,
    },
    timeout: {
      id: "cl-h-timeout",
      category: "agent_timeout",
      signature: "AgentTimeoutError: Agent execution timed out after <n> seconds",
      infra: false,
    },
    format: { id: "cl-h-format", category: "format_error", signature: "format error: did not include a valid tool call", infra: false },
    tests: { id: "cl-h-tests", category: "verifier_failed", signature: "test_outputs.py::test_result_matches", infra: false },
  } as const;

  /** 40 tasks as a Harbor job imports them (task_name, source, git_commit; agent_timeout_sec on most), 10 attempts each. */
  function harborInput(): EngineerInput {
    const plan: { s: number; failures: Breakdown; timeout?: boolean }[] = [];
    for (let i = 0; i < 5; i++) plan.push({ s: 0, failures: { infra: 10 } }); // h00-h04: the image is broken
    plan.push({ s: 4, failures: { infra: 5, tests: 1 } }); // h05: passes despite infra noise
    for (let i = 0; i < 8; i++) plan.push({ s: i % 3 === 0 ? 1 : 0, failures: { timeout: 7, tests: i % 3 === 0 ? 2 : 3 }, timeout: i < 5 }); // h06-h13: hopeless, timing out (h11-h13 without a timeout)
    for (let i = 0; i < 6; i++) plan.push({ s: 4 + (i % 3), failures: { format: 6 - (i % 3) } }); // h14-h19: learnable, failing on format
    const rates = [0, 0, 0, 1, 2, 3, 3, 4, 5, 5, 6, 6, 7, 7, 8, 9, 10, 10, 10, 10];
    rates.forEach((s, i) => plan.push({ s, failures: s < 10 ? { tests: 10 - s } : {}, timeout: i % 4 !== 1 })); // h20-h39: failed tests
    const population: PopulationMember[] = plan.map((p, i) => {
      const config: FamilyConfig = {
        task_name: `tb2-task-${String(i).padStart(2, "0")}`,
        source: "terminal-bench",
        git_commit: "69671fbaac6d67a7ef0dfec016cc38a64ef7a77c",
      };
      if (p.timeout !== false) config.agent_timeout_sec = 900;
      const ids = (Object.entries(p.failures) as [keyof Breakdown, number][])
        .filter(([, c]) => c > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([k]) => clusterSpec[k].id);
      return {
        key: `h${String(i).padStart(2, "0")}`,
        config,
        configHash: configHash(config),
        parentKey: null,
        op: "import",
        direction: null,
        validation: { state: "unvalidated", pMax: null },
        n: 10,
        s: p.s,
        age: 1,
        history: [],
        clusterIds: ids,
      };
    });
    const clusters: SummaryCluster[] = (Object.keys(clusterSpec) as (keyof Breakdown)[]).map((k) => {
      const members = plan.map((p, i) => ({ key: population[i].key, count: p.failures[k] ?? 0 })).filter((m) => m.count > 0);
      return {
        ...clusterSpec[k],
        count: members.reduce((a, m) => a + m.count, 0),
        environments: members.length,
        environmentKeys: members.map((m) => m.key).slice(0, 10),
        exemplarRolloutIds: [`ro-${k}-1`],
        excerpt: k,
      };
    });
    return {
      family: terminal,
      summary: buildSummary(terminal, population, clusters),
      population,
      options: { seed: 5 },
      knownHashes: new Set(population.map((m) => m.configHash)),
      keyPrefix: "g1-",
    };
  }

  const input = harborInput();
  const out = heuristicEngineer(input);
  const byKey = new Map(input.population.map((m) => [m.key, m]));
  const itemOf = (key: string) => out.items.find((i) => i.environmentKey === key && (i.op === "keep" || i.op === "retire"));
  const infraKeys = ["h00", "h01", "h02", "h03", "h04", "h05"];
  const clustersCited = (item: { evidence: { kind: string; ref: string }[] }) =>
    item.evidence.filter((e) => e.kind === "cluster").map((e) => e.ref);

  it("is deterministic for a seed", () => {
    expect(heuristicEngineer(input)).toEqual(out);
  });

  it("never breeds from infra-dominated members, and says plainly that they look broken", () => {
    for (const child of children(out)) {
      expect(infraKeys).not.toContain(child.parentKey);
      expect(infraKeys).not.toContain(child.secondParentKey);
    }
    for (const key of infraKeys) {
      const item = itemOf(key);
      expect(item?.flags, key).toContain("infra");
      expect(item?.rationale, key).toMatch(/looks (partly )?broken/i);
      expect(item?.rationale, key).toMatch(/curl: command not found/);
      expect(item?.rationale, key).toMatch(/fix the image/);
      expect(clustersCited(item!), key).toEqual(["cl-h-infra"]);
    }
    for (const key of infraKeys.slice(0, 5)) {
      expect(itemOf(key)?.op, key).toBe("retire");
      expect(itemOf(key)?.rationale, key).toMatch(
        /^Looks broken \(0\/10, none passed\): 10 of 10 attempts failed on infrastructure \(infra_error/,
      );
    }
    // h05 passes 4 of 10: judged by learnability like any other member, with the warning
    expect(itemOf("h05")?.rationale).toMatch(/about \d+ of 10 attempts failed on infrastructure/);
    expect(out.notes.some((n) => /infrastructure 6/.test(n))).toBe(true);
    // only infra items cite the infra cluster
    for (const item of out.items) if (clustersCited(item).includes("cl-h-infra")) expect(item.flags).toContain("infra");
  });

  it("never retires as broken a task whose sandbox the agent itself broke (a policy failure)", () => {
    const blamed = harborInput();
    for (const c of blamed.summary.failures.clusters) {
      if (c.id !== "cl-h-infra") continue;
      c.category = "environment_broken_by_agent";
      c.signature =
        "agent's package-manager command timed out; verifier setup: curl: command not found (apt: dpkg lock held by another process)";
      c.infra = false;
    }
    blamed.summary.failures.categories = blamed.summary.failures.categories.map((c) =>
      c.category === "infra_error" ? { category: "environment_broken_by_agent", count: c.count, infra: false } : c,
    );
    blamed.summary.behaviour.infraErrorRate = 0;
    const res = heuristicEngineer(blamed);
    for (const key of infraKeys) {
      const item = res.items.find((i) => i.environmentKey === key && (i.op === "keep" || i.op === "retire"));
      expect(item?.flags ?? [], key).not.toContain("infra");
      expect(item?.flags ?? [], key).not.toContain("retire:infra");
      expect(item?.rationale ?? "", key).not.toMatch(/looks (partly )?broken|fix the image/i);
    }
  });

  it("raises agent_timeout_sec (precision) of hopeless members that time out, citing the timeout cluster", () => {
    const timeoutKeys = new Set(["h06", "h07", "h08", "h09", "h10", "h11", "h12", "h13"]);
    const kids = children(out).filter((c) => timeoutKeys.has(c.parentKey as string));
    expect(kids.length).toBeGreaterThanOrEqual(3);
    let fromUnset = 0;
    for (const child of kids) {
      const parent = byKey.get(child.parentKey as string) as PopulationMember;
      expect(child.direction).toBe("precision");
      const from = parent.config.agent_timeout_sec as number | undefined;
      const to = child.config.agent_timeout_sec as number;
      expect(to).toBeGreaterThan(from ?? 900);
      if (from === undefined) fromUnset += 1;
      expect(child.rationale).toMatch(
        /^Too hard \([01]\/10, q 0\.\d\d\), (about )?\d+ of 10 attempts timed out \(agent_timeout\): agent_timeout_sec (\d+|unset \(assumed 900\))→\d+ along precision/,
      );
      expect(clustersCited(child)).toEqual(["cl-h-timeout"]);
      // nothing else changed
      for (const key of Object.keys({ ...parent.config, ...child.config }))
        if (key !== "agent_timeout_sec") expect(child.config[key], key).toEqual(parent.config[key]);
    }
    expect(fromUnset).toBeGreaterThan(0);
  });

  it("keeps learnable members that fail on the policy's format, saying so, and never makes them easier", () => {
    const formatKeys = ["h14", "h15", "h16", "h17", "h18", "h19"];
    for (const key of formatKeys) {
      const item = itemOf(key);
      expect(item?.op, key).toBe("keep");
      expect(item?.rationale, key).toMatch(
        /failed on the policy's output \(format_error\), which is the policy's format or context, not the environment's difficulty/,
      );
      expect(clustersCited(item!), key).toEqual(["cl-h-format"]);
    }
    for (const child of children(out)) if (formatKeys.includes(child.parentKey as string)) expect(child.rationale).not.toMatch(/^Too hard/);
  });

  it("cites the failing-test cluster when failed tests make a hopeless member easier", () => {
    // a small keep share leaves room for children of the less learnable parents too
    const wide = heuristicEngineer({ ...input, options: { seed: 5, keepShare: 0.1 } });
    const kids = children(wide).filter((c) => ["h20", "h21", "h22", "h23"].includes(c.parentKey as string));
    expect(kids.length).toBeGreaterThan(0);
    for (const child of kids) {
      expect(child.rationale).toMatch(
        /^Too hard \([01]\/10, q 0\.\d\d\), (9|10) of 10 attempts failed the tests \(verifier_failed\): made easier along \w+/,
      );
      expect(clustersCited(child)).toEqual(["cl-h-tests"]);
    }
  });

  /** Sign of a mutated child's step: -1 made easier, 1 pushed harder, 0 an undirected edit. */
  const signOf = (rationale: string) => (rationale.startsWith("Too hard") ? -1 : /^(Solved|Nearly solved)/.test(rationale) ? 1 : 0);

  for (const [name, caseInput, caseOut] of [
    ["harbor-like terminal-task", input, out],
    ["terminal-task", ttInput, ttOut],
    ["frozenlake-mapf", flInput, flOut],
  ] as const) {
    it(`${name}: no child sets a field unset on its parent, except a difficulty-signed one moved along the child's direction`, () => {
      const parents = new Map(caseInput.population.map((m) => [m.key, m]));
      for (const child of children(caseOut).filter((c) => c.parentKey)) {
        const parent = parents.get(child.parentKey as string) as PopulationMember;
        const second = child.secondParentKey ? parents.get(child.secondParentKey) : undefined;
        const sign = child.op === "mutate" ? signOf(child.rationale) : 0;
        for (const field of caseInput.family.fields) {
          const from = getFieldValue(parent.config, field.path);
          const to = getFieldValue(child.config, field.path);
          if (field.mutable === false) expect(to, `${child.environmentKey} ${field.path}`).toEqual(from);
          if (from !== undefined || to === undefined) continue;
          const what = `${child.environmentKey} sets ${field.path} (unset on ${parent.key})`;
          expect(second, what).toBeUndefined();
          expect(sign, what).not.toBe(0);
          expect(field.difficulty, what).toBeDefined();
          expect(field.direction, what).toBe(child.direction);
          const start =
            field.kind === "integer" || field.kind === "number"
              ? (fieldHardness(field, UNSET_DEFAULTS[caseInput.family.id]?.[field.path] ?? valueAtPosition(field, 0.5)) as number)
              : 0.5;
          expect(sign * ((fieldHardness(field, to) as number) - start), what).toBeGreaterThan(0);
        }
      }
    });

    it(`${name}: parents with q < 0.2 only get easier directed edits (crossovers only of kept ones)`, () => {
      const parents = new Map(caseInput.population.map((m) => [m.key, m]));
      const keptKeys = new Set(caseOut.items.filter((i) => i.op === "keep").map((i) => i.environmentKey));
      for (const child of children(caseOut)) {
        for (const key of [child.parentKey, child.secondParentKey]) {
          const parent = key ? parents.get(key) : undefined;
          if (!parent || parent.n === 0 || parent.s / parent.n >= 0.2) continue;
          if (child.op === "add") expect(keptKeys.has(parent.key), `${child.environmentKey}: crossover of ${parent.key}`).toBe(true);
          else expect(child.rationale, child.environmentKey).toMatch(/^Too hard/);
        }
      }
    });
  }

  it("writes one-sentence rationales that name the category behind the decision", () => {
    for (const item of out.items) {
      expect(item.rationale.endsWith("."), item.rationale).toBe(true);
      expect(item.rationale.slice(0, -1), item.rationale).not.toMatch(/\.\s/);
    }
    const replays = children(out).filter((c) => c.rationale.startsWith("Replayed"));
    for (const child of replays) expect(clustersCited(child)).toEqual([]);
  });
});

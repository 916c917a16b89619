/**
 * Inputs the heuristic engineer's tests share: a population with solved, hopeless, unsolvable,
 * invalid and frontier members, its structured summary, and proposals made from it inside each test
 * (perTest), never at import or in a describe body: Stryker's per-test coverage counts only what runs inside
 * a test (or its beforeEach), so a proposal made at collection marks its mutants "static" and the tests that
 * read it are never run against them (ignoreStatic), however much they assert.
 */
import { beforeEach } from "vitest";
import { configHash } from "@/lib/families/hash";
import { builtinFamilies } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import type { FamilyConfig, FamilyDefinition, FieldSpec } from "@/lib/families/types";
import { heuristicEngineer } from ".";
import { summaryFields } from "../summary-fields";
import type {
  EngineerInput,
  EngineerOptions,
  EngineerOutput,
  PopulationMember,
  StructuredSummary,
  SummaryCluster,
  SummaryField,
} from "../types";

export type Outcome = { s: number; n: number; history: number[]; validation?: PopulationMember["validation"] };

/** Outcomes by position: solved, hopeless, first-time zero, unsolvable, invalid and a spread of frontier rates. */
export function outcomeFor(i: number): Outcome {
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

export function buildSummary(family: FamilyDefinition, population: PopulationMember[], clusters: SummaryCluster[]): StructuredSummary {
  const fields = summaryFields(
    family.fields.filter((f) => f.mutable !== false),
    population.map((m) => ({ config: m.config, env: { n: m.n, s: m.s, rewardSum: m.s } })),
  );
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
export function buildInput(
  family: FamilyDefinition,
  size: number,
  opts: { seed?: number; knownHashes?: Iterable<string> } = {},
): EngineerInput {
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

export const children = (out: EngineerOutput) => out.items.filter((item) => item.op === "mutate" || item.op === "add");

export function inBounds(spec: FieldSpec, value: unknown): boolean {
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

export const frozenlake = builtinFamilies["frozenlake-mapf"];
export const terminal = builtinFamilies["terminal-task"];
/**
 * A value made at its first use inside each test of the enclosing describe (or file), and made again in the next
 * test: what it runs counts as that test's coverage for Stryker (see the file comment). Call at describe or module level.
 */
export function perTest<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  beforeEach(() => {
    made = undefined;
  });
  return () => (made ??= { value: make() }).value;
}

export const flInput = buildInput(frozenlake, 40, { seed: 7 });
export const ttInput = buildInput(terminal, 60, { seed: 11 });
/** The proposals for flInput and ttInput, made inside the test that reads them. */
export const flProposal = () => heuristicEngineer(flInput);
export const ttProposal = () => heuristicEngineer(ttInput);

/**
 * A measured population of `family` (configs sampled at mid hardness so they can move both ways, from an rng named
 * after `project`) and a summary without field statistics or clusters.
 */
export function midHardnessInput(
  project: string,
  family: FamilyDefinition,
  outcomes: (Partial<PopulationMember> & { s: number; n: number })[],
  options: EngineerOptions = { seed: 5 },
  fields: SummaryField[] = [],
): EngineerInput {
  const rng = createRng(`${project}:${family.id}`);
  const population: PopulationMember[] = outcomes.map((outcome, i) => {
    const config = family.sample(rng, { hardness: { min: 0.25, max: 0.6 } }) as FamilyConfig;
    return {
      key: `m${i}`,
      config,
      configHash: configHash(config),
      parentKey: null,
      op: "seed",
      direction: null,
      validation: { state: "valid", pMax: null },
      age: 1,
      history: [],
      clusterIds: [],
      ...outcome,
    };
  });
  const rollouts = population.reduce((a, m) => a + m.n, 0);
  const summary = {
    project,
    family: family.id,
    generation: 2,
    policy: null,
    successThreshold: 1,
    behaviour: { rollouts, environments: population.length, successRate: population.reduce((a, m) => a + m.s, 0) / rollouts },
    failures: { categories: [], clusters: [] },
    environments: { fields, solved: [], frontier: [], hopeless: [], unvalidated: [], unsolvable: [] },
    history: { proposals: [], predictions: [] },
    tokenEstimate: 0,
    truncated: [],
  } as unknown as StructuredSummary;
  return { family, summary, population, options, knownHashes: new Set(population.map((m) => m.configHash)), keyPrefix: "g3-" };
}

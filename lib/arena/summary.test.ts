import { describe, expect, it } from "vitest";
import { configHash } from "@/lib/families/hash";
import { builtinFamilies } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import type { PopulationMember } from "@/lib/engineer/types";
import { arenaSummary } from "./summary";

const family = builtinFamilies["search-agent"];

function population(): PopulationMember[] {
  const rng = createRng("test:summary");
  return Array.from({ length: 12 }, (_, i) => {
    const config = family.sample(rng);
    const state = i === 10 ? "invalid" : i === 11 ? "unsolvable" : "valid";
    return {
      key: `g1-${i}`,
      config,
      configHash: configHash(config),
      parentKey: null,
      op: "seed",
      direction: null,
      validation: { state, pMax: state === "unsolvable" ? 0 : state === "invalid" ? null : 0.8 },
      n: 8,
      s: state === "valid" ? i % 9 : 0,
      age: 1,
      history: [],
      clusterIds: [],
    };
  });
}

describe("arenaSummary", () => {
  it("summarises behaviour, fields and key lists of an arena generation, deterministically", () => {
    const pop = population();
    const s = arenaSummary({ family, project: "arena-test", generation: 3, population: pop });
    expect(s).toEqual(arenaSummary({ family, project: "arena-test", generation: 3, population: pop }));
    expect(s).toMatchObject({ project: "arena-test", family: "search-agent", generation: 3, policy: null, successThreshold: 1 });
    expect(s.behaviour.rollouts).toBe(96);
    expect(s.behaviour.environments).toBe(12);
    expect(s.behaviour.successRate).toBeCloseTo(pop.reduce((a, m) => a + m.s, 0) / 96, 12);
    expect(s.behaviour.infraErrorRate).toBeCloseTo(8 / 96, 12);
    expect(s.behaviour.learnability).toBeGreaterThan(0);
    expect(s.failures.clusters).toEqual([]);
    expect(s.failures.categories.map((c) => c.category)).toEqual(["verifier_failed", "infra_error"]);
    expect(s.environments.fields.map((f) => f.path)).toEqual(family.fields.map((f) => f.path));
    for (const f of s.environments.fields) expect(f.buckets.reduce((a, b) => a + b.environments, 0)).toBe(12);
    expect(s.environments.solved).toEqual(pop.filter((m) => m.s / m.n >= 0.8).map((m) => m.key));
    expect(s.environments.unsolvable).toEqual(["g1-11"]);
    expect(s.environments.hopeless).toContain("g1-10");
    expect(s.tokenEstimate).toBeGreaterThan(100);
  });
});

import { describe, expect, it } from "vitest";
import { hardnessProfile } from "@/lib/families/hardness";
import { builtinFamilies } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import type { FamilyConfig } from "@/lib/families/types";
import type { EngineerInput } from "@/lib/engineer/types";
import { engineerStrategy } from "./engineer-strategy";
import { arenaConfig, createWorld } from "./run";

const small = { ...arenaConfig(true), budget: 640, targetSize: 32 };

describe("the engineers' populations in the arena", () => {
  // search-agent only: a frozenlake-mapf world takes seconds to build (its target set), and the rule is one line for every family
  it("the first population comes from the easier half of the config space, the fills from the whole generator", async () => {
    const family = builtinFamilies["search-agent"];
    const world = createWorld({ family: family.id, strategy: "heuristic", setting: "clean", seed: 1000, quick: true }, small);
    const seen: EngineerInput[] = [];
    // Retire everything: every later generation is filled with fresh samples from the whole generator.
    const strategy = engineerStrategy(
      (input) => {
        seen.push(input);
        return {
          items: input.population.map((m) => ({
            op: "retire" as const,
            environmentKey: m.key,
            config: m.config,
            rationale: "probe",
            evidence: [],
            proposer: "heuristic" as const,
          })),
          dropped: [],
          notes: [],
        };
      },
      { label: "probe", populationSize: 16 },
    );
    await strategy(world, createRng("test:first-population"));
    expect(seen.length).toBeGreaterThan(2);
    const hardness = (configs: FamilyConfig[]) => configs.map((c) => hardnessProfile(family.fields, c).hardness);
    const first = hardness(seen[0].population.map((m) => m.config));
    const fills = hardness(seen.slice(1).flatMap((input) => input.population.map((m) => m.config)));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(first).toHaveLength(16);
    expect(seen[0].population.every((m) => m.op === "seed")).toBe(true);
    expect(seen[1].population.every((m) => m.op === "add")).toBe(true);
    // the sampler keeps a first member's signed fields in or near the window 0.1-0.55 (integers and levels round: hops
    // reaches 0.6), and its hardness profile well below the window's top (0.06-0.30 over 200 draws); the generator's reaches 0.95
    expect(Math.max(...first)).toBeLessThanOrEqual(0.55);
    expect(Math.max(...fills)).toBeGreaterThan(0.55);
    expect(mean(first)).toBeLessThan(mean(fills) - 0.1);
  });
});

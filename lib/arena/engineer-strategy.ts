/**
 * The product's environment engineers as arena strategies: a population of configs is trained on
 * (G attempts each, in batches), the rollouts become an EngineerInput (population with n/s, a
 * structured summary, known hashes, the family with the arena's validator) and the engineer's
 * proposal (keep, mutate, add, retire) becomes the next population.
 *
 * Decisions where the spec is open:
 * - the first population is drawn unvalidated, like every baseline's first batch, from the generator's
 *   window FIRST_GENERATION_HARDNESS (the easier half of the config space, short of its easiest
 *   tenth), where the product's demo draws its first generation and where threshold stepping and RLVE
 *   start (their easiest level); the fills of later generations come from the whole generator. On the
 *   arena's tuning seeds 0-9 (full budget, five engineer seeds on search-agent, three on
 *   frozenlake-mapf) the heuristic's goal checks of 36 went from 30.8 to 31.8 and from 33.3 to 34.0
 *   against a first population from the whole generator, which put 12 of frozenlake-mapf's 32 first
 *   groups under 10% success on tuning seed 0 (docs/BENCHMARKS.md, "Issue 16, seventeenth round");
 * - one generation = every member attempted once (G attempts), so n = G per member per generation
 *   and `history` carries the earlier generations' success rates; the engineer is told G
 *   (options.groupSize), as the product tells it a GRPO trainer's group size;
 * - an invalid member counts its rollouts as spent with 0 successes (validation state "invalid");
 * - the engineers see the same validator as every strategy (ArenaWorld.validate: charged, never
 *   p_max); without one (mode "none") every member is "unvalidated" and every child passes;
 * - a proposal smaller than the population size is topped up with validated fresh samples, and
 *   members a proposal neither keeps nor retires (the LLM may skip some) stay.
 */
import { configHash } from "@/lib/families/hash";
import { FIRST_GENERATION_HARDNESS } from "@/lib/families/hardness";
import type { FamilyConfig, FamilyDefinition, SampleOptions } from "@/lib/families/types";
import type { EngineerInput, EngineerOptions, EngineerOutput, PopulationMember } from "@/lib/engineer/types";
import type { StrategyRun } from "./strategies";
import { arenaSummary } from "./summary";
import type { ArenaWorld } from "./world";

/** Population size of the engineer strategies: one training batch a generation (64 and 96 were a little slower). */
export const ENGINEER_POPULATION = 32;

interface Member {
  key: string;
  config: FamilyConfig;
  hash: string;
  parentKey: string | null;
  op: string;
  direction: string | null;
  age: number;
  history: number[];
}

/** The family as the arena's engineers see it: the arena's validator (when the run shares one, else one that passes everything) and generator. */
export function arenaFamily(world: ArenaWorld): FamilyDefinition {
  return {
    ...world.family,
    validate: (config: unknown) => (world.hasValidator ? world.validate(config) : { state: "valid", errors: [] }),
    sample: (rng, opts) => world.generate(rng, opts),
  };
}

export interface EngineerStrategyOptions {
  populationSize?: number;
  /** options passed to the engineer every generation (seed and populationSize are set by the arena) */
  engineer?: EngineerOptions;
  /** label of the engineer in keys and the summary's project */
  label: string;
  /** XORed into every proposal seed (default 0): another draw of the engineer's own randomness, the arena unchanged */
  seedXor?: number;
}

/** An arena strategy that asks `propose` for the next population every generation. */
export function engineerStrategy(
  propose: (input: EngineerInput) => EngineerOutput | Promise<EngineerOutput>,
  opts: EngineerStrategyOptions,
): StrategyRun {
  return async (world, rng) => {
    const size = opts.populationSize ?? ENGINEER_POPULATION;
    const family = arenaFamily(world);
    const known = new Set<string>();
    const fresh = (count: number, validated: boolean, prefix: string, hardness?: SampleOptions["hardness"]): Member[] => {
      const out: Member[] = [];
      for (let attempt = 0; out.length < count && attempt < 4 * count + 8; attempt++) {
        const config = world.generate(rng, hardness ? { hardness } : undefined);
        const hash = configHash(config);
        if (known.has(hash)) continue;
        if (validated && !world.screen(config)) continue;
        known.add(hash);
        out.push({
          key: `${prefix}${String(out.length + 1).padStart(3, "0")}`,
          config,
          hash,
          parentKey: null,
          op: validated ? "add" : "seed",
          direction: null,
          age: 1,
          history: [],
        });
      }
      return out;
    };
    let members = fresh(size, false, "g0-", FIRST_GENERATION_HARDNESS);
    for (let generation = 0; !world.exhausted && members.length > 0; generation++) {
      const results = world.run(members.map((m) => m.config));
      if (results.length < members.length) break;
      const population: PopulationMember[] = members.map((m, i) => {
        const validation = world.hasValidator ? world.validate(m.config) : { state: "unvalidated", pMax: undefined };
        return {
          key: m.key,
          config: m.config,
          configHash: m.hash,
          parentKey: m.parentKey,
          op: m.op,
          direction: m.direction,
          validation: { state: validation.state, pMax: validation.pMax ?? null },
          n: results[i].n,
          s: results[i].s,
          age: m.age,
          history: m.history,
          clusterIds: [],
        };
      });
      if (world.exhausted) break;
      const input: EngineerInput = {
        family,
        summary: arenaSummary({ family, project: `arena-${opts.label}`, generation, population }),
        population,
        // The trainer is GRPO with G attempts a group, so the engineer scores by the group learnability.
        options: {
          groupSize: world.groupSize,
          ...opts.engineer,
          seed: rng.int(0, 2 ** 31 - 1) ^ (opts.seedXor ?? 0),
          populationSize: size,
        },
        knownHashes: known,
        keyPrefix: `g${generation + 1}-`,
      };
      const output = await propose(input);
      const byKey = new Map(members.map((m, i) => [m.key, { m, rate: population[i].n > 0 ? population[i].s / population[i].n : 0 }]));
      const decided = new Set<string>();
      const next: Member[] = [];
      for (const item of output.items) {
        if (item.op === "keep" || item.op === "retire") {
          decided.add(item.environmentKey);
          const prior = byKey.get(item.environmentKey);
          if (item.op === "keep" && prior) next.push({ ...prior.m, age: prior.m.age + 1, history: [...prior.m.history, prior.rate] });
          continue;
        }
        const hash = configHash(item.config);
        if (known.has(hash)) continue;
        known.add(hash);
        next.push({
          key: item.environmentKey,
          config: item.config,
          hash,
          parentKey: item.parentKey ?? null,
          op: item.op,
          direction: item.direction ?? null,
          age: 1,
          history: [],
        });
      }
      for (const [key, prior] of byKey) {
        if (!decided.has(key)) next.push({ ...prior.m, age: prior.m.age + 1, history: [...prior.m.history, prior.rate] });
      }
      if (next.length < size) next.push(...fresh(size - next.length, true, `g${generation + 1}-fill-`));
      members = next.slice(0, size);
    }
  };
}

/**
 * `frozenlake-mapf`: multi-agent path finding on a slippery FrozenLake grid (the LLM-as-Environment-
 * Engineer testbed). Maps come from `generateMap` (every agent has a hole-free path); validation
 * checks step budgets, runs prioritized planning and computes p_max by value iteration.
 */
import { z } from "zod";
import { defineFamily, describeField } from "../define";
import { fieldHardness, hardnessProfile } from "../hardness";
import { stepHarder } from "../operators";
import type { Rng } from "../rng";
import { sampleFromFields } from "../sampling";
import { rememberRecent } from "../validation-cache";
import type { DifficultyEstimate, FieldError, FieldSpec, SampleOptions, ValidationResult } from "../types";
import { cellCoords, generateMap, maxAgentsFor, maxGoalDistanceFor, renderMap } from "./map";
import { agentsPMax, planAgents, shortestPathLengths } from "./solver";

export const COLLISION_MODES = ["block_both", "soft"] as const;
/** Below this p_max a config counts as unsolvable. */
export const FROZENLAKE_PMAX_EPSILON = 1e-6;
const MAX_SEED = 2 ** 31 - 1;

const f = {
  size: {
    path: "size",
    kind: "integer",
    min: 3,
    max: 32,
    difficulty: "up",
    direction: "horizon",
    scale: true,
    description: "grid side length",
  },
  num_agents: {
    path: "num_agents",
    kind: "integer",
    min: 1,
    max: 8,
    difficulty: "up",
    direction: "precision",
    scale: true,
    description: "agents that must all reach their goals",
  },
  obstacle_density: {
    path: "obstacle_density",
    kind: "number",
    min: 0,
    max: 0.45,
    difficulty: "up",
    direction: "uncertainty",
    description: "share of cells that are holes",
  },
  slip_probability: {
    path: "slip_probability",
    kind: "number",
    min: 0,
    max: 0.5,
    difficulty: "up",
    direction: "uncertainty",
    description: "probability a move slips to a perpendicular direction",
  },
  max_steps: {
    path: "max_steps",
    kind: "integer",
    min: 4,
    max: 1000,
    difficulty: "down",
    direction: "precision",
    scale: true,
    description: "step budget of an episode",
  },
  min_goal_distance: {
    path: "min_goal_distance",
    kind: "integer",
    min: 1,
    max: 60,
    difficulty: "up",
    direction: "horizon",
    description: "minimum Manhattan distance from each start to its goal (capped by the grid)",
  },
  collision: {
    path: "collision",
    kind: "nominal",
    levels: [...COLLISION_MODES],
    direction: "precision",
    description: "block_both: agents may not share a cell or swap; soft: collisions are penalised, not blocked",
  },
  seed: { path: "seed", kind: "integer", min: 0, max: MAX_SEED, direction: "diversify", description: "map generator seed" },
} satisfies Record<string, FieldSpec>;

export const frozenlakeFields: FieldSpec[] = Object.values(f);

const int = (spec: FieldSpec) =>
  z
    .int()
    .min(spec.min as number)
    .max(spec.max as number)
    .describe(describeField(spec));
const num = (spec: FieldSpec) =>
  z
    .number()
    .min(spec.min as number)
    .max(spec.max as number)
    .describe(describeField(spec));

/** Strict zod schema of a frozenlake-mapf config. */
export const frozenlakeSchema = z.strictObject({
  size: int(f.size),
  num_agents: int(f.num_agents),
  obstacle_density: num(f.obstacle_density),
  slip_probability: num(f.slip_probability),
  max_steps: int(f.max_steps),
  min_goal_distance: int(f.min_goal_distance),
  collision: z.enum(COLLISION_MODES).describe(describeField(f.collision)),
  seed: int(f.seed),
});

export type FrozenLakeConfig = z.infer<typeof frozenlakeSchema>;

export interface FrozenLakeAgentReport {
  start: [number, number];
  goal: [number, number];
  shortest: number;
  planned?: number;
  pMax?: number;
}

export interface FrozenLakeDetails {
  map: string[];
  agents: FrozenLakeAgentReport[];
  holeCount: number;
  goalDistanceMet: boolean;
  planOrder?: number[];
  makespan?: number;
}

/**
 * Validate a schema-valid config: the grid must hold the agents; every agent's shortest path must
 * fit max_steps; prioritized planning must find a plan. p_max is the product over agents of the
 * single-agent value-iteration p_max with the horizon shortened by the delay the plan imposes on
 * that agent (waits do not slip). It ignores interactions beyond the plan, so it is an estimate.
 * It is not always monotone in slip_probability: with a generous step budget, slips can carry a
 * cautious agent along a wall; difficulty() uses the monotone analytic proxy instead.
 */
function checkFrozenLake(config: FrozenLakeConfig): ValidationResult {
  if (config.num_agents > maxAgentsFor(config.size)) {
    return {
      state: "invalid",
      errors: [
        {
          path: "num_agents",
          message:
            `A ${config.size}x${config.size} grid holds at most ${maxAgentsFor(config.size)} agents (two free cells each): ` +
            `lower num_agents or raise size.`,
        },
      ],
    };
  }
  const map = generateMap(config);
  const shortest = shortestPathLengths(map);
  const details: FrozenLakeDetails = {
    map: renderMap(map),
    agents: map.agents.map((agent, i) => ({
      start: cellCoords(map.size, agent.start),
      goal: cellCoords(map.size, agent.goal),
      shortest: shortest[i],
    })),
    holeCount: map.holeCount,
    goalDistanceMet: map.goalDistanceMet,
  };
  const longest = Math.max(...shortest);
  if (longest > config.max_steps) {
    const errors: FieldError[] = [
      {
        path: "max_steps",
        message: `An agent needs at least ${longest} steps but max_steps is ${config.max_steps}: raise max_steps to ${longest} or more.`,
      },
    ];
    return { state: "unsolvable", pMax: 0, errors, details };
  }
  const plan = planAgents(map, config.max_steps, config.collision);
  details.planOrder = plan.order;
  if (!plan.ok) {
    const errors: FieldError[] = [
      {
        path: "num_agents",
        message:
          `Prioritized planning found no conflict-free plan for agent ${plan.failedAgent} within ` +
          `${config.max_steps} steps: use fewer agents, a larger grid, more steps or collision "soft".`,
      },
    ];
    return { state: "unsolvable", pMax: 0, errors, details };
  }
  const agentPMax = agentsPMax(
    map,
    map.agents.map((agent, i) => ({ start: agent.start, goal: agent.goal, horizon: config.max_steps - plan.plans[i].delay })),
    config.slip_probability,
  );
  let pMax = 1;
  agentPMax.forEach((p, i) => {
    details.agents[i].planned = plan.plans[i].path.length - 1;
    details.agents[i].pMax = p;
    pMax *= p;
  });
  details.makespan = Math.max(...plan.plans.map((p) => p.path.length - 1));
  if (pMax < FROZENLAKE_PMAX_EPSILON) {
    return {
      state: "unsolvable",
      pMax: 0,
      errors: [
        {
          path: "slip_probability",
          message: `The best achievable success rate is ${pMax.toExponential(2)}: lower slip_probability or obstacle_density, or raise max_steps.`,
        },
      ],
      details,
    };
  }
  return { state: "valid", pMax, errors: [], details };
}

/** Clamp the fields that depend on each other (agents per grid, goal distance per grid, steps per distance). */
function repairFrozenLake(config: FrozenLakeConfig): FrozenLakeConfig {
  const num_agents = Math.min(config.num_agents, maxAgentsFor(config.size));
  const min_goal_distance = Math.min(config.min_goal_distance, maxGoalDistanceFor(config.size));
  const max_steps = Math.max(config.max_steps, Math.min(f.max_steps.max, 2 * min_goal_distance + 2));
  return { ...config, num_agents, min_goal_distance, max_steps };
}

/** One step easier on the currently hardest signed field (how the sampler backs off from hopeless draws). */
function easeOneStep(config: FrozenLakeConfig): FrozenLakeConfig {
  let hardest: FieldSpec | undefined;
  let hardness = -1;
  for (const field of frozenlakeFields) {
    const value = config[field.path as keyof FrozenLakeConfig];
    const h = fieldHardness(field, value);
    if (h === undefined || stepHarder(field, value, -1) === value) continue;
    if (h > hardness) {
      hardness = h;
      hardest = field;
    }
  }
  if (!hardest) return config;
  return { ...config, [hardest.path]: stepHarder(hardest, config[hardest.path as keyof FrozenLakeConfig], -1) };
}

/**
 * Draw a valid config: sample the fields, repair dependent fields, then back off one step at a
 * time on the hardest field while the analytic p_max proxy is below 1e-3 and while the validator
 * rejects the draw (both bounded), so hard-end draws stay as hard as a valid config allows.
 */
/**
 * Validate a config: agents fit, every step budget holds, prioritized planning, p_max by value
 * iteration. The last 4,096 answers are remembered (the sampler validates what it returns, and the
 * engineer validates it again right after; p_max dominates an engineer run's time).
 */
export const validateFrozenLake = rememberRecent(checkFrozenLake, 4096);

function sampleFrozenLake(rng: Rng, opts?: SampleOptions): FrozenLakeConfig {
  for (let attempt = 0; attempt < 4; attempt++) {
    let config = repairFrozenLake(sampleFromFields(rng, frozenlakeFields, opts) as FrozenLakeConfig);
    for (let k = 0; k < 60 && frozenlakePMaxProxy(config) < 1e-3; k++) config = repairFrozenLake(easeOneStep(config));
    for (let k = 0; k < 8; k++) {
      if (validateFrozenLake(config).state === "valid") return config;
      config = repairFrozenLake(easeOneStep(config));
    }
  }
  // Fall back to a small open map, which always validates.
  return {
    size: 4,
    num_agents: 1,
    obstacle_density: 0,
    slip_probability: 0,
    max_steps: 16,
    min_goal_distance: 2,
    collision: "soft",
    seed: rng.int(0, MAX_SEED),
  };
}

function logistic(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/**
 * Analytic p_max proxy for the arena (no map needed), monotone in every signed field: expected goal
 * distance d = max(min(min_goal_distance, 2(size-1)), 2(size-1)/3); expected steps
 * L = d (1 + slip)(1 + density); per-step survival 1 - 0.2 slip density; the step budget fits with
 * probability logistic((max_steps - L + 1) / (1 + 0.2 sqrt(L))); agents multiply, block_both
 * costs 3% per extra agent. Constants fitted to the validator's single-agent p_max (mean absolute
 * error ~0.11 over 300 random configs).
 */
export function frozenlakePMaxProxy(config: FrozenLakeConfig): number {
  const span = maxGoalDistanceFor(config.size);
  const d = Math.max(Math.min(config.min_goal_distance, span), (2 * span) / 3, 1);
  const steps = d * (1 + config.slip_probability) * (1 + config.obstacle_density);
  const survival = Math.pow(1 - 0.2 * config.slip_probability * config.obstacle_density, steps);
  const fits = logistic((config.max_steps - steps + 1) / (1 + 0.2 * Math.sqrt(steps)));
  const single = survival * fits;
  const collisionCost = config.collision === "block_both" ? Math.pow(0.97, config.num_agents - 1) : 1;
  return Math.min(1, Math.max(0, Math.pow(single, config.num_agents) * collisionCost));
}

/** Hidden difficulty (weighted field hardness), the analytic p_max proxy and skill loadings. */
function frozenlakeDifficulty(config: FrozenLakeConfig): DifficultyEstimate {
  const profile = hardnessProfile(frozenlakeFields, config, {
    weights: { size: 1.5, num_agents: 1, obstacle_density: 1, slip_probability: 1, max_steps: 0.75, min_goal_distance: 0.75 },
  });
  return { difficulty: profile.difficulty, pMax: frozenlakePMaxProxy(config), skills: profile.skills };
}

/** The built-in `frozenlake-mapf` family. */
export const frozenlakeMapfFamily = defineFamily<FrozenLakeConfig>({
  id: "frozenlake-mapf",
  version: "1",
  description:
    "Multi-agent path finding on a slippery FrozenLake grid: every agent must reach its goal within max_steps without " +
    "falling into a hole. Built-in generator (solvable maps only) and validator (prioritized planning, p_max by value " +
    "iteration).",
  fields: frozenlakeFields,
  schema: frozenlakeSchema,
  sample: sampleFrozenLake,
  check: validateFrozenLake,
  difficulty: frozenlakeDifficulty,
});

export { generateMap, renderMap } from "./map";
export { agentsPMax, planAgents, singleAgentPMax } from "./solver";

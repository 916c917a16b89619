/**
 * `search-agent`: multi-hop question answering with a retriever that mixes in distractor
 * documents (context interference). p_max comes from the retrieval model in ./simulator.
 */
import { z } from "zod";
import { defineFamily, describeField } from "../define";
import { hardnessProfile } from "../hardness";
import type { Rng } from "../rng";
import { sampleFromFields } from "../sampling";
import type { DifficultyEstimate, FieldSpec, SampleOptions, ValidationResult } from "../types";
import { searchPMax, turnSuccessProbability } from "./simulator";

export const ANSWER_MATCH_LEVELS = ["f1", "exact"] as const;
/** Below this p_max a config counts as unsolvable. */
export const SEARCH_PMAX_EPSILON = 1e-9;
const MAX_SEED = 2 ** 31 - 1;

const f = {
  hops: {
    path: "hops",
    kind: "integer",
    min: 1,
    max: 6,
    difficulty: "up",
    direction: "horizon",
    description: "documents that must be found in sequence",
  },
  max_turns: {
    path: "max_turns",
    kind: "integer",
    min: 1,
    max: 50,
    difficulty: "down",
    direction: "precision",
    description: "turn budget of an episode",
  },
  docs_per_turn: {
    path: "docs_per_turn",
    kind: "integer",
    min: 1,
    max: 20,
    direction: "uncertainty",
    description: "documents retrieved per search call",
  },
  distractor_ratio: {
    path: "distractor_ratio",
    kind: "number",
    min: 0,
    max: 0.95,
    difficulty: "up",
    direction: "uncertainty",
    description: "share of retrieved documents that are distractors",
  },
  context_refiner: {
    path: "context_refiner",
    kind: "boolean",
    difficulty: "down",
    direction: "uncertainty",
    description: "whether a refiner removes most distractors from the context",
  },
  answer_match: {
    path: "answer_match",
    kind: "ordinal",
    levels: [...ANSWER_MATCH_LEVELS],
    difficulty: "up",
    direction: "precision",
    description: "how the answer is scored: token F1 or exact match",
  },
  seed: { path: "seed", kind: "integer", min: 0, max: MAX_SEED, direction: "diversify", description: "corpus and question seed" },
} satisfies Record<string, FieldSpec>;

export const searchAgentFields: FieldSpec[] = Object.values(f);

const int = (spec: FieldSpec) =>
  z
    .int()
    .min(spec.min as number)
    .max(spec.max as number)
    .describe(describeField(spec));

/** Strict zod schema of a search-agent config. */
export const searchAgentSchema = z.strictObject({
  hops: int(f.hops),
  max_turns: int(f.max_turns),
  docs_per_turn: int(f.docs_per_turn),
  distractor_ratio: z.number().min(f.distractor_ratio.min).max(f.distractor_ratio.max).describe(describeField(f.distractor_ratio)),
  context_refiner: z.boolean().describe(describeField(f.context_refiner)),
  answer_match: z.enum(ANSWER_MATCH_LEVELS).describe(describeField(f.answer_match)),
  seed: int(f.seed),
});

export type SearchAgentConfig = z.infer<typeof searchAgentSchema>;

/** Validate a schema-valid config: unsolvable when max_turns < hops or p_max is ~0; else p_max from the retrieval DP. */
export function validateSearchAgent(config: SearchAgentConfig): ValidationResult {
  if (config.max_turns < config.hops) {
    return {
      state: "unsolvable",
      pMax: 0,
      errors: [
        {
          path: "max_turns",
          message: `${config.hops} hops need at least ${config.hops} turns but max_turns is ${config.max_turns}: raise max_turns or lower hops.`,
        },
      ],
    };
  }
  const pMax = searchPMax(config);
  const details = {
    firstTurnSuccess: turnSuccessProbability(config, 1),
    lastTurnSuccess: turnSuccessProbability(config, config.max_turns),
  };
  if (pMax < SEARCH_PMAX_EPSILON) {
    return {
      state: "unsolvable",
      pMax: 0,
      errors: [
        {
          path: "distractor_ratio",
          message: `The best achievable success rate is ${pMax.toExponential(2)}: lower distractor_ratio or hops, or raise max_turns.`,
        },
      ],
      details,
    };
  }
  return { state: "valid", pMax, errors: [], details };
}

/** Draw a valid config (max_turns raised to at least hops). */
function sampleSearchAgent(rng: Rng, opts?: SampleOptions): SearchAgentConfig {
  for (let attempt = 0; attempt < 40; attempt++) {
    const config = sampleFromFields(rng, searchAgentFields, opts) as SearchAgentConfig;
    config.max_turns = Math.max(config.max_turns, config.hops);
    if (validateSearchAgent(config).state === "valid") return config;
  }
  return {
    hops: 1,
    max_turns: 5,
    docs_per_turn: 5,
    distractor_ratio: 0.2,
    context_refiner: true,
    answer_match: "f1",
    seed: rng.int(0, MAX_SEED),
  };
}

/** Hidden difficulty from the signed fields, p_max from the retrieval DP. */
function searchAgentDifficulty(config: SearchAgentConfig): DifficultyEstimate {
  const profile = hardnessProfile(searchAgentFields, config, {
    weights: { hops: 1.5, max_turns: 0.75, distractor_ratio: 1.25, context_refiner: 0.5, answer_match: 0.75 },
  });
  return { difficulty: profile.difficulty, pMax: searchPMax(config), skills: profile.skills };
}

/** The built-in `search-agent` family. */
export const searchAgentFamily = defineFamily<SearchAgentConfig>({
  id: "search-agent",
  version: "1",
  description:
    "Multi-hop search: find each hop's gold document among retrieved documents mixed with distractors, within a turn " +
    "budget, optionally with a context refiner; answers scored by F1 or exact match.",
  fields: searchAgentFields,
  schema: searchAgentSchema,
  sample: sampleSearchAgent,
  check: validateSearchAgent,
  difficulty: searchAgentDifficulty,
});

export { searchPMax, simulateSearch } from "./simulator";

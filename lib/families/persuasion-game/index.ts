/**
 * `persuasion-game`: an agent persuades a simulated human whose belief updates follow a cognitive
 * model (Bayesian, affine distortion, motivated, Grether alpha-beta). Model parameters that the
 * chosen model does not use may be omitted; missing ones take neutral values (see NEUTRAL_PARAMS).
 */
import { z } from "zod";
import { defineFamily, describeField } from "../define";
import { hardnessProfile } from "../hardness";
import type { Rng } from "../rng";
import { sampleField, sampleFromFields } from "../sampling";
import type { DifficultyEstimate, FieldError, FieldSpec, SampleOptions, ValidationResult } from "../types";
import { NEUTRAL_PARAMS, persuasionPMax, updateBelief, type DecisionModel } from "./simulator";

export const DECISION_MODELS = ["bayesian", "affine", "motivated", "grether"] as const;
/** Below this p_max a config counts as unsolvable. */
export const PERSUASION_PMAX_EPSILON = 1e-9;

const f = {
  decision_model: {
    path: "decision_model",
    kind: "nominal",
    levels: [...DECISION_MODELS],
    direction: "uncertainty",
    description: "how the simulated human updates beliefs",
  },
  alpha: {
    path: "alpha",
    kind: "number",
    min: 0,
    max: 2,
    difficulty: "down",
    direction: "uncertainty",
    description: "Grether weight on the likelihood ratio",
  },
  beta: { path: "beta", kind: "number", min: 0, max: 2, direction: "uncertainty", description: "Grether weight on the prior odds" },
  affine_slope: {
    path: "affine_slope",
    kind: "number",
    min: 0,
    max: 2,
    direction: "uncertainty",
    description: "slope of the affine distortion of the Bayesian posterior",
  },
  affine_intercept: {
    path: "affine_intercept",
    kind: "number",
    min: -0.5,
    max: 0.5,
    difficulty: "down",
    direction: "uncertainty",
    description: "intercept of the affine distortion of the Bayesian posterior",
  },
  motivation_strength: {
    path: "motivation_strength",
    kind: "number",
    min: 0,
    max: 1,
    difficulty: "up",
    direction: "uncertainty",
    description: "share of unwelcome evidence a motivated decision maker ignores",
  },
  prior: {
    path: "prior",
    kind: "number",
    min: 0.01,
    max: 0.99,
    difficulty: "down",
    direction: "horizon",
    description: "initial belief in the persuader's claim",
  },
  evidence_strength: {
    path: "evidence_strength",
    kind: "number",
    min: 0.5,
    max: 0.99,
    difficulty: "down",
    direction: "uncertainty",
    description: "probability each piece of evidence is correct (weaker evidence is harder)",
  },
  num_rounds: {
    path: "num_rounds",
    kind: "integer",
    min: 1,
    max: 20,
    difficulty: "up",
    direction: "horizon",
    description: "rounds of the game",
  },
  target_belief: {
    path: "target_belief",
    kind: "number",
    min: 0.5,
    max: 0.99,
    difficulty: "up",
    direction: "precision",
    description: "belief the persuader must reach",
  },
} satisfies Record<string, FieldSpec>;

export const persuasionFields: FieldSpec[] = Object.values(f);

/** The parameters each decision model reads (others are ignored). */
export const MODEL_PARAMS: Record<DecisionModel, (keyof typeof NEUTRAL_PARAMS)[]> = {
  bayesian: [],
  affine: ["affine_slope", "affine_intercept"],
  motivated: ["motivation_strength"],
  grether: ["alpha", "beta"],
};

const num = (spec: FieldSpec) =>
  z
    .number()
    .min(spec.min as number)
    .max(spec.max as number)
    .describe(describeField(spec));

/** Strict zod schema of a persuasion-game config. */
export const persuasionSchema = z.strictObject({
  decision_model: z.enum(DECISION_MODELS).describe(describeField(f.decision_model)),
  alpha: num(f.alpha).optional(),
  beta: num(f.beta).optional(),
  affine_slope: num(f.affine_slope).optional(),
  affine_intercept: num(f.affine_intercept).optional(),
  motivation_strength: num(f.motivation_strength).optional(),
  prior: num(f.prior),
  evidence_strength: num(f.evidence_strength),
  num_rounds: z.int().min(f.num_rounds.min).max(f.num_rounds.max).describe(describeField(f.num_rounds)),
  target_belief: num(f.target_belief),
});

export type PersuasionConfig = z.infer<typeof persuasionSchema>;

/** The model parameters that act on this config: the model's own (neutral when missing), neutral for the rest. */
export function effectiveParams(config: PersuasionConfig): Record<keyof typeof NEUTRAL_PARAMS, number> {
  const used = new Set(MODEL_PARAMS[config.decision_model]);
  const out = { ...NEUTRAL_PARAMS } as Record<keyof typeof NEUTRAL_PARAMS, number>;
  for (const key of Object.keys(NEUTRAL_PARAMS) as (keyof typeof NEUTRAL_PARAMS)[]) {
    if (used.has(key) && config[key] !== undefined) out[key] = config[key] as number;
  }
  return out;
}

function unsolvableCause(config: PersuasionConfig): FieldError {
  const p = effectiveParams(config);
  if (config.evidence_strength <= 0.5)
    return { path: "evidence_strength", message: "Evidence at 0.5 carries no information: raise evidence_strength." };
  if (config.decision_model === "grether" && p.alpha === 0)
    return { path: "alpha", message: "With alpha = 0 the decision maker ignores all evidence: raise alpha." };
  if (config.decision_model === "motivated" && p.motivation_strength >= 1)
    return {
      path: "motivation_strength",
      message: "At motivation_strength 1 the decision maker ignores every supporting signal: lower it.",
    };
  if (config.decision_model === "affine") {
    const top = Math.min(1, p.affine_slope + p.affine_intercept);
    if (top < config.target_belief)
      return {
        path: "affine_slope",
        message: `An affine decision maker never believes more than ${top.toFixed(3)}: raise affine_slope or affine_intercept, or lower target_belief.`,
      };
  }
  return {
    path: "num_rounds",
    message: "The target belief cannot be reached in time even with the best evidence: raise num_rounds or lower target_belief.",
  };
}

/** Validate a schema-valid config: target above prior, p_max from the exact round-by-round DP, unsolvable when p_max is ~0. */
export function validatePersuasion(config: PersuasionConfig): ValidationResult {
  if (config.target_belief <= config.prior) {
    return {
      state: "invalid",
      errors: [
        {
          path: "target_belief",
          message: `target_belief (${config.target_belief}) must be above prior (${config.prior}); otherwise there is nothing to persuade.`,
        },
      ],
    };
  }
  const params = { ...config, ...effectiveParams(config) };
  const pMax = persuasionPMax(params);
  let best = config.prior;
  for (let i = 0; i < config.num_rounds; i++) best = updateBelief(params, best, 1);
  const details = { beliefAfterAllSupportingSignals: best };
  if (pMax < PERSUASION_PMAX_EPSILON) return { state: "unsolvable", pMax: 0, errors: [unsolvableCause(config)], details };
  return { state: "valid", pMax, errors: [], details };
}

/** Draw a valid config: the model's own parameters only, target above prior, retried until p_max > 0 (bounded). */
function samplePersuasion(rng: Rng, opts?: SampleOptions): PersuasionConfig {
  const modelParams = new Set<string>(Object.keys(NEUTRAL_PARAMS));
  const common = persuasionFields.filter((field) => !modelParams.has(field.path));
  for (let attempt = 0; attempt < 40; attempt++) {
    const config = sampleFromFields(rng, common, opts) as PersuasionConfig;
    for (const key of MODEL_PARAMS[config.decision_model]) {
      (config as Record<string, unknown>)[key] = sampleField(rng, f[key], opts);
    }
    if (config.prior >= config.target_belief - 0.02) {
      config.prior = Math.round(rng.float(f.prior.min, Math.max(f.prior.min, config.target_belief - 0.05)) * 1e4) / 1e4;
    }
    if (validatePersuasion(config).state === "valid") return config;
  }
  return { decision_model: "bayesian", prior: 0.3, evidence_strength: 0.8, num_rounds: 6, target_belief: 0.8 };
}

/** Hidden difficulty from the signed fields (with the model's effective parameters), p_max from the DP. */
function persuasionDifficulty(config: PersuasionConfig): DifficultyEstimate {
  const values = { ...config, ...effectiveParams(config) };
  const profile = hardnessProfile(persuasionFields, config, {
    values,
    weights: {
      num_rounds: 1,
      target_belief: 1.25,
      evidence_strength: 1.25,
      prior: 0.75,
      motivation_strength: 0.75,
      alpha: 0.5,
      affine_intercept: 0.5,
    },
  });
  const pMax = config.target_belief <= config.prior ? 1 : persuasionPMax(values);
  return { difficulty: profile.difficulty, pMax, skills: profile.skills };
}

/** The built-in `persuasion-game` family. */
export const persuasionGameFamily = defineFamily<PersuasionConfig>({
  id: "persuasion-game",
  version: "1",
  description:
    "Persuade a simulated human (Bayesian, affine, motivated or Grether decision maker) to reach a target belief within " +
    "a number of rounds, using evidence of a given strength. Built-in simulator of belief updates; p_max by dynamic " +
    "programming over rounds.",
  fields: persuasionFields,
  schema: persuasionSchema,
  sample: samplePersuasion,
  check: validatePersuasion,
  difficulty: persuasionDifficulty,
});

export { bayesPosterior, persuasionPMax, simulatePersuasion, updateBelief } from "./simulator";

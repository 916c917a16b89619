/**
 * The shapes of the Harbor files the reader reads (result.json of a trial and of a job, agent/usage.json, timing.json):
 * only what is read is named, everything else passes through (harbor src/harbor/models/trial/result.py, job/result.py).
 */
import { z } from "zod";

const nullableString = z.string().nullish();
const nullableNumber = z.number().nullish();
export const phaseSchema = z.looseObject({ started_at: nullableString, finished_at: nullableString }).nullish();

export const trialConfigSchema = z.looseObject({
  task: z.looseObject({ path: nullableString, git_url: nullableString, git_commit_id: nullableString, source: nullableString }).nullish(),
  trial_name: nullableString,
  timeout_multiplier: nullableNumber,
  agent_timeout_multiplier: nullableNumber,
  agent: z.looseObject({ model_name: nullableString, override_timeout_sec: nullableNumber, max_timeout_sec: nullableNumber }).nullish(),
  environment: z.looseObject({ override_cpus: nullableNumber, override_memory_mb: nullableNumber }).nullish(),
  job_id: nullableString,
});

const rewardsSchema = z.record(z.string(), z.number().nullable()).nullish();
const agentContextSchema = z
  .looseObject({
    n_input_tokens: nullableNumber,
    n_cache_tokens: nullableNumber,
    n_output_tokens: nullableNumber,
    cost_usd: nullableNumber,
  })
  .nullish();
const exceptionSchema = z
  .looseObject({
    exception_type: nullableString,
    exception_message: nullableString,
    exception_traceback: nullableString,
    occurred_at: nullableString,
  })
  .nullish();
const stepResultSchema = z.looseObject({
  step_name: z.string(),
  agent_result: agentContextSchema,
  verifier_result: z.looseObject({ rewards: rewardsSchema }).nullish(),
  exception_info: exceptionSchema,
  agent_execution: phaseSchema,
  verifier: phaseSchema,
});

export const trialResultSchema = z.looseObject({
  id: nullableString,
  task_name: nullableString,
  trial_name: nullableString,
  source: nullableString,
  task_checksum: nullableString,
  task_id: z.looseObject({ git_url: nullableString, git_commit_id: nullableString, path: nullableString }).nullish(),
  config: trialConfigSchema.nullish(),
  agent_info: z
    .looseObject({
      name: nullableString,
      version: nullableString,
      model_info: z.looseObject({ name: nullableString, provider: nullableString }).nullish(),
    })
    .nullish(),
  agent_result: agentContextSchema,
  verifier_result: z.looseObject({ rewards: rewardsSchema }).nullish(),
  exception_info: exceptionSchema,
  step_results: z.array(stepResultSchema).nullish(),
  started_at: nullableString,
  finished_at: nullableString,
  environment_setup: phaseSchema,
  agent_setup: phaseSchema,
  agent_execution: phaseSchema,
  verifier: phaseSchema,
});
export type TrialResult = z.infer<typeof trialResultSchema>;

export const usageSchema = z.looseObject({ prompt_tokens: nullableNumber, completion_tokens: nullableNumber, max_steps: nullableNumber });
export const timingSchema = z.array(z.looseObject({ format_error: z.boolean().nullish() }));

const evalSchema = z.looseObject({
  n_trials: nullableNumber,
  n_errors: nullableNumber,
  metrics: z.array(z.record(z.string(), z.unknown())).nullish(),
  pass_at_k: z.record(z.string(), z.number()).nullish(),
  reward_stats: z.record(z.string(), z.record(z.string(), z.array(z.string()))).nullish(),
  exception_stats: z.record(z.string(), z.array(z.string())).nullish(),
});

export const jobResultSchema = z.looseObject({
  id: nullableString,
  started_at: nullableString,
  finished_at: nullableString,
  n_total_trials: nullableNumber,
  stats: z
    .looseObject({
      n_completed_trials: nullableNumber,
      n_errored_trials: nullableNumber,
      evals: z.record(z.string(), evalSchema).nullish(),
    })
    .nullish(),
});

/**
 * Running the arena: one (strategy, setting, seed) run at a time in this thread or spread over
 * worker threads, then interquartile means with bootstrap intervals per strategy and setting.
 */
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { heuristicEngineer } from "@/lib/engineer/heuristic";
import { LlmEngineerError, llmEngineer, llmEngineerConfigFromEnv, type LlmEngineerConfig } from "@/lib/engineer/llm";
import { BUILTIN_FAMILY_IDS, getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import type { FamilyDefinition } from "@/lib/families/types";
import { ENGINEER_POPULATION, engineerStrategy } from "./engineer-strategy";
import { DEFAULT_LEARNER, type LearnerParams } from "./learner";
import { bootstrapInterval, firstCrossing, iqm, normalizedArea, valueAt } from "./stats";
import {
  type KnobOverrides,
  accelStrategy,
  oracleStrategy,
  plrStrategy,
  rlveStrategy,
  sflStrategy,
  thresholdStrategy,
  uniformStrategy,
  type StrategyRun,
} from "./strategies";
import {
  ARENA_SETTINGS,
  MAX_TRAP_SHARE,
  STRATEGY_IDS,
  type LearnerId,
  type ValidatorMode,
  type ArenaCurve,
  type ArenaOptions,
  type ArenaReport,
  type ArenaSetting,
  type SeedRun,
  type StrategyId,
  type StrategyResult,
} from "./types";
import { ArenaWorld, type WorldParams } from "./world";
import { learnerVariant } from "./learners";
import { goalChecks } from "./goal";
import { processEnvironment } from "@/lib/config/env";

/**
 * The default family: search-agent. Its hidden difficulty spans the whole scale (-3 to +3; the
 * frozenlake-mapf sampler backs off hard draws, so its configs sit between -2.5 and +1), p_max
 * stays high along the way and falls only at the very hard end (frozenlake-mapf's p_max is below
 * 0.3 for most configs harder than the middle, which leaves a learner nothing to climb on), it has
 * real unsolvable configs (max_turns < hops) and it is cheap to sample (0.05 ms against 3 ms).
 */
export const DEFAULT_ARENA_FAMILY = "search-agent";

/** Everything that shapes a run besides the strategy, the seed and the setting. */
export interface ArenaConfig {
  budget: number;
  batchSize: number;
  learner: LearnerParams;
  difficultyNoise: number;
  skillNoise: number;
  trapShare: number;
  targetSize: number;
  targetHardness: { min: number; max: number };
}

/** The arena's configuration: the full benchmark, or the quick look (a quarter of the budget at four times the learning rate, a smaller target). */
export function arenaConfig(quick = false): ArenaConfig {
  const full: ArenaConfig = {
    budget: 49_152,
    batchSize: 32,
    learner: DEFAULT_LEARNER,
    difficultyNoise: 0.25,
    skillNoise: 0.25,
    trapShare: DEFAULT_TRAP_SHARE,
    targetSize: 128,
    targetHardness: { min: 0.75, max: 1 },
  };
  if (!quick) return full;
  return { ...full, budget: full.budget / 4, learner: { ...full.learner, learningRate: 4 * full.learner.learningRate }, targetSize: 64 };
}

/**
 * Seeds: the heuristic engineer and every baseline's knob were tuned on seeds 0-99 (seed base 0);
 * the evaluation seeds start at DEFAULT_SEED_BASE, so `envforge arena` by default judges on seeds
 * no rule or knob was ever fitted to.
 */
export const DEFAULT_SEED_BASE = 1000;
/** Rollouts a first validator call on a config costs by default (mode shared-charged). */
export const DEFAULT_VALIDATOR_COST = 1;
/** Trap share of the traps setting by default. */
export const DEFAULT_TRAP_SHARE = 0.15;

/** One run to do. */
export interface ArenaJob {
  family: string;
  strategy: StrategyId;
  setting: ArenaSetting;
  seed: number;
  quick: boolean;
  learner?: LearnerId;
  /** share of the generator's mass in trap regions in the traps setting (default DEFAULT_TRAP_SHARE) */
  trapShare?: number;
  validator?: ValidatorMode;
  validatorCost?: number;
  /** knob overrides of a baseline (tuning) */
  knobs?: KnobOverrides;
  /** XORed into the engineers' proposal seeds (ArenaOptions.engineerSeed; default 0) */
  engineerSeed?: number;
}

function familyOrThrow(id: string): FamilyDefinition {
  const family = getBuiltinFamily(id);
  if (!family) throw new Error(`Unknown family "${id}": use a built-in family (${BUILTIN_FAMILY_IDS.join(", ")}).`);
  if (!family.difficulty) throw new Error(`Family "${id}" has no hidden difficulty model, so the arena cannot simulate it.`);
  return family;
}

function strategyRun(id: StrategyId, llm: LlmEngineerConfig | null, knobs?: KnobOverrides, engineerSeed = 0): StrategyRun {
  switch (id) {
    case "uniform":
      return uniformStrategy();
    case "threshold":
      return thresholdStrategy(knobs);
    case "rlve":
      return rlveStrategy(knobs);
    case "sfl":
      return sflStrategy(knobs);
    case "plr":
      return plrStrategy(knobs);
    case "accel":
      return accelStrategy(knobs);
    case "oracle":
      return oracleStrategy();
    case "heuristic":
      return engineerStrategy((input) => heuristicEngineer(input), { label: "heuristic", seedXor: engineerSeed });
    case "llm": {
      if (!llm) throw new Error("The llm strategy needs an endpoint: set OPENAI_BASE_URL and ENVFORGE_ENGINEER_MODEL.");
      let failures = 0;
      return engineerStrategy(
        async (input) => {
          try {
            const { output } = await llmEngineer(input, llm);
            failures = 0;
            return output;
          } catch (err) {
            // One failed proposal keeps the population for another generation; three in a row end the run.
            if (!(err instanceof LlmEngineerError) || ++failures >= 3) throw err;
            return {
              items: input.population.map((m) => ({
                op: "keep" as const,
                environmentKey: m.key,
                config: m.config,
                rationale: "The LLM engineer failed this generation; the population stays.",
                evidence: [],
                proposer: "llm" as const,
              })),
              dropped: [],
              notes: [err.message],
            };
          }
        },
        // Twice the heuristic's population: half as many calls to the endpoint.
        { label: "llm", populationSize: 2 * ENGINEER_POPULATION, seedXor: engineerSeed },
      );
    }
  }
}

/** The world of one run. */
export function createWorld(job: ArenaJob, config: ArenaConfig = arenaConfig(job.quick)): ArenaWorld {
  const variant = learnerVariant(job.learner ?? "default");
  const params: WorldParams = {
    family: familyOrThrow(job.family),
    seed: job.seed,
    setting: job.setting,
    budget: config.budget,
    batchSize: config.batchSize,
    learner: variant.params(config.learner, job.seed),
    difficultyNoise: config.difficultyNoise,
    skillNoise: config.skillNoise,
    trapShare: job.trapShare ?? config.trapShare,
    targetSize: config.targetSize,
    targetHardness: config.targetHardness,
    stream: job.strategy,
    validator: job.validator ?? "shared-charged",
    validatorCost: job.validatorCost ?? DEFAULT_VALIDATOR_COST,
    difficultyWarp: variant.difficultyWarp,
  };
  return new ArenaWorld(params);
}

/** Run one strategy on one seed in one setting and measure it (the LLM engineer's endpoint from the environment unless given). */
export async function runSeed(
  job: ArenaJob,
  config: ArenaConfig = arenaConfig(job.quick),
  llm?: LlmEngineerConfig | null,
): Promise<SeedRun> {
  const world = createWorld(job, config);
  const rng = createRng(`arena:strategy:${job.strategy}:${job.seed}:${job.setting}`);
  await strategyRun(
    job.strategy,
    job.strategy === "llm" ? (llm ?? llmEngineerConfigFromEnv()) : null,
    job.knobs,
    job.engineerSeed,
  )(world, rng);
  const { rollouts, success } = world.curve;
  const stats = world.stats();
  return {
    strategy: job.strategy,
    setting: job.setting,
    seed: job.seed,
    budget: world.budget,
    curve: { rollouts: [...rollouts], success: [...success] },
    rolloutsTo50: firstCrossing(rollouts, success, 0.5),
    rolloutsTo80: firstCrossing(rollouts, success, 0.8),
    auc: normalizedArea(rollouts, success, world.budget),
    finalSuccess: success[success.length - 1],
    cvar10: world.targetCvar(0.1),
    zeroSignal: stats.zeroSignal,
    invalidRate: stats.invalidRate,
    diversity: stats.diversity,
    probeRollouts: world.probeRollouts,
    trapRollouts: world.trapRollouts,
    validatorRollouts: world.validatorRollouts,
  };
}

const round = (x: number, digits = 4) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x);

/** IQMs and intervals of one strategy in one setting from its seed runs (a level never reached counts as the budget). */
export function summarizeRuns(runs: readonly SeedRun[], budget: number): StrategyResult {
  const reached = (level: "rolloutsTo50" | "rolloutsTo80") => runs.filter((r) => r[level] !== null).length;
  const rolloutsTo = (level: "rolloutsTo50" | "rolloutsTo80"): { value: number | null; ci: [number, number] } => {
    const values = runs.map((r) => r[level] ?? budget);
    if (reached(level) === 0) return { value: null, ci: [budget, budget] };
    const [lo, hi] = bootstrapInterval(values, iqm, { seed: `arena:ci:${level}` });
    return { value: Math.round(iqm(values)), ci: [Math.round(lo), Math.round(hi)] };
  };
  const to50 = rolloutsTo("rolloutsTo50");
  const to80 = rolloutsTo("rolloutsTo80");
  const aucs = runs.map((r) => r.auc);
  const [aucLo, aucHi] = bootstrapInterval(aucs, iqm, { seed: "arena:ci:auc" });
  return {
    rolloutsTo50: to50.value,
    rolloutsTo50CI: to50.ci,
    rolloutsTo80: to80.value,
    rolloutsTo80CI: to80.ci,
    auc: round(iqm(aucs)),
    aucCI: [round(aucLo), round(aucHi)],
    finalSuccess: round(iqm(runs.map((r) => r.finalSuccess))),
    cvar10: round(iqm(runs.map((r) => r.cvar10))),
    zeroSignal: round(iqm(runs.map((r) => r.zeroSignal))),
    invalidRate: round(iqm(runs.map((r) => r.invalidRate))),
    diversity: round(iqm(runs.map((r) => r.diversity))),
    reached50: reached("rolloutsTo50"),
    reached80: reached("rolloutsTo80"),
  };
}

/** The IQM curve over seeds on a grid of 101 rollout counts from 0 to the budget. */
export function summarizeCurve(runs: readonly SeedRun[], budget: number, points = 101): ArenaCurve {
  const rollouts: number[] = [];
  const success: number[] = [];
  for (let i = 0; i < points; i++) {
    const x = Math.round((i * budget) / (points - 1));
    rollouts.push(x);
    success.push(round(iqm(runs.map((r) => valueAt(r.curve.rollouts, r.curve.success, x)))));
  }
  return { rollouts, success };
}

/** The strategies a run includes: the requested ones (checked), or all with `llm` only when an endpoint is configured. */
export function resolveStrategies(requested: readonly string[] | undefined, llmConfigured: boolean): StrategyId[] {
  if (!requested || requested.length === 0) return STRATEGY_IDS.filter((id) => id !== "llm" || llmConfigured);
  const unknown = requested.filter((id) => !(STRATEGY_IDS as readonly string[]).includes(id));
  if (unknown.length > 0) throw new Error(`Unknown strategy ${unknown.map((u) => `"${u}"`).join(", ")}: use ${STRATEGY_IDS.join(", ")}.`);
  if (requested.includes("llm") && !llmConfigured)
    throw new Error("The llm strategy needs an endpoint: set OPENAI_BASE_URL and ENVFORGE_ENGINEER_MODEL.");
  return STRATEGY_IDS.filter((id) => requested.includes(id));
}

/** How long a strategy's run takes relative to the others, to start the long ones first. */
const RUN_WEIGHT: Partial<Record<StrategyId, number>> = { llm: 100, heuristic: 4, oracle: 3, sfl: 1.5, accel: 1.2 };

async function runJobs(jobs: ArenaJob[], workers: number, onDone: (run: SeedRun, job: ArenaJob) => void): Promise<void> {
  if (workers <= 1 || jobs.length <= 1) {
    for (const job of jobs) onDone(await runSeed(job), job);
    return;
  }
  const queue = [...jobs].sort((a, b) => (RUN_WEIGHT[b.strategy] ?? 1) - (RUN_WEIGHT[a.strategy] ?? 1));
  const here = path.dirname(fileURLToPath(import.meta.url));
  // Workers do not inherit the TypeScript loader: each registers tsx (with this repo's tsconfig paths) and then loads the worker module.
  const bootstrap =
    `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return ` +
    `import(${JSON.stringify(pathToFileURL(path.join(here, "worker.ts")).href)}); });`;
  const inherited = processEnvironment();
  const env = { ...inherited, TSX_TSCONFIG_PATH: inherited.TSX_TSCONFIG_PATH ?? path.resolve(here, "../../tsconfig.json") };
  const pool = Array.from({ length: Math.min(workers, jobs.length) }, () => new Worker(bootstrap, { eval: true, env }));
  try {
    await Promise.all(
      pool.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const next = () => {
              const job = queue.shift();
              if (!job) return resolve();
              worker.once("message", (msg: { ok: true; run: SeedRun } | { ok: false; error: string }) => {
                if (!msg.ok) return reject(new Error(`${job.strategy} (${job.setting}, seed ${job.seed}): ${msg.error}`));
                onDone(msg.run, job);
                next();
              });
              worker.postMessage(job);
            };
            worker.once("error", reject);
            next();
          }),
      ),
    );
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
}

/** Worker threads to use by default for the CLI and benchmark: one per core. */
export function defaultWorkers(): number {
  return typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
}

/** One cell of the goal matrix: a family, a learner and the trap share of its traps setting. */
export interface MatrixCell {
  family: string;
  learner: LearnerId;
  trapShare: number;
}

/** Options of runArenaMatrix: ArenaOptions without the single cell, plus the cells. */
export interface MatrixOptions extends Omit<ArenaOptions, "family" | "learner" | "traps"> {
  families: string[];
  learners: LearnerId[];
  trapShares: number[];
}

function checkTrapShare(share: number): number {
  if (!(share > 0 && share <= MAX_TRAP_SHARE)) throw new Error(`traps must be a share in (0, ${MAX_TRAP_SHARE}] (got ${share}).`);
  return share;
}

/**
 * Run every strategy on `seeds` seeds (from seedBase) for every family x learner x trap share: the
 * clean setting once per family and learner, the traps setting once per share; one report per cell
 * (family, learner, trap share) with both settings, IQMs with 95% bootstrap intervals, curves and
 * the goal checks (goal.ts). All runs of all cells share one pool of workers.
 */
export async function runArenaMatrix(options: MatrixOptions): Promise<ArenaReport[]> {
  const started = Date.now();
  const seeds = Math.floor(options.seeds);
  if (!(seeds >= 1)) throw new Error(`seeds must be a whole number >= 1 (got ${options.seeds}).`);
  const seedBase = Math.floor(options.seedBase ?? DEFAULT_SEED_BASE);
  if (!(seedBase >= 0)) throw new Error(`seed base must be a whole number >= 0 (got ${options.seedBase}).`);
  const quick = options.quick === true;
  const validator = options.validator ?? "shared-charged";
  const validatorCost = options.validatorCost ?? DEFAULT_VALIDATOR_COST;
  if (!(validatorCost >= 0)) throw new Error(`validator cost must be >= 0 rollouts (got ${validatorCost}).`);
  for (const f of options.families) familyOrThrow(f);
  for (const l of options.learners) learnerVariant(l);
  options.trapShares.forEach(checkTrapShare);
  const llmConfigured = options.strategies?.includes("llm") || !options.strategies ? llmEngineerConfigFromEnv() !== null : false;
  const strategies = resolveStrategies(options.strategies, llmConfigured);
  const config = arenaConfig(quick);
  const jobs: ArenaJob[] = [];
  const engineerSeed = options.engineerSeed ?? 0;
  if (!(Number.isInteger(engineerSeed) && engineerSeed >= 0 && engineerSeed <= 0x7fffffff))
    throw new Error(`engineer seed must be a whole number in [0, 2^31) (got ${options.engineerSeed}).`);
  const common = { quick, validator, validatorCost, ...(engineerSeed !== 0 ? { engineerSeed } : {}) } as const;
  for (const family of options.families)
    for (const learner of options.learners) {
      for (const strategy of strategies)
        for (let i = 0; i < seeds; i++)
          jobs.push({ ...common, family, learner, strategy, setting: "clean", seed: seedBase + i, knobs: options.knobs?.[strategy] });
      for (const trapShare of options.trapShares)
        for (const strategy of strategies)
          for (let i = 0; i < seeds; i++)
            jobs.push({
              ...common,
              family,
              learner,
              strategy,
              setting: "traps",
              trapShare,
              seed: seedBase + i,
              knobs: options.knobs?.[strategy],
            });
    }
  const keyOf = (job: ArenaJob) => `${job.family}/${job.learner}/${job.setting === "clean" ? "clean" : job.trapShare}/${job.strategy}`;
  const runs = new Map<string, SeedRun[]>();
  let done = 0;
  await runJobs(jobs, options.workers ?? 0, (run, job) => {
    runs.set(keyOf(job), [...(runs.get(keyOf(job)) ?? []), run]);
    done += 1;
    options.onProgress?.(
      done,
      jobs.length,
      `${job.family} ${job.learner} ${job.strategy} ${job.setting === "clean" ? "clean" : `traps ${job.trapShare}`} seed ${job.seed}`,
    );
  });

  const reports: ArenaReport[] = [];
  for (const family of options.families)
    for (const learner of options.learners)
      for (const trapShare of options.trapShares) {
        const settings = { clean: {}, traps: {} } as ArenaReport["settings"];
        const curves = { clean: {}, traps: {} } as ArenaReport["curves"];
        for (const setting of ARENA_SETTINGS)
          for (const strategy of strategies) {
            const job = { family, learner, setting, trapShare, strategy } as ArenaJob;
            const list = (runs.get(keyOf(job)) ?? []).sort((a, b) => a.seed - b.seed);
            settings[setting][strategy] = summarizeRuns(list, config.budget);
            curves[setting][strategy] = summarizeCurve(list, config.budget);
          }
        const goal = goalChecks(settings, config.budget);
        reports.push({
          version: 1,
          createdAt: new Date().toISOString(),
          seeds,
          seedBase,
          quick,
          family,
          learner,
          trapShare,
          validator: { mode: validator, cost: validatorCost },
          budget: { rollouts: config.budget },
          settings,
          curves,
          goal,
          notes: [
            ...reportNotes(config, family, learner, trapShare, validator, validatorCost, seedBase, seeds),
            ...(engineerSeed !== 0
              ? [
                  `The engineers' proposal seeds XOR ${engineerSeed} (not the recorded draw): the same arena and baselines under ` +
                    `another draw of the engineer's own randomness.`,
                ]
              : []),
          ],
          durationMs: Date.now() - started,
        });
      }
  return reports;
}

/**
 * Run every strategy on `seeds` seeds in the clean and the trap setting for one family and learner
 * and report IQMs with 95% bootstrap intervals, curves and the goal checks (see goal.ts).
 */
export async function runArena(options: ArenaOptions): Promise<ArenaReport> {
  const [report] = await runArenaMatrix({
    ...options,
    families: [options.family ?? DEFAULT_ARENA_FAMILY],
    learners: [options.learner ?? "default"],
    trapShares: [options.traps ?? DEFAULT_TRAP_SHARE],
  });
  return report;
}

function reportNotes(
  config: ArenaConfig,
  family: string,
  learnerId: LearnerId,
  trapShare: number,
  validator: ValidatorMode,
  validatorCost: number,
  seedBase: number,
  seeds: number,
): string[] {
  const L = config.learner;
  return [
    `Family ${family}; learner ${learnerId}: ${learnerVariant(learnerId).description}. Base: ` +
      `${L.skills} skills starting at ${L.initialSkill}, p = p_max * sigmoid(${L.slope} (a.theta - b)), eta ` +
      `${L.learningRate} per group of ${L.groupSize}.`,
    `Seeds ${seedBase}-${seedBase + seeds - 1}; the heuristic and every baseline knob were tuned on seeds 0-99 (seed ` +
      `base 0), so seed base ${DEFAULT_SEED_BASE} and up are evaluation seeds.`,
    `Validator: ${
      validator === "none"
        ? "given to no strategy"
        : `given to every strategy, ${validatorCost} rollout(s) a first call on a config, counted in the budget; ` +
          `it answers valid, unsolvable or invalid, never p_max`
    }. ` + `No strategy but the oracle (which reads the learner, the upper bound) sees p_max or trap flags.`,
    `Target: at least 64 configs of the hard end (hardness from ${config.targetHardness.min}, widened toward the ` +
      `middle where the hard end has too few), outside every trap region and with p_max >= 0.02; target success is the ` +
      `mean of p / p_max, evaluated exactly after every batch of ${config.batchSize} groups and never counted as rollouts.`,
    `Rollouts: every attempt a strategy asks for counts, probes included, and every rollout trains the learner. Traps ` +
      `setting: ${Math.round(trapShare * 100)}% of the generator's mass in trap regions, a sixth each: unsolvable, noisy ` +
      `TV (p = 0.5), invalid, and the held-out kinds drifting TV (success drifting 0.2 -> 0.8 with play, teaching ` +
      `nothing), unsolvable that the validator passes, deceptive (looks learnable, unlearns).`,
    `Per strategy: interquartile means over seeds with 95% percentile-bootstrap intervals (2,000 resamples); a seed ` +
      `that never reaches 50% or 80% target success counts as the budget (${config.budget} rollouts) in rolloutsTo50/80, ` +
      `and reached50/reached80 say how many seeds did.`,
  ];
}

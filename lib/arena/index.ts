/** Public API of the curriculum arena (pure TypeScript: no database, no Next.js). */
export * from "./types";
export {
  runArena,
  runArenaMatrix,
  DEFAULT_SEED_BASE,
  DEFAULT_TRAP_SHARE,
  DEFAULT_VALIDATOR_COST,
  type MatrixCell,
  type MatrixOptions,
  runSeed,
  arenaConfig,
  createWorld,
  defaultWorkers,
  resolveStrategies,
  summarizeRuns,
  summarizeCurve,
  DEFAULT_ARENA_FAMILY,
  type ArenaConfig,
  type ArenaJob,
} from "./run";
export { ArenaWorld, MIN_TARGET_SIZE, targetConfigs, trapCell, trapMap, type GroupResult, type WorldParams } from "./world";
export {
  Learner,
  DEFAULT_LEARNER,
  GAIN_SHAPES,
  expectedGroupGain,
  gainShapeValue,
  relativeSuccess,
  skillShare,
  successProbability,
  type HiddenTask,
  type LearnerParams,
} from "./learner";
export { BASELINE_DEFAULTS, KNOB_GRID } from "./strategies";
export { GOAL_LIMITS, goalChecks, oracleMissesToo, ratioText } from "./goal";
export { learnerVariant } from "./learners";
export { ENGINEER_POPULATION, engineerStrategy } from "./engineer-strategy";
export { arenaSummary } from "./summary";
export { bootstrapInterval, firstCrossing, iqm, normalizedArea } from "./stats";

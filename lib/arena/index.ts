/** Public API of the curriculum arena (pure TypeScript: no database, no Next.js). */
export * from "./types";
export {
  runArena,
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
export { ArenaWorld, trapCell, trapMap, type GroupResult, type WorldParams } from "./world";
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
export { BASELINE_DEFAULTS } from "./strategies";
export { ENGINEER_POPULATION, engineerStrategy } from "./engineer-strategy";
export { arenaSummary } from "./summary";
export { bootstrapInterval, firstCrossing, iqm, normalizedArea } from "./stats";

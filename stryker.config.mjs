/**
 * Mutation testing of the environment engineer and the curriculum arena: `npm run test:mutation`
 * (not part of `npm test`; slow: tens of minutes on 2 cores). It mutates the pure decision code of
 * lib/engineer and lib/arena and the persuasion game's p_max DP (the list below says what is left
 * out and why) and runs the unit tests of vitest.stryker.config.ts against each mutant (only the
 * tests that cover it). Scores per folder: docs/BENCHMARKS.md.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.stryker.config.ts", related: false },
  // The pure decision code of the engineer and the arena. Left out, each with its reason:
  // - lib/engineer/summary.ts reads the database (integration tests, which Stryker does not run);
  // - lib/engineer/llm*.ts, endpoint.ts: the LLM engineer's tests drive loopback HTTP servers for seconds each;
  // - lib/engineer/validate-items.ts: tested through the LLM engineer's tests;
  // - lib/engineer/heuristic/rationale.ts, format.ts: wording of rationales (the rules behind them are tested);
  // - lib/arena/world.ts, engineer-strategy.ts, summary.ts, run.ts, worker.ts: the simulated world and whole runs,
  //   whose tests take seconds each (world.test.ts, run.test.ts) and would make a run take hours on 2 cores;
  // - types, re-exports and the defaults table (module-level constants: static mutants, ignored anyway).
  mutate: [
    "lib/engineer/scoring.ts",
    "lib/engineer/classification.ts",
    "lib/engineer/heuristic/*.ts",
    "lib/arena/learner.ts",
    "lib/arena/stats.ts",
    "lib/arena/strategies.ts",
    "lib/arena/goal.ts",
    // the persuasion game's p_max DP: the arena's hidden p_max and the family's validator read it (persuasion.test.ts)
    "lib/families/persuasion-game/simulator.ts",
    "!**/*.test.ts",
    "!lib/engineer/heuristic/rationale.ts",
    "!lib/engineer/heuristic/format.ts",
    "!lib/engineer/heuristic/model.ts",
    "!lib/engineer/heuristic/defaults.ts",
    "!lib/engineer/heuristic/test-input.ts",
  ],
  coverageAnalysis: "perTest",
  // mutants in module-level constants need every test per mutant; Stryker reports them as ignored
  ignoreStatic: true,
  concurrency: 2,
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  timeoutMS: 20000,
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};

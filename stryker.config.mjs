/**
 * Mutation testing of the environment engineer and the curriculum arena: `npm run test:mutation`
 * (not part of `npm test`; slow: tens of minutes on 2 cores). It mutates the pure code of
 * lib/engineer and lib/arena and runs the unit tests of vitest.stryker.config.ts against each
 * mutant (only the tests that cover it). Scores per folder: docs/BENCHMARKS.md.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.stryker.config.ts", related: false },
  mutate: [
    "lib/engineer/**/*.ts",
    "lib/arena/**/*.ts",
    "!**/*.test.ts",
    // reads the database: covered by integration tests, which Stryker does not run
    "!lib/engineer/summary.ts",
    // the LLM engineer (prompt, answer, transport): its tests drive loopback HTTP servers for seconds each (llm.test.ts)
    "!lib/engineer/llm.ts",
    "!lib/engineer/llm-prompt.ts",
    "!lib/engineer/llm-answer.ts",
    "!lib/engineer/endpoint.ts",
    // worker-thread entry and whole-run orchestration of the arena: exercised by run.test.ts and bench:arena
    "!lib/arena/worker.ts",
    "!lib/arena/run.ts",
    // types and re-exports only
    "!lib/engineer/types.ts",
    "!lib/arena/types.ts",
    "!lib/arena/index.ts",
    "!lib/engineer/heuristic/model.ts",
  ],
  coverageAnalysis: "perTest",
  // mutants in module-level constants need every test per mutant; Stryker reports them as ignored
  ignoreStatic: true,
  concurrency: 2,
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  timeoutMS: 30000,
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};

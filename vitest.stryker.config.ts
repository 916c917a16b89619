/**
 * Vitest config for mutation testing only (stryker.config.mjs, `npm run test:mutation`): the fast
 * unit tests of lib/engineer and lib/arena (and of the persuasion game's p_max DP), without the slow ones that run whole arena reports or
 * talk to loopback LLM servers (those stay in `npm run test:unit`). Stryker runs each mutant
 * against the tests that cover it, so a slow test here multiplies into minutes.
 */
import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/engineer/**/*.test.ts", "lib/arena/**/*.test.ts", "lib/families/persuasion-game/*.test.ts"],
    // run.test.ts runs whole arena reports, world.test.ts trains learners in simulated worlds, llm.test.ts talks to loopback
    // servers. heuristic.test.ts and heuristic-failures.test.ts run (a second or two a file): they make their 40-60 member
    // proposals inside each test (test-input.ts's perTest), since Stryker counts only code run inside a test as that test's
    // coverage; a proposal made at import or in a describe body leaves its mutants "static" (ignored) or never run by the
    // tests that read it.
    exclude: [
      "**/*.int.test.ts",
      "lib/engineer/llm.test.ts",
      "lib/arena/run.test.ts",
      "lib/arena/world.test.ts",
      "lib/arena/summary.test.ts",
      "node_modules/**",
    ],
    environment: "node",
    // instrumented code on a loaded machine runs several times slower than in `npm run test:unit`
    testTimeout: 60_000,
  },
});

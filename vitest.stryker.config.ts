/**
 * Vitest config for mutation testing only (stryker.config.mjs, `npm run test:mutation`): the fast
 * unit tests of lib/engineer and lib/arena, without the slow ones that run whole arena reports or
 * talk to loopback LLM servers (those stay in `npm run test:unit`). Stryker runs each mutant
 * against the tests that cover it, so a slow test here multiplies into minutes.
 */
import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/engineer/**/*.test.ts", "lib/arena/**/*.test.ts"],
    // run.test.ts runs whole arena reports, world.test.ts trains learners in simulated worlds, llm.test.ts talks to loopback
    // servers, heuristic.test.ts and heuristic-failures.test.ts build 40-60 member proposals at import (repeated for every mutant it covers); the
    // focused tests beside each step (score, select, directed, budget-predict, evidence, heuristic-rules) check those rules
    exclude: [
      "**/*.int.test.ts",
      "lib/engineer/llm.test.ts",
      "lib/arena/run.test.ts",
      "lib/arena/world.test.ts",
      "lib/arena/summary.test.ts",
      "lib/engineer/heuristic/heuristic.test.ts",
      "lib/engineer/heuristic/heuristic-failures.test.ts",
      "node_modules/**",
    ],
    environment: "node",
    // instrumented code on a loaded machine runs several times slower than in `npm run test:unit`
    testTimeout: 60_000,
  },
});

import { defineConfig } from "vitest/config";
import path from "node:path";

const alias = { "@": path.resolve(import.meta.dirname) };

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "cli/**/*.test.ts", "components/**/*.test.ts", "bench/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "node_modules/**"],
          environment: "node",
          // speed is the benchmarks' job; on 2 shared cores a CPU-heavy correctness test (200 sampled and
          // validated configs) went past vitest's 5 s default once while other work ran
          testTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["lib/**/*.int.test.ts", "cli/**/*.int.test.ts", "tests/**/*.int.test.ts"],
          environment: "node",
          globalSetup: ["./tests/global-setup.ts"],
          // a hang guard, not a speed check: two real Harbor jobs imported through the CLI took over 120 s on a
          // clean-clone run with the 2 cores shared (load ~13)
          testTimeout: 300_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});

/**
 * Where tests find the shared real-data fixtures (never copied into the repo). Locally a missing
 * fixtures directory skips the tests that need it; under CI=true it fails them, naming the path,
 * so a CI run cannot pass while silently skipping the real-data checks.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { processEnvironment } from "@/lib/config/env";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The fixtures directory (ENVFORGE_FIXTURES, else ../shared/fixtures next to the repo), or null
 * when absent; throws when absent and CI=true.
 */
export function fixturesDir(env: Record<string, string | undefined> = processEnvironment()): string | null {
  const dir = env.ENVFORGE_FIXTURES ?? path.resolve(repoRoot, "../shared/fixtures");
  if (existsSync(dir)) return dir;
  if (env.CI === "true") {
    throw new Error(
      `The shared fixtures are missing at ${dir} and CI=true: tests that need them fail instead of skipping. Put ` +
        `shared/fixtures beside the clone (../shared/fixtures) or set ENVFORGE_FIXTURES to their path.`,
    );
  }
  return null;
}

/**
 * Where tests find the shared real-data fixtures (never copied into the repo).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The fixtures directory (ENVFORGE_FIXTURES, else ../shared/fixtures next to the repo), or null when absent. */
export function fixturesDir(): string | null {
  const dir = process.env.ENVFORGE_FIXTURES ?? path.resolve(repoRoot, "../shared/fixtures");
  return existsSync(dir) ? dir : null;
}

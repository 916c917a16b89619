/**
 * Where and how the demo's simulated trainer runs on this machine. As the server's own user it is
 * `node --import tsx scripts/simulated-trainer.ts` in the repository. As root the command runs as
 * `envforge-runner` (see lib/dispatch/adapters/local.ts), which cannot read a repository below a
 * 0700 folder such as /root: the trainer is then bundled with esbuild (the compiler tsx itself uses)
 * into one world-readable file in the work folder, and a work folder it cannot reach moves under
 * /var/lib/envforge, as the embedded database does.
 */
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { canTraverse, localRunner, type SystemUser } from "@/lib/system/run-as";
import { simulatedTrainerCommand } from "./loop";

/** The `local` target config of the demo's simulated trainer. */
export interface DemoTrainerConfig {
  command: string[];
  cwd?: string;
  workDir: string;
}

/** The script the bundle is built from. */
function trainerScript(root: string): string {
  return path.join(root, "scripts", "simulated-trainer.ts");
}

/** A work folder the runner can reach: `workDir`, or one under `cacheRoot` named after it. */
async function reachableWorkDir(workDir: string, runner: SystemUser, cacheRoot: string, log: (l: string) => void): Promise<string> {
  if (canTraverse(workDir, runner)) return path.resolve(workDir);
  const digest = createHash("sha256").update(path.resolve(workDir)).digest("hex").slice(0, 12);
  const relocated = path.join(cacheRoot, `dispatch-${digest}`);
  await fs.mkdir(relocated, { recursive: true, mode: 0o755 });
  await fs.chmod(cacheRoot, 0o755);
  await fs.chmod(relocated, 0o755);
  log(
    `the demo trainer's dispatch folders are kept in ${relocated}: the user ${runner.name} (local targets do not run as root) cannot reach ${workDir}`,
  );
  return relocated;
}

/** Bundles scripts/simulated-trainer.ts (with its lib/ and npm imports) into one ES module file readable by everyone. */
export async function bundleSimulatedTrainer(root: string, outFile: string): Promise<void> {
  const { build } = await import("esbuild");
  const staging = `${outFile}.${process.pid}.tmp`;
  await build({
    entryPoints: [trainerScript(root)],
    outfile: staging,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    tsconfig: path.join(root, "tsconfig.json"),
    // CommonJS dependencies inside an ES module bundle still call require()
    banner: { js: 'import { createRequire as __envforgeRequire } from "node:module"; const require = __envforgeRequire(import.meta.url);' },
    logLevel: "silent",
  });
  await fs.chmod(staging, 0o644);
  await fs.rename(staging, outFile);
}

/**
 * The simulated trainer's target config for this machine (bundling the trainer when the runner
 * user cannot read the repository). Called at seeding and at every start, so a bundle follows the code.
 */
export async function demoTrainerConfig(
  root: string,
  workDir: string,
  opts: { log?: (line: string) => void; cacheRoot?: string; runner?: SystemUser | null } = {},
): Promise<DemoTrainerConfig> {
  const log = opts.log ?? (() => {});
  const runner = opts.runner === undefined ? localRunner(log) : opts.runner;
  const tsx = { command: simulatedTrainerCommand(root), cwd: root };
  if (!runner) return { ...tsx, workDir: path.resolve(workDir) };
  const reachable = await reachableWorkDir(workDir, runner, opts.cacheRoot ?? "/var/lib/envforge", log);
  if (canTraverse(path.join(root, "scripts"), runner) && canTraverse(path.join(root, "node_modules", "tsx"), runner))
    return { ...tsx, workDir: reachable };
  const bundle = path.join(reachable, "simulated-trainer.mjs");
  await bundleSimulatedTrainer(root, bundle);
  log(
    `the user ${runner.name} (local targets do not run as root) cannot read ${root}; the demo runs a bundled copy of its trainer, ${bundle}`,
  );
  return { command: [process.execPath, bundle], workDir: reachable };
}

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { localRunner } from "@/lib/system/run-as";
import { simulatedTrainerCommand } from "./loop";
import { demoTrainerConfig } from "./trainer-target";

const repo = path.resolve(import.meta.dirname, "..", "..");
const asRoot = process.getuid?.() === 0;
// a checkout below a folder only its owner may enter, as a clone under /root is (a link keeps it cheap)
const closed = fs.mkdtempSync(path.join(os.tmpdir(), "ef-trainer-closed-"));
const hiddenRepo = path.join(closed, "repo");
fs.symlinkSync(repo, hiddenRepo);
const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), "ef-trainer-cache-"));
fs.chmodSync(cacheRoot, 0o755);
afterAll(() => {
  fs.rmSync(closed, { recursive: true, force: true });
  fs.rmSync(cacheRoot, { recursive: true, force: true });
});

describe("the demo trainer's target on this machine", () => {
  it(
    asRoot
      ? "as root, with the repository out of envforge-runner's reach, runs a bundled trainer that user can load, from a work folder it can reach"
      : "not root: runs scripts/simulated-trainer.ts with tsx in the repository, as the server's own user",
    async () => {
      const workDir = path.join(closed, "data", "dispatch"); // as unreachable as the repository
      const config = await demoTrainerConfig(hiddenRepo, workDir, { cacheRoot });
      if (!asRoot) {
        expect(config).toEqual({ command: simulatedTrainerCommand(hiddenRepo), cwd: hiddenRepo, workDir });
        return;
      }
      const runner = localRunner()!;
      expect(config.workDir.startsWith(cacheRoot + path.sep)).toBe(true);
      const bundle = path.join(config.workDir, "simulated-trainer.mjs");
      expect(config).toEqual({ command: [process.execPath, bundle], workDir: config.workDir });
      expect(fs.statSync(bundle).mode & 0o777).toBe(0o644);
      // loaded as the runner user, the whole bundle evaluates and the trainer asks for its payload
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", NODE_ENV: "production" } as const;
      const run = spawnSync(process.execPath, [bundle], { uid: runner.uid, gid: runner.gid, cwd: "/", env, encoding: "utf8" });
      expect(run.stderr).toContain("ENVFORGE_PAYLOAD_PATH is not set");
    },
    60_000,
  );
});

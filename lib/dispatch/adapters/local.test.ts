import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { DeliveryError, type DeliveryContext, type PollResult } from "../types";
import { localAdapter, localDispatchDir, parseLocalExternalId } from "./local";
import { deliveryContext, samplePayload } from "./test-payload";

// as root, commands run as envforge-runner, which must be able to enter the work folder (mkdtemp makes it 0700)
const workDir = mkdtempSync(path.join(os.tmpdir(), "envforge-local-test-"));
chmodSync(workDir, 0o755);
const asRoot = process.getuid?.() === 0;
// this server runs local targets (off by default except for the embedded demo)
process.env.ENVFORGE_LOCAL_TARGETS = "1";
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** argv running a Node script (no shell, no dependency on anything but Node). */
const node = (script: string, ...args: string[]) => [process.execPath, "-e", script, ...args];

async function pollUntilDone(ctx: DeliveryContext, externalId: string, timeoutMs = 15_000): Promise<PollResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await localAdapter.poll!(ctx, externalId);
    if (result.status === "succeeded" || result.status === "failed") return result;
    if (Date.now() > deadline) throw new Error(`still ${result.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("local adapter", () => {
  it("runs the command with the payload file and reports success", async () => {
    const payload = samplePayload();
    const out = path.join(localDispatchDir({ workDir }, payload.dispatchId), "out.json"); // the command may write its own folder
    const script =
      `const fs=require("fs"); const p=JSON.parse(fs.readFileSync(process.argv[1],"utf8"));
      fs.writeFileSync(process.argv[2], JSON.stringify({ id: p.dispatchId, n: p.environments.length, gen: ` +
      `process.argv[3], env: process.env.ENVFORGE_DISPATCH_ID, cb: process.env.ENVFORGE_CALLBACK_ROLLOUTS, secretKey: ` +
      `process.env.ENVFORGE_SECRET_KEY ?? null }));
      console.log("trained"); console.error("warn: nothing");`;
    const ctx = deliveryContext(payload, {
      workDir,
      command: node(script, "{{payloadPath}}", "{{dispatchDir}}/out.json", "g{{generation}}"),
    });
    process.env.ENVFORGE_SECRET_KEY = "server-only-key-0123456789";
    let result;
    try {
      result = await localAdapter.deliver(ctx);
    } finally {
      delete process.env.ENVFORGE_SECRET_KEY;
    }
    expect(result.status).toBe("running");
    const { pid, dir } = parseLocalExternalId(result.externalId!);
    expect(pid).toBeGreaterThan(0);
    expect(dir).toBe(localDispatchDir({ workDir }, payload.dispatchId));
    expect(JSON.parse(readFileSync(path.join(dir, "payload.json"), "utf8"))).toEqual(payload);

    const done = await pollUntilDone(ctx, result.externalId!);
    expect(done).toMatchObject({ status: "succeeded", data: { code: 0, signal: null } });
    expect(done.data?.stdoutTail).toContain("trained");
    expect(done.data?.stderrTail).toContain("warn: nothing");
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual({
      id: payload.dispatchId,
      n: 3,
      gen: "g3",
      env: payload.dispatchId,
      cb: payload.callbacks.rollouts,
      secretKey: null,
    });
    const exit = JSON.parse(readFileSync(path.join(dir, "exit.json"), "utf8"));
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(typeof exit.finishedAt).toBe("string");
  });

  it("a failing command is failed with its exit code", async () => {
    const ctx = deliveryContext(samplePayload(), { workDir, command: node(`console.error("boom: bad config"); process.exit(3)`) });
    const { externalId } = await localAdapter.deliver(ctx);
    const done = await pollUntilDone(ctx, externalId!);
    expect(done.status).toBe("failed");
    expect(done.message).toContain("code 3");
    expect(done.data).toMatchObject({ code: 3 });
    expect(done.data?.stderrTail).toContain("boom: bad config");
  });

  it("a command that cannot start is failed with the reason", async () => {
    const ctx = deliveryContext(samplePayload(), { workDir, command: ["/nonexistent/envforge-trainer", "--x"] });
    const { externalId } = await localAdapter.deliver(ctx);
    const done = await pollUntilDone(ctx, externalId!);
    expect(done.status).toBe("failed");
    expect(done.message).toMatch(/could not start.*ENOENT/);
  });

  it("a resend does not start a second process, while running or after it finished", async () => {
    const payload = samplePayload();
    const counter = path.join(localDispatchDir({ workDir }, payload.dispatchId), "count");
    // the run lasts until the test lets it go (a file appears), not a fixed time a slow machine may outlast
    const script =
      `const fs = require("fs"); fs.appendFileSync(process.argv[1], "run\\n");` +
      `setInterval(() => fs.existsSync(process.argv[2]) && process.exit(0), 20); setTimeout(() => process.exit(0), 60000);`;
    const ctx = deliveryContext(payload, { workDir, command: node(script, "{{dispatchDir}}/count", "{{dispatchDir}}/release") });
    const [a, b] = await Promise.allSettled([localAdapter.deliver(ctx), localAdapter.deliver({ ...ctx, attempt: 2 })]);
    const started = [a, b].filter((r) => r.status === "fulfilled").map((r) => (r as PromiseFulfilledResult<{ externalId?: string }>).value);
    expect(started.length).toBeGreaterThanOrEqual(1); // a concurrent twin either reports the same run or is told to retry
    const again = await localAdapter.deliver({ ...ctx, attempt: 3 });
    expect(again).toMatchObject({ status: "running", externalId: started[0].externalId, data: { duplicate: true } });
    writeFileSync(path.join(localDispatchDir({ workDir }, payload.dispatchId), "release"), "");
    await pollUntilDone(ctx, again.externalId!);
    const after = await localAdapter.deliver({ ...ctx, attempt: 4 });
    expect(after).toMatchObject({ status: "succeeded", externalId: started[0].externalId });
    expect(readFileSync(counter, "utf8")).toBe("run\n");
  });

  it("a retry's run 2 starts a process in a folder of its own (before: it reported run 1's failure)", async () => {
    const payload = samplePayload();
    // fails the first time, succeeds the second (the state folder is kept across runs)
    const script =
      `const fs=require("fs"); const f=process.env.ENVFORGE_STATE_DIR+"/tries-"+process.env.ENVFORGE_DISPATCH_ID;` +
      `const before=fs.existsSync(f); fs.appendFileSync(f,"run\\n"); process.exit(before?0:3);`;
    const ctx = deliveryContext(payload, { workDir, command: node(script) });
    const first = await localAdapter.deliver(ctx);
    expect((await pollUntilDone(ctx, first.externalId!)).status).toBe("failed");
    expect(await localAdapter.deliver({ ...ctx, attempt: 2 })).toMatchObject({ status: "failed", data: { duplicate: true } });
    const run2 = { ...ctx, run: 2 };
    const second = await localAdapter.deliver(run2);
    expect(parseLocalExternalId(second.externalId!).dir).toBe(localDispatchDir({ workDir }, payload.dispatchId, 2));
    expect((await pollUntilDone(run2, second.externalId!)).status).toBe("succeeded");
    expect(await localAdapter.deliver({ ...run2, attempt: 2 })).toMatchObject({ externalId: second.externalId, data: { duplicate: true } });
  });

  it("cancel kills the process group; the outcome survives in exit.json", async () => {
    const ctx = deliveryContext(samplePayload(), { workDir, command: node(`setInterval(() => {}, 1000)`), killGraceMs: 2000 });
    const { externalId } = await localAdapter.deliver(ctx);
    const { pid, dir } = parseLocalExternalId(externalId!);
    expect((await localAdapter.poll!(ctx, externalId!)).status).toBe("running");
    await localAdapter.cancel!(ctx, externalId!);
    const done = await localAdapter.poll!(ctx, externalId!);
    expect(done.status).toBe("failed");
    expect(done.message).toMatch(/SIGTERM|SIGKILL/);
    expect(done.data?.cancelled).toBe(true);
    expect(existsSync(path.join(dir, "exit.json"))).toBe(true);
    for (let i = 0; i < 40 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 25));
    expect(isAlive(pid)).toBe(false);
  });

  it("cancel escalates to SIGKILL when the command ignores SIGTERM", async () => {
    const ctx = deliveryContext(samplePayload(), {
      workDir,
      command: node(`process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); console.log("ready")`),
      killGraceMs: 300,
    });
    const { externalId } = await localAdapter.deliver(ctx);
    const { dir } = parseLocalExternalId(externalId!);
    const stdout = path.join(dir, "stdout.log");
    for (let i = 0; i < 100 && !(existsSync(stdout) && readFileSync(stdout, "utf8").includes("ready")); i++)
      await new Promise((r) => setTimeout(r, 20));
    await localAdapter.cancel!(ctx, externalId!);
    const done = await localAdapter.poll!(ctx, externalId!);
    expect(done).toMatchObject({ status: "failed", data: { signal: "SIGKILL" } });
  });

  it(
    asRoot
      ? "as root, the command runs as envforge-runner: not uid 0, and a root-only file is out of its reach"
      : "not root: the command runs as the server's own (non-root) user",
    async () => {
      const canary = path.join(workDir, "root-only-canary");
      writeFileSync(canary, "canary-4f1d", { mode: 0o600 });
      const payload = samplePayload();
      const script = `const fs=require("fs"); let canary; try { canary = fs.readFileSync(process.argv[2], "utf8"); } catch (e) { canary = e.code; }
        fs.writeFileSync(process.argv[1], JSON.stringify({ uid: process.getuid(), gid: process.getgid(), canary, home: process.env.HOME }));`;
      const ctx = deliveryContext(payload, { workDir, command: node(script, "{{dispatchDir}}/who.json", canary) });
      const { externalId, data } = await localAdapter.deliver(ctx);
      expect(await pollUntilDone(ctx, externalId!)).toMatchObject({ status: "succeeded" });
      const who = JSON.parse(readFileSync(path.join(localDispatchDir({ workDir }, payload.dispatchId), "who.json"), "utf8"));
      if (asRoot) {
        const runnerUid = Number(execFileSync("id", ["-u", "envforge-runner"], { encoding: "utf8" }).trim());
        expect(who.uid).not.toBe(0);
        expect(who.gid).not.toBe(0);
        expect(who.uid).toBe(runnerUid);
        expect(who.canary).toBe("EACCES");
        expect(who.home).toBe(path.join(workDir, "state"));
        expect(data).toMatchObject({ user: "envforge-runner" });
      } else {
        expect(who.uid).toBe(process.getuid!());
        expect(who.canary).toBe("canary-4f1d"); // the server's own file: same user, nothing to drop to
      }
    },
  );

  it("the command gets the job's variables and none of the server's secrets or settings", async () => {
    const secrets = {
      ENVFORGE_SECRET_KEY: "server-only-key-0123456789",
      ENVFORGE_BOOTSTRAP_TOKEN: "bootstrap-token-0123456789",
      DATABASE_URL: "postgres://postgres:db-password-0123@127.0.0.1:5432/envforge",
      OPENAI_API_KEY: "sk-openai-0123456789",
      AWS_SECRET_ACCESS_KEY: "aws-secret-0123456789",
    };
    const payload = samplePayload();
    const ctx = {
      ...deliveryContext(payload, {
        workDir,
        command: node(`require("fs").writeFileSync(process.argv[1], JSON.stringify(process.env))`, "{{dispatchDir}}/env.json"),
        env: { MY_SETTING: "x" },
      }),
      secret: "target-secret-0123",
    };
    Object.assign(process.env, secrets);
    let result;
    try {
      result = await localAdapter.deliver(ctx);
    } finally {
      for (const key of Object.keys(secrets)) delete process.env[key];
    }
    expect(await pollUntilDone(ctx, result.externalId!)).toMatchObject({ status: "succeeded" });
    const dir = localDispatchDir({ workDir }, payload.dispatchId);
    const text = readFileSync(path.join(dir, "env.json"), "utf8");
    for (const value of Object.values(secrets)) expect(text).not.toContain(value);
    const env = JSON.parse(text);
    expect(env).toMatchObject({
      ENVFORGE_DISPATCH_ID: payload.dispatchId,
      ENVFORGE_PAYLOAD_PATH: path.join(dir, "payload.json"),
      ENVFORGE_DISPATCH_DIR: dir,
      ENVFORGE_STATE_DIR: path.join(workDir, "state"),
      ENVFORGE_TARGET_SECRET: "target-secret-0123",
      MY_SETTING: "x",
    });
    expect(env.PATH).toBe(process.env.PATH);
  });

  it(
    asRoot
      ? "as root, a work folder the runner user cannot enter fails the dispatch naming the folder"
      : "not root: a 0700 work folder of the server's own user is used as it is",
    async () => {
      const closed = mkdtempSync(path.join(os.tmpdir(), "envforge-local-closed-")); // 0700, owned by the server's user
      try {
        const ctx = deliveryContext(samplePayload(), { workDir: path.join(closed, "work"), command: node("0") });
        if (asRoot) {
          const err = await localAdapter.deliver(ctx).then(
            () => null,
            (e: unknown) => e,
          );
          expect(err).toBeInstanceOf(DeliveryError);
          expect((err as DeliveryError).retryable).toBe(false);
          expect((err as Error).message).toContain(
            `cannot reach the work folder (config.workDir) ${path.join(closed, "work")}: ${closed} is closed`,
          );
          expect(existsSync(path.join(closed, "work"))).toBe(false);
        } else {
          const { externalId } = await localAdapter.deliver(ctx);
          expect(await pollUntilDone(ctx, externalId!)).toMatchObject({ status: "succeeded" });
        }
      } finally {
        rmSync(closed, { recursive: true, force: true });
      }
    },
  );

  it("the server reads no file the command links into its folder", async () => {
    const payload = samplePayload();
    const secretFile = path.join(workDir, "server-secret");
    writeFileSync(secretFile, "server-secret-text-0123", { mode: 0o600 });
    // the command replaces its stdout log with a link to a file of the server's
    const script =
      `const fs=require("fs"); const d=process.argv[1]; console.log("before"); fs.rmSync(d+"/stdout.log"); ` +
      `fs.symlinkSync(process.argv[2], d+"/stdout.log");`;
    const ctx = deliveryContext(payload, { workDir, command: node(script, "{{dispatchDir}}", secretFile) });
    const { externalId } = await localAdapter.deliver(ctx);
    const done = await pollUntilDone(ctx, externalId!);
    expect(done.status).toBe("succeeded");
    expect(JSON.stringify(done)).not.toContain("server-secret-text-0123");
    expect(done.data?.stdoutTail).toBe("");
  });

  it("checks its config", () => {
    expect(localAdapter.checkConfig({ command: ["python", "train.py", "{{payloadPath}}"] })).toEqual([]);
    expect(localAdapter.checkConfig({ command: [] }).map((e) => e.path)).toEqual(["command"]);
    expect(localAdapter.checkConfig({ command: ["run", "{{secret}}"] }).map((e) => e.path)).toEqual(["command.1"]);
    expect(localAdapter.checkConfig({ command: "python train.py" }).map((e) => e.path)).toEqual(["command"]);
  });
});

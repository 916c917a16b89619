import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { DeliveryContext, PollResult } from "../types";
import { localAdapter, localDispatchDir, parseLocalExternalId } from "./local";
import { deliveryContext, samplePayload } from "./test-payload";

const workDir = mkdtempSync(path.join(os.tmpdir(), "envforge-local-test-"));
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
    const out = path.join(workDir, `out-${payload.dispatchId}.json`);
    const script = `const fs=require("fs"); const p=JSON.parse(fs.readFileSync(process.argv[1],"utf8"));
      fs.writeFileSync(process.argv[2], JSON.stringify({ id: p.dispatchId, n: p.environments.length, gen: process.argv[3], env: process.env.ENVFORGE_DISPATCH_ID, cb: process.env.ENVFORGE_CALLBACK_ROLLOUTS, secretKey: process.env.ENVFORGE_SECRET_KEY ?? null }));
      console.log("trained"); console.error("warn: nothing");`;
    const ctx = deliveryContext(payload, { workDir, command: node(script, "{{payloadPath}}", out, "g{{generation}}") });
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
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual({ id: payload.dispatchId, n: 3, gen: "g3", env: payload.dispatchId, cb: payload.callbacks.rollouts, secretKey: null });
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
    const counter = path.join(workDir, `count-${payload.dispatchId}`);
    const script = `require("fs").appendFileSync(process.argv[1], "run\\n"); setTimeout(() => {}, 600);`;
    const ctx = deliveryContext(payload, { workDir, command: node(script, counter) });
    const [a, b] = await Promise.allSettled([localAdapter.deliver(ctx), localAdapter.deliver({ ...ctx, attempt: 2 })]);
    const started = [a, b].filter((r) => r.status === "fulfilled").map((r) => (r as PromiseFulfilledResult<{ externalId?: string }>).value);
    expect(started.length).toBeGreaterThanOrEqual(1); // a concurrent twin either reports the same run or is told to retry
    const again = await localAdapter.deliver({ ...ctx, attempt: 3 });
    expect(again).toMatchObject({ status: "running", externalId: started[0].externalId, data: { duplicate: true } });
    await pollUntilDone(ctx, again.externalId!);
    const after = await localAdapter.deliver({ ...ctx, attempt: 4 });
    expect(after).toMatchObject({ status: "succeeded", externalId: started[0].externalId });
    expect(readFileSync(counter, "utf8")).toBe("run\n");
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
    for (let i = 0; i < 100 && !(existsSync(stdout) && readFileSync(stdout, "utf8").includes("ready")); i++) await new Promise((r) => setTimeout(r, 20));
    await localAdapter.cancel!(ctx, externalId!);
    const done = await localAdapter.poll!(ctx, externalId!);
    expect(done).toMatchObject({ status: "failed", data: { signal: "SIGKILL" } });
  });

  it("checks its config", () => {
    expect(localAdapter.checkConfig({ command: ["python", "train.py", "{{payloadPath}}"] })).toEqual([]);
    expect(localAdapter.checkConfig({ command: [] }).map((e) => e.path)).toEqual(["command"]);
    expect(localAdapter.checkConfig({ command: ["run", "{{secret}}"] }).map((e) => e.path)).toEqual(["command.1"]);
    expect(localAdapter.checkConfig({ command: "python train.py" }).map((e) => e.path)).toEqual(["command"]);
  });
});

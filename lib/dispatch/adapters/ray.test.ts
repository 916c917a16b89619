import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { rayUpdateEnvs, startFakeRay, type FakeRay } from "@/tests/fakes/ray-server";
import { DeliveryError, type GenerationPayload } from "../types";
import { MAX_RESPONSE_BYTES } from "./http";
import { logsFromTail, RAY_PAYLOAD_ENV, rayAdapter, rayEntrypoint, rayPayloadPath } from "./ray";
import { deliveryContext, samplePayload } from "./test-payload";

let ray: FakeRay | undefined;
afterEach(async () => {
  await ray?.close();
  ray = undefined;
});

const configFor = (address: string, extra: Record<string, unknown> = {}) => ({
  address,
  entrypoint: "python -m trainer --payload {{payloadPath}} --run {{project}}-g{{generation}}",
  runtime_env: { working_dir: "s3://bucket/trainer.zip", env_vars: { WANDB_PROJECT: "rl", ENVFORGE_DISPATCH_ID: "overridden" } },
  metadata: { team: "rl" },
  entrypoint_num_gpus: 1,
  ...extra,
});

async function pollUntil(ctx: ReturnType<typeof deliveryContext>, id: string, done: (s: string) => boolean, max = 10) {
  const seen: string[] = [];
  for (let i = 0; i < max; i++) {
    const r = await rayAdapter.poll!(ctx, id);
    seen.push(r.status);
    if (done(r.status)) return { last: r, seen };
  }
  throw new Error(`never finished: ${seen.join(",")}`);
}

describe("ray adapter", () => {
  it("submits with submission_id = dispatch id, the payload in env_vars and merged metadata", async () => {
    ray = await startFakeRay();
    const payload = samplePayload();
    const result = await rayAdapter.deliver(deliveryContext(payload, configFor(ray.url)));
    expect(result).toMatchObject({ status: "delivered", externalId: payload.dispatchId });
    const job = ray.jobs.get(payload.dispatchId)!;
    expect(ray.requests[0]).toBe("POST /api/jobs/");
    const env = job.runtime_env.env_vars as Record<string, string>;
    expect(JSON.parse(gunzipSync(Buffer.from(env[RAY_PAYLOAD_ENV], "base64")).toString("utf8"))).toEqual(payload);
    expect(env.ENVFORGE_PAYLOAD_JSON).toBeUndefined(); // Ray would expand the `$`s in it
    expect(env).toMatchObject({
      WANDB_PROJECT: "rl",
      ENVFORGE_DISPATCH_ID: payload.dispatchId,
      ENVFORGE_CALLBACK_VALIDATION: payload.callbacks.validation,
      ENVFORGE_CALLBACK_ROLLOUTS: payload.callbacks.rollouts,
    });
    expect(job.runtime_env.working_dir).toBe("s3://bucket/trainer.zip");
    expect(job.metadata).toEqual({
      team: "rl",
      envforge_dispatch: payload.dispatchId,
      envforge_run: "1",
      envforge_project: "tb-curriculum",
      envforge_generation: "3",
    });
    expect(job.body.entrypoint_num_gpus).toBe(1);
    expect(job.entrypoint).toContain(`--payload ${rayPayloadPath(payload.dispatchId)} --run tb-curriculum-g3`);
    expect(job.entrypoint).toMatch(
      /^ENVFORGE_PAYLOAD_JSON="\$\(python -c '.*'\)" \|\| exit 1; export ENVFORGE_PAYLOAD_JSON; printf .*; python -m trainer/,
    );
  });

  it("fills the template in after the payload steps, quoting values; no payload file without {{payloadPath}}", () => {
    const payload = samplePayload();
    const plain = rayEntrypoint("bash run.sh {{dispatchId}}", { payload });
    expect(plain.endsWith(`; export ENVFORGE_PAYLOAD_JSON; bash run.sh ${payload.dispatchId}`)).toBe(true);
    expect(plain).not.toContain("printf");
    expect(rayEntrypoint("echo {{project}}", { payload: { ...payload, project: { ...payload.project, slug: "a b'c" } } })).toMatch(
      /; echo 'a b'\\''c'$/,
    );
  });

  it("the job sees the payload byte for byte, `$` and all, in ENVFORGE_PAYLOAD_JSON and the payload file", async () => {
    // Ray expands env_vars values (update_envs in python/ray/_private/utils.py; the fake does the
    // same): `$HOME` became /root, `${TASK_DIR}` vanished, when the JSON itself travelled there
    ray = await startFakeRay();
    const base = samplePayload();
    const payload: GenerationPayload = {
      ...base,
      environments: [
        {
          ...base.environments[0],
          config: { cmd: "echo $HOME && cat ${TASK_DIR}/x", formula: "$$x^2$$", ref: "$(ENVFORGE_DISPATCH_ID)", tail: "$" },
        },
        ...base.environments.slice(1),
      ],
    };
    const template = `cp {{payloadPath}} from-file.json && printf '%s' "$ENVFORGE_PAYLOAD_JSON" > from-env.json`;
    await rayAdapter.deliver(deliveryContext(payload, configFor(ray.url, { entrypoint: template })));
    const dir = mkdtempSync(path.join(os.tmpdir(), "envforge-ray-job-"));
    try {
      const nodeEnv = { HOME: "/root", TASK_DIR: "/task", ...(process.env.PYENV_ROOT ? { PYENV_ROOT: process.env.PYENV_ROOT } : {}) };
      const run = ray.runEntrypoint(payload.dispatchId, { base: nodeEnv, cwd: dir });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const sent = JSON.stringify(payload);
      expect(readFileSync(path.join(dir, "from-env.json"), "utf8")).toBe(sent);
      expect(readFileSync(path.join(dir, "from-file.json"), "utf8")).toBe(sent);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(rayPayloadPath(payload.dispatchId), { force: true });
    }
  });

  it("the fake expands env_vars as Ray's update_envs does", () => {
    expect(rayUpdateEnvs({ A: "$HOME/a", B: "${HOME}:${MISSING}:$MISSING:${lower}:$$:$A", C: "${B}" }, { HOME: "/root" })).toMatchObject({
      A: "/root/a",
      B: "/root::$MISSING:${lower}:$$:/root/a",
      C: "/root::$MISSING:${lower}:$$:/root/a",
    });
  });

  it("a resend finds the job it submitted (400 or 500 'already exists') and starts no second one", async () => {
    for (const duplicateStatus of [400, 500] as const) {
      ray = await startFakeRay({ duplicateStatus });
      const payload = samplePayload();
      const ctx = deliveryContext(payload, configFor(ray.url));
      await rayAdapter.deliver(ctx);
      await rayAdapter.poll!(ctx, payload.dispatchId); // PENDING -> now RUNNING
      const again = await rayAdapter.deliver({ ...ctx, attempt: 2 });
      expect(again).toMatchObject({ status: "running", externalId: payload.dispatchId, data: { duplicate: true, rayStatus: "RUNNING" } });
      expect(ray.jobs.size).toBe(1);
      expect(ray.requests.filter((r) => r === "POST /api/jobs/")).toHaveLength(2);
      await ray.close();
      ray = undefined;
    }
  });

  it("a retry's run 2 submits a job of its own (Ray refuses the used submission_id); its resend finds it", async () => {
    ray = await startFakeRay({ script: ["PENDING", "FAILED"] });
    const payload = samplePayload();
    const ctx = deliveryContext(payload, configFor(ray.url));
    await rayAdapter.deliver(ctx);
    await pollUntil(ctx, payload.dispatchId, (s) => s === "failed");
    // run 1 again (what a retry sent before): Ray's answer is the failed job, nothing runs
    expect(await rayAdapter.deliver(ctx)).toMatchObject({ status: "failed", data: { duplicate: true } });
    ray.setDefaultScript(["PENDING", "RUNNING", "SUCCEEDED"]);
    const run2 = { ...ctx, run: 2 };
    const second = await rayAdapter.deliver(run2);
    expect(second).toMatchObject({ status: "delivered", externalId: `${payload.dispatchId}-run2` });
    expect(ray.jobs.get(`${payload.dispatchId}-run2`)!.metadata).toMatchObject({
      envforge_dispatch: payload.dispatchId,
      envforge_run: "2",
    });
    expect(await rayAdapter.deliver({ ...run2, attempt: 2 })).toMatchObject({
      externalId: `${payload.dispatchId}-run2`,
      data: { duplicate: true },
    });
    expect(ray.jobs.size).toBe(2);
    const { seen } = await pollUntil(run2, second.externalId!, (s) => s === "succeeded");
    expect(seen.at(-1)).toBe("succeeded");
  });

  it("polls PENDING -> RUNNING -> SUCCEEDED as delivered, running, succeeded", async () => {
    ray = await startFakeRay();
    const payload = samplePayload();
    const ctx = deliveryContext(payload, configFor(ray.url));
    const { externalId } = await rayAdapter.deliver(ctx);
    const { last, seen } = await pollUntil(ctx, externalId!, (s) => s === "succeeded");
    expect(seen).toEqual(["delivered", "running", "succeeded"]);
    expect(last.data).toMatchObject({ rayStatus: "SUCCEEDED" });
    expect(last.data?.logsTail).toBeUndefined();
  });

  it("a FAILED job is failed with its message and the last 2 KB of its logs", async () => {
    const logs = `${"x".repeat(5000)}\nTraceback (most recent call last):\nRuntimeError: CUDA out of memory\n`;
    ray = await startFakeRay({
      script: ["PENDING", "RUNNING", "FAILED"],
      logs,
      failureMessage: "Job entrypoint command failed with exit code 1",
    });
    const payload = samplePayload();
    const ctx = deliveryContext(payload, configFor(ray.url));
    await rayAdapter.deliver(ctx);
    const { last } = await pollUntil(ctx, payload.dispatchId, (s) => s === "failed");
    expect(last.message).toContain("exit code 1");
    const tail = last.data?.logsTail as string;
    expect(tail.length).toBeLessThanOrEqual(2048);
    expect(tail).toContain("CUDA out of memory");
    expect(last.data?.errorType).toBe("JOB_ENTRYPOINT_COMMAND_ERROR");
  });

  it("a FAILED job whose log is longer than an answer is read keeps the log's end, where the error is", async () => {
    // Ray's GET /api/jobs/{id}/logs answers the whole driver log as one JSON { logs } (dashboard/modules/job/job_head.py)
    const logs = `${"step 1 loss 0.5 é\n".repeat(700_000)}Traceback (most recent call last):\nRuntimeError: CUDA out of memory\n`;
    expect(Buffer.byteLength(JSON.stringify({ logs }))).toBeGreaterThan(MAX_RESPONSE_BYTES);
    ray = await startFakeRay({ script: ["RUNNING", "FAILED"], logs, failureMessage: "Job entrypoint command failed with exit code 1" });
    const payload = samplePayload();
    const ctx = deliveryContext(payload, configFor(ray.url));
    await rayAdapter.deliver(ctx);
    const { last } = await pollUntil(ctx, payload.dispatchId, (s) => s === "failed");
    const tail = last.data?.logsTail as string;
    expect(tail).toContain("RuntimeError: CUDA out of memory");
    expect(tail.length).toBeLessThanOrEqual(2048);
  });

  it("reads the end of a cut { logs } answer from a whole line, whatever escape the cut fell in", () => {
    const text = 'a\tb\\c \\n "quoted" \u00e9\u2603\u0007 line\nlast \\\tline é';
    const body = JSON.stringify({ logs: text });
    const lastLine = text.slice(text.lastIndexOf("\n") + 1);
    const newline = body.lastIndexOf("\\n");
    // every cut before the real newline escape: exactly the last line (a "\\n" that is an escaped backslash and an n is not one)
    for (let cut = '{"logs":"'.length; cut < newline; cut++) expect(logsFromTail(body.slice(cut)), `cut at ${cut}`).toBe(lastLine);
    // a cut at or after it (no whole line left): read from the first position that parses, to the end; its first
    // characters may read a broken escape wrongly ("n" for a cut between "\\" and "n")
    for (let cut = newline; cut < body.length - 2; cut++) {
      const got = logsFromTail(body.slice(cut));
      expect(
        got !== undefined && got.length <= lastLine.length + 1 && got.endsWith("line é".slice(-Math.min(6, got.length))),
        `cut at ${cut}: ${JSON.stringify(got)}`,
      ).toBe(true);
    }
    expect(logsFromTail("not json")).toBeUndefined();
  });

  it("cancel stops the job; a stopped job polls as failed", async () => {
    ray = await startFakeRay({ script: ["RUNNING"] });
    const payload = samplePayload();
    const ctx = deliveryContext(payload, configFor(ray.url));
    await rayAdapter.deliver(ctx);
    await rayAdapter.cancel!(ctx, payload.dispatchId);
    expect(ray.requests).toContain(`POST /api/jobs/${payload.dispatchId}/stop`);
    const polled = await rayAdapter.poll!(ctx, payload.dispatchId);
    expect(polled).toMatchObject({ status: "failed", data: { rayStatus: "STOPPED" } });
    expect(polled.message).toMatch(/stopped/);
    await expect(rayAdapter.cancel!(ctx, "unknown-job")).resolves.toBeUndefined();
  });

  it("sends the secret as a bearer token; a refused token is not retryable and not echoed", async () => {
    ray = await startFakeRay({ token: "ray-proxy-token-123" });
    const payload = samplePayload();
    const ok = await rayAdapter.deliver(deliveryContext(payload, configFor(ray.url), "ray-proxy-token-123"));
    expect(ok.status).toBe("delivered");
    expect(ray.authorizations[0]).toBe("Bearer ray-proxy-token-123");
    const error = (await rayAdapter
      .deliver(deliveryContext(samplePayload(), configFor(ray.url), "wrong-token-456"))
      .catch((e: unknown) => e)) as DeliveryError;
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error.retryable).toBe(false);
    expect(error.message).not.toContain("wrong-token-456");
  });

  it("503 and an unreachable head node are retryable; an unknown job polls as failed", async () => {
    ray = await startFakeRay({ failFirst: 1 });
    const ctx = deliveryContext(samplePayload(), configFor(ray.url));
    const busy = (await rayAdapter.deliver(ctx).catch((e: unknown) => e)) as DeliveryError;
    expect(busy.retryable).toBe(true);
    expect((await rayAdapter.poll!(ctx, "nope")).status).toBe("failed");
    const url = ray.url;
    await ray.close();
    ray = undefined;
    const down = (await rayAdapter.deliver(deliveryContext(samplePayload(), configFor(url))).catch((e: unknown) => e)) as DeliveryError;
    expect(down.retryable).toBe(true);
  });

  it("refuses a payload too large for an env var, and checks its config", async () => {
    ray = await startFakeRay();
    const base = samplePayload();
    const big: GenerationPayload = {
      ...base,
      environments: Array.from({ length: 400 }, (_, i) => ({
        ...base.environments[0],
        key: `k${i}`,
        config: { task_name: `t${i}`, notes: "n".repeat(300) },
      })),
    };
    const error = (await rayAdapter.deliver(deliveryContext(big, configFor(ray.url))).catch((e: unknown) => e)) as DeliveryError;
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/KiB/);
    expect(ray.jobs.size).toBe(0);
    expect(rayAdapter.checkConfig(configFor("http://ray-head:8265"))).toEqual([]);
    expect(
      rayAdapter
        .checkConfig({ address: "ray://x", entrypoint: "run {{nope}}" })
        .map((e) => e.path)
        .sort(),
    ).toEqual(["address", "entrypoint"]);
  });
});

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { containerEnvironment, kubernetesExpand, startFakeKubernetes, type FakeKubernetes } from "@/tests/fakes/kubernetes-server";
import { DeliveryError, type GenerationPayload } from "../types";
import { DISPATCH_LABEL, kubernetesAdapter, kubernetesJobName, kubernetesJobStatus } from "./kubernetes";
import { deliveryContext, samplePayload } from "./test-payload";

const TOKEN = "eyJhbGciOiJSUzI1NiJ9.sa-token-SECRET-9f8e7d";
let kube: FakeKubernetes | undefined;
afterEach(async () => {
  await kube?.close();
  kube = undefined;
});

const defaultConfig = (apiServer: string) => ({
  apiServer,
  namespace: "envforge",
  image: "ghcr.io/acme/trainer:1",
  command: ["python", "train.py", "--run", "{{project}}-g{{generation}}"],
});

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const e = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DeliveryError);
  return e as DeliveryError;
}

describe("kubernetes adapter", () => {
  it("creates a labelled Job with the payload on every container", async () => {
    kube = await startFakeKubernetes({ token: TOKEN });
    const payload = samplePayload();
    const result = await kubernetesAdapter.deliver(deliveryContext(payload, defaultConfig(kube.url), TOKEN));
    const name = kubernetesJobName(payload);
    expect(name).toBe(`envforge-${payload.dispatchId.slice(0, 8)}-g3`);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(result).toMatchObject({ status: "delivered", externalId: name, data: { namespace: "envforge", name } });
    expect(kube.requests[0]).toMatchObject({
      method: "POST",
      path: "/apis/batch/v1/namespaces/envforge/jobs",
      authorization: `Bearer ${TOKEN}`,
    });
    const job = kube.jobs.get(`envforge/${name}`) as any;
    expect(job.metadata.labels[DISPATCH_LABEL]).toBe(payload.dispatchId);
    expect(job.spec.backoffLimit).toBe(0);
    expect(job.spec.template.spec.restartPolicy).toBe("Never");
    const [container] = job.spec.template.spec.containers;
    expect(container.image).toBe("ghcr.io/acme/trainer:1");
    expect(container.command).toEqual(["python", "train.py", "--run", "tb-curriculum-g3"]);
    const env = containerEnvironment(job, "envforge", kube.secrets);
    expect(JSON.parse(env.ENVFORGE_PAYLOAD_JSON)).toEqual(payload);
    expect(env.ENVFORGE_CALLBACK_ROLLOUTS).toBe(payload.callbacks.rollouts);
  });

  it("every container sees the payload byte for byte, `$` and all, after the kubelet's $(VAR) and $$ expansion", async () => {
    // third_party/forked/golang/expansion/expand.go: `$$` -> `$` and `$(ENVFORGE_DISPATCH_ID)` -> the id
    // (defined before ENVFORGE_PAYLOAD_JSON) in env values, when the JSON went in unescaped
    kube = await startFakeKubernetes({ token: TOKEN });
    const base = samplePayload();
    const payload: GenerationPayload = {
      ...base,
      environments: [
        {
          ...base.environments[0],
          config: { cmd: "echo $HOME && cat ${TASK_DIR}/x", formula: "$$x^2$$", ref: "$(ENVFORGE_DISPATCH_ID)", open: "$(", tail: "$" },
        },
        ...base.environments.slice(1),
      ],
    };
    const jobTemplate = {
      spec: { template: { spec: { initContainers: [{ name: "fetch", image: "busybox" }], containers: [{ name: "main", image: "t:1" }] } } },
    };
    const ctx = { ...deliveryContext(payload, { apiServer: kube.url, jobTemplate }, TOKEN), callbackKey: "efk_key$(HOME)" };
    await kubernetesAdapter.deliver(ctx);
    const job = kube.jobs.get(`default/${kubernetesJobName(payload)}`)!;
    for (const name of ["fetch", "main"]) {
      const env = containerEnvironment(job, name, kube.secrets);
      expect(env.ENVFORGE_PAYLOAD_JSON).toBe(JSON.stringify(payload));
      expect(env.ENVFORGE_DISPATCH_ID).toBe(payload.dispatchId);
      expect(env.ENVFORGE_API_KEY).toBe("efk_key$(HOME)"); // a Secret's value is not expanded
    }
  });

  it("the fake expands env values as expand.go does (its expand_test.go cases)", () => {
    const vars: Record<string, string> = { VAR_A: "A", VAR_B: "B", VAR_REF: "$(VAR_A)", VAR_EMPTY: "" };
    const map = (n: string) => (Object.hasOwn(vars, n) ? vars[n] : undefined);
    const cases: [string, string][] = [
      ["$(VAR_A)-$(VAR_A)", "A-A"],
      ["$$(VAR_B)_$(VAR_A)", "$(VAR_B)_A"],
      ["f000-$$VAR_A", "f000-$VAR_A"],
      ["$(VAR_A$(VAR_B))", "$(VAR_A$(VAR_B))"],
      ["$(VAR_REF)", "$(VAR_A)"],
      ["foo$(VAR_EMPTY)bar", "foobar"],
      ["foo$(VAR_Awhoops!", "foo$(VAR_Awhoops!"],
      ["$?_boo_$!", "$?_boo_$!"],
      ["$(VAR_DNE)", "$(VAR_DNE)"],
      ["$$$$$$(BIG_MONEY)", "$$$(BIG_MONEY)"],
      ["$$$$$$$(VAR_A)", "$$$A"],
      ["${VAR_A}", "${VAR_A}"],
      ["$(VAR_B)_______$(A", "B_______$(A"],
      ["$(VAR_A)foobarzab$", "Afoobarzab$"],
      ["--$($($($($--", "--$($($($($--"],
      ["$(foo$$var)", "$(foo$$var)"],
    ];
    for (const [input, expected] of cases) expect([input, kubernetesExpand(input, map)]).toEqual([input, expected]);
  });

  it("uses a Job template: keeps its settings, sets name, labels and env on every container", async () => {
    kube = await startFakeKubernetes({ token: TOKEN });
    const payload = samplePayload();
    const jobTemplate = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "ignored", labels: { team: "rl" } },
      spec: {
        backoffLimit: 2,
        template: {
          spec: {
            restartPolicy: "OnFailure",
            initContainers: [{ name: "fetch", image: "busybox", env: [{ name: "ENVFORGE_PAYLOAD_JSON", value: "stale" }] }],
            containers: [
              { name: "trainer", image: "trainer:2", args: ["--dispatch", "{{dispatchId}}"], env: [{ name: "KEEP", value: "1" }] },
              { name: "sidecar", image: "logger:1" },
            ],
          },
        },
      },
    };
    await kubernetesAdapter.deliver(deliveryContext(payload, { apiServer: kube.url, jobTemplate }, TOKEN));
    const job = kube.jobs.get(`default/${kubernetesJobName(payload)}`) as any;
    expect(job.metadata.labels).toMatchObject({ team: "rl", [DISPATCH_LABEL]: payload.dispatchId });
    expect(job.spec.backoffLimit).toBe(2);
    expect(job.spec.template.spec.restartPolicy).toBe("OnFailure");
    expect(job.spec.template.metadata.labels[DISPATCH_LABEL]).toBe(payload.dispatchId);
    const all = [...job.spec.template.spec.initContainers, ...job.spec.template.spec.containers];
    for (const c of all) {
      const payloads = c.env.filter((e: { name: string }) => e.name === "ENVFORGE_PAYLOAD_JSON");
      expect(payloads).toHaveLength(1);
      expect(JSON.parse(payloads[0].value).dispatchId).toBe(payload.dispatchId);
    }
    expect(job.spec.template.spec.containers[0].env[0]).toEqual({ name: "KEEP", value: "1" });
    expect(job.spec.template.spec.containers[0].args).toEqual(["--dispatch", payload.dispatchId]);
    expect(jobTemplate.metadata.name).toBe("ignored"); // the target's config is not mutated
  });

  it("a resend gets 409 AlreadyExists and reports the existing Job", async () => {
    kube = await startFakeKubernetes({ token: TOKEN });
    const payload = samplePayload();
    const ctx = deliveryContext(payload, defaultConfig(kube.url), TOKEN);
    await kubernetesAdapter.deliver(ctx);
    const name = kubernetesJobName(payload);
    kube.setStatus("envforge", name, { active: 1, startTime: "2026-11-01T12:00:00Z" });
    const again = await kubernetesAdapter.deliver({ ...ctx, attempt: 2 });
    expect(again).toMatchObject({ status: "running", externalId: name, data: { duplicate: true, active: 1 } });
    expect(kube.jobs.size).toBe(1);
    expect(kube.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /apis/batch/v1/namespaces/envforge/jobs",
      "POST /apis/batch/v1/namespaces/envforge/jobs",
      `GET /apis/batch/v1/namespaces/envforge/jobs/${name}`,
    ]);
  });

  it("a retry's run 2 creates a Job and key Secret of its own (the first name meets 409); its resend finds it", async () => {
    kube = await startFakeKubernetes({ token: TOKEN });
    const payload = samplePayload();
    const ctx = { ...deliveryContext(payload, defaultConfig(kube.url), TOKEN), callbackKey: "efk_run1" };
    const first = await kubernetesAdapter.deliver(ctx);
    kube.setStatus("envforge", first.externalId!, {
      failed: 1,
      conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }],
    });
    // run 1 again (what a retry sent before): the failed Job, nothing runs
    expect(await kubernetesAdapter.deliver(ctx)).toMatchObject({ status: "failed", data: { duplicate: true } });
    const run2 = { ...ctx, run: 2, callbackKey: "efk_run2" };
    const second = await kubernetesAdapter.deliver(run2);
    const name = `${kubernetesJobName(payload)}-r2`;
    expect(kubernetesJobName(payload, 2)).toBe(name);
    expect(second).toMatchObject({ status: "delivered", externalId: name });
    const job = kube.jobs.get(`envforge/${name}`)!;
    expect((job.metadata as any).annotations["envforge.dev/run"]).toBe("2");
    expect(containerEnvironment(job, "envforge", kube.secrets).ENVFORGE_API_KEY).toBe("efk_run2");
    expect(await kubernetesAdapter.deliver({ ...run2, attempt: 2 })).toMatchObject({ externalId: name, data: { duplicate: true } });
    expect(kube.jobs.size).toBe(2);
    // the finished run's Secret goes on finish, the new one stays
    await kubernetesAdapter.finish!(ctx, first.externalId!);
    expect([...kube.secrets.keys()]).toEqual([`envforge/${name}-key`]);
  });

  it("a Job of the same name from another dispatch is not taken for ours", async () => {
    kube = await startFakeKubernetes({ token: TOKEN });
    const first = samplePayload();
    await kubernetesAdapter.deliver(deliveryContext(first, defaultConfig(kube.url), TOKEN));
    const other = { ...samplePayload(), dispatchId: `${first.dispatchId.slice(0, 8)}-0000-4000-8000-000000000000` };
    const error = await failure(kubernetesAdapter.deliver(deliveryContext(other, defaultConfig(kube.url), TOKEN)));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/another dispatch/);
  });

  it("polls delivered -> running -> succeeded, and failed with the reason", async () => {
    kube = await startFakeKubernetes({
      token: TOKEN,
      script: [
        {},
        { active: 1 },
        { succeeded: 1, conditions: [{ type: "Complete", status: "True" }], completionTime: "2026-11-01T12:05:00Z" },
      ],
    });
    const payload = samplePayload();
    const ctx = deliveryContext(payload, defaultConfig(kube.url), TOKEN);
    const { externalId } = await kubernetesAdapter.deliver(ctx);
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push((await kubernetesAdapter.poll!(ctx, externalId!)).status);
    expect(seen).toEqual(["delivered", "running", "succeeded"]);

    kube.setStatus("envforge", externalId!, {
      failed: 1,
      conditions: [
        { type: "Failed", status: "True", reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" },
      ],
    });
    const failed = await kubernetesAdapter.poll!(ctx, externalId!);
    expect(failed.status).toBe("failed");
    expect(failed.message).toContain("BackoffLimitExceeded");
    expect(failed.message).toContain("backoff limit");
  });

  it("maps Job status objects", () => {
    expect(kubernetesJobStatus({ spec: { backoffLimit: 0 }, status: { failed: 1 } }).status).toBe("failed");
    expect(kubernetesJobStatus({ spec: { backoffLimit: 3 }, status: { failed: 1, active: 1 } }).status).toBe("running");
    expect(kubernetesJobStatus({ spec: { completions: 3 }, status: { succeeded: 1, active: 2 } }).status).toBe("running");
    expect(kubernetesJobStatus({ spec: {}, status: { succeeded: 1 } }).status).toBe("succeeded");
    expect(kubernetesJobStatus({ spec: {}, status: {} }).status).toBe("delivered");
  });

  it("maps the batch/v1 conditions FailureTarget (failed), SuccessCriteriaMet (succeeded) and Suspended (waiting)", () => {
    const failing = kubernetesJobStatus({
      spec: { backoffLimit: 3 },
      status: { active: 1, failed: 1, conditions: [{ type: "FailureTarget", status: "True", reason: "PodFailurePolicy" }] },
    });
    expect(failing).toMatchObject({ status: "failed", data: { reason: "PodFailurePolicy" } });
    const meeting = kubernetesJobStatus({
      spec: { completions: 3 },
      status: { active: 2, succeeded: 1, conditions: [{ type: "SuccessCriteriaMet", status: "True", reason: "SuccessPolicy" }] },
    });
    expect(meeting.status).toBe("succeeded");
    const suspended = kubernetesJobStatus({
      spec: { suspend: true },
      status: { conditions: [{ type: "Suspended", status: "True", reason: "JobSuspended", message: "Job suspended" }] },
    });
    expect(suspended).toMatchObject({ status: "delivered", data: { suspended: true } });
    expect(suspended.message).toMatch(/^waiting: the Job is suspended/);
    // a condition that is not True does not count
    expect(kubernetesJobStatus({ spec: {}, status: { active: 1, conditions: [{ type: "Suspended", status: "False" }] } }).status).toBe(
      "running",
    );
  });

  it("refuses a jobTemplate whose ttlSecondsAfterFinished would delete the Job before a poll reads how it ended", () => {
    const withTtl = (ttl: number) => ({
      apiServer: "https://k8s.test",
      jobTemplate: { spec: { ttlSecondsAfterFinished: ttl, template: { spec: { containers: [{ name: "c", image: "i" }] } } } },
    });
    const errors = kubernetesAdapter.checkConfig(withTtl(60));
    expect(errors.map((e) => e.path)).toEqual(["jobTemplate.spec.ttlSecondsAfterFinished"]);
    expect(errors[0].message).toMatch(/at least 300/);
    expect(kubernetesAdapter.checkConfig(withTtl(0))).toHaveLength(1);
    expect(kubernetesAdapter.checkConfig(withTtl(3600))).toEqual([]);
  });

  it("cancel deletes the Job with propagationPolicy Background; a missing Job polls as failed", async () => {
    kube = await startFakeKubernetes({ token: TOKEN });
    const payload = samplePayload();
    const ctx = deliveryContext(payload, defaultConfig(kube.url), TOKEN);
    const { externalId } = await kubernetesAdapter.deliver(ctx);
    await kubernetesAdapter.cancel!(ctx, externalId!);
    expect(kube.deletions).toEqual([{ job: `envforge/${externalId}`, propagationPolicy: "Background" }]);
    expect(kube.jobs.size).toBe(0);
    await expect(kubernetesAdapter.cancel!(ctx, externalId!)).resolves.toBeUndefined();
    expect((await kubernetesAdapter.poll!(ctx, externalId!)).status).toBe("failed");
  });

  it("401 and 403 are not retryable, say what is wrong, and never contain the token", async () => {
    kube = await startFakeKubernetes({ token: "the-right-token" });
    const payload = samplePayload();
    const unauthorized = await failure(kubernetesAdapter.deliver(deliveryContext(payload, defaultConfig(kube.url), TOKEN)));
    expect(unauthorized.retryable).toBe(false);
    expect(unauthorized.message).toMatch(/401/);
    expect(unauthorized.message).toMatch(/token/);
    const pollError = await failure(kubernetesAdapter.poll!(deliveryContext(payload, defaultConfig(kube.url), TOKEN), "envforge-x-g1"));
    await kube.close();

    kube = await startFakeKubernetes({ token: TOKEN, forbidden: true });
    const forbidden = await failure(
      kubernetesAdapter.deliver({ ...deliveryContext(payload, defaultConfig(kube.url), TOKEN), callbackKey: "efk_forbidden" }),
    );
    expect(forbidden.retryable).toBe(false);
    expect(forbidden.message).toMatch(/lacks rights to create Jobs in namespace "envforge"/);
    // RBAC let it create the key Secret but not the Job: the Secret is not left behind
    expect(kube.requests.filter((r) => r.path.includes("/secrets")).map((r) => r.method)).toEqual(["POST", "DELETE"]);
    expect(kube.secrets.size).toBe(0);
    for (const e of [unauthorized, pollError, forbidden]) {
      expect(e.message).not.toContain(TOKEN);
      expect(JSON.stringify(e.data ?? {})).not.toContain(TOKEN);
    }
  });

  it("finish without a Job name (the delivery gave up) deletes the run's key Secret, but not while a Job of that name exists", async () => {
    kube = await startFakeKubernetes({ token: TOKEN });
    const ctx = { ...deliveryContext(samplePayload(), defaultConfig(kube.url), TOKEN), callbackKey: "efk_gave_up", run: 2 };
    const name = kubernetesJobName(ctx.payload, 2);
    // the Job create answers 503: the Secret stays for the next attempt
    kube.failJobCreates([503]);
    expect((await failure(kubernetesAdapter.deliver(ctx))).retryable).toBe(true);
    expect([...kube.secrets.keys()]).toEqual([`envforge/${name}-key`]);
    await kubernetesAdapter.finish!(ctx, null);
    expect(kube.secrets.size).toBe(0);
    // a create whose answer was lost: the Job exists and reads the Secret, which stays
    await kubernetesAdapter.deliver(ctx);
    const kept = await failure(kubernetesAdapter.finish!(ctx, null));
    expect(kept.message).toMatch(new RegExp(`Job envforge/${name} exists .* ${name}-key is left for it`));
    expect([...kube.secrets.keys()]).toEqual([`envforge/${name}-key`]);
  });

  it("an unknown namespace and an invalid manifest are not retryable; no secret is refused", async () => {
    kube = await startFakeKubernetes({ token: TOKEN });
    const payload = samplePayload();
    const missing = await failure(
      kubernetesAdapter.deliver(deliveryContext(payload, { ...defaultConfig(kube.url), namespace: "nope" }, TOKEN)),
    );
    expect(missing.retryable).toBe(false);
    expect(missing.message).toMatch(/namespace/);
    const noSecret = await failure(kubernetesAdapter.deliver(deliveryContext(payload, defaultConfig(kube.url), null)));
    expect(noSecret.retryable).toBe(false);
    expect(kubernetesAdapter.checkConfig({ apiServer: "https://k8s.test" }).map((e) => e.path)).toEqual(["image"]);
    expect(
      kubernetesAdapter
        .checkConfig({ apiServer: "https://k8s.test", jobTemplate: { spec: { template: { spec: { containers: [] } } } } })
        .map((e) => e.path),
    ).toEqual(["jobTemplate.spec.template.spec.containers"]);
    expect(kubernetesAdapter.checkConfig({ ...defaultConfig("https://k8s.test"), namespace: "Bad_NS" }).map((e) => e.path)).toEqual([
      "namespace",
    ]);
  });

  it("trusts the API server's certificate through caCert (https)", async (ctx) => {
    let dir: string | undefined;
    try {
      dir = mkdtempSync(path.join(os.tmpdir(), "envforge-k8s-tls-"));
      const key = path.join(dir, "key.pem");
      const cert = path.join(dir, "cert.pem");
      try {
        execFileSync(
          "openssl",
          [
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            key,
            "-out",
            cert,
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
          ],
          {
            stdio: "ignore",
          },
        );
      } catch {
        ctx.skip(); // no openssl on this machine
      }
      const pem = readFileSync(cert, "utf8");
      kube = await startFakeKubernetes({ token: TOKEN, tls: { key: readFileSync(key, "utf8"), cert: pem } });
      const payload = samplePayload();
      const untrusted = await failure(kubernetesAdapter.deliver(deliveryContext(payload, defaultConfig(kube.url), TOKEN)));
      expect(untrusted.retryable).toBe(true); // a TLS failure is a transport failure
      const trusted = await kubernetesAdapter.deliver(deliveryContext(payload, { ...defaultConfig(kube.url), caCert: pem }, TOKEN));
      expect(trusted.status).toBe("delivered");
      const insecure = await kubernetesAdapter.poll!(
        deliveryContext(payload, { ...defaultConfig(kube.url), insecureSkipTlsVerify: true }, TOKEN),
        trusted.externalId!,
      );
      expect(insecure.status).toBe("delivered");
    } finally {
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  });
});

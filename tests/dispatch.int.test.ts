/**
 * Dispatch on a real Postgres and real pg-boss workers: targets (secrets encrypted, never
 * returned), delivery to a webhook that verifies the signature, retries after 503, a target that
 * is down, Ray and Kubernetes through loopback servers speaking their APIs, exports, validation
 * reported back, cancel, a dispatch queued while no worker runs, and two worker processes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from "./fakes/webhook-receiver";
import { startFakeRay } from "./fakes/ray-server";
import { startFakeKubernetes } from "./fakes/kubernetes-server";
import { getBoss, startBoss } from "@/lib/queue/boss";
import { dispatchTargets } from "@/lib/db/schema";
import { runDispatchJob } from "@/lib/dispatch/service";
import { EnvForgeClient } from "@/cli/client";
import { lake } from "./configs";
import { apiFailure, untilDispatch } from "./api-waits";
import { startApi, stopApi, clientWithRole, createProjectWith, startTestWorker, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-dispatch-01";
const SECRET = "webhook-shared-secret-0123456789";
const root = path.resolve(import.meta.dirname, "..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ef-dispatch-"));
// export targets write under one folder: this test's
process.env.ENVFORGE_EXPORT_DIR = tmp;
let db: TestDb;
let server: TestServer;
let worker: Awaited<ReturnType<typeof startBoss>> | null = null;
let admin: EnvForgeClient;
let receiver: FakeWebhookReceiver;

type Dispatch = {
  id: string;
  status: string;
  attempts: number;
  lastError?: string;
  externalId?: string;
  events: { status: string; message?: string }[];
};

const fail = apiFailure;

const until = (id: string, statuses: string[], timeoutMs?: number) => untilDispatch<Dispatch>(admin, id, statuses, timeoutMs);

/** Waits until `check` holds, polling; fails naming `what` after timeoutMs. */
async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Deliver jobs of a dispatch on the queue in one of `states` (pg-boss's own table). */
async function deliverJobs(id: string, states: string[]): Promise<number> {
  const r = await db.db.execute<{ n: number }>(sql`
    select count(*)::int as n from pgboss.job
    where name = 'envforge.dispatch' and data->>'dispatchId' = ${id} and data->>'phase' = 'deliver'
      and state::text = any(string_to_array(${states.join(",")}, ','))`);
  return r.rows[0].n;
}

async function dispatch(target: string, generation = 1) {
  return (
    await admin.request<{ dispatchId: string }>("POST", `/api/v1/projects/disp/generations/${generation}/dispatch`, { json: { target } })
  ).dispatchId;
}

async function target(body: Record<string, unknown>) {
  return admin.request<Record<string, unknown>>("POST", "/api/v1/projects/disp/targets", { json: body });
}

async function startWorker() {
  worker = await startTestWorker(db);
}
async function stopWorker() {
  await worker?.stop({ graceful: false, wait: true });
  worker = null;
}

function spawnWorker(extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/worker-process.ts"], {
    cwd: root,
    env: { ...process.env, ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c) => {
      out += c;
      if (out.includes("ready")) resolve(child);
    });
    child.stderr!.on("data", (c) => (out += c));
    child.once("exit", (code) => reject(new Error(`worker exited with ${code}: ${out}`)));
  });
}
const stopChild = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null ? r() : (c.once("exit", () => r()), c.kill("SIGTERM"))));

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  process.env.ENVFORGE_SECRET_KEY = "test-secret-key-for-dispatch-0123456789";
  process.env.ENVFORGE_DISPATCH_BACKOFF_MS = "300";
  process.env.ENVFORGE_DISPATCH_POLL_SECONDS = "1";
  ({ db, server, admin } = await startApi(TOKEN));
  receiver = await startFakeWebhookReceiver({ secret: SECRET });
  await createProjectWith(admin, { slug: "disp", name: "Dispatch" });
  const environments = [1, 2, 3].map((s) => ({ key: `e${s}`, config: lake(s) }));
  await admin.request("POST", "/api/v1/projects/disp/generations", { json: { environments } });
  await admin.request("POST", "/api/v1/projects/disp/generations", { json: { status: "approved", environments } });
  await startWorker();
}, 60_000);
afterAll(async () => {
  await stopWorker();
  await (await getBoss()).stop({ graceful: false, wait: true }).catch(() => undefined);
  await receiver?.close();
  await stopApi({ server, db });
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("targets", () => {
  it("stores a webhook target with its secret encrypted and never returns the secret", async () => {
    const created = await target({
      name: "hook",
      kind: "trainer",
      adapter: "webhook",
      config: { url: `${receiver.url}/hook` },
      secret: SECRET,
    });
    expect(JSON.stringify(created)).not.toContain(SECRET);
    const list = await admin.request<{ targets: unknown[] }>("GET", "/api/v1/projects/disp/targets");
    expect(JSON.stringify(list)).not.toContain(SECRET);
    const [row] = await db.db.select().from(dispatchTargets).where(eq(dispatchTargets.name, "hook"));
    expect(row.secretCiphertext).toMatch(/^v1:/);
    expect(row.secretCiphertext).not.toContain(SECRET);
    const audit = await admin.request<{ events: unknown[] }>("GET", "/api/v1/projects/disp/audit");
    expect(JSON.stringify(audit)).not.toContain(SECRET);
  });

  it("refuses a reviewer, a webhook without a secret, a bad URL and a taken name, naming the field", async () => {
    const reviewer = await clientWithRole(db, server, "reviewer", { name: "rev", actor: "t" });
    expect(
      (
        await fail(
          reviewer.request("POST", "/api/v1/projects/disp/targets", {
            json: { name: "x", kind: "trainer", adapter: "export", config: { directory: tmp } },
          }),
        )
      ).status,
    ).toBe(403);
    const noSecret = await fail(target({ name: "x", kind: "trainer", adapter: "webhook", config: { url: "http://127.0.0.1:1/" } }));
    expect(noSecret.status).toBe(422);
    expect(noSecret.message).toMatch(/secret/);
    const badUrl = await fail(target({ name: "x", kind: "trainer", adapter: "webhook", config: { url: "not a url" }, secret: "s" }));
    expect(badUrl.message).toMatch(/config\.url/);
    expect((await fail(target({ name: "hook", kind: "trainer", adapter: "export", config: { directory: tmp } }))).status).toBe(409);
  });
});

describe("delivery", () => {
  it("dispatches only an approved or materialized generation", async () => {
    const e = await fail(admin.request("POST", "/api/v1/projects/disp/generations/0/dispatch", { json: { target: "hook" } }));
    expect(e.status).toBe(409);
    expect((await fail(admin.request("POST", "/api/v1/projects/disp/generations/1/dispatch", { json: { target: "nope" } }))).status).toBe(
      422,
    );
  });

  it("delivers to a webhook that verifies the signature, with the timeline", async () => {
    const before = receiver.deliveries.length;
    const id = await dispatch("hook");
    const d = await until(id, ["delivered", "failed"]);
    expect(d.status).toBe("delivered");
    expect(d.events.map((e) => e.status)).toEqual(["queued", "sending", "delivered"]);
    const got = receiver.deliveries.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0].idempotencyKey).toBe(id);
    expect((got[0].body as { environments: unknown[] }).environments).toHaveLength(3);
    expect(receiver.requests.filter((r) => r.idempotencyKey === id).every((r) => r.signatureValid)).toBe(true);
  });

  it("retries a target that answers 503 and delivers exactly once", async () => {
    receiver.failNext(2);
    const id = await dispatch("hook");
    const d = await until(id, ["delivered", "failed"]);
    expect(d).toMatchObject({ status: "delivered", attempts: 3 });
    expect(receiver.deliveries.filter((x) => x.idempotencyKey === id)).toHaveLength(1);
    expect(d.events.filter((e) => e.status === "queued").length).toBe(3); // created + two retries
  });

  it("gives up on a target that is down after its attempts, with the error", async () => {
    await target({
      name: "down",
      kind: "trainer",
      adapter: "webhook",
      config: { url: `http://127.0.0.1:${await closedPort()}/` },
      secret: "s3cret",
      maxAttempts: 2,
    });
    const d = await until(await dispatch("down"), ["failed", "delivered"]);
    expect(d).toMatchObject({ status: "failed", attempts: 2 });
    expect(d.lastError).toMatch(/ECONNREFUSED|refused|connect/i);
  });

  it("cancels a dispatch that is retrying; nothing more is sent", async () => {
    receiver.failNext(1000);
    await target({
      name: "flaky",
      kind: "trainer",
      adapter: "webhook",
      config: { url: `${receiver.url}/flaky` },
      secret: SECRET,
      maxAttempts: 20,
    });
    const id = await dispatch("flaky");
    await until(id, ["queued"]).then(async () => {
      for (;;) {
        const d = await admin.request<Dispatch>("GET", `/api/v1/dispatches/${id}`);
        if (d.attempts >= 1 && d.status === "queued") return;
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    const cancelled = await admin.request<Dispatch>("POST", `/api/v1/dispatches/${id}/cancel`);
    expect(cancelled.status).toBe("cancelled");
    const attempts = (await admin.request<Dispatch>("GET", `/api/v1/dispatches/${id}`)).attempts;
    // the retry already scheduled runs and finds the dispatch cancelled: no deliver job is left pending
    await waitFor("the scheduled retry has run", async () => (await deliverJobs(id, ["created", "retry", "active"])) === 0);
    const later = await admin.request<Dispatch>("GET", `/api/v1/dispatches/${id}`);
    expect(later).toMatchObject({ status: "cancelled", attempts });
    expect((await fail(admin.request("POST", `/api/v1/dispatches/${id}/cancel`))).status).toBe(409);
    receiver.failNext(0);
  });
});

describe("adapters through the service", () => {
  it("submits to Ray's Jobs API with submission_id = the dispatch id and follows it to succeeded", async () => {
    const ray = await startFakeRay({ script: ["PENDING", "RUNNING", "SUCCEEDED"] });
    try {
      await target({
        name: "ray",
        kind: "trainer",
        adapter: "ray",
        config: { address: ray.url, entrypoint: "python train.py --generation {{generation}}" },
      });
      const id = await dispatch("ray");
      const d = await until(id, ["succeeded", "failed"]);
      expect(d.status).toBe("succeeded");
      expect(d.externalId).toBe(id);
      expect([...ray.jobs.keys()]).toEqual([id]);
      expect(d.events.map((e) => e.status)).toContain("running");
    } finally {
      await ray.close();
    }
  });

  it("creates a Kubernetes Job named after the dispatch and follows its status", async () => {
    const k8s = await startFakeKubernetes({
      token: "k8s-token-abc",
      script: [{ active: 1 }, { succeeded: 1, conditions: [{ type: "Complete", status: "True" }] }],
    });
    try {
      await target({
        name: "k8s",
        kind: "trainer",
        adapter: "kubernetes",
        config: { apiServer: k8s.url, namespace: "envforge", image: "trainer:1", command: ["python", "train.py"] },
        secret: "k8s-token-abc",
      });
      const id = await dispatch("k8s");
      const d = await until(id, ["succeeded", "failed"]);
      expect(d.status).toBe("succeeded");
      expect(d.externalId).toMatch(new RegExp(`^envforge-${id.slice(0, 8)}`));
      expect(k8s.jobs.size).toBe(1);
      // the job's key went in a Secret of its own, which goes when the Job has ended (the key is revoked too)
      expect(k8s.requests.some((r) => r.method === "POST" && r.path.endsWith("/secrets"))).toBe(true);
      for (let i = 0; k8s.secrets.size > 0; i++) {
        if (i > 100) throw new Error(`the key Secret is still there: ${[...k8s.secrets.keys()].join(", ")}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(k8s.requests.filter((r) => r.method === "DELETE").map((r) => r.path)).toEqual([
        `/api/v1/namespaces/envforge/secrets/${d.externalId}-key`,
      ]);
    } finally {
      await k8s.close();
    }
  });

  it("retrying a dispatch whose Ray job failed submits a new job (Ray refuses a used submission_id) and reports its success", async () => {
    const ray = await startFakeRay({ script: ["PENDING", "FAILED"] });
    try {
      await target({ name: "ray-retry", kind: "trainer", adapter: "ray", config: { address: ray.url, entrypoint: "python train.py" } });
      const id = await dispatch("ray-retry");
      expect((await until(id, ["succeeded", "failed"])).status).toBe("failed");
      ray.setDefaultScript(["PENDING", "RUNNING", "SUCCEEDED"]);
      const retried = await admin.request<Dispatch & { run: number }>("POST", `/api/v1/dispatches/${id}/retry`);
      const d = await until(id, ["succeeded", "failed"]);
      expect(d.status).toBe("succeeded");
      expect(retried).toMatchObject({ status: "queued", run: 2 });
      expect(d.externalId).toBe(`${id}-run2`);
      expect([...ray.jobs.keys()]).toEqual([id, `${id}-run2`]);
      expect(ray.jobs.get(id)!.status).toBe("FAILED");
      expect(d.events.map((e) => e.message).join("\n")).toContain(`run 2 (run 1 was ${id})`);
    } finally {
      await ray.close();
    }
  });

  it("retrying a dispatch whose Kubernetes Job failed creates a new Job and key Secret, and cleans up both Secrets", async () => {
    const failedJob = { failed: 1, conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }] };
    const k8s = await startFakeKubernetes({ token: "k8s-token-retry", script: [{ active: 1 }, failedJob] });
    try {
      await target({
        name: "k8s-retry",
        kind: "trainer",
        adapter: "kubernetes",
        config: { apiServer: k8s.url, namespace: "envforge", image: "trainer:1" },
        secret: "k8s-token-retry",
      });
      const id = await dispatch("k8s-retry");
      const first = await until(id, ["succeeded", "failed"]);
      expect(first.status).toBe("failed");
      k8s.setDefaultScript([{ active: 1 }, { succeeded: 1, conditions: [{ type: "Complete", status: "True" }] }]);
      await admin.request("POST", `/api/v1/dispatches/${id}/retry`);
      const d = await until(id, ["succeeded", "failed"]);
      expect(d.status).toBe("succeeded");
      expect(d.externalId).toBe(`${first.externalId}-r2`);
      expect([...k8s.jobs.keys()].sort()).toEqual([`envforge/${first.externalId}`, `envforge/${first.externalId}-r2`]);
      await waitFor("both key Secrets are deleted", async () => k8s.secrets.size === 0, 10_000);
      const posted = k8s.requests.filter((r) => r.method === "POST" && r.path.endsWith("/secrets"));
      expect(posted.map((r) => (r.body?.metadata as { name: string }).name)).toEqual([
        `${first.externalId}-key`,
        `${first.externalId}-r2-key`,
      ]);
    } finally {
      await k8s.close();
    }
  });

  it("a Kubernetes delivery that gives up before its Job exists deletes its key Secret (503s until its attempts run out; 422 after a 503)", async () => {
    const k8s = await startFakeKubernetes({ token: "k8s-token-gives-up" });
    try {
      await target({
        name: "k8s-gives-up",
        kind: "trainer",
        adapter: "kubernetes",
        config: { apiServer: k8s.url, namespace: "envforge", image: "trainer:1" },
        secret: "k8s-token-gives-up",
        maxAttempts: 3,
      });
      const secretsOf = (id: string) => [...k8s.secrets.keys()].filter((k) => k.startsWith(`envforge/envforge-${id.slice(0, 8)}-`));
      // every attempt's Job create answers 503: the Secret the first attempt made is reused by the next ones, then goes
      k8s.failJobCreates([503, 503, 503]);
      const unavailable = await dispatch("k8s-gives-up");
      expect(await until(unavailable, ["failed", "delivered"])).toMatchObject({ status: "failed", attempts: 3 });
      await waitFor("the key Secret is deleted", async () => secretsOf(unavailable).length === 0, 10_000);
      // a 503 leaves the Secret for the next attempt, which finds it (409) and then meets 422: it goes too
      k8s.failJobCreates([503, 422]);
      const invalid = await dispatch("k8s-gives-up");
      const d = await until(invalid, ["failed", "delivered"]);
      expect(d).toMatchObject({ status: "failed", attempts: 2 });
      expect(d.lastError).toMatch(/422 Invalid/);
      await waitFor("the key Secret is deleted", async () => secretsOf(invalid).length === 0, 10_000);
      expect(k8s.jobs.size).toBe(0);
      // deleted once each, after the last attempt (never while a later attempt could still create the Job)
      const deleted = k8s.requests.filter((r) => r.method === "DELETE").map((r) => r.path);
      expect(deleted).toHaveLength(2);
      expect(deleted[0]).toMatch(new RegExp(`^/api/v1/namespaces/envforge/secrets/envforge-${unavailable.slice(0, 8)}-g\\d+-key$`));
      expect(deleted[1]).toMatch(new RegExp(`^/api/v1/namespaces/envforge/secrets/envforge-${invalid.slice(0, 8)}-g\\d+-key$`));
    } finally {
      await k8s.close();
    }
  });

  it("exports files that read back, and takes validation reported by a sandbox", async () => {
    const dir = path.join(tmp, "exports");
    await target({ name: "files", kind: "sandbox", adapter: "export", config: { directory: dir } });
    const id = await dispatch("files");
    const d = await until(id, ["succeeded", "failed"]);
    expect(d.status, d.lastError).toBe("succeeded");
    const folder = d.externalId!;
    const lines = fs
      .readFileSync(path.join(folder, "environments.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.key).sort()).toEqual(["e1", "e2", "e3"]);
    expect(fs.existsSync(path.join(folder, "manifest.json"))).toBe(true);

    const report = await admin.request<{ updated: number }>("POST", `/api/v1/dispatches/${id}/validation`, {
      json: {
        results: [
          { environmentKey: "e1", state: "valid", pMax: 0.9 },
          { environmentKey: "e2", state: "unsolvable", pMax: 0 },
        ],
      },
    });
    expect(report.updated).toBe(2);
    const e2 = await admin.request<{ validation: { state: string; pMax: number } }>("GET", "/api/v1/projects/disp/environments/e2");
    expect(e2.validation).toMatchObject({ state: "unsolvable", pMax: 0 });
    const bad = await fail(
      admin.request("POST", `/api/v1/dispatches/${id}/validation`, { json: { results: [{ environmentKey: "zz", state: "valid" }] } }),
    );
    expect(bad.message).toMatch(/results\.0\.environmentKey|zz/);
  });
});

describe("durability", () => {
  it("delivers a dispatch queued while no worker ran, once, when a worker process starts", async () => {
    await stopWorker();
    const before = receiver.requests.length;
    const id = await dispatch("hook");
    // its deliver job waits on the queue, untaken
    await waitFor("the deliver job is on the queue", async () => (await deliverJobs(id, ["created"])) === 1);
    expect((await admin.request<Dispatch>("GET", `/api/v1/dispatches/${id}`)).status).toBe("queued");
    const child = await spawnWorker();
    try {
      const d = await until(id, ["delivered", "failed"]);
      expect(d.status).toBe("delivered");
      expect(receiver.requests.slice(before).filter((r) => r.idempotencyKey === id)).toHaveLength(1);
    } finally {
      await stopChild(child);
    }
  }, 60_000);

  it("a worker killed while sending: another takes the dispatch over when its lease runs out, and the receiver accepts it once", async () => {
    // a receiver that never answers the first request (the worker dies waiting) and accepts the rest once per key
    const seen: string[] = [];
    const accepted = new Set<string>();
    const hanging = http.createServer((req, res) => {
      const key = String(req.headers["idempotency-key"]);
      seen.push(key);
      req.resume();
      if (seen.length === 1) return; // hold the socket; the worker is killed meanwhile
      req.on("end", () => {
        accepted.add(key);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r));
    const env = { ENVFORGE_DISPATCH_LEASE_SECONDS: "2" };
    try {
      await target({
        name: "slow",
        kind: "trainer",
        adapter: "webhook",
        config: { url: `http://127.0.0.1:${(hanging.address() as net.AddressInfo).port}/`, timeoutMs: 60_000 },
        secret: SECRET,
      });
      const a = await spawnWorker(env);
      const id = await dispatch("slow");
      await until(id, ["sending"]);
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      a.kill("SIGKILL");
      await new Promise((r) => a.once("exit", r));
      expect((await admin.request<Dispatch>("GET", `/api/v1/dispatches/${id}`)).status).toBe("sending");
      await waitFor("the dead worker's lease runs out", async () => {
        const r = await db.db.execute<{ over: boolean }>(sql`select lease_until < now() as over from dispatches where id = ${id}`);
        return r.rows[0]?.over === true;
      });
      const b = await spawnWorker(env);
      try {
        const d = await until(id, ["delivered", "failed"]);
        expect(d).toMatchObject({ status: "delivered", attempts: 2 });
        expect(seen).toEqual([id, id]); // sent again after the crash, with the same Idempotency-Key
        expect([...accepted]).toEqual([id]);
      } finally {
        await stopChild(b);
      }
    } finally {
      hanging.closeAllConnections();
      hanging.close();
    }
  }, 90_000);

  // the second attempt by another worker, or by the same one (only the attempt count tells its two attempts apart); the
  // late answer a retryable failure (it would queue a third attempt), a final one (it would fail the dispatch and revoke
  // the running attempt's callback key) or a success
  it.each([
    ["a 503, the second attempt by another worker", "worker-b", 503, /^attempt 1 ended \(failed: .*503.*\) after .*not applied/],
    ["a 503, the second attempt by the same worker", "worker-a", 503, /^attempt 1 ended \(failed: .*503.*\) after .*not applied/],
    ["a 400", "worker-b", 400, /^attempt 1 ended \(failed: .*400.*\) after .*not applied/],
    ["a success", "worker-b", 200, /^attempt 1 ended \(delivered\) after .*not applied/],
  ] as const)(
    "an attempt that outlived its lease ends late (%s): its result is not applied over the attempt that took over",
    async (_, second, lateStatus, lateMessage) => {
      await stopWorker();
      // a receiver whose answers the test gives, request by request
      const held: { key: string; res: http.ServerResponse }[] = [];
      const late = http.createServer((req, res) => {
        req.resume();
        req.on("end", () => held.push({ key: String(req.headers["idempotency-key"]), res }));
      });
      await new Promise<void>((r) => late.listen(0, "127.0.0.1", r));
      process.env.ENVFORGE_DISPATCH_LEASE_SECONDS = "1";
      try {
        const name = `late-${second}-${lateStatus}`;
        await target({
          name,
          kind: "trainer",
          adapter: "webhook",
          config: { url: `http://127.0.0.1:${(late.address() as net.AddressInfo).port}/`, timeoutMs: 60_000 },
          secret: SECRET,
        });
        const id = await dispatch(name);
        // no worker runs here: the two attempts are the worker's job run by hand, as two deliveries of it would be
        const first = runDispatchJob(db.db, { dispatchId: id, phase: "deliver" }, "worker-a");
        await waitFor("attempt 1 reaches the target", async () => held.length === 1);
        await waitFor("attempt 1's lease runs out", async () => {
          const r = await db.db.execute<{ over: boolean }>(sql`select lease_until < now() as over from dispatches where id = ${id}`);
          return r.rows[0]?.over === true;
        });
        const takeover = runDispatchJob(db.db, { dispatchId: id, phase: "deliver" }, second);
        await waitFor("attempt 2 reaches the target", async () => held.length === 2);
        expect(held.map((h) => h.key)).toEqual([id, id]);
        // attempt 1 ends now: the dispatch stays attempt 2's (not queued for a third, not failed, not delivered)
        if (lateStatus === 200) held[0].res.writeHead(200, { "content-type": "application/json" }).end("{}");
        else held[0].res.writeHead(lateStatus, { "content-type": "text/plain" }).end("no");
        await first;
        let d = await admin.request<Dispatch>("GET", `/api/v1/dispatches/${id}`);
        expect(d).toMatchObject({ status: "sending", attempts: 2 });
        expect(d.events.map((e) => e.status)).toEqual(["queued", "sending", "sending", "superseded"]);
        expect(d.events[3].message).toMatch(lateMessage);
        const lease = await db.db.execute<{ owner: string | null }>(sql`select lease_owner as owner from dispatches where id = ${id}`);
        expect(lease.rows[0].owner).toBe(second);
        held[1].res.writeHead(200, { "content-type": "application/json" }).end("{}");
        await takeover;
        d = await admin.request<Dispatch>("GET", `/api/v1/dispatches/${id}`);
        expect(d).toMatchObject({ status: "delivered", attempts: 2 });
        expect(d.events.map((e) => e.status)).toEqual(["queued", "sending", "sending", "superseded", "delivered"]);
      } finally {
        delete process.env.ENVFORGE_DISPATCH_LEASE_SECONDS;
        for (const h of held) if (!h.res.writableEnded) h.res.destroy();
        late.closeAllConnections();
        late.close();
      }
    },
    60_000,
  );

  it("two worker processes on one database deliver each dispatch once", async () => {
    const workers = await Promise.all([spawnWorker(), spawnWorker()]);
    try {
      const before = receiver.requests.length;
      const ids = [];
      for (let i = 0; i < 8; i++) ids.push(await dispatch("hook"));
      for (const id of ids) expect((await until(id, ["delivered", "failed"])).status).toBe("delivered");
      const sent = receiver.requests.slice(before);
      expect(sent).toHaveLength(8);
      expect(new Set(sent.map((r) => r.idempotencyKey))).toEqual(new Set(ids));
    } finally {
      await Promise.all(workers.map(stopChild));
    }
  }, 90_000);
});

/**
 * Jobs report back by themselves: a dispatch mints a key limited to its project and generation,
 * hands it to the job as a secret (here the webhook's X-EnvForge-Callback-Key header), and
 * `envforge run-dispatch` (a real child process running a real python3 command per environment)
 * fetches the payload with it, posts every rollout and the progress back; the key can do nothing
 * else and stops working when the dispatch ends. A remote target without ENVFORGE_PUBLIC_URL is refused.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from "./fakes/webhook-receiver";
import { getBoss, startBoss } from "@/lib/queue/boss";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { sql } from "drizzle-orm";
import { revokeIdleDispatchKeys } from "@/lib/dispatch/callback-key";
import { lake } from "./configs";
import { untilDispatch } from "./api-waits";
import { startApi, stopApi, createProjectWith, startTestWorker, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-rundispatch-1";
const SECRET = "webhook-shared-secret-rundispatch-9";
const root = path.resolve(import.meta.dirname, "..");
let db: TestDb;
let server: TestServer;
let worker: Awaited<ReturnType<typeof startBoss>> | null = null;
let admin: EnvForgeClient;
let receiver: FakeWebhookReceiver;

type Dispatch = { id: string; status: string; events: { status: string; message?: string; data?: Record<string, unknown> }[] };

const until = (id: string, statuses: string[]) => untilDispatch<Dispatch>(admin, id, statuses, 60_000);

/** The CLI as a child process; resolves with its exit code and output. */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ["bin/envforge.mjs", ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (err += c));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out, err })));
}

// The "policy": reads the task from stdin; fails on e2, else answers with a reward and the prompt's length.
const AGENT = [
  "import json, sys",
  "task = json.load(sys.stdin)",
  "assert task['prompt'][1]['content'].startswith('Frozen lake'), task",
  "if task['environmentKey'] == 'e2': sys.exit('agent crashed on ' + task['environmentKey'])",
  "print('thinking...')",
  "print(json.dumps({'reward': 1.0, 'success': True, 'turns': 3, 'metadata': {'promptChars': len(task['prompt'][1]['content'])}}))",
].join("\n");

beforeAll(async () => {
  process.env.ENVFORGE_SECRET_KEY = "test-secret-key-for-rundispatch-0123456789";
  process.env.ENVFORGE_DISPATCH_POLL_SECONDS = "1";
  delete process.env.ENVFORGE_PUBLIC_URL;
  ({ db, server, admin } = await startApi(TOKEN));
  receiver = await startFakeWebhookReceiver({ secret: SECRET });
  await createProjectWith(admin, { slug: "rd", name: "Run dispatch" });
  const environments = [1, 2, 3].map((s) => ({ key: `e${s}`, config: lake(s) }));
  await admin.request("POST", "/api/v1/projects/rd/generations", { json: { status: "approved", environments } });
  await admin.request("POST", "/api/v1/projects/rd/generations", { json: { status: "approved", environments } });
  await admin.request("POST", "/api/v1/projects/rd/targets", {
    json: { name: "hook", adapter: "webhook", kind: "trainer", config: { url: receiver.url }, secret: SECRET },
  });
  worker = await startTestWorker(db);
}, 60_000);
afterAll(async () => {
  await worker?.stop({ graceful: false, wait: true });
  await (await getBoss()).stop({ graceful: false, wait: true }).catch(() => undefined);
  await receiver?.close();
  await stopApi({ server, db });
});

describe("envforge run-dispatch", () => {
  it("runs the command per environment with the rendered task and posts rollouts and progress with the dispatch's own key", async () => {
    const { dispatchId } = await admin.request<{ dispatchId: string }>("POST", "/api/v1/projects/rd/generations/1/dispatch", {
      json: { target: "hook" },
    });
    await until(dispatchId, ["delivered"]);
    const delivery = receiver.requests.find((r) => r.idempotencyKey === dispatchId)!;
    const key = delivery.headers["x-envforge-callback-key"] as string;
    expect(key).toMatch(/\S{20,}/);
    const payload = JSON.parse(delivery.rawBody.toString("utf8")) as { callbacks: { payload: string; baseUrl: string } };
    expect(payload.callbacks.baseUrl).toBe(server.url);
    expect(delivery.rawBody.toString("utf8")).not.toContain(key);

    // one shard of several (--no-finish): the dispatch keeps running and the key keeps working
    const run = await cli(
      ["run-dispatch", "--dispatch", payload.callbacks.payload, "--policy", "py-agent", "--no-finish", "--", "python3", "-c", AGENT],
      { ENVFORGE_API_KEY: key },
    );
    expect(run.err).toContain("agent crashed on e2");
    expect(run.out).toContain("ran 3 environments: 2 finished, 1 errored; 3 rollouts posted, 0 rejected");
    expect(run.code).toBe(0);

    const listed = await admin.request<{
      items: {
        environmentKey: string;
        generation: number;
        policy: string;
        reward: number;
        success: boolean;
        status: string;
        errorMessage?: string;
      }[];
    }>("GET", "/api/v1/projects/rd/rollouts?generation=1");
    const byKey = Object.fromEntries(listed.items.map((r) => [r.environmentKey, r]));
    expect(Object.keys(byKey).sort()).toEqual(["e1", "e2", "e3"]);
    expect(byKey.e1).toMatchObject({ generation: 1, policy: "py-agent", reward: 1, success: true });
    expect(byKey.e2).toMatchObject({ status: "errored", success: false, reward: 0 });
    const d = await until(dispatchId, ["running"]);
    expect(d.events.at(-1)).toMatchObject({ status: "running", data: { completed: 3, total: 3, failed: 1 } });
    expect(JSON.stringify(d)).not.toContain(key);

    // the key posts to its own generation only, and does nothing else
    const asJob = new EnvForgeClient({ server: server.url, token: key });
    const other = await asJob.request<{ accepted: number; rejected: { code: string }[] }>("POST", "/api/v1/projects/rd/rollouts", {
      json: [{ externalId: "x-1", environmentKey: "e1", generation: 2, policy: "py-agent", reward: 1 }],
    });
    expect(other.rejected.map((r) => r.code)).toEqual(["generation_not_allowed"]);
    const denied = await asJob
      .request("POST", "/api/v1/projects/rd/generations", { json: { environments: [{ key: "z", config: lake(9) }] } })
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(ApiError);
    expect((denied as ApiError).status).toBe(403);

    // a run without --no-finish reports the job's end: the dispatch succeeds (nothing polls a webhook) and the key stops working
    const last = await cli(
      ["run-dispatch", "--dispatch", payload.callbacks.payload, "--policy", "py-agent", "--", "python3", "-c", AGENT],
      {
        ENVFORGE_API_KEY: key,
      },
    );
    expect(last.out).toContain("3 rollouts posted, 0 rejected");
    const ended = await until(dispatchId, ["succeeded"]);
    expect(ended.events.at(-1)).toMatchObject({ status: "succeeded", data: { completed: 3, total: 3, failed: 1 } });
    expect(ended.events.at(-1)?.message).toContain("the job reported it finished");
    const after = await asJob.request("GET", `/api/v1/dispatches/${dispatchId}/payload`).catch((e: unknown) => e);
    expect((after as ApiError).status).toBe(401);
    const late = await admin
      .request("POST", `/api/v1/dispatches/${dispatchId}/progress`, { json: { completed: 3, total: 3, status: "failed" } })
      .catch((e: unknown) => e);
    expect((late as ApiError).status).toBe(409);
    const again = await cli(["run-dispatch", "--dispatch", payload.callbacks.payload, "--", "python3", "-c", AGENT], {
      ENVFORGE_API_KEY: key,
    });
    expect(again.code).not.toBe(0);
    expect(again.err).toMatch(/revoked/);
  });

  it("revokes a dispatch key nobody used for ENVFORGE_DISPATCH_KEY_IDLE_HOURS, and says so on the dispatch", async () => {
    const { dispatchId } = await admin.request<{ dispatchId: string }>("POST", "/api/v1/projects/rd/generations/0/dispatch", {
      json: { target: "hook" },
    });
    await until(dispatchId, ["delivered"]);
    const key = receiver.requests.find((r) => r.idempotencyKey === dispatchId)!.headers["x-envforge-callback-key"] as string;
    const asJob = new EnvForgeClient({ server: server.url, token: key });
    await asJob.request("GET", `/api/v1/dispatches/${dispatchId}/payload`);
    // used a minute ago: the sweep leaves it alone
    await db.db.execute(sql`update api_keys set last_used_at = now() - interval '1 minute' where dispatch_id = ${dispatchId}`);
    expect(await revokeIdleDispatchKeys(db.db, 168)).toBe(0);
    await asJob.request("GET", `/api/v1/dispatches/${dispatchId}/payload`);
    // idle for 169 hours: dead at once, then revoked by the sweep with an event naming the setting
    await db.db.execute(sql`update api_keys set last_used_at = now() - interval '169 hours' where dispatch_id = ${dispatchId}`);
    const idle = await asJob.request("GET", `/api/v1/dispatches/${dispatchId}/payload`).catch((e: unknown) => e);
    expect((idle as ApiError).status).toBe(401);
    expect(await revokeIdleDispatchKeys(db.db, 168)).toBe(1);
    const d = await admin.request<Dispatch>("GET", `/api/v1/dispatches/${dispatchId}`);
    expect(d.events.at(-1)?.message).toContain("ENVFORGE_DISPATCH_KEY_IDLE_HOURS");
    const [row] = (
      await db.db.execute<{ revoked: boolean }>(
        sql`select revoked_at is not null as revoked from api_keys where dispatch_id = ${dispatchId}`,
      )
    ).rows;
    expect(row.revoked).toBe(true);
  });

  it("refuses a remote target while ENVFORGE_PUBLIC_URL is unset, naming the setting", async () => {
    await admin.request("POST", "/api/v1/projects/rd/targets", {
      json: { name: "far", adapter: "webhook", kind: "trainer", config: { url: "http://10.20.30.40:9000/hook" }, secret: SECRET },
    });
    const err = await admin
      .request("POST", "/api/v1/projects/rd/generations/1/dispatch", { json: { target: "far" } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).message).toContain("ENVFORGE_PUBLIC_URL");
  });
});

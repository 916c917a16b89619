/**
 * Managing targets and dispatches over HTTP on a real Postgres with a real pg-boss worker and a
 * webhook receiver on loopback: edit a target (secret replaced, never shown), test its connection,
 * list a project's dispatches, retry a failed one, and the warning when a generation goes to the
 * same target again.
 */
import net from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from "./fakes/webhook-receiver";
import { getBoss, startBoss } from "@/lib/queue/boss";
import { dispatchTargets } from "@/lib/db/schema";
import { EnvForgeClient } from "@/cli/client";
import { lake } from "./configs";
import { apiFailure, untilDispatch } from "./api-waits";
import { startApi, stopApi, clientWithRole, createProjectWith, startTestWorker, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-manage-0123";
const SECRET = "webhook-shared-secret-manage-0123";
let db: TestDb;
let server: TestServer;
let worker: Awaited<ReturnType<typeof startBoss>> | null = null;
let admin: EnvForgeClient;
let reviewer: EnvForgeClient;
let receiver: FakeWebhookReceiver;

type Dispatch = { id: string; status: string; attempts: number; lastError?: string; events: { status: string; message?: string }[] };
type Test = { ok: boolean; message: string; status?: number };

const fail = apiFailure;

const until = (id: string, statuses: string[], timeoutMs?: number) => untilDispatch<Dispatch>(admin, id, statuses, timeoutMs);

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  process.env.ENVFORGE_SECRET_KEY = "test-secret-key-for-manage-0123456789";
  process.env.ENVFORGE_DISPATCH_BACKOFF_MS = "200";
  ({ db, server, admin } = await startApi(TOKEN));
  reviewer = await clientWithRole(db, server, "reviewer", { name: "rev", actor: "t" });
  receiver = await startFakeWebhookReceiver({ secret: SECRET });
  await createProjectWith(
    admin,
    { slug: "mg", name: "Manage" },
    { status: "approved", environments: [1, 2].map((s) => ({ key: `e${s}`, config: lake(s) })) },
  );
  worker = await startTestWorker(db);
}, 60_000);
afterAll(async () => {
  await worker?.stop({ graceful: false, wait: true });
  await (await getBoss()).stop({ graceful: false, wait: true }).catch(() => undefined);
  await receiver?.close();
  await stopApi({ server, db });
});

describe("targets: edit and test connection", () => {
  it("edits config and replaces the secret (stored encrypted, never returned or audited); refuses a reviewer and a webhook left without a secret", async () => {
    const down = `http://127.0.0.1:${await closedPort()}/`;
    await admin.request("POST", "/api/v1/projects/mg/targets", {
      json: { name: "hook", kind: "trainer", adapter: "webhook", config: { url: down }, secret: "old-secret-value" },
    });
    const [before] = await db.db.select().from(dispatchTargets).where(eq(dispatchTargets.name, "hook"));
    const changed = await admin.request<{ config: { url: string }; secret: string }>("PATCH", "/api/v1/projects/mg/targets/hook", {
      json: { config: { url: receiver.url }, secret: SECRET, maxAttempts: 1 },
    });
    expect(changed.config.url).toBe(receiver.url);
    expect(changed.secret).toBe("stored (encrypted)");
    expect(JSON.stringify(changed)).not.toContain(SECRET);
    const [after] = await db.db.select().from(dispatchTargets).where(eq(dispatchTargets.name, "hook"));
    expect(after.secretCiphertext).not.toBe(before.secretCiphertext);
    expect(after.maxAttempts).toBe(1);
    const audit = await admin.request<{ events: { action: string; after?: { secretChanged?: string } }[] }>(
      "GET",
      "/api/v1/projects/mg/audit",
    );
    expect(JSON.stringify(audit)).not.toContain(SECRET);
    expect(audit.events.find((e) => e.action === "target.update")?.after?.secretChanged).toBe("replaced");

    expect((await fail(reviewer.request("PATCH", "/api/v1/projects/mg/targets/hook", { json: { maxAttempts: 2 } }))).status).toBe(403);
    const noSecret = await fail(admin.request("PATCH", "/api/v1/projects/mg/targets/hook", { json: { secret: null } }));
    expect(noSecret.status).toBe(422);
    expect(noSecret.message).toMatch(/secret/);
    const badUrl = await fail(admin.request("PATCH", "/api/v1/projects/mg/targets/hook", { json: { config: { url: "not a url" } } }));
    expect(badUrl.message).toMatch(/config\.url/);
    expect((await fail(admin.request("PATCH", "/api/v1/projects/mg/targets/nope", { json: { maxAttempts: 2 } }))).status).toBe(404);
  });

  it("tests a webhook with a signed dry request that delivers nothing, and says why a wrong secret or a closed port fails", async () => {
    const deliveries = receiver.deliveries.length;
    const ok = await admin.request<Test>("POST", "/api/v1/projects/mg/targets/hook/test");
    expect(ok.ok).toBe(true);
    const ping = receiver.requests[receiver.requests.length - 1];
    expect(ping.headers["x-envforge-test"]).toBe("1");
    expect(ping.signatureValid).toBe(true);
    expect(receiver.deliveries.length).toBe(deliveries); // nothing was delivered

    await admin.request("POST", "/api/v1/projects/mg/targets", {
      json: { name: "wrong", kind: "trainer", adapter: "webhook", config: { url: receiver.url }, secret: "not-the-receivers-secret" },
    });
    const wrong = await admin.request<Test>("POST", "/api/v1/projects/mg/targets/wrong/test");
    expect(wrong).toMatchObject({ ok: false, status: 401 });
    expect(wrong.message).toMatch(/secret/);
    expect(wrong.message).not.toContain("not-the-receivers-secret");

    await admin.request("POST", "/api/v1/projects/mg/targets", {
      json: {
        name: "closed",
        kind: "trainer",
        adapter: "webhook",
        config: { url: `http://127.0.0.1:${await closedPort()}/` },
        secret: "s",
      },
    });
    const closed = await admin.request<Test>("POST", "/api/v1/projects/mg/targets/closed/test");
    expect(closed.ok).toBe(false);
    expect(closed.message).toMatch(/Could not reach/);
    expect((await fail(reviewer.request("POST", "/api/v1/projects/mg/targets/hook/test"))).status).toBe(403);
  });
});

describe("dispatches: list, retry, re-dispatch warning", () => {
  it("retries a failed dispatch once its target is fixed, and only a failed one", async () => {
    const port = await closedPort();
    await admin.request("PATCH", "/api/v1/projects/mg/targets/closed", {
      json: { maxAttempts: 1, config: { url: `http://127.0.0.1:${port}/` } },
    });
    const { dispatchId } = await admin.request<{ dispatchId: string }>("POST", "/api/v1/projects/mg/generations/0/dispatch", {
      json: { target: "closed" },
    });
    expect((await until(dispatchId, ["failed", "delivered"])).status).toBe("failed");
    // fix the target, then retry (a reviewer may)
    await admin.request("PATCH", "/api/v1/projects/mg/targets/closed", { json: { config: { url: receiver.url }, secret: SECRET } });
    const retried = await reviewer.request<Dispatch>("POST", `/api/v1/dispatches/${dispatchId}/retry`);
    expect(retried.status).toBe("queued");
    const done = await until(dispatchId, ["delivered", "failed"]);
    expect(done.status).toBe("delivered");
    expect(done.events.some((e) => e.message?.startsWith("retried by"))).toBe(true);
    expect((await fail(admin.request("POST", `/api/v1/dispatches/${dispatchId}/retry`))).status).toBe(409);
    expect((await fail(admin.request("POST", "/api/v1/dispatches/00000000-0000-4000-8000-000000000000/retry"))).status).toBe(404);
    const audit = await admin.request<{ events: { action: string; entityId: string }[] }>("GET", "/api/v1/projects/mg/audit");
    expect(audit.events.some((e) => e.action === "dispatch.retry" && e.entityId === dispatchId)).toBe(true);
  });

  it("warns when the same generation goes to the same target again, and lists every dispatch of the project", async () => {
    const first = await admin.request<{ dispatchId: string; warning?: string }>("POST", "/api/v1/projects/mg/generations/0/dispatch", {
      json: { target: "hook" },
    });
    expect(first.warning).toBeUndefined();
    await until(first.dispatchId, ["delivered", "failed"]);
    const again = await admin.request<{ dispatchId: string; warning?: string; previousDispatches?: string[] }>(
      "POST",
      "/api/v1/projects/mg/generations/0/dispatch",
      { json: { target: "hook" } },
    );
    expect(again.warning).toMatch(/dispatched to hook once before/);
    expect(again.previousDispatches).toEqual([first.dispatchId]);
    const list = await admin.request<{ dispatches: { id: string; target: string; generation: number; status: string }[] }>(
      "GET",
      "/api/v1/projects/mg/dispatches",
    );
    expect(list.dispatches.map((d) => d.id)).toEqual(expect.arrayContaining([first.dispatchId, again.dispatchId]));
    expect(list.dispatches.length).toBe(3);
  });
});

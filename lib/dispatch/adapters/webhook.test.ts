import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from "@/tests/fakes/webhook-receiver";
import { DeliveryError } from "../types";
import { deliveryContext, samplePayload } from "./test-payload";
import { signBody, verifySignature, webhookAdapter } from "./webhook";

const SECRET = "whsec-test-7c1f9a0b2d";
let receiver: FakeWebhookReceiver | undefined;
const servers: http.Server[] = [];

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function deliverError(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

describe("signBody / verifySignature", () => {
  it("signs the exact bytes and verifies in constant time", () => {
    const body = JSON.stringify({ a: 1, text: "ü" });
    const header = signBody(body, SECRET);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signBody(Buffer.from(body), SECRET)).toBe(header);
    expect(verifySignature(body, SECRET, header)).toBe(true);
    expect(verifySignature(Buffer.from(body), SECRET, header.toUpperCase().replace("SHA256", "sha256"))).toBe(true);
    expect(verifySignature(`${body} `, SECRET, header)).toBe(false);
    expect(verifySignature(body, "other-secret", header)).toBe(false);
    expect(verifySignature(body, SECRET, undefined)).toBe(false);
    expect(verifySignature(body, SECRET, "sha256=abc")).toBe(false);
    expect(verifySignature(body, SECRET, header.replace("sha256=", "sha1="))).toBe(false);
  });
});

describe("webhook adapter", () => {
  it("posts the signed payload with the idempotency and attempt headers", async () => {
    receiver = await startFakeWebhookReceiver({ secret: SECRET });
    const payload = samplePayload();
    const result = await webhookAdapter.deliver(deliveryContext(payload, { url: receiver.url, headers: { "X-Team": "rl" } }, SECRET, 2));
    expect(result).toMatchObject({ status: "delivered", externalId: "rcv-1" });
    const [req] = receiver.requests;
    expect(req.signatureValid).toBe(true);
    expect(verifySignature(req.rawBody, SECRET, req.headers["x-envforge-signature"] as string)).toBe(true);
    expect(req.idempotencyKey).toBe(payload.dispatchId);
    expect(req.attempt).toBe("2");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["x-team"]).toBe("rl");
    expect(receiver.deliveries[0].body).toEqual(payload);
  });

  it("throws retryable on 503 twice, then delivers", async () => {
    receiver = await startFakeWebhookReceiver({ secret: SECRET, failFirst: 2 });
    const payload = samplePayload();
    const config = { url: receiver.url };
    for (const attempt of [1, 2]) {
      const error = await deliverError(webhookAdapter.deliver(deliveryContext(payload, config, SECRET, attempt)));
      expect(error.retryable).toBe(true);
      expect(error.message).toContain("503");
      expect(error.data).toMatchObject({ httpStatus: 503 });
    }
    const result = await webhookAdapter.deliver(deliveryContext(payload, config, SECRET, 3));
    expect(result.status).toBe("delivered");
    expect(receiver.requests.map((r) => r.attempt)).toEqual(["1", "2", "3"]);
    expect(receiver.deliveries).toHaveLength(1);
  });

  it("a resend with the same Idempotency-Key is accepted once (200 or 409 from the receiver)", async () => {
    for (const duplicateStatus of [200, 409] as const) {
      receiver = await startFakeWebhookReceiver({ secret: SECRET, duplicateStatus });
      const payload = samplePayload();
      const first = await webhookAdapter.deliver(deliveryContext(payload, { url: receiver.url }, SECRET, 1));
      const again = await webhookAdapter.deliver(deliveryContext(payload, { url: receiver.url }, SECRET, 2));
      expect(first.status).toBe("delivered");
      expect(again.status).toBe("delivered");
      expect(again.externalId).toBe(first.externalId);
      if (duplicateStatus === 409) expect(again.data).toMatchObject({ duplicate: true, httpStatus: 409 });
      expect(receiver.requests).toHaveLength(2);
      expect(receiver.deliveries).toHaveLength(1);
      await receiver.close();
      receiver = undefined;
    }
  });

  it("400 is not retryable; 429 and 408 are", async () => {
    receiver = await startFakeWebhookReceiver({ secret: SECRET, script: [400, 429, 408, 404] });
    const ctx = deliveryContext(samplePayload(), { url: receiver.url }, SECRET);
    const bad = await deliverError(webhookAdapter.deliver(ctx));
    expect(bad.retryable).toBe(false);
    expect(bad.message).toContain("400");
    expect((await deliverError(webhookAdapter.deliver(ctx))).retryable).toBe(true);
    expect((await deliverError(webhookAdapter.deliver(ctx))).retryable).toBe(true);
    expect((await deliverError(webhookAdapter.deliver(ctx))).retryable).toBe(false);
    expect(receiver.deliveries).toHaveLength(0);
  });

  it("a wrong secret gets the receiver's 401: not retryable, and the secret is not in the message", async () => {
    receiver = await startFakeWebhookReceiver({ secret: SECRET });
    const error = await deliverError(webhookAdapter.deliver(deliveryContext(samplePayload(), { url: receiver.url }, "not-the-secret-123")));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("401");
    expect(error.message).not.toContain("not-the-secret-123");
  });

  it("network errors and timeouts are retryable", async () => {
    const closed = await startFakeWebhookReceiver({ secret: SECRET });
    const url = closed.url;
    await closed.close();
    const refused = await deliverError(webhookAdapter.deliver(deliveryContext(samplePayload(), { url }, SECRET)));
    expect(refused.retryable).toBe(true);

    const hanging = http.createServer(() => {
      /* never answers */
    });
    servers.push(hanging);
    await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r));
    const port = (hanging.address() as AddressInfo).port;
    const slow = await deliverError(
      webhookAdapter.deliver(deliveryContext(samplePayload(), { url: `http://127.0.0.1:${port}/`, timeoutMs: 200 }, SECRET)),
    );
    expect(slow.retryable).toBe(true);
    expect(slow.message).toContain("200 ms");
    hanging.closeAllConnections();
  });

  it("checks its config and needs a secret", async () => {
    expect(webhookAdapter.needsSecret).toBe(true);
    expect(webhookAdapter.checkConfig({ url: "https://example.test/hook" })).toEqual([]);
    const errors = webhookAdapter.checkConfig({ url: "ftp://x", headers: { "Idempotency-Key": "x" }, extra: 1 });
    expect(errors.map((e) => e.path).sort()).toEqual(["extra", "headers", "url"]);
    const error = await deliverError(webhookAdapter.deliver(deliveryContext(samplePayload(), { url: "http://127.0.0.1:1/" }, null)));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/no secret/);
  });
});

/**
 * A real HTTP server (node:http on 127.0.0.1, port 0) receiving EnvForge webhook deliveries:
 * checks `X-EnvForge-Signature` (HMAC-SHA256 of the raw body with the shared secret; 401 when it
 * does not match), drops repeats of an `Idempotency-Key` it already accepted (200, or 409 when
 * told), can answer 503 to the first N requests or a scripted status per request, and records
 * every request and every accepted delivery. Wire data only: no imports from lib/.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeWebhookOptions {
  secret: string;
  /** answer 503 to the first N requests (before any other check) */
  failFirst?: number;
  /** statuses to answer to the next requests, one each, before the normal handling (e.g. [400]) */
  script?: number[];
  /** what a repeat of an accepted Idempotency-Key gets: 200 with the first answer (default) or 409 */
  duplicateStatus?: 200 | 409;
}

export interface FakeWebhookRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  signatureValid: boolean;
  idempotencyKey: string | undefined;
  attempt: string | undefined;
  /** the status the receiver answered */
  status: number;
}

export interface FakeWebhookDelivery {
  id: string;
  idempotencyKey: string;
  body: unknown;
}

export interface FakeWebhookReceiver {
  url: string;
  requests: FakeWebhookRequest[];
  /** accepted deliveries, one per Idempotency-Key */
  deliveries: FakeWebhookDelivery[];
  /** answer 503 to the next N requests */
  failNext(n: number): void;
  close(): Promise<void>;
}

function signatureMatches(body: Buffer, secret: string, header: string | undefined): boolean {
  const m = /^sha256=([0-9a-f]{64})$/i.exec(header ?? "");
  if (!m) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  const given = Buffer.from(m[1], "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Starts the receiver; `close()` it when done. */
export async function startFakeWebhookReceiver(opts: FakeWebhookOptions): Promise<FakeWebhookReceiver> {
  const requests: FakeWebhookRequest[] = [];
  const deliveries: FakeWebhookDelivery[] = [];
  const byKey = new Map<string, FakeWebhookDelivery>();
  const script = [...(opts.script ?? [])];
  let failuresLeft = opts.failFirst ?? 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const header = (name: string) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v[0] : v;
      };
      const record: FakeWebhookRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody,
        signatureValid: signatureMatches(rawBody, opts.secret, header("x-envforge-signature")),
        idempotencyKey: header("idempotency-key"),
        attempt: header("x-envforge-delivery-attempt"),
        status: 0,
      };
      requests.push(record);
      const send = (status: number, body: unknown) => {
        record.status = status;
        const text = JSON.stringify(body);
        res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
      };
      if (failuresLeft > 0) {
        failuresLeft--;
        return send(503, { error: "receiver is busy" });
      }
      const scripted = script.shift();
      if (scripted !== undefined) return send(scripted, { error: `scripted ${scripted}` });
      if (req.method !== "POST") return send(405, { error: "POST only" });
      if (!record.signatureValid) return send(401, { error: "bad signature" });
      if (!record.idempotencyKey) return send(400, { error: "Idempotency-Key missing" });
      if (header("content-type")?.split(";")[0].trim() !== "application/json") return send(415, { error: "JSON only" });
      const seen = byKey.get(record.idempotencyKey);
      if (seen) return send(opts.duplicateStatus ?? 200, { id: seen.id, duplicate: true });
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString("utf8"));
      } catch {
        return send(400, { error: "body is not JSON" });
      }
      const delivery = { id: `rcv-${deliveries.length + 1}`, idempotencyKey: record.idempotencyKey, body };
      deliveries.push(delivery);
      byKey.set(record.idempotencyKey, delivery);
      send(200, { id: delivery.id });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/envforge`,
    requests,
    deliveries,
    failNext(n) {
      failuresLeft = n;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

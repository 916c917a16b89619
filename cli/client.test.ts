/**
 * The CLI client's ingest retries against a real HTTP server on loopback: a busy server (503 with
 * Retry-After, or 429) is asked again after the delay it names, and so is a connection the server dropped
 * mid-request; a refused connection, other errors and the last busy answer surface at once.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, EnvForgeClient } from "./client";

let server: http.Server | null = null;

/**
 * A server answering each POST with the next of `answers` (status, Retry-After; status 0 destroys the socket once the
 * body is read, as a server closing a kept-alive connection does), then 200 with a summary.
 */
async function serve(answers: { status: number; retryAfter?: string }[]) {
  const seen: string[] = [];
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push(body);
      const next = answers.shift();
      if (next?.status === 0) {
        req.socket.destroy();
      } else if (next) {
        res.writeHead(next.status, { "content-type": "application/json", ...(next.retryAfter ? { "retry-after": next.retryAfter } : {}) });
        res.end(JSON.stringify({ error: { code: "database_unavailable", message: "busy", details: [] } }));
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ accepted: 1, duplicates: 0, rejected: [] }));
      }
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const client = new EnvForgeClient({ server: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, token: "t" });
  return { client, seen };
}

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = null;
});

describe("postRollouts", () => {
  it("sends the body as UTF-8 bytes with its length, a lone surrogate as U+FFFD (as fetch does with a string), on every attempt", async () => {
    const got: { bytes: Buffer; type?: string; length?: string }[] = [];
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        got.push({ bytes: Buffer.concat(chunks), type: req.headers["content-type"], length: req.headers["content-length"] });
        const busy = got.length === 1;
        res.writeHead(busy ? 503 : 200, { "content-type": "application/json", ...(busy ? { "retry-after": "1" } : {}) });
        res.end(
          JSON.stringify(busy ? { error: { code: "busy", message: "busy", details: [] } } : { accepted: 1, duplicates: 0, rejected: [] }),
        );
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const client = new EnvForgeClient({ server: `http://127.0.0.1:${(server!.address() as AddressInfo).port}` });
    const line = '{"externalId":"é→😀\uD800x"}\n'; // a lone high surrogate before the x
    await client.postRollouts("p", line, { sleep: async () => {} });
    const expected = Buffer.from('{"externalId":"é→😀\uFFFDx"}\n', "utf8");
    expect(got).toHaveLength(2);
    for (const g of got) {
      expect(g.bytes.equals(expected)).toBe(true);
      expect(g.type).toBe("application/x-ndjson");
      expect(g.length).toBe(String(expected.length));
    }
  });

  it("asks a busy server again after its Retry-After, then 2^attempt s without one", async () => {
    const { client, seen } = await serve([{ status: 503, retryAfter: "2" }, { status: 429 }, { status: 503 }]);
    const waits: number[] = [];
    const summary = await client.postRollouts("p", '{"externalId":"a"}\n', { sleep: async (ms) => void waits.push(ms) });
    expect(summary.accepted).toBe(1);
    expect(waits).toEqual([2000, 2000, 4000]);
    expect(seen).toEqual(Array(4).fill('{"externalId":"a"}\n'));
  });

  it("gives up after `retries` busy answers, and never retries a client error", async () => {
    const busy = await serve([{ status: 503 }, { status: 503 }, { status: 503 }]);
    const err = await busy.client.postRollouts("p", "x\n", { retries: 2, sleep: async () => {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect(busy.seen).toHaveLength(3);
    await new Promise((resolve) => server?.close(resolve));

    const bad = await serve([{ status: 400 }]);
    const rejected = await bad.client.postRollouts("p", "x\n", { sleep: async () => {} }).catch((e: unknown) => e);
    expect((rejected as ApiError).status).toBe(400);
    expect(bad.seen).toHaveLength(1);
  });

  it("sends again a body whose connection the server dropped, and fails at once when nothing listens", async () => {
    const { client, seen } = await serve([{ status: 0 }, { status: 503 }, { status: 0 }]);
    const waits: number[] = [];
    const summary = await client.postRollouts("p", '{"externalId":"a"}\n', { sleep: async (ms) => void waits.push(ms) });
    expect(summary.accepted).toBe(1);
    expect(seen).toHaveLength(4);
    expect(waits).toEqual([1000, 2000, 4000]);
    const port = (server!.address() as AddressInfo).port;
    await new Promise((resolve) => server?.close(resolve));

    const nobody = new EnvForgeClient({ server: `http://127.0.0.1:${port}`, token: "t" });
    const sleeps: number[] = [];
    const err = await nobody.postRollouts("p", "x\n", { sleep: async (ms) => void sleeps.push(ms) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).cause).toBe("ECONNREFUSED");
    expect(sleeps).toEqual([]);
  });

  it("gives up after `retries` dropped connections with the connection's error", async () => {
    const { client, seen } = await serve([{ status: 0 }, { status: 0 }, { status: 0 }]);
    const err = await client.postRollouts("p", "x\n", { retries: 2, sleep: async () => {} }).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(0);
    expect(err as ApiError).toMatchObject({ cause: expect.stringMatching(/UND_ERR_SOCKET|ECONNRESET|EPIPE/) });
    expect(seen).toHaveLength(3);
  });
});

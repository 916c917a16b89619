/**
 * uploadRollouts against a real HTTP server on loopback: what the server receives is the items' lines as UTF-8, one
 * per line, batched by rollouts and by bytes (not UTF-16 units), and each rejected line is named by its item's ref.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { EnvForgeClient } from "./client";
import { LineEncoder, uploadRollouts, type UploadItem } from "./upload";

let server: http.Server | null = null;

/** A server that keeps each POST's body and answers every line accepted, but line 2 of each body rejected. */
async function serve() {
  const bodies: Buffer[] = [];
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      bodies.push(body);
      const lines = body.toString("utf8").split("\n").filter(Boolean).length;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          accepted: lines >= 2 ? lines - 1 : lines,
          duplicates: 0,
          rejected: lines >= 2 ? [{ line: 2, code: "invalid", message: "no" }] : [],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const client = new EnvForgeClient({ server: `http://127.0.0.1:${(server!.address() as AddressInfo).port}` });
  return { client, bodies };
}

afterEach(async () => {
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = null;
});

const item = (i: number, text: string): UploadItem => ({ ref: `trial-${i}`, json: JSON.stringify({ externalId: `r${i}`, text }) });

describe("uploadRollouts", () => {
  it("sends each item's line as UTF-8 with its newline, a lone surrogate as U+FFFD", async () => {
    const { client, bodies } = await serve();
    const items = [item(1, "é→😀"), item(2, "x\uD800y"), item(3, "plain")];
    const summary = await uploadRollouts(client, "p", items);
    expect(bodies).toHaveLength(1);
    const expected = items.map((x) => x.json.replace("\uD800", "\uFFFD") + "\n").join("");
    expect(bodies[0].equals(Buffer.from(expected, "utf8"))).toBe(true);
    expect(summary).toEqual({ accepted: 2, duplicates: 0, rejected: [{ ref: "trial-2", code: "invalid", message: "no" }], sent: 3 });
  });

  it("keeps a body within batchBytes counted in UTF-8 bytes, not characters", async () => {
    const { client, bodies } = await serve();
    // each line is 29 + 100 characters but 29 + 300 bytes ("€" is three bytes): 3 lines are 390 characters, 990 bytes
    const items = [1, 2, 3].map((i) => item(i, "€".repeat(100)));
    expect(items[0].json.length).toBe(129);
    expect(Buffer.byteLength(items[0].json)).toBe(329);
    await uploadRollouts(client, "p", items, { batchBytes: 700, concurrency: 1 });
    expect(bodies.map((b) => b.length)).toEqual([330 * 2, 330]);
    expect(Buffer.concat(bodies).toString("utf8")).toBe(items.map((x) => x.json + "\n").join(""));
  });

  it("batches by rollouts and names rejected lines by their own batch's refs", async () => {
    const { client, bodies } = await serve();
    const items = [1, 2, 3, 4, 5].map((i) => item(i, "t"));
    const summary = await uploadRollouts(client, "p", items, { batchRollouts: 2, concurrency: 1 });
    expect(bodies.map((b) => b.toString("utf8").split("\n").filter(Boolean).length)).toEqual([2, 2, 1]);
    expect(summary.rejected.map((r) => r.ref)).toEqual(["trial-2", "trial-4"]);
    expect(summary.sent).toBe(5);
  });
});

describe("LineEncoder", () => {
  it("gives each line its own UTF-8 bytes, across buffers, without overwriting earlier lines", () => {
    const encoder = new LineEncoder(16);
    const lines = ["abc", "é→😀", "x\uD800y", "€".repeat(20), "", "tail"];
    const out = lines.map((l) => encoder.encode(l));
    expect(out.map((b) => b.toString("hex"))).toEqual(lines.map((l) => Buffer.from(l, "utf8").toString("hex")));
    expect(out[3].length).toBe(60); // longer than a buffer: a buffer of its own
  });
});

/**
 * The server's front door over a real socket (the same guardedHandler scripts/start.ts puts in
 * front of Next): foreign Host names get 421 before any handler runs, the first admin is made
 * only from loopback at a loopback name, cookie mutations need one of our Origins, and every
 * response carries the security headers.
 */
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import { freshDatabase } from "./db";
import { startApiServer } from "./api-server";
import { users } from "@/lib/db/schema";
import { stopApi, type TestDb, type TestServer } from "./api-harness";

let db: TestDb;
let server: TestServer;
let port: number;

beforeAll(async () => {
  db = await freshDatabase();
  // one setting for the front door and the handlers' Origin check, as in a real process's environment

  process.env.ENVFORGE_ALLOWED_HOSTS = "dash.lab.org";
  server = await startApiServer();
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await stopApi({ server, db });

  delete process.env.ENVFORGE_ALLOWED_HOSTS;
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request with exactly these headers (Host included), as a rebinding page's browser would send it. */
function send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        setHost: false,
        headers: {
          ...headers,
          ...(payload ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** An HTTP/1.0 request with no Host header at all (HTTP/1.1 without Host is refused by Node itself). */
function sendWithoutHost(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(`GET ${path} HTTP/1.0\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.on("error", reject);
  });
}

const ours = () => `127.0.0.1:${port}`;

function expectSecurityHeaders(r: Reply) {
  expect(r.headers["x-frame-options"]).toBe("DENY");
  expect(r.headers["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
  expect(r.headers["x-content-type-options"]).toBe("nosniff");
  expect(r.headers["referrer-policy"]).toBe("same-origin");
}

describe("Host check before any handler", () => {
  it("answers to loopback names, addresses and the allowed list", async () => {
    for (const host of [ours(), `localhost:${port}`, `[::1]:${port}`, `[0:0:0:0:0:0:0:1]:${port}`, "dash.lab.org"]) {
      const r = await send("GET", "/api/health", { host });
      expect(r.status, host).toBe(200);
    }
  });

  it("refuses foreign and malformed Host headers with 421, naming the setting", async () => {
    for (const host of [
      "evil.com",
      `evil.com:${port}`,
      "127.0.0.1.evil.com",
      `localhost:${port}@evil`,
      "[::2]",
      `[::1].evil.com`,
      "dash.lab.org.evil.com",
      "10.0.0.1",
    ]) {
      const r = await send("GET", "/api/health", { host });
      expect(r.status, host).toBe(421);
      expect(JSON.parse(r.body).error.code).toBe("misdirected_request");
      expectSecurityHeaders(r);
    }
    const named = await send("GET", "/api/health", { host: "evil.com" });
    expect(JSON.parse(named.body).error.message).toMatch(/evil\.com.*ENVFORGE_ALLOWED_HOSTS/);
    expect(await sendWithoutHost("/api/health")).toMatch(/^HTTP\/1\.[01] 421/);
  });

  it("refuses first-run setup under a foreign Host and lets nothing through to the handler", async () => {
    const admin = { email: "root@lab.org", name: "Root", password: "a-long-password" };
    const r = await send("POST", "/api/auth/setup", { host: "evil.com", origin: "http://evil.com" }, admin);
    expect(r.status).toBe(421);
    // a loopback Host with a foreign Origin, or a request that came through a proxy, is not local either
    expect((await send("POST", "/api/auth/setup", { host: ours(), origin: "http://evil.com" }, admin)).status).toBe(403);
    expect((await send("POST", "/api/auth/setup", { host: "dash.lab.org", origin: "http://dash.lab.org" }, admin)).status).toBe(403);
    expect(
      (await send("POST", "/api/auth/setup", { host: ours(), origin: `http://${ours()}`, "x-forwarded-for": "203.0.113.7" }, admin)).status,
    ).toBe(403);
    // the client cannot claim to be the peer: the server overwrites that header
    expect(
      (
        await send(
          "POST",
          "/api/auth/setup",
          { host: "dash.lab.org", origin: "http://dash.lab.org", "x-envforge-peer": "127.0.0.1" },
          admin,
        )
      ).status,
    ).toBe(403);
    const [{ n }] = await db.db.select({ n: count() }).from(users);
    expect(n).toBe(0);
  });
});

describe("cookie mutations need one of our Origins", () => {
  let cookie = "";
  it("creates the first admin from loopback", async () => {
    const r = await send(
      "POST",
      "/api/auth/setup",
      { host: ours(), origin: `http://${ours()}` },
      { email: "root@lab.org", name: "Root", password: "a-long-password" },
    );
    expect(r.status).toBe(201);
    expectSecurityHeaders(r);
    cookie = String(r.headers["set-cookie"]).split(";")[0];
    expect(cookie).toMatch(/^envforge_session=/);
  });

  it("refuses a foreign or missing Origin and accepts ours", async () => {
    const project = (slug: string) => ({ slug, name: slug, family: "frozenlake-mapf" });
    const foreign = await send("POST", "/api/v1/projects", { host: ours(), cookie, origin: "http://evil.com" }, project("p1"));
    expect(foreign.status).toBe(403);
    const lookalike = await send(
      "POST",
      "/api/v1/projects",
      { host: ours(), cookie, origin: `http://127.0.0.1.evil.com:${port}` },
      project("p1"),
    );
    expect(lookalike.status).toBe(403);
    const none = await send("POST", "/api/v1/projects", { host: ours(), cookie, "sec-fetch-site": "same-origin" }, project("p1"));
    expect(none.status).toBe(403);
    const ok = await send("POST", "/api/v1/projects", { host: ours(), cookie, origin: `http://${ours()}` }, project("p1"));
    expect(ok.status).toBe(201);
    // the allowed name's origin is ours too (a browser at http://dash.lab.org)
    const named = await send("POST", "/api/v1/projects", { host: "dash.lab.org", cookie, origin: "http://dash.lab.org" }, project("p2"));
    expect(named.status).toBe(201);
  });

  it("puts the security headers on successes, errors and unknown routes", async () => {
    for (const [path, headers, status] of [
      ["/api/health", {}, 200],
      ["/api/v1/projects", { cookie }, 200],
      ["/api/v1/projects", {}, 401],
      ["/api/no-such-route", {}, 404],
    ] as const) {
      const r = await send("GET", path, { host: ours(), ...headers });
      expect(r.status, path).toBe(status);
      expectSecurityHeaders(r);
    }
  });
});

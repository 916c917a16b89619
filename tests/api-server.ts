/**
 * The app's route handlers (app/api/**\/route.ts) served over real HTTP without Next.js: for
 * integration tests that need a socket (the CLI, killing a server mid-import). Run as a script,
 * it listens on PORT and prints its URL.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { loadSettings } from "@/lib/config/env";
import { guardedHandler } from "@/lib/http/guard";
import { serverHostPolicy, type HostPolicy } from "@/lib/http/host-check";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
interface Route {
  pattern: RegExp;
  names: string[];
  file: string;
  module?: Record<string, Handler>;
}

const apiRoot = path.resolve(import.meta.dirname, "..", "app", "api");

function collectRoutes(dir: string, segments: string[] = []): Route[] {
  const out: Route[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...collectRoutes(path.join(dir, entry.name), [...segments, entry.name]));
    else if (entry.name === "route.ts") {
      const names: string[] = [];
      const source = segments
        .map((s) => {
          const m = /^\[(\w+)\]$/.exec(s);
          if (!m) return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
          names.push(m[1]);
          return "([^/]+)";
        })
        .join("/");
      out.push({ pattern: new RegExp(`^/api/${source}/?$`), names, file: path.join(dir, entry.name) });
    }
  }
  // static segments before dynamic ones
  return out.sort((a, b) => a.names.length - b.names.length);
}

/** Start the server behind the production front door (Host check, security headers, peer header); `url` is its base address. */
export async function startApiServer(
  port = 0,
  policy: HostPolicy = serverHostPolicy(loadSettings()),
): Promise<{ url: string; close: () => Promise<void> }> {
  const routes = collectRoutes(apiRoot);
  const server = http.createServer(
    guardedHandler(policy, async (req, res) => {
      try {
        const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
        const route = routes.find((r) => r.pattern.test(url.pathname));
        if (!route) {
          res
            .writeHead(404, { "content-type": "application/json" })
            .end(JSON.stringify({ error: { code: "not_found", message: "no such route", details: [] } }));
          return;
        }
        route.module ??= (await import(pathToFileURL(route.file).href)) as Record<string, Handler>;
        const handler = route.module[req.method ?? "GET"];
        if (!handler) {
          res.writeHead(405).end();
          return;
        }
        const match = route.pattern.exec(url.pathname)!;
        const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(match[i + 1])]));
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
        const hasBody = req.method !== "GET" && req.method !== "HEAD";
        const request = new Request(url, {
          method: req.method,
          headers,
          body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
          // @ts-expect-error Node's fetch needs duplex for streamed bodies
          duplex: "half",
        });
        const response = await handler(request, { params: Promise.resolve(params) });
        res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
        res.end(Buffer.from(await response.arrayBuffer()));
      } catch (err) {
        res.writeHead(500).end(String(err));
      }
    }),
  );
  // Tests run this server and its clients in one process: a synchronous step between two requests (a
  // python3 check, a Parquet parse) can hold the event loop past both idle timers, and then the server
  // (5 s by default) may close a kept-alive socket just as fetch (4 s) reuses it: ECONNRESET, seen in
  // tests/explorer-exports.int.test.ts under load. The server keeps idle sockets longer than any client.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && process.argv[1].endsWith("api-server.ts")) {
  const { url } = await startApiServer(Number(process.env.PORT ?? 0));
  console.log(`listening ${url}`);
}

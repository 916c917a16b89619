/**
 * Every API route and who may call it, read from the route files themselves: a mutating route without a
 * declared guard, or with a read-only scope, fails here; so does a guard that changes without this list.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RouteGuard } from "./route";

const root = path.resolve(import.meta.dirname, "../../app/api");
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const READ_SCOPES = new Set(["projects:read", "audit:read"]);

/** Routes that are public by design, each with why. */
const PUBLIC: Record<string, string> = {
  "GET /api/health": "liveness for load balancers; says nothing but ok or degraded",
  "POST /api/auth/setup": "first admin account: only while no account exists, only from loopback (checked inside)",
  "POST /api/auth/signin": "sign-in itself: rate limited per account and address (checked inside)",
  "POST /api/auth/signout": "ends the caller's own session",
};

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? routeFiles(p) : e.name === "route.ts" ? [p] : [];
  });
}

async function listRoutes(): Promise<Array<{ route: string; guard: RouteGuard | undefined }>> {
  const out: Array<{ route: string; guard: RouteGuard | undefined }> = [];
  for (const file of routeFiles(root).sort()) {
    const url = "/api/" + path.relative(root, path.dirname(file)).split(path.sep).join("/");
    const mod = (await import(file)) as Record<string, unknown>;
    for (const method of METHODS) {
      const handler = mod[method] as ({ guard?: RouteGuard } & ((...a: unknown[]) => unknown)) | undefined;
      if (typeof handler === "function") out.push({ route: `${method} ${url}`, guard: handler.guard });
    }
  }
  return out;
}

describe("route guards", () => {
  let routes: Array<{ route: string; guard: RouteGuard | undefined }> = [];
  // importing every route module loads most of lib/: slow on a busy machine, so once and with time
  beforeAll(async () => {
    routes = await listRoutes();
  }, 120_000);

  it("every route declares its scope, or is public by design; no mutation rests on a read scope", () => {
    expect(routes.length).toBeGreaterThan(40);
    for (const { route, guard } of routes) {
      if (!guard) {
        expect(PUBLIC[route], `${route} declares no guard: give apiRoute a scope`).toBeDefined();
        continue;
      }
      expect(PUBLIC[route], `${route} is listed as public but declares a guard`).toBeUndefined();
      if (MUTATING.has(route.split(" ")[0]))
        expect(READ_SCOPES.has(guard.scope), `${route} mutates with a read scope (${guard.scope})`).toBe(false);
      if (route.includes("/[slug]")) expect(guard.project, `${route} names a project in its path: its guard should load it`).toBe("slug");
    }
  });

  it("lists who may call what (a changed guard shows up in review here)", () => {
    const table = Object.fromEntries(routes.map(({ route, guard }) => [route, guard ? `${guard.scope} (${guard.project})` : "public"]));
    expect(table).toMatchSnapshot();
  });
});

import { describe, expect, it } from "vitest";
import { hasScope, isRole } from "./roles";
import { digestToken, hashPassword, newApiKeySecret, verifyPassword } from "./secrets";
import { assertSameOrigin, requireScope, type Principal } from "./principal";
import { isLoopback, isLoopbackRequest } from "./users";
import { hostPolicy } from "@/lib/http/host-check";

const principal = (role: Principal["role"], projectId: number | null = null): Principal => ({
  kind: "key",
  id: 1,
  actor: "key:t",
  role,
  projectId,
  name: "t",
});

describe("roles", () => {
  it("grants scopes by role", () => {
    expect(hasScope("viewer", "projects:read")).toBe(true);
    expect(hasScope("viewer", "rollouts:write")).toBe(false);
    expect(hasScope("ingest", "rollouts:write")).toBe(true);
    expect(hasScope("ingest", "proposals:review")).toBe(false);
    expect(hasScope("reviewer", "proposals:review")).toBe(true);
    expect(hasScope("reviewer", "keys:manage")).toBe(false);
    expect(hasScope("admin", "keys:manage")).toBe(true);
    expect(isRole("admin")).toBe(true);
    expect(isRole("root")).toBe(false);
  });

  it("limits project-scoped keys", () => {
    expect(() => requireScope(principal("ingest", 5), "rollouts:write", 5)).not.toThrow();
    expect(() => requireScope(principal("ingest", 5), "rollouts:write", 6)).toThrow(/another project/);
    expect(() => requireScope(principal("admin", 5), "keys:manage")).toThrow(/limited to one project/);
    expect(() => requireScope(principal("viewer"), "projects:create")).toThrow(/viewer/);
  });
});

describe("secrets", () => {
  it("hashes passwords with a salt and verifies them", async () => {
    const a = await hashPassword("correct horse");
    const b = await hashPassword("correct horse");
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse", a)).toBe(true);
    expect(await verifyPassword("wrong horse", a)).toBe(false);
    expect(await verifyPassword("x", "garbage")).toBe(false);
  });

  it("makes distinct key secrets and stable digests", () => {
    const k = newApiKeySecret();
    expect(k).toMatch(/^efk_[A-Za-z0-9_-]{32}$/);
    expect(newApiKeySecret()).not.toBe(k);
    expect(digestToken(k)).toBe(digestToken(k));
    expect(digestToken(k)).toHaveLength(64);
  });
});

describe("same-origin check for cookie mutations", () => {
  const req = (headers: Record<string, string>) =>
    new Request("http://127.0.0.1:3000/api/v1/projects", { method: "POST", headers: { host: "127.0.0.1:3000", ...headers } });
  const policy = hostPolicy({ HOST: "127.0.0.1", ENVFORGE_PUBLIC_URL: "https://envforge.lab.org", ENVFORGE_ALLOWED_HOSTS: [] });
  it("accepts an Origin on one of our names and refuses others", () => {
    expect(() => assertSameOrigin(req({ origin: "http://127.0.0.1:3000" }), policy)).not.toThrow();
    expect(() => assertSameOrigin(req({ origin: "http://localhost:3000", "sec-fetch-site": "same-origin" }), policy)).not.toThrow();
    // behind a proxy that rewrites Host, the public name still counts as ours
    expect(() => assertSameOrigin(req({ origin: "https://envforge.lab.org" }), policy)).not.toThrow();
    expect(() => assertSameOrigin(req({ origin: "https://evil.example" }), policy)).toThrow(/Cross-site/);
    expect(() => assertSameOrigin(req({ origin: "http://127.0.0.1.evil.com:3000" }), policy)).toThrow(/Cross-site/);
    expect(() => assertSameOrigin(req({ origin: "null" }), policy)).toThrow(/Cross-site/);
    // a forged X-Forwarded-Host does not make a foreign Origin ours
    expect(() => assertSameOrigin(req({ origin: "https://evil.example", "x-forwarded-host": "evil.example" }), policy)).toThrow(
      /Cross-site/,
    );
    expect(() => assertSameOrigin(req({ "sec-fetch-site": "cross-site", origin: "http://127.0.0.1:3000" }), policy)).toThrow(/Cross-site/);
    expect(() => assertSameOrigin(req({ "sec-fetch-site": "same-origin" }), policy)).toThrow(/Origin/);
    expect(() => assertSameOrigin(req({}), policy)).toThrow(/Origin/);
  });

  it("lets only loopback peers at loopback names, not through a proxy, create the first admin", () => {
    const h = (headers: Record<string, string>) => new Headers({ "x-envforge-peer": "127.0.0.1", host: "127.0.0.1:3000", ...headers });
    expect(isLoopbackRequest(h({}))).toBe(true);
    expect(isLoopbackRequest(h({ host: "[::1]:3000", origin: "http://localhost:3000" }))).toBe(true);
    expect(isLoopbackRequest(h({ "x-envforge-peer": "10.0.0.9" }))).toBe(false);
    expect(isLoopbackRequest(h({ host: "envforge.lab.org" }))).toBe(false);
    expect(isLoopbackRequest(h({ host: "127.0.0.1.evil.com" }))).toBe(false);
    expect(isLoopbackRequest(h({ origin: "http://evil.com" }))).toBe(false);
    expect(isLoopbackRequest(h({ "x-envforge-proxied": "1" }))).toBe(false);
    // Next.js adds x-forwarded-* to every request; only the front door's mark counts
    expect(isLoopbackRequest(h({ "x-forwarded-for": "127.0.0.1", "x-forwarded-host": "127.0.0.1:3000" }))).toBe(true);
    expect(isLoopbackRequest(new Headers({ host: "127.0.0.1:3000" }))).toBe(false);
  });

  it("knows loopback peers", () => {
    expect(isLoopback("127.0.0.1")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopback("10.0.0.4")).toBe(false);
    expect(isLoopback("")).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { hasScope, isRole } from "./roles";
import { digestToken, hashPassword, newApiKeySecret, verifyPassword } from "./secrets";
import { assertSameOrigin, requireScope, type Principal } from "./principal";
import { isLoopback } from "./users";

const principal = (role: Principal["role"], projectId: number | null = null): Principal => ({ kind: "key", id: 1, actor: "key:t", role, projectId, name: "t" });

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
  const req = (headers: Record<string, string>) => new Request("http://127.0.0.1:3000/api/v1/projects", { method: "POST", headers: { host: "127.0.0.1:3000", ...headers } });
  it("accepts our own origin and refuses others", () => {
    expect(() => assertSameOrigin(req({ origin: "http://127.0.0.1:3000" }))).not.toThrow();
    expect(() => assertSameOrigin(req({ "sec-fetch-site": "same-origin" }))).not.toThrow();
    expect(() => assertSameOrigin(req({ origin: "https://evil.example" }))).toThrow(/Cross-site/);
    expect(() => assertSameOrigin(req({ "sec-fetch-site": "cross-site", origin: "http://127.0.0.1:3000" }))).toThrow(/Cross-site/);
    expect(() => assertSameOrigin(req({}))).toThrow(/Origin/);
  });

  it("knows loopback peers", () => {
    expect(isLoopback("127.0.0.1")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopback("10.0.0.4")).toBe(false);
    expect(isLoopback("")).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { checkHost, hostPolicy, isAllowedOrigin, isLoopbackHostname, parseHostHeader } from "./host-check";

const base = { HOST: "127.0.0.1", ENVFORGE_PUBLIC_URL: undefined, ENVFORGE_ALLOWED_HOSTS: [] as string[] };
const loopbackOnly = hostPolicy(base);
const lab = hostPolicy(
  {
    HOST: "0.0.0.0",
    ENVFORGE_PUBLIC_URL: "https://envforge.lab.org:8443/app",
    ENVFORGE_ALLOWED_HOSTS: ["box-7", "*.cluster.lab.org", "10.0.0.5"],
  },
  ["192.168.1.20", "fe80::1"],
);

describe("Host header parsing", () => {
  it("canonicalises names, ports, IPv6 and IPv4 shorthands", () => {
    expect(parseHostHeader("LocalHost:3000")).toBe("localhost");
    expect(parseHostHeader("localhost.")).toBe("localhost");
    expect(parseHostHeader("[::1]:3000")).toBe("::1");
    expect(parseHostHeader("[0:0:0:0:0:0:0:1]")).toBe("::1");
    expect(parseHostHeader("127.1")).toBe("127.0.0.1");
    expect(parseHostHeader("0x7f.0.0.1:80")).toBe("127.0.0.1");
  });

  it("refuses anything that is not exactly host[:port]", () => {
    for (const bad of [
      "localhost:3000@evil",
      "evil.com/127.0.0.1",
      "127.0.0.1 evil.com",
      "127.0.0.1,evil.com",
      "::1",
      "[::1",
      "localhost:99999",
      "localhost:",
      "user@localhost",
      "",
      "a..b",
      "[::1]evil",
    ]) {
      expect(parseHostHeader(bad), bad).toBeNull();
    }
  });
});

describe("Host policy", () => {
  it("answers to loopback names and addresses only by default", () => {
    for (const ok of ["127.0.0.1:3000", "localhost:3000", "localhost", "[::1]:3000", "127.0.0.2", "[::ffff:127.0.0.1]"]) {
      expect(checkHost(loopbackOnly, ok).ok, ok).toBe(true);
    }
    for (const bad of [
      "evil.com",
      "127.0.0.1.evil.com",
      "localhost.evil.com",
      "evil.com:3000",
      "localhost:3000@evil",
      "[::2]",
      "10.0.0.5",
      "localhostx",
      "1.2.3.4",
      undefined,
      "",
    ]) {
      expect(checkHost(loopbackOnly, bad).ok, String(bad)).toBe(false);
    }
  });

  it("adds HOST, ENVFORGE_PUBLIC_URL's host, ENVFORGE_ALLOWED_HOSTS (with *.suffix) and extra addresses", () => {
    for (const ok of [
      "envforge.lab.org:8443",
      "ENVFORGE.LAB.ORG",
      "box-7",
      "a.cluster.lab.org",
      "x.y.cluster.lab.org",
      "10.0.0.5:3000",
      "192.168.1.20",
      "[fe80::1]:3000",
      "localhost",
    ]) {
      expect(checkHost(lab, ok).ok, ok).toBe(true);
    }
    for (const bad of ["cluster.lab.org", "evilcluster.lab.org", "lab.org", "envforge.lab.org.evil.com", "0.0.0.0", "[::]"]) {
      expect(checkHost(lab, bad).ok, bad).toBe(false);
    }
  });

  it("names the refused host so an operator knows what to allow", () => {
    const v = checkHost(loopbackOnly, "dash.lab.org:3000");
    expect(v).toEqual({ ok: false, reason: expect.stringMatching(/dash\.lab\.org.*ENVFORGE_ALLOWED_HOSTS/) });
  });

  it("knows loopback host names", () => {
    expect(isLoopbackHostname("localhost")).toBe(true);
    expect(isLoopbackHostname("127.9.9.9")).toBe(true);
    expect(isLoopbackHostname("::1")).toBe(true);
    expect(isLoopbackHostname("128.0.0.1")).toBe(false);
    expect(isLoopbackHostname("127.0.0.1.evil.com")).toBe(false);
  });
});

describe("Origin policy", () => {
  it("accepts http(s) origins on our names and nothing else", () => {
    expect(isAllowedOrigin(loopbackOnly, "http://127.0.0.1:3000")).toBe(true);
    expect(isAllowedOrigin(loopbackOnly, "http://localhost:3000")).toBe(true);
    expect(isAllowedOrigin(lab, "https://envforge.lab.org:8443")).toBe(true);
    for (const bad of [
      "https://evil.example",
      "http://127.0.0.1.evil.com",
      "null",
      "",
      "file:///etc",
      "javascript:alert(1)",
      "http://user@127.0.0.1",
      "http://evil.com@",
      "not a url",
    ]) {
      expect(isAllowedOrigin(loopbackOnly, bad), bad).toBe(false);
    }
  });
});

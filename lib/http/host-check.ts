/**
 * Which `Host` (and `Origin`) this server answers to: the DNS-rebinding guard. A page on
 * `evil.com` that rebinds its name to 127.0.0.1 reaches our socket with `Host: evil.com`; only the
 * server's own names pass. Pure functions, so the custom server, the route helpers and the tests
 * share one decision.
 */
import { isIP } from "node:net";
import os from "node:os";
import { loadSettings, type Settings } from "@/lib/config/env";

export interface HostPolicy {
  /** Exact host names and bracketless addresses, lower case. */
  names: ReadonlySet<string>;
  /** `*.lab.org` entries as `.lab.org` suffixes. */
  suffixes: readonly string[];
}

const LOOPBACK_NAMES = ["localhost"];
const WILDCARD_ADDRESSES = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * The policy from settings: loopback, HOST, ENVFORGE_PUBLIC_URL's host, ENVFORGE_ALLOWED_HOSTS, plus `extra` (e.g. this machine's
 * interface addresses when HOST listens on all).
 */
export function hostPolicy(
  settings: Pick<Settings, "HOST" | "ENVFORGE_PUBLIC_URL" | "ENVFORGE_ALLOWED_HOSTS">,
  extra: readonly string[] = [],
): HostPolicy {
  const names = new Set<string>(LOOPBACK_NAMES);
  const suffixes: string[] = [];
  const add = (raw: string) => {
    const h = normalizeHostname(raw);
    if (h && !WILDCARD_ADDRESSES.has(h)) names.add(h);
  };
  add(settings.HOST);
  if (settings.ENVFORGE_PUBLIC_URL) add(new URL(settings.ENVFORGE_PUBLIC_URL).hostname);
  for (const entry of settings.ENVFORGE_ALLOWED_HOSTS) {
    if (entry.startsWith("*.")) suffixes.push(entry.slice(1).toLowerCase());
    else add(entry);
  }
  for (const e of extra) add(e);
  return { names, suffixes };
}

/**
 * The server's policy for its settings: listening on every address, this machine's own addresses are its names too (a rebinding page
 * cannot use an IP literal).
 */
export function serverHostPolicy(settings: Pick<Settings, "HOST" | "ENVFORGE_PUBLIC_URL" | "ENVFORGE_ALLOWED_HOSTS">): HostPolicy {
  const own = WILDCARD_ADDRESSES.has(settings.HOST)
    ? Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address))
    : [];
  return hostPolicy(settings, own);
}

/** The policy of this process's settings, the same the server's front door uses. */
export function currentHostPolicy(): HostPolicy {
  return serverHostPolicy(loadSettings());
}

/** A host name or address in canonical form (lower case, no brackets, IPv4 dotted, no trailing dot), or null when it is not one. */
export function normalizeHostname(raw: string): string | null {
  let h = raw.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (isIP(h) === 6) {
    // WHATWG URL canonicalises IPv6 (0:0:0:0:0:0:0:1 -> ::1)
    return new URL(`http://[${h}]/`).hostname.slice(1, -1);
  }
  if (!/^[a-z0-9._-]+$/.test(h) || h.includes("..")) return null;
  if (h.endsWith(".")) h = h.slice(0, -1);
  if (!h) return null;
  try {
    // canonicalises IPv4 shorthands (127.1, 0x7f.0.0.1) the way browsers resolve them
    return new URL(`http://${h}/`).hostname;
  } catch {
    return null;
  }
}

/**
 * Split a Host header (`name`, `name:port`, `[v6]`, `[v6]:port`) into a canonical host name, or
 * null when it is anything else (userinfo, paths, spaces, several values).
 */
export function parseHostHeader(value: string | null | undefined): string | null {
  if (!value) return null;
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(value.trim());
  if (!m) return null;
  if (m[2] !== undefined && Number(m[2]) > 65535) return null;
  return normalizeHostname(m[1]);
}

/** True for names and addresses that always mean this machine. */
export function isLoopbackHostname(hostname: string): boolean {
  if (LOOPBACK_NAMES.includes(hostname)) return true;
  if (isIP(hostname) === 4) return hostname.startsWith("127.");
  if (isIP(hostname) === 6) return hostname === "::1" || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(hostname);
  return false;
}

/** True when a canonical host name is one of the server's own. */
export function isAllowedHostname(policy: HostPolicy, hostname: string): boolean {
  if (isLoopbackHostname(hostname) || policy.names.has(hostname)) return true;
  return policy.suffixes.some((s) => hostname.endsWith(s) && hostname.length > s.length);
}

export type HostVerdict = { ok: true; hostname: string } | { ok: false; reason: string };

/** Decide on a request's Host header. */
export function checkHost(policy: HostPolicy, hostHeader: string | null | undefined): HostVerdict {
  if (!hostHeader) return { ok: false, reason: "The request has no Host header." };
  const hostname = parseHostHeader(hostHeader);
  if (!hostname) return { ok: false, reason: "The Host header is not a host name." };
  if (!isAllowedHostname(policy, hostname)) {
    return {
      ok: false,
      reason: `This server does not answer to the name ${hostname}: add it to ENVFORGE_ALLOWED_HOSTS if it is this server's.`,
    };
  }
  return { ok: true, hostname };
}

/** Decide on an Origin header: an http(s) origin whose host is one of ours. */
export function isAllowedOrigin(policy: HostPolicy, origin: string | null | undefined): boolean {
  if (!origin || origin === "null") return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (url.username || url.password || (url.pathname !== "/" && url.pathname !== "")) return false;
  const hostname = normalizeHostname(url.hostname);
  return hostname !== null && isAllowedHostname(policy, hostname);
}

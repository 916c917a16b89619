/**
 * The base URL a dispatched job calls back on. Without ENVFORGE_PUBLIC_URL it is the origin of the
 * request that created the dispatch, which a job on another machine usually cannot reach (it is
 * often 127.0.0.1), so a target that runs elsewhere needs ENVFORGE_PUBLIC_URL.
 */
import { BadRequest } from "@/lib/errors";
import { loadSettings } from "@/lib/config/env";

const isLoopbackHost = (host: string) => {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\./.test(h);
};

function urlHost(value: unknown): string | null {
  if (typeof value !== "string") return null;
  try {
    return new URL(value).hostname;
  } catch {
    return null;
  }
}

/** Whether a target runs its job on this machine (local, export, or a webhook/Ray/Kubernetes at a loopback address). */
export function targetIsLoopback(adapter: string, config: Record<string, unknown>): boolean {
  if (adapter === "local" || adapter === "export") return true;
  if (adapter === "kubernetes" && config.auth !== undefined && config.auth !== "token") return false; // in a cluster
  const host = urlHost(adapter === "webhook" ? config.url : adapter === "ray" ? config.address : config.apiServer);
  return host !== null && isLoopbackHost(host);
}

/** The callback base URL for a dispatch to this target; a 400 naming ENVFORGE_PUBLIC_URL when a remote job could not reach it. */
export function callbackBase(
  adapter: string,
  config: Record<string, unknown>,
  origin: string,
  publicUrl = loadSettings().ENVFORGE_PUBLIC_URL,
): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, "");
  if (!targetIsLoopback(adapter, config)) {
    throw new BadRequest(
      `This ${adapter} target runs its job on another machine, which cannot call back to ${origin}: set ` +
        `ENVFORGE_PUBLIC_URL to the address jobs reach EnvForge at (e.g. https://envforge.lab.org) and restart.`,
      [{ path: "target", message: "needs ENVFORGE_PUBLIC_URL" }],
    );
  }
  return origin.replace(/\/+$/, "");
}

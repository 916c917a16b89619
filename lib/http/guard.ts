/**
 * The front door of the HTTP server: every request (pages, API routes, static assets, Next's own
 * 404s) passes here before any handler runs. It sets the security headers, refuses foreign Host
 * names with 421, and records the socket's peer address for the first-run check.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { checkHost, type HostPolicy } from "./host-check";

/** Headers on every response: no framing, no MIME sniffing, no referrer leaking paths to other sites. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Frame-Options": "DENY",
  // only what is safe with Next's inline hydration scripts: framing, plugins, <base> and form targets
  "Content-Security-Policy": "frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
};

/** The only header the first-run check and the sign-in limit trust for the peer address; set here, never taken from the client. */
export const PEER_HEADER = "x-envforge-peer";

/**
 * "1" when the request came with forwarding headers (it passed a proxy), absent otherwise; set
 * here because Next.js adds `x-forwarded-*` headers of its own to every request it handles.
 */
export const PROXIED_HEADER = "x-envforge-proxied";

const FORWARDING_HEADERS = ["x-forwarded-for", "x-forwarded-host", "x-real-ip", "forwarded"];

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** Wrap a Node request handler with the Host check, the security headers and the peer header. */
export function guardedHandler(policy: HostPolicy, handle: NodeHandler): NodeHandler {
  return (req, res) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    const verdict = checkHost(policy, req.headers.host);
    if (!verdict.ok) {
      const body = JSON.stringify({
        error: {
          code: "misdirected_request",
          message: verdict.reason,
          details: [{ path: "Host", message: "not one of this server's names" }],
        },
      });
      res.writeHead(421, { "content-type": "application/json", "content-length": Buffer.byteLength(body), connection: "close" });
      res.end(body);
      return;
    }
    req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "";
    if (FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined)) req.headers[PROXIED_HEADER] = "1";
    else delete req.headers[PROXIED_HEADER];
    return handle(req, res);
  };
}

/** The one wrapper every /api/v1 route handler goes through: auth, body limits, error mapping. */
import type { Db } from "@/lib/db/client";
import { getDb } from "@/lib/db/client";
import { authenticate, type Principal } from "@/lib/auth/principal";
import { BadRequest, PayloadTooLarge, UnsupportedMediaType, toErrorResponse } from "./errors";

export interface RouteContext<P> {
  req: Request;
  params: P;
  db: Db;
  principal: Principal;
}

type Handler<P> = (ctx: RouteContext<P>) => Promise<Response | unknown>;

/** Wrap an authenticated JSON handler: returns `Response`s as they are, anything else as 200 JSON. */
export function apiRoute<P = Record<string, never>>(handler: Handler<P>) {
  return async (req: Request, ctx: { params: Promise<P> }): Promise<Response> => {
    try {
      const db = getDb();
      const principal = await authenticate(db, req);
      const params = ((await ctx?.params) ?? {}) as P;
      const out = await handler({ req, params, db, principal });
      return out instanceof Response ? out : Response.json(out);
    } catch (err) {
      return toErrorResponse(err);
    }
  };
}

/** The configured body limit in bytes (ENVFORGE_MAX_BODY_MB, default 256). */
export function maxBodyBytes(): number {
  return Math.floor(Number(process.env.ENVFORGE_MAX_BODY_MB ?? 256) * 1024 * 1024);
}

/** Refuse a body whose declared length is over the limit before reading any of it. */
export function assertDeclaredSize(req: Request, limit = maxBodyBytes()): void {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    throw new PayloadTooLarge(`The body is ${declared} bytes; the limit is ${limit} bytes (ENVFORGE_MAX_BODY_MB).`);
  }
}

/** Read a JSON body with a size limit; malformed JSON or a wrong content type is a clear 4xx. */
export async function readJsonBody(req: Request, limit = Math.min(maxBodyBytes(), 16 * 1024 * 1024)): Promise<unknown> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    throw new UnsupportedMediaType(`Send the body as application/json (got ${type || "no content type"}).`);
  }
  assertDeclaredSize(req, limit);
  if (!req.body) throw new BadRequest("The request body is empty; send a JSON object.");
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new PayloadTooLarge(`The body is over the limit of ${limit} bytes.`);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text.trim()) throw new BadRequest("The request body is empty; send a JSON object.");
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BadRequest(`The body is not valid JSON: ${(err as Error).message}`);
  }
}

/** Parse a positive integer path or query parameter, or throw 400 naming it. */
export function intParam(value: string | null | undefined, name: string): number {
  const n = Number(value);
  if (value === null || value === undefined || value === "" || !Number.isInteger(n) || n < 0) {
    throw new BadRequest(`${name} must be a non-negative integer (got ${JSON.stringify(value)}).`, [{ path: name, message: "must be a non-negative integer" }]);
  }
  return n;
}

/** Request bodies: the configured size limit, refused by declared length before reading, and JSON read within it. */
import { BadRequest, PayloadTooLarge, UnsupportedMediaType } from "@/lib/errors";
import { loadSettings } from "@/lib/config/env";

/** The configured body limit in bytes (ENVFORGE_MAX_BODY_MB, default 256). */
export function maxBodyBytes(): number {
  return Math.floor(loadSettings().ENVFORGE_MAX_BODY_MB * 1024 * 1024);
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

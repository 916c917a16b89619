/** Password hashing (scrypt) and random tokens stored as sha256 digests. */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number) => Promise<Buffer>;

/** Hash a password as `scrypt$<salt>$<hash>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** Check a password against a stored hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, salt, hash] = stored.split("$");
  if (kind !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await scrypt(password, Buffer.from(salt, "base64url"), expected.length);
  return timingSafeEqual(expected, actual);
}

/** sha256 hex of a high-entropy token (API keys, session tokens). */
export function digestToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A new random API key secret, e.g. `efk_3Qm…`. */
export function newApiKeySecret(): string {
  return `efk_${randomBytes(24).toString("base64url")}`;
}

/** A new random session token. */
export function newSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

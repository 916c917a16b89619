/**
 * Target secrets at rest: AES-256-GCM under a key derived (scrypt, fixed salt) from
 * ENVFORGE_SECRET_KEY, stored as `v1:<iv b64>:<tag b64>:<ciphertext b64>`. A target may instead
 * name an environment variable that holds its secret (`secretEnv`), which is never stored.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import { processEnvironment } from "@/lib/config/env";

const VERSION = "v1";
/** Fixed: the key must derive the same on every server; the key material itself is the secret. */
const KDF_SALT = "envforge/dispatch-target-secret/v1";
/** Bound into every ciphertext so a blob cannot be replayed as another kind of EnvForge secret. */
const AAD = Buffer.from("envforge:target-secret:v1");
const MIN_KEY_MATERIAL = 16;

/** A target secret that cannot be read: malformed blob, wrong or missing key, unset variable. */
export class TargetSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetSecretError";
  }
}

const keyCache = new Map<string, Buffer>();

/** The AES-256 key of some key material (scrypt is slow on purpose: cached per material). */
function deriveKey(keyMaterial: string): Buffer {
  if (typeof keyMaterial !== "string" || keyMaterial.length < MIN_KEY_MATERIAL) {
    throw new TargetSecretError(
      `ENVFORGE_SECRET_KEY must be at least ${MIN_KEY_MATERIAL} characters to encrypt or decrypt target secrets.`,
    );
  }
  let key = keyCache.get(keyMaterial);
  if (!key) {
    key = scryptSync(keyMaterial, KDF_SALT, 32, { N: 16384, r: 8, p: 1 });
    keyCache.set(keyMaterial, key);
  }
  return key;
}

/** Encrypts a secret as `v1:<iv>:<tag>:<ciphertext>` (base64 parts; a fresh random IV each time). */
export function encryptSecret(plain: string, keyMaterial: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(keyMaterial), iv);
  cipher.setAAD(AAD);
  const ciphertext = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), ciphertext.toString("base64")].join(":");
}

/** Decrypts a blob from encryptSecret; throws TargetSecretError on a malformed blob or a wrong key. */
export function decryptSecret(blob: string, keyMaterial: string): string {
  const parts = typeof blob === "string" ? blob.split(":") : [];
  if (parts.length !== 4 || parts[0] !== VERSION) {
    throw new TargetSecretError(
      "The stored target secret is not in the expected format (v1:<iv>:<tag>:<ciphertext>): set the target's secret again.",
    );
  }
  const [, ivText, tagText, ctText] = parts;
  const iv = Buffer.from(ivText, "base64");
  const tag = Buffer.from(tagText, "base64");
  if (iv.length !== 12 || tag.length !== 16) {
    throw new TargetSecretError("The stored target secret is damaged (bad IV or tag length): set the target's secret again.");
  }
  const decipher = createDecipheriv("aes-256-gcm", deriveKey(keyMaterial), iv);
  decipher.setAAD(AAD);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(ctText, "base64")), decipher.final()]).toString("utf8");
  } catch {
    throw new TargetSecretError(
      "Cannot decrypt the target secret: ENVFORGE_SECRET_KEY is not the key it was encrypted with (was the key changed?). " +
        "Restore the old key, or set the target's secret again.",
    );
  }
}

/**
 * A target's secret in clear: from the environment variable named by `secretEnv` (preferred when
 * both are set), else decrypted from `secretCiphertext` with env.ENVFORGE_SECRET_KEY; null when
 * the target has none. Throws TargetSecretError saying what to set.
 */
export function resolveSecret(
  target: { secretCiphertext?: string | null; secretEnv?: string | null },
  env: Readonly<Record<string, string | undefined>> = processEnvironment(),
): string | null {
  if (target.secretEnv) {
    const value = env[target.secretEnv];
    if (value === undefined || value === "") {
      throw new TargetSecretError(
        `The target's secret is read from the environment variable ${target.secretEnv}, which is not set on this server: ` +
          `set it, or store the secret on the target.`,
      );
    }
    return value;
  }
  if (target.secretCiphertext) {
    const keyMaterial = env.ENVFORGE_SECRET_KEY;
    if (!keyMaterial) throw new TargetSecretError("ENVFORGE_SECRET_KEY is not set: it is needed to decrypt the target's stored secret.");
    return decryptSecret(target.secretCiphertext, keyMaterial);
  }
  return null;
}

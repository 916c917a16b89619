/** Content hashes of configs: sha256 over canonical JSON (server-side: uses node:crypto). */
import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth; undefined object values are dropped, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    return text === undefined ? "null" : text;
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined && typeof record[key] !== "function")
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
}

/** sha256 (hex) of the canonical JSON of a config: equal configs hash equal regardless of key order. */
export function configHash(config: unknown): string {
  return createHash("sha256").update(canonicalJson(config)).digest("hex");
}

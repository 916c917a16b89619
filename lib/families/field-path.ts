/** Reading and writing config values by dot-joined field path ("grid.size"). */
import type { FamilyConfig } from "./types";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at a dot-joined path, or undefined when any segment is missing. */
export function getFieldValue(config: unknown, path: string): unknown {
  let node: unknown = config;
  for (const key of path.split(".")) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** A copy of `config` with the value at `path` replaced (intermediate objects created); undefined removes the key. */
export function setFieldValue<C extends FamilyConfig>(config: C, path: string, value: unknown): C {
  const keys = path.split(".");
  const write = (node: unknown, depth: number): Record<string, unknown> => {
    const copy: Record<string, unknown> = isRecord(node) ? { ...node } : {};
    const key = keys[depth];
    if (depth === keys.length - 1) {
      if (value === undefined) delete copy[key];
      else copy[key] = value;
    } else {
      copy[key] = write(copy[key], depth + 1);
    }
    return copy;
  };
  return write(config, 0) as C;
}

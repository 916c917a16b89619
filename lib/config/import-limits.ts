/** Limits on what one import may unpack and read (validated at start with the other settings, see env.ts). */
import { z } from "zod";

const megabytes = (fallback: number) =>
  z.coerce.number({ error: "must be a number of megabytes" }).positive("must be above 0").default(fallback);

/** The settings' schema, part of the validated settings. */
export const importLimitsShape = {
  ENVFORGE_IMPORT_MAX_UNPACKED_MB: megabytes(8192),
  ENVFORGE_IMPORT_MAX_ENTRIES: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .positive("must be above 0")
    .default(200_000),
  ENVFORGE_IMPORT_MAX_FILE_MB: megabytes(256),
};

/** Import limits in bytes and entries, from the environment. */
export interface ImportLimits {
  maxUnpackedBytes: number;
  maxEntries: number;
  maxFileBytes: number;
}

/** The import limits now in force (ENVFORGE_IMPORT_MAX_UNPACKED_MB, _ENTRIES, _FILE_MB). */
export function importLimits(env: Record<string, string | undefined> = process.env): ImportLimits {
  const cleaned = Object.fromEntries(Object.keys(importLimitsShape).map((k) => [k, env[k] || undefined]));
  const s = z.object(importLimitsShape).parse(cleaned);
  return {
    maxUnpackedBytes: Math.floor(s.ENVFORGE_IMPORT_MAX_UNPACKED_MB * 1024 * 1024),
    maxEntries: s.ENVFORGE_IMPORT_MAX_ENTRIES,
    maxFileBytes: Math.floor(s.ENVFORGE_IMPORT_MAX_FILE_MB * 1024 * 1024),
  };
}

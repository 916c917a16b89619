/** Settings from environment variables, validated with zod once at start. */
import path from "node:path";
import { z } from "zod";
import { importLimitsShape } from "./import-limits";

const flag = z.enum(["0", "1", "true", "false", "yes", "no", ""]).transform((v) => v === "1" || v === "true" || v === "yes");

const envSchema = z.object({
  PORT: z.coerce
    .number({ error: "must be a port number" })
    .int("must be a whole number")
    .min(1, "must be 1-65535")
    .max(65535, "must be 1-65535")
    .default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  ENVFORGE_DATA_DIR: z.string().min(1).default(".envforge"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
    .optional(),
  ENVFORGE_BOOTSTRAP_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  ENVFORGE_DEMO: flag.optional(),
  ENVFORGE_DEMO_LOOP_MINUTES: z.coerce
    .number({ error: "must be a number of minutes" })
    .int("must be a whole number")
    .min(0, "must be 0 (off) to 59")
    .max(59, "must be 0 (off) to 59")
    .default(30),
  ENVFORGE_PG_PORT: z.coerce
    .number({ error: "must be a port number" })
    .int("must be a whole number")
    .min(1, "must be 1-65535")
    .max(65535, "must be 1-65535")
    .optional(),
  ENVFORGE_MAX_BODY_MB: z.coerce.number({ error: "must be a number of megabytes" }).positive("must be above 0").default(256),
  ENVFORGE_SECRET_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  ENVFORGE_PUBLIC_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://envforge.lab.org" }).optional(),
  // the names this server answers to besides loopback, HOST and ENVFORGE_PUBLIC_URL's host (DNS-rebinding guard)
  ENVFORGE_ALLOWED_HOSTS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^(\*\.)?[a-z0-9._-]+$|^\[[0-9a-f:.]+\]$/,
            "must be a comma-separated list of host names or addresses (no ports, no schemes; `*.lab.org` for subdomains)",
          ),
      ),
    )
    .default([]),
  ENVFORGE_SIGNIN_MAX_FAILURES: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .default(10),
  ENVFORGE_SIGNIN_WINDOW_MINUTES: z.coerce
    .number({ error: "must be a number of minutes" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .default(10),
  // `local` dispatch targets run commands on this machine: allowed by default only for the embedded demo
  ENVFORGE_LOCAL_TARGETS: flag.optional(),
  // the one folder `export` targets write under (default <data>/exports)
  ENVFORGE_EXPORT_DIR: z.string().min(1).optional(),
  ENVFORGE_WORKER: flag.default(true),
  ENVFORGE_WEB: flag.default(true),
  ENVFORGE_DB_POOL: z.coerce
    .number({ error: "must be a number of connections" })
    .int("must be a whole number")
    .min(1, "must be 1-200")
    .max(200, "must be 1-200")
    .default(10),
  ENVFORGE_DISPATCH_BACKOFF_MS: z.coerce
    .number({ error: "must be a number of milliseconds" })
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .default(2000),
  ENVFORGE_DISPATCH_POLL_SECONDS: z.coerce.number({ error: "must be a number of seconds" }).positive("must be above 0").default(5),
  ENVFORGE_DISPATCH_KEY_IDLE_HOURS: z.coerce.number({ error: "must be a number of hours" }).positive("must be above 0").default(168),
  ENVFORGE_DISPATCH_LEASE_SECONDS: z.coerce.number({ error: "must be a number of seconds" }).positive("must be above 0").default(60),
  ...importLimitsShape,
});

export type Settings = z.infer<typeof envSchema> & { dataDir: string; demo: boolean; localTargets: boolean; exportDir: string };

export class SettingsError extends Error {}

/**
 * The environment this process was started with, for what is not a setting: the environment child
 * processes inherit, and variables named at run time (a target's `secretEnv`). The one read of
 * process.env outside settings; everything else goes through loadSettings.
 */
export function processEnvironment(): NodeJS.ProcessEnv {
  return process.env;
}

/** Parse and validate the process environment; a bad value throws one readable sentence. */
export function loadSettings(env: Record<string, string | undefined> = processEnvironment(), cwd = process.cwd()): Settings {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0]);
    throw new SettingsError(`Setting ${name}=${JSON.stringify(env[name])} is not valid: ${issue.message}.`);
  }
  const s = parsed.data;
  const dataDir = path.resolve(cwd, s.ENVFORGE_DATA_DIR);
  // the demo is seeded by default on the embedded database only
  const demo = s.ENVFORGE_DEMO ?? !s.DATABASE_URL;
  return {
    ...s,
    dataDir,
    demo,
    localTargets: s.ENVFORGE_LOCAL_TARGETS ?? demo,
    exportDir: path.resolve(cwd, s.ENVFORGE_EXPORT_DIR ?? path.join(dataDir, "exports")),
  };
}

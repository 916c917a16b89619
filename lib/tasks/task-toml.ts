/**
 * Harbor's task.toml: parsed with smol-toml and checked against our own zod reading of Harbor's
 * TaskConfig (reference: harbor/src/harbor/models/task/config.py). Unknown keys pass (Harbor's
 * pydantic models ignore them); known keys must have Harbor's types and rules.
 */
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { z } from "zod";

const NETWORK_MODES = ["no-network", "public", "allowlist"] as const;
/** org/name, alphanumerics, '-', '_', '.', not starting with a dot (Harbor's package name rule). */
const PACKAGE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*\/[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const SIZE = /^\s*\d+(?:\.\d+)?\s*[KMGkmg]\s*$/;

const nonNegativeInt = z.int("must be a whole number").min(0, "must be 0 or more");
const seconds = z.number("must be a number of seconds").positive("must be above 0");
const stringMap = z.record(z.string(), z.string("must be a string"));
const user = z.union([z.string(), z.int()], "must be a user name or a numeric uid");

const phaseNetwork = {
  network_mode: z.enum(NETWORK_MODES, "must be no-network, public or allowlist").nullish(),
  allowed_hosts: z.array(z.string()).nullish(),
};

const environmentSchema = z.looseObject({
  build_timeout_sec: seconds.optional(),
  docker_image: z.string().nullish(),
  os: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(["linux", "windows"], "must be linux or windows"))
    .optional(),
  cpus: nonNegativeInt.nullish(),
  memory_mb: nonNegativeInt.nullish(),
  storage_mb: nonNegativeInt.nullish(),
  gpus: nonNegativeInt.nullish(),
  gpu_types: z.array(z.string()).nullish(),
  memory: z.string().regex(SIZE, "must be a size like '2G' or '512M'").optional(),
  storage: z.string().regex(SIZE, "must be a size like '10G'").optional(),
  env: stringMap.optional(),
  allow_internet: z.boolean("must be true or false").nullish(),
  ...phaseNetwork,
});

const verifierSchema = z.looseObject({
  timeout_sec: seconds.optional(),
  env: stringMap.optional(),
  user: user.nullish(),
  environment_mode: z.enum(["shared", "separate"], "must be shared or separate").nullish(),
  environment: environmentSchema.nullish(),
  ...phaseNetwork,
});

const agentSchema = z.looseObject({ timeout_sec: seconds.nullish(), user: user.nullish(), ...phaseNetwork });

/** Our reading of Harbor's TaskConfig (the parts with rules; unknown keys pass). */
export const harborTaskTomlSchema = z
  .looseObject({
    schema_version: z.string().optional(),
    version: z.string().optional(),
    task: z
      .looseObject({
        name: z
          .string("must be a string")
          .regex(PACKAGE_NAME, "must be 'org/name' (letters, digits, '-', '_', '.')")
          .refine((n) => !n.includes(".."), "must not contain '..'"),
        version: z.string().min(1, "must not be empty").nullish(),
        description: z.string().optional(),
        authors: z.array(z.looseObject({ name: z.string("must be a string"), email: z.string().nullish() })).optional(),
        keywords: z.array(z.string()).optional(),
      })
      .nullish(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    verifier: verifierSchema.optional(),
    agent: agentSchema.optional(),
    environment: environmentSchema.optional(),
    solution: z.looseObject({ env: stringMap.optional() }).optional(),
    source: z.string().nullish(),
    multi_step_reward_strategy: z.enum(["mean", "final"], "must be mean or final").nullish(),
    steps: z
      .array(
        z.looseObject({
          name: z.string("must be a string").min(1, "must not be empty"),
          agent: agentSchema.optional(),
          verifier: verifierSchema.optional(),
          min_reward: z.union([z.number(), z.record(z.string(), z.number())]).nullish(),
        }),
      )
      .nullish(),
  })
  .superRefine((cfg, ctx) => {
    const checkNetwork = (where: (string | number)[], p?: { network_mode?: string | null; allowed_hosts?: string[] | null } | null) => {
      if (p?.allowed_hosts && p.allowed_hosts.length > 0 && p.network_mode !== "allowlist") {
        ctx.addIssue({ code: "custom", path: [...where, "allowed_hosts"], message: "is only valid when network_mode = 'allowlist'" });
      }
    };
    checkNetwork(["environment"], cfg.environment);
    checkNetwork(["agent"], cfg.agent);
    checkNetwork(["verifier"], cfg.verifier);
    if (cfg.verifier?.environment_mode === "shared" && cfg.verifier.environment) {
      ctx.addIssue({ code: "custom", path: ["verifier", "environment_mode"], message: "'shared' conflicts with [verifier.environment]" });
    }
    const names = (cfg.steps ?? []).map((s) => s.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) ctx.addIssue({ code: "custom", path: ["steps"], message: `step name '${dup}' appears twice` });
  });

export type HarborTaskToml = z.infer<typeof harborTaskTomlSchema>;

/** A task.toml that does not parse or does not follow Harbor's rules. */
export class TaskTomlError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = "TaskTomlError";
  }
}

/** Parse and validate a task.toml text; errors name the line (syntax) or the field (rules). */
export function parseTaskToml(text: string): { raw: Record<string, unknown>; config: HarborTaskToml } {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    const err = e as Error & { line?: number };
    throw new TaskTomlError(`not valid TOML${err.line ? ` (line ${err.line})` : ""}: ${err.message.split("\n")[0]}`);
  }
  const result = harborTaskTomlSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue.path.join(".") || "(root)";
    throw new TaskTomlError(`${field}: ${issue.message}`, field);
  }
  return { raw, config: result.data };
}

/** Harbor's size strings ('2G', '512M', '1024K') in MB, as Harbor converts them. */
export function sizeToMb(size: string): number {
  const s = size.trim().toUpperCase();
  const n = Number(s.slice(0, -1));
  if (s.endsWith("G")) return Math.floor(n * 1024);
  if (s.endsWith("M")) return Math.floor(n);
  return Math.floor(n / 1024);
}

/** The task.toml fields Harbor honours that a terminal-task environment's config carries. */
export interface TaskTomlFields {
  package_name?: string;
  source?: string;
  difficulty?: string;
  category?: string;
  tags?: string[];
  agent_timeout_sec?: number;
  verifier_timeout_sec?: number;
  cpus?: number;
  memory_mb?: number;
  storage_mb?: number;
  gpus?: number;
  allow_internet?: boolean;
  steps?: string[];
}

/** Read the honoured fields out of a validated task.toml (legacy memory/storage/allow_internet mapped as Harbor maps them). */
export function taskTomlFields(cfg: HarborTaskToml): TaskTomlFields {
  const env = cfg.environment ?? {};
  const meta = cfg.metadata ?? {};
  const out: TaskTomlFields = {};
  if (cfg.task?.name) out.package_name = cfg.task.name;
  if (cfg.source) out.source = cfg.source;
  if (typeof meta.difficulty === "string" && meta.difficulty) out.difficulty = meta.difficulty;
  if (typeof meta.category === "string" && meta.category) out.category = meta.category;
  if (Array.isArray(meta.tags)) out.tags = meta.tags.filter((t): t is string => typeof t === "string");
  const agentTimeout = cfg.agent?.timeout_sec ?? undefined;
  if (agentTimeout) out.agent_timeout_sec = Math.max(1, Math.round(agentTimeout));
  if (cfg.verifier?.timeout_sec) out.verifier_timeout_sec = Math.max(1, Math.round(cfg.verifier.timeout_sec));
  if (typeof env.cpus === "number") out.cpus = env.cpus;
  const memory = env.memory_mb ?? (env.memory ? sizeToMb(env.memory) : undefined);
  if (typeof memory === "number") out.memory_mb = memory;
  const storage = env.storage_mb ?? (env.storage ? sizeToMb(env.storage) : undefined);
  if (typeof storage === "number") out.storage_mb = storage;
  if (typeof env.gpus === "number") out.gpus = env.gpus;
  if (env.network_mode) out.allow_internet = env.network_mode !== "no-network";
  else if (typeof env.allow_internet === "boolean") out.allow_internet = env.allow_internet;
  if (cfg.steps?.length) out.steps = cfg.steps.map((s) => s.name);
  return out;
}

/** A name Harbor accepts as [task].name (org/name, no '..'). */
export function isPackageName(name: string): boolean {
  return PACKAGE_NAME.test(name) && !name.includes("..");
}

/**
 * task.toml of an evolved task named for its own folder: Harbor reports a trial under [task].name
 * when the task has one (else the folder name), so a child that kept its parent's name would be
 * reported, and counted by Harbor, as its parent. The parent's org is kept (`harbor/hello-world` ->
 * `harbor/<key>`); when that is not a valid package name the [task] table goes, and Harbor names
 * the task by its folder. With `inherited` (the parent's name), only a name still equal to it is
 * changed. The text is returned as it was when there is nothing to change.
 */
export function nameTaskTomlFor(text: string, key: string, inherited?: string | null): string {
  const { raw } = parseTaskToml(text);
  const task = raw.task as Record<string, unknown> | undefined;
  if (!task || typeof task !== "object" || typeof task.name !== "string") return text;
  if (inherited !== undefined && task.name !== inherited) return text; // a name the engineer or reviewer chose stays
  const name = `${task.name.split("/")[0]}/${key}`;
  if (task.name === name) return text;
  if (isPackageName(name)) task.name = name;
  else delete raw.task;
  const out = stringifyToml(raw);
  parseTaskToml(out);
  return `${out}\n`;
}

/**
 * A new task-wide timeout reaches the steps that set their own: Harbor's multi-step trial takes a
 * step's [steps.agent]/[steps.verifier] timeout_sec before the task's (trial/multi_step.py), so a
 * top-level change alone would change nothing. Each such step timeout is scaled by after/before
 * (the task-wide value before the change), or set to `after` when the task had none.
 */
export function scaleStepTimeouts(raw: Record<string, unknown>, phase: "agent" | "verifier", before: unknown, after: number): void {
  if (!Array.isArray(raw.steps)) return;
  for (const step of raw.steps as Record<string, unknown>[]) {
    const own = step?.[phase] as Record<string, unknown> | undefined;
    if (!own || typeof own !== "object" || typeof own.timeout_sec !== "number") continue;
    own.timeout_sec = typeof before === "number" && before > 0 ? Math.max(1, Math.round((own.timeout_sec * after) / before)) : after;
  }
}

/**
 * task.toml with the honoured fields changed (agent/verifier timeouts, those of steps with their
 * own scaled alike, resources, internet); every other key kept. Used to materialize an evolved task.
 */
export function applyTaskTomlFields(text: string, changes: Partial<TaskTomlFields>): string {
  const { raw } = parseTaskToml(text);
  const section = (name: string) => {
    const cur = raw[name];
    if (cur && typeof cur === "object" && !Array.isArray(cur)) return cur as Record<string, unknown>;
    const made: Record<string, unknown> = {};
    raw[name] = made;
    return made;
  };
  for (const [phase, value] of [
    ["agent", changes.agent_timeout_sec],
    ["verifier", changes.verifier_timeout_sec],
  ] as const) {
    if (value === undefined) continue;
    const before = section(phase).timeout_sec;
    section(phase).timeout_sec = value;
    scaleStepTimeouts(raw, phase, before, value);
  }
  for (const k of ["cpus", "memory_mb", "storage_mb", "gpus"] as const) {
    if (changes[k] !== undefined) {
      const env = section("environment");
      env[k] = changes[k];
      if (k === "memory_mb") delete env.memory;
      if (k === "storage_mb") delete env.storage;
    }
  }
  if (changes.allow_internet !== undefined) {
    const env = section("environment");
    delete env.allow_internet;
    env.network_mode = changes.allow_internet ? "public" : "no-network";
    if (!changes.allow_internet) delete env.allowed_hosts;
  }
  for (const k of ["difficulty", "category", "tags"] as const) if (changes[k] !== undefined) section("metadata")[k] = changes[k];
  const out = stringifyToml(raw);
  parseTaskToml(out);
  return `${out}\n`;
}

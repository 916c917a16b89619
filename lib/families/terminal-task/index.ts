/**
 * `terminal-task`: Tmax's terminal-task taxonomy plus the Harbor task.toml identity of an imported
 * task. Only `task_name` is required, so an imported task known by its name alone validates.
 * Validation here is schema-only: the real check (an oracle solution in a sandbox) runs outside.
 */
import { z } from "zod";
import { defineFamily, describeField } from "../define";
import { hardnessProfile } from "../hardness";
import type { Rng } from "../rng";
import { sampleFromFields } from "../sampling";
import type { DifficultyEstimate, FieldSpec, SampleOptions } from "../types";

export const TERMINAL_DOMAINS = [
  "security",
  "software_engineering",
  "file_operations",
  "data_querying",
  "data_science",
  "debugging",
  "scientific_computing",
  "data_processing",
  "system_administration",
] as const;
export const TERMINAL_LANGUAGES = [
  "bash",
  "python",
  "c",
  "cpp",
  "rust",
  "go",
  "javascript",
  "typescript",
  "java",
  "r",
  "julia",
  "other",
] as const;
export const TASK_COMPLEXITY_LEVELS = ["short", "moderate", "complex", "intricate"] as const;
export const COMMAND_COMPLEXITY_LEVELS = ["bash-only", "bash+code", "bash+code+services"] as const;
export const VERIFIER_KINDS = ["exact_text", "metric_threshold", "adversarial_corpus", "fuzz_equivalence", "multi_protocol"] as const;
export const FIXTURE_KINDS = [
  "text_only",
  "image",
  "audio",
  "video",
  "stripped_binary",
  "vendored_package",
  "multi_service_compose",
] as const;
export const HARBOR_DIFFICULTIES = ["easy", "medium", "hard"] as const;

const f = {
  task_name: { path: "task_name", kind: "nominal", mutable: false, description: "Harbor task name (identity of an imported task)" },
  source: { path: "source", kind: "nominal", mutable: false, description: "Harbor dataset/source of the task, e.g. terminal-bench" },
  git_commit: { path: "git_commit", kind: "nominal", mutable: false, description: "git commit of the task's source repository" },
  git_url: {
    path: "git_url",
    kind: "nominal",
    mutable: false,
    description: "git repository of the task (with git_commit, pins an unchanged task)",
  },
  git_path: {
    path: "git_path",
    kind: "nominal",
    mutable: false,
    description: "the task's folder in its git repository (Harbor checks out that path)",
  },
  package_name: { path: "package_name", kind: "nominal", mutable: false, description: "[task].name of task.toml (org/name)" },
  difficulty: {
    path: "difficulty",
    kind: "nominal",
    levels: [...HARBOR_DIFFICULTIES],
    mutable: false,
    description: "difficulty label from task.toml",
  },
  category: { path: "category", kind: "nominal", mutable: false, description: "category label from task.toml" },
  domain: {
    path: "domain",
    kind: "nominal",
    levels: [...TERMINAL_DOMAINS],
    direction: "diversify",
    mutable: false,
    description: "task domain (Tmax taxonomy)",
  },
  language: {
    path: "language",
    kind: "nominal",
    levels: [...TERMINAL_LANGUAGES],
    direction: "diversify",
    mutable: false,
    description: "main programming language",
  },
  task_complexity: {
    path: "task_complexity",
    mutable: false,
    kind: "ordinal",
    levels: [...TASK_COMPLEXITY_LEVELS],
    difficulty: "up",
    direction: "horizon",
    description: "how much work a solution needs",
  },
  command_complexity: {
    path: "command_complexity",
    mutable: false,
    kind: "ordinal",
    levels: [...COMMAND_COMPLEXITY_LEVELS],
    difficulty: "up",
    direction: "horizon",
    description: "tools a solution needs: shell only, shell plus code, or running services",
  },
  verifier_kind: {
    path: "verifier_kind",
    mutable: false,
    kind: "ordinal",
    levels: [...VERIFIER_KINDS],
    difficulty: "up",
    direction: "precision",
    description: "how strict the verifier is",
  },
  fixture_kind: {
    path: "fixture_kind",
    mutable: false,
    kind: "ordinal",
    levels: [...FIXTURE_KINDS],
    difficulty: "up",
    direction: "uncertainty",
    description: "what the task's input fixtures are",
  },
  agent_timeout_sec: {
    path: "agent_timeout_sec",
    kind: "integer",
    min: 1,
    max: 86400,
    difficulty: "down",
    direction: "precision",
    scale: true,
    description: "agent time budget in seconds ([agent].timeout_sec)",
  },
  verifier_timeout_sec: {
    path: "verifier_timeout_sec",
    kind: "integer",
    min: 1,
    max: 86400,
    mutable: false,
    description: "verifier time budget in seconds ([verifier].timeout_sec)",
  },
  allow_internet: { path: "allow_internet", kind: "boolean", description: "whether the sandbox has internet access" },
  cpus: { path: "cpus", kind: "integer", min: 1, max: 16, scale: true, description: "sandbox CPUs" },
  memory_mb: { path: "memory_mb", kind: "integer", min: 128, max: 262144, scale: true, description: "sandbox memory in MB" },
  storage_mb: { path: "storage_mb", kind: "integer", min: 1, max: 4194304, mutable: false, description: "sandbox storage in MB" },
  gpus: { path: "gpus", kind: "integer", min: 0, max: 64, mutable: false, description: "sandbox GPUs" },
} satisfies Record<string, FieldSpec>;

export const terminalTaskFields: FieldSpec[] = Object.values(f);

const int = (spec: FieldSpec) =>
  z
    .int()
    .min(spec.min as number)
    .max(spec.max as number)
    .describe(describeField(spec));

/** Strict zod schema of a terminal-task config: only task_name is required. */
export const terminalTaskSchema = z.strictObject({
  task_name: z.string().min(1).max(200).describe(describeField(f.task_name)),
  source: z.string().min(1).max(200).optional().describe(describeField(f.source)),
  git_commit: z.string().min(1).max(100).optional().describe(describeField(f.git_commit)),
  git_url: z.string().min(1).max(500).optional().describe(describeField(f.git_url)),
  git_path: z.string().min(1).max(1000).optional().describe(describeField(f.git_path)),
  package_name: z.string().min(1).max(200).optional().describe(describeField(f.package_name)),
  difficulty: z.enum(HARBOR_DIFFICULTIES).optional().describe(describeField(f.difficulty)),
  category: z.string().min(1).max(100).optional().describe(describeField(f.category)),
  domain: z.enum(TERMINAL_DOMAINS).optional().describe(describeField(f.domain)),
  language: z.enum(TERMINAL_LANGUAGES).optional().describe(describeField(f.language)),
  task_complexity: z.enum(TASK_COMPLEXITY_LEVELS).optional().describe(describeField(f.task_complexity)),
  command_complexity: z.enum(COMMAND_COMPLEXITY_LEVELS).optional().describe(describeField(f.command_complexity)),
  verifier_kind: z.enum(VERIFIER_KINDS).optional().describe(describeField(f.verifier_kind)),
  fixture_kind: z.enum(FIXTURE_KINDS).optional().describe(describeField(f.fixture_kind)),
  agent_timeout_sec: int(f.agent_timeout_sec).optional(),
  verifier_timeout_sec: int(f.verifier_timeout_sec).optional(),
  allow_internet: z.boolean().optional().describe(describeField(f.allow_internet)),
  cpus: int(f.cpus).optional(),
  memory_mb: int(f.memory_mb).optional(),
  storage_mb: int(f.storage_mb).optional(),
  gpus: int(f.gpus).optional(),
  tags: z.array(z.string().min(1).max(100)).max(100).optional().describe("tags from task.toml [metadata]"),
  steps: z.array(z.string().min(1).max(200)).max(100).optional().describe("step names of a multi-step task"),
  // Not a field the engineers edit: set when an evolved task's files differ from its parent's, so two tasks with other files never share a config hash.
  files_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .describe("sha256 over the evolved task's file list (paths and content hashes)"),
});

export type TerminalTaskConfig = z.infer<typeof terminalTaskSchema>;

const DIFFICULTY_WEIGHTS: Record<string, number> = {
  task_complexity: 1.5,
  command_complexity: 1,
  verifier_kind: 1,
  fixture_kind: 1,
  agent_timeout_sec: 0.75,
};
const LABEL_HARDNESS: Record<string, number> = { easy: 0.2, medium: 0.5, hard: 0.8 };

/**
 * Taxonomy labels describe a task; changing a label does not change the task (its files), so the
 * engineers never edit them (mutable: false) and evolve what Harbor honours instead (the agent
 * timeout along precision). A synthetic draw (demo, arena) still sets every label.
 */
const SAMPLED_FIELDS: FieldSpec[] = terminalTaskFields.map((field) =>
  ["domain", "language", "task_complexity", "command_complexity", "verifier_kind", "fixture_kind"].includes(field.path)
    ? { ...field, mutable: true }
    : field,
);

/** Draw a synthetic task: every taxonomy field plus a generated task name. */
function sampleTerminalTask(rng: Rng, opts?: SampleOptions): TerminalTaskConfig {
  const drawn = sampleFromFields(rng, SAMPLED_FIELDS, opts) as Omit<TerminalTaskConfig, "task_name">;
  const suffix = rng.int(0, 0xffffff).toString(16).padStart(6, "0");
  return { task_name: `synthetic-${drawn.domain ?? "task"}-${suffix}`.replace(/_/g, "-"), ...drawn };
}

/**
 * Hidden difficulty from the taxonomy fields (missing fields take the task.toml difficulty label's
 * hardness, else the middle). p_max is 1: a task is assumed to have an oracle solution until its
 * sandbox validation says otherwise.
 */
function terminalTaskDifficulty(config: TerminalTaskConfig): DifficultyEstimate {
  const missingHardness = config.difficulty ? LABEL_HARDNESS[config.difficulty] : 0.5;
  const profile = hardnessProfile(terminalTaskFields, config, { weights: DIFFICULTY_WEIGHTS, missingHardness });
  return { difficulty: profile.difficulty, pMax: 1, skills: profile.skills };
}

/** The built-in `terminal-task` family. */
export const terminalTaskFamily = defineFamily<TerminalTaskConfig>({
  id: "terminal-task",
  version: "1",
  description:
    "Terminal tasks (Tmax taxonomy + Harbor task.toml): domain, language, task and command complexity, verifier and " +
    "fixture kinds, timeout and sandbox resources. Validated outside EnvForge by an oracle run in a sandbox.",
  fields: terminalTaskFields,
  schema: terminalTaskSchema,
  sample: sampleTerminalTask,
  difficulty: terminalTaskDifficulty,
});

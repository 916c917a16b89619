/**
 * The Harbor part of the export adapter: `harbor-dataset/<task>/…` (every terminal task of the
 * generation with its files as a complete task folder) and `harbor-job.json`, a JobConfig that
 * Harbor's own validation accepts (harbor/src/harbor/models/job/config.py, trial/config.py):
 * `tasks` entries with a path (a folder of harbor-dataset/, relative to the export folder, so run
 * `harbor run -c harbor-job.json` from there) or, for unchanged imported tasks without files, the
 * task's git repository pinned to its commit; a curriculum weight becomes repeated entries (Harbor
 * expands tasks x agents x n_attempts, job_plan.py); agents come from the target config and are
 * never empty (no agents: no harbor-job.json, with a warning).
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { GenerationPayload } from "../../types";

type Environment = GenerationPayload["environments"][number];

/** Harbor's environment types (harbor/models/environment_type.py): JobConfig refuses any other `environment.type`. */
export const HARBOR_ENVIRONMENT_TYPES = [
  "docker",
  "daytona",
  "e2b",
  "modal",
  "runloop",
  "langsmith",
  "ec2",
  "gke",
  "ack",
  "openshift",
  "novita",
  "apple-container",
  "singularity",
  "islo",
  "tensorlake",
  "cwsandbox",
  "wandb",
  "use-computer",
  "cua-cloud",
  "blaxel",
  "opensandbox",
  "beam",
  "skypilot",
  "hf-sandbox",
  "hyperbrowser",
  "vercel",
] as const;

/** The Harbor settings of an export target (see exportConfigSchema). */
export interface HarborExportSettings {
  jobsDir: string;
  nAttempts: number;
  nConcurrentTrials: number;
  environmentType: (typeof HARBOR_ENVIRONMENT_TYPES)[number];
  datasetName: string | null;
  datasetVersion: string | null;
  datasetPath: string | null;
  agents: Record<string, unknown>[];
  /** most repeated entries a weight can give one task */
  maxRepeats?: number;
}

/** How one environment runs in Harbor. */
export interface HarborTaskPlan {
  key: string;
  /** local: from harbor-dataset/; git: the task's repository at its commit; registry: by name from datasetName; skipped: cannot run */
  kind: "local" | "git" | "registry" | "skipped";
  repeats: number;
  reason?: string;
}

export const HARBOR_DATASET_DIR = "harbor-dataset";

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

/** Whole-number repeats from curriculum weights: the lightest task runs once, the others in proportion (capped). */
export function weightRepeats(weights: number[], max = 10): number[] {
  const positive = weights.filter((w) => w > 0);
  const min = positive.length ? Math.min(...positive) : 1;
  return weights.map((w) => (w > 0 ? Math.max(1, Math.min(max, Math.round(w / min))) : 0));
}

/** Which environments run how (terminal-task projects only; empty otherwise). */
export function planHarborTasks(payload: GenerationPayload, harbor: HarborExportSettings): HarborTaskPlan[] {
  if (payload.project.family !== "terminal-task") return [];
  const repeats = weightRepeats(
    payload.environments.map((e) => e.weight),
    harbor.maxRepeats ?? 10,
  );
  return payload.environments.map((env: Environment, i) => {
    const evolved = env.parentKey !== null;
    const gitUrl = str(env.config.git_url);
    const gitCommit = str(env.config.git_commit);
    let kind: HarborTaskPlan["kind"];
    let reason: string | undefined;
    if (repeats[i] === 0) {
      kind = "skipped";
      reason = "weight 0";
    } else if (env.files && env.files.length > 0) kind = "local";
    else if (!evolved && gitUrl && gitCommit) kind = "git";
    else if (!evolved && harbor.datasetName) kind = "registry";
    else {
      kind = "skipped";
      reason = evolved
        ? "an evolved task without files (materialize it first)"
        : "no task files, no git commit and no datasetName to find it by";
    }
    return { key: env.key, kind, repeats: kind === "skipped" ? 0 : repeats[i], ...(reason ? { reason } : {}) };
  });
}

/** The JobConfig (Harbor's job config.json shape) for the planned tasks; null when nothing can run or no agent is configured. */
export function harborJobConfig(
  payload: GenerationPayload,
  harbor: HarborExportSettings,
  plan = planHarborTasks(payload, harbor),
): Record<string, unknown> | null {
  if (harbor.agents.length === 0) return null;
  const byKey = new Map(payload.environments.map((e) => [e.key, e]));
  const tasks: Record<string, unknown>[] = [];
  const registryNames: string[] = [];
  // an "org/name" dataset is a package (job/config.py is_package): its tasks are named org/name, and it is pinned by ref
  const isPackage = harbor.datasetName?.includes("/") ?? false;
  for (const p of plan) {
    const env = byKey.get(p.key)!;
    if (p.kind === "registry") {
      const name = String(env.config.task_name ?? env.key);
      // task_names are fnmatch patterns over each task's name; a package task's org is not always known here
      registryNames.push(isPackage ? (str(env.config.package_name) ?? `*/${name}`) : name);
      continue;
    }
    if (p.kind === "skipped") continue;
    const entry =
      p.kind === "local"
        ? {
            path: `${HARBOR_DATASET_DIR}/${env.key}`,
            git_url: null,
            git_commit_id: null,
            name: null,
            ref: null,
            overwrite: false,
            download_dir: null,
            source: null,
          }
        : {
            // the task's folder in the repository (a trial's task_id.path); the name for tasks imported before it was kept
            path: str(env.config.git_path) ?? String(env.config.task_name ?? env.key),
            git_url: env.config.git_url,
            git_commit_id: env.config.git_commit,
            name: null,
            ref: null,
            overwrite: false,
            download_dir: null,
            source: str(env.config.source),
          };
    for (let r = 0; r < p.repeats; r++) tasks.push(entry);
  }
  const datasets =
    registryNames.length > 0
      ? [
          {
            path: null,
            name: harbor.datasetName,
            version: isPackage ? null : harbor.datasetVersion,
            ref: isPackage ? harbor.datasetVersion : null,
            registry_url: null,
            registry_path: null,
            overwrite: false,
            download_dir: null,
            task_names: [...new Set(registryNames)],
            exclude_task_names: null,
            n_tasks: null,
          },
        ]
      : [];
  if (tasks.length === 0 && datasets.length === 0) return null;
  return {
    job_name: `${payload.project.slug}-g${payload.generation.index}`,
    jobs_dir: harbor.jobsDir,
    n_attempts: harbor.nAttempts,
    timeout_multiplier: 1.0,
    agent_timeout_multiplier: null,
    verifier_timeout_multiplier: null,
    agent_setup_timeout_multiplier: null,
    environment_build_timeout_multiplier: null,
    debug: false,
    n_concurrent_trials: harbor.nConcurrentTrials,
    quiet: false,
    retry: {
      max_retries: 0,
      include_exceptions: null,
      exclude_exceptions: [
        "RewardFileEmptyError",
        "VerifierOutputParseError",
        "RewardFileNotFoundError",
        "AgentTimeoutError",
        "VerifierTimeoutError",
      ],
      wait_multiplier: 1.0,
      min_wait_sec: 1.0,
      max_wait_sec: 60.0,
    },
    environment: {
      type: harbor.environmentType,
      import_path: null,
      force_build: false,
      delete: true,
      override_cpus: null,
      override_memory_mb: null,
      override_storage_mb: null,
      override_gpus: null,
      // current keys: Harbor warns on mounts_json and suppress_override_warnings (deprecated, models/trial/config.py)
      mounts: null,
      env: {},
      kwargs: {},
    },
    verifier: { override_timeout_sec: null, max_timeout_sec: null, env: {}, disable: false },
    metrics: [],
    agents: harbor.agents,
    datasets,
    tasks,
    artifacts: [],
  };
}

/** A stored task file path is written only inside its task folder. */
function safeJoin(dir: string, rel: string): string {
  const parts = rel.split("/");
  if (!rel || rel.includes("\\") || rel.includes("\0") || parts.some((s) => s === "" || s === "." || s === ".."))
    throw new Error(`refusing task file path '${rel}'`);
  const out = path.join(dir, ...parts);
  if (!out.startsWith(dir + path.sep)) throw new Error(`refusing task file path '${rel}'`);
  return out;
}

/** Write harbor-dataset/<key>/… for the planned local tasks into `staging`; returns the number of files written. */
export async function writeHarborDataset(
  staging: string,
  payload: GenerationPayload,
  plan: HarborTaskPlan[],
  readBlob: (sha256: string) => Promise<Buffer>,
): Promise<number> {
  const byKey = new Map(payload.environments.map((e) => [e.key, e]));
  let written = 0;
  for (const p of plan) {
    if (p.kind !== "local") continue;
    const env = byKey.get(p.key)!;
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(env.key)) throw new Error(`environment key '${env.key}' cannot be a task folder name`);
    const taskDir = path.join(staging, HARBOR_DATASET_DIR, env.key);
    // Harbor lists only task folders with an environment/ (Task.is_valid_dir); stored files cannot hold an empty one
    await fs.mkdir(path.join(taskDir, "environment"), { recursive: true });
    for (const f of env.files ?? []) {
      const target = safeJoin(taskDir, f.path);
      await fs.mkdir(path.dirname(target), { recursive: true });
      // flag "wx": never through an existing file or link
      await fs.writeFile(target, await readBlob(f.sha256), { flag: "wx", mode: f.executable ? 0o755 : 0o644 });
      written++;
    }
  }
  return written;
}

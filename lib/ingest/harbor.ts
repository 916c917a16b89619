/**
 * Reads Harbor job directories (one folder per trial) into normalized rollouts and
 * `terminal-task` environments. Layout: shared/fixtures/harbor-tb2/README.md.
 */
import path from "node:path";
import { z } from "zod";
import { commandsFromTrajectory, environmentDamage } from "@/lib/analytics/blame";
import {
  ctrfSummary,
  headlineReward,
  readAgentLog,
  readRewardFiles,
  readTrajectory,
  testCounts,
  type HarborFileReader,
  type Rewards,
  type TrajectoryRead,
} from "./harbor-parts";
import {
  AGENT_LOG_FLAG,
  NO_REWARD_FLAG,
  countTurns,
  rolloutSchema,
  type Message,
  type NormalizedRollout,
  type RolloutInput,
} from "./normalized";
import { LINK_REFUSED, SafeTree, UnsafeEntryError } from "./safe-tree";
import {
  phaseSchema,
  trialConfigSchema,
  trialResultSchema,
  type TrialResult,
  usageSchema,
  timingSchema,
  jobResultSchema,
} from "./harbor-schema";

// --- Public shapes ----------------------------------------------------------------------

/** Config of a `terminal-task` environment as far as a Harbor trial reveals it. */
export interface TerminalTaskConfig {
  task_name: string;
  source?: string;
  git_commit?: string;
  git_url?: string;
  /** the task's folder in the git repository */
  git_path?: string;
  package_name?: string;
  agent_timeout_sec?: number;
  cpus?: number;
  memory_mb?: number;
  allow_internet?: boolean;
}

/** Why a trial deserves a second look. */
export type HarborTrialFlag =
  | typeof NO_REWARD_FLAG
  | "no_trajectory"
  /** no trajectory.json: the agent's own log stands in for it (readAgentLog), turns unknown */
  | typeof AGENT_LOG_FLAG
  | "unreadable_trajectory"
  | "no_verifier_output"
  | "rewarded_despite_exception"
  | "multiple_rewards";

/** One trial read into the normalized shape. */
export interface HarborTrial {
  trialName: string;
  taskName: string;
  rollout: NormalizedRollout;
  environment: { key: string; config: TerminalTaskConfig };
  flags: HarborTrialFlag[];
}

/** Harbor's own figures of one eval in a job's result.json. */
export interface HarborEvalFigures {
  name: string;
  nTrials: number | null;
  nErrors: number | null;
  mean: number | null;
  passAtK: Record<string, number>;
  /** reward value (as Harbor prints it, e.g. "1.0") -> number of trials */
  rewardCounts: Record<string, number>;
  /** exception type -> number of trials */
  exceptionCounts: Record<string, number>;
}

/** Harbor's own figures of a job (job-level result.json). */
export interface HarborJobFigures {
  jobId: string | null;
  nTotalTrials: number | null;
  nCompletedTrials: number | null;
  nErroredTrials: number | null;
  evals: HarborEvalFigures[];
  /** the single eval's mean, pass@k and exception counts (null when the job has several evals) */
  mean: number | null;
  passAtK: Record<string, number>;
  exceptionCounts: Record<string, number>;
}

/** A Harbor job read from disk. */
export interface HarborJob {
  job: { id: string; name: string; dir: string; config: unknown; result: unknown; figures: HarborJobFigures | null };
  trials: HarborTrial[];
  /** trial folders that could not be read, with the reason (every folder is either here or in trials) */
  unreadable: { trialDir: string; reason: string }[];
}

/** A Harbor file that is missing or malformed. */
export class HarborFormatError extends Error {
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(`${file}: ${message}`);
    this.name = "HarborFormatError";
  }
}

// --- Reading ----------------------------------------------------------------------------

// Every file is read through a SafeTree: links are never followed (safe-tree.ts).

async function readJsonIn(tree: SafeTree, file: string): Promise<unknown | undefined> {
  const text = await tree.readText(file);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HarborFormatError(`not valid JSON (${(e as Error).message})`, file);
  }
}

/**
 * One trial's file reader over a tree. A refused entry (a link, a device, a file over the size
 * limit) is remembered even where a caller tolerates a failed read, so the whole trial is refused
 * with it (`assertNothingRefused`) instead of being read without that file.
 */
class TrialFiles implements HarborFileReader {
  private refused: UnsafeEntryError | undefined;
  constructor(readonly tree: SafeTree) {}
  private async guard<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (e) {
      if (e instanceof UnsafeEntryError) this.refused ??= e;
      throw e;
    }
  }
  readJson = (file: string) => this.guard(() => readJsonIn(this.tree, file));
  readText = (file: string) => this.guard(() => this.tree.readText(file));
  entries = (dir: string) => this.guard(() => this.tree.entries(dir));
  assertNothingRefused() {
    if (this.refused) throw this.refused;
  }
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, file: string): T {
  const r = schema.safeParse(value);
  if (!r.success) {
    const first = r.error.issues[0];
    throw new HarborFormatError(`unexpected shape at ${first.path.join(".") || "(root)"}: ${first.message}`, file);
  }
  return r.data;
}

/** Harbor writes trial times with a Z and job times without; the API wants an offset. */
function isoTimestamp(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const withZone = /(?:Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`;
  return Number.isNaN(Date.parse(withZone)) ? undefined : withZone;
}

function phase(p: z.infer<typeof phaseSchema>) {
  const startedAt = isoTimestamp(p?.started_at);
  const finishedAt = isoTimestamp(p?.finished_at);
  if (!startedAt && !finishedAt) return null;
  const durationSec = startedAt && finishedAt ? (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000 : null;
  return { startedAt: startedAt ?? null, finishedAt: finishedAt ?? null, durationSec };
}

function definedOnly<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined && v !== null)) as T;
}

function terminalTaskConfig(taskName: string, result: TrialResult): TerminalTaskConfig {
  const cfg = result.config;
  const multiplier = cfg?.agent_timeout_multiplier ?? cfg?.timeout_multiplier ?? 1;
  const timeout = cfg?.agent?.override_timeout_sec;
  const gitUrl = result.task_id?.git_url ?? cfg?.task?.git_url ?? undefined;
  return definedOnly<TerminalTaskConfig>({
    task_name: taskName,
    source: result.source ?? cfg?.task?.source ?? undefined,
    git_commit: result.task_id?.git_commit_id ?? cfg?.task?.git_commit_id ?? undefined,
    git_url: gitUrl,
    // the folder in the repository Harbor checked out (tasks/client.py), needed to run the task again
    git_path: gitUrl ? (result.task_id?.path ?? cfg?.task?.path ?? undefined) : undefined,
    // Harbor's name of a task with a [task].name (org/name): how a package dataset finds it again
    package_name: result.task_name?.includes("/") ? result.task_name : undefined,
    agent_timeout_sec: typeof timeout === "number" ? timeout * multiplier : undefined,
    cpus: cfg?.environment?.override_cpus ?? undefined,
    memory_mb: cfg?.environment?.override_memory_mb ?? undefined,
  });
}

/** The last non-empty part of a path, `/` or `\\` separated (no regular expression: lib/analytics/regex-safety.test.ts). */
function lastPart(p: string | null | undefined): string | undefined {
  const parts = (p ?? "").split("/").flatMap((part) => part.split("\\"));
  for (let i = parts.length - 1; i >= 0; i--) if (parts[i]) return parts[i];
  return undefined;
}

/**
 * The environment key of a trial's task: its folder name, as task imports key tasks. Harbor
 * reports a task that has a [task].name under that package name ("org/name", models/task/task.py),
 * so then the folder is the last part of the task's path (task_id, else the trial config's), and
 * for a registry package without a path, the name after the org.
 */
export function trialTaskKey(result: Pick<TrialResult, "task_name" | "task_id" | "config">, trialName: string): string {
  const reported = result.task_name ?? undefined;
  if (reported && !reported.includes("/")) return reported;
  const folder = lastPart(result.task_id?.path) ?? lastPart(result.config?.task?.path);
  if (folder) return folder;
  return lastPart(reported) ?? trialName.split("__")[0];
}

function policyOf(result: TrialResult): string | undefined {
  const model = result.agent_info?.model_info?.name;
  if (model) return model;
  const configured = result.config?.agent?.model_name;
  if (configured) return configured.includes("/") ? configured.slice(configured.indexOf("/") + 1) : configured;
  return result.agent_info?.name ?? undefined;
}

const TRACEBACK_MAX = 8 * 1024;

/** Options of readHarborTrial / readHarborJob about what a trial means. */
export interface HarborReadOptions {
  /** the reward key a rollout is scored by when the verifier writes several (`--reward-key`) */
  rewardKey?: string;
  /** the tree the files lie in (default: one rooted at the folder read); nothing outside it is read */
  tree?: SafeTree;
}

/** What one agent/ + verifier/ pair holds (a single-step trial, or one step of a multi-step trial). */
interface UnitRead {
  trajectory: TrajectoryRead;
  verifierOutput?: string;
  fileRewards?: Rewards;
  rewardFileProblem?: string;
  ctrf?: ReturnType<typeof ctrfSummary>;
  maxSteps?: number;
  formatErrors?: number;
  usage?: z.infer<typeof usageSchema>;
}

async function readUnit(dir: string, files: TrialFiles, agentName: string | undefined): Promise<UnitRead> {
  const agentDir = path.join(dir, "agent");
  const verifierDir = path.join(dir, "verifier");
  const [structured, rawUsage, rawTiming, verifierOutput, rewardFiles, rawCtrf] = await Promise.all([
    readTrajectory(agentDir, files),
    files.readJson(path.join(agentDir, "usage.json")).catch(() => undefined),
    files.readJson(path.join(agentDir, "timing.json")).catch(() => undefined),
    files.readText(path.join(verifierDir, "test-stdout.txt")),
    readRewardFiles(verifierDir, files),
    files.readJson(path.join(verifierDir, "ctrf.json")).catch(() => undefined),
  ]);
  const usage = usageSchema.safeParse(rawUsage);
  const timing = timingSchema.safeParse(rawTiming);
  // an agent that writes no trajectory.json (aider, kimi-code, pi, ...): its own log, so the trial is not left empty
  const trajectory = structured.missing ? ((await readAgentLog(agentDir, agentName, files)) ?? structured) : structured;
  return {
    trajectory,
    verifierOutput,
    fileRewards: rewardFiles.rewards,
    rewardFileProblem: rewardFiles.problem,
    ctrf: ctrfSummary(rawCtrf),
    usage: usage.success ? usage.data : undefined,
    maxSteps: usage.success ? (usage.data.max_steps ?? undefined) : undefined,
    formatErrors: timing.success ? timing.data.filter((x) => x.format_error === true).length : undefined,
  };
}

function sumOrUndefined(values: (number | null | undefined)[]): number | undefined {
  const present = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  return present.length ? present.reduce((a, b) => a + b, 0) : undefined;
}

/** Step folders of a multi-step trial: in step_results order, else the folders under steps/ by name. */
async function stepNames(trialDir: string, result: TrialResult, files: TrialFiles): Promise<string[]> {
  if (result.step_results && result.step_results.length > 0) return result.step_results.map((r) => r.step_name);
  try {
    const entries = await files.entries(path.join(trialDir, "steps"));
    return entries
      .filter((e) => e.kind === "dir" || e.kind === "link")
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

const SAFE_STEP_NAME = /^[\w.-]{1,200}$/;

/** Reads one Harbor trial folder (result.json, config.json, agent/, verifier/, or steps/<name>/…) into a normalized rollout. */
export async function readHarborTrial(trialDir: string, options: HarborReadOptions = {}): Promise<HarborTrial> {
  const files = new TrialFiles(options.tree ?? (await SafeTree.open(trialDir)));
  const resultFile = path.join(trialDir, "result.json");
  const rawResult = await files.readJson(resultFile);
  if (rawResult === undefined) throw new HarborFormatError("missing (the trial never finished?)", resultFile);
  const result = parseWith(trialResultSchema, rawResult, resultFile);
  if (!result.config) {
    const rawConfig = await files.readJson(path.join(trialDir, "config.json"));
    if (rawConfig !== undefined) result.config = parseWith(trialConfigSchema, rawConfig, path.join(trialDir, "config.json"));
  }

  const folder = path.basename(trialDir);
  const trialName = result.trial_name ?? folder;
  const taskName = trialTaskKey(result, trialName);
  const policy = policyOf(result);
  if (!policy) throw new HarborFormatError("no agent_info.model_info.name nor config.agent.model_name to name the policy", resultFile);

  // Multi-step trials keep each step's agent/ and verifier/ under steps/<name>/ (models/trial/paths.py).
  const names = (await stepNames(trialDir, result, files)).filter((n) => SAFE_STEP_NAME.test(n));
  const multiStep = names.length > 0;
  const units = multiStep
    ? await Promise.all(names.map((n) => readUnit(path.join(trialDir, "steps", n), files, result.agent_info?.name ?? undefined)))
    : [await readUnit(trialDir, files, result.agent_info?.name ?? undefined)];
  // a link (or other refused entry) met anywhere above refuses the trial, named by the entry
  files.assertNothingRefused();

  const flags: HarborTrialFlag[] = [];
  const problems: string[] = [];
  const stepResults = new Map((result.step_results ?? []).map((r) => [r.step_name, r]));

  // Rewards: result.json as Harbor recorded them, else the reward files the verifier wrote.
  const lastUnit = units[units.length - 1];
  const lastStep = multiStep ? stepResults.get(names[names.length - 1]) : undefined;
  const rewards: Rewards | undefined =
    result.verifier_result?.rewards ?? lastStep?.verifier_result?.rewards ?? lastUnit.fileRewards ?? undefined;
  const headline = headlineReward(rewards, options.rewardKey);
  if (lastUnit.rewardFileProblem && !rewards) problems.push(lastUnit.rewardFileProblem);
  if (headline.problem) problems.push(headline.problem);
  if (rewards && Object.keys(rewards).length > 1 && options.rewardKey === undefined && !("reward" in rewards))
    flags.push("multiple_rewards");
  const hasReward = headline.value !== undefined;
  if (!hasReward) flags.push(NO_REWARD_FLAG);

  const exception = result.exception_info ?? [...stepResults.values()].find((r) => r.exception_info)?.exception_info;
  if (exception && hasReward && (headline.value as number) > 0) flags.push("rewarded_despite_exception");

  // Trajectories: one per step, each message tagged with its step.
  const messages: Message[] = [];
  let anyTrajectory = false;
  units.forEach((u, i) => {
    if (u.trajectory.problem) problems.push(`${multiStep ? `step ${names[i]}: ` : ""}trajectory: ${u.trajectory.problem}`);
    if (!u.trajectory.messages) return;
    anyTrajectory = true;
    for (const m of u.trajectory.messages) messages.push(multiStep ? { ...m, step: names[i] } : m);
  });
  const trajectory = anyTrajectory ? messages : undefined;
  // a console log has no turns to count: turns stay unknown unless a structured trajectory was read
  const structuredTurns = units.some((u) => u.trajectory.messages && u.trajectory.format !== "agent-log");
  if (units.some((u) => u.trajectory.format === "agent-log")) flags.push(AGENT_LOG_FLAG);
  if (!anyTrajectory) flags.push(units.some((u) => u.trajectory.problem) ? "unreadable_trajectory" : "no_trajectory");
  else if (units.some((u) => u.trajectory.problem)) flags.push("unreadable_trajectory");

  const outputs = units.map((u, i) =>
    u.verifierOutput === undefined ? undefined : multiStep ? `=== step ${names[i]} ===\n${u.verifierOutput}` : u.verifierOutput,
  );
  const presentOutputs = outputs.filter((o): o is string => o !== undefined);
  const verifierOutput = presentOutputs.length ? presentOutputs.join("\n") : undefined;
  if (verifierOutput === undefined) flags.push("no_verifier_output");

  // Tokens and cost: result.json's agent_result, else the sum over steps (compute_token_cost_totals), else the agent's own files.
  const contexts = result.agent_result ? [result.agent_result] : [...stepResults.values()].map((r) => r.agent_result).filter((c) => c);
  const atif = units.map((u) => u.trajectory.atif);
  const inputTokens =
    sumOrUndefined(contexts.map((c) => c?.n_input_tokens)) ??
    sumOrUndefined(units.map((u) => u.usage?.prompt_tokens)) ??
    sumOrUndefined(atif.map((a) => a?.totalPromptTokens));
  const outputTokens =
    sumOrUndefined(contexts.map((c) => c?.n_output_tokens)) ??
    sumOrUndefined(units.map((u) => u.usage?.completion_tokens)) ??
    sumOrUndefined(atif.map((a) => a?.totalCompletionTokens));
  const cacheTokens = sumOrUndefined(contexts.map((c) => c?.n_cache_tokens)) ?? sumOrUndefined(atif.map((a) => a?.totalCachedTokens));
  const costUsd = sumOrUndefined(contexts.map((c) => c?.cost_usd)) ?? sumOrUndefined(atif.map((a) => a?.totalCostUsd));

  const unitTests = units.map((u) => testCounts(u.verifierOutput, u.ctrf));
  const tests = unitTests.some((t) => t)
    ? { passed: sumOrUndefined(unitTests.map((t) => t?.passed)) ?? 0, failed: sumOrUndefined(unitTests.map((t) => t?.failed)) ?? 0 }
    : undefined;
  const damage = environmentDamage(commandsFromTrajectory(trajectory));

  const steps = multiStep
    ? names.map((name, i) => {
        const r = stepResults.get(name);
        const stepRewards = r?.verifier_result?.rewards ?? units[i].fileRewards ?? undefined;
        const stepMessages = units[i].trajectory.messages;
        return definedOnly({
          name,
          rewards: stepRewards,
          reward: headlineReward(stepRewards, options.rewardKey).value,
          inputTokens: r?.agent_result?.n_input_tokens ?? units[i].trajectory.atif?.totalPromptTokens,
          outputTokens: r?.agent_result?.n_output_tokens ?? units[i].trajectory.atif?.totalCompletionTokens,
          cacheTokens: r?.agent_result?.n_cache_tokens ?? undefined,
          costUsd: r?.agent_result?.cost_usd ?? units[i].trajectory.atif?.totalCostUsd,
          turns: stepMessages && units[i].trajectory.format !== "agent-log" ? countTurns(stepMessages) : undefined,
          tests: unitTests[i],
          hasTrajectory: stepMessages !== undefined,
          hasVerifierOutput: units[i].verifierOutput !== undefined,
          error: r?.exception_info
            ? { type: r.exception_info.exception_type ?? "Exception", message: (r.exception_info.exception_message ?? "").slice(0, 2000) }
            : undefined,
          agentExecution: phase(r?.agent_execution),
          verifier: phase(r?.verifier),
        });
      })
    : undefined;

  const firstAtif = atif.find((a) => a);
  const metadata = definedOnly({
    source: "harbor",
    flags,
    trialName,
    taskName,
    jobId: result.config?.job_id ?? undefined,
    taskChecksum: result.task_checksum ?? undefined,
    taskGitUrl: result.task_id?.git_url ?? undefined,
    agent: result.agent_info
      ? definedOnly({
          name: result.agent_info.name ?? undefined,
          version: result.agent_info.version ?? undefined,
          provider: result.agent_info.model_info?.provider ?? undefined,
        })
      : undefined,
    rewards: rewards ?? undefined,
    rewardKey: headline.key,
    problems: problems.length ? problems : undefined,
    trajectoryFormat: units.find((u) => u.trajectory.format)?.trajectory.format,
    atif: firstAtif,
    steps,
    tests,
    ctrf: multiStep ? undefined : units[0].ctrf,
    // always recorded (even empty) so classification never has to read the trajectory again
    environmentDamage: damage,
    cacheTokens,
    costUsd,
    maxSteps: units.find((u) => u.maxSteps !== undefined)?.maxSteps,
    formatErrors: sumOrUndefined(units.map((u) => u.formatErrors)),
    phases: definedOnly({
      environmentSetup: phase(result.environment_setup),
      agentSetup: phase(result.agent_setup),
      agentExecution: phase(result.agent_execution),
      verifier: phase(result.verifier),
    }),
    exceptionTraceback: exception?.exception_traceback ? exception.exception_traceback.slice(-TRACEBACK_MAX) : undefined,
    exceptionOccurredAt: exception?.occurred_at ?? undefined,
  });

  const candidate = definedOnly({
    externalId: result.id ?? trialName,
    environmentKey: taskName,
    policy,
    reward: hasReward ? headline.value : 0,
    status: exception ? "errored" : "completed",
    error: exception ? { type: exception.exception_type ?? "Exception", message: exception.exception_message ?? "" } : undefined,
    inputTokens: typeof inputTokens === "number" ? Math.round(inputTokens) : undefined,
    outputTokens: typeof outputTokens === "number" ? Math.round(outputTokens) : undefined,
    turns: trajectory && structuredTurns ? countTurns(trajectory) : undefined,
    startedAt: isoTimestamp(result.started_at),
    finishedAt: isoTimestamp(result.finished_at),
    trajectory,
    verifierOutput,
    metadata,
  });
  const parsed = rolloutSchema.safeParse(candidate);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new HarborFormatError(`does not map to a rollout: ${first.path.join(".")}: ${first.message}`, resultFile);
  }
  return {
    trialName,
    taskName,
    rollout: parsed.data,
    environment: { key: taskName, config: terminalTaskConfig(taskName, result) },
    flags,
  };
}

/**
 * Harbor's own figures from a job-level result.json (mean, pass@k, reward and exception buckets).
 * With several reward keys Harbor computes each metric per key; `rewardKey` (else "reward", else
 * the only key) picks the one our headline reward follows.
 */
export function harborJobFigures(result: unknown, rewardKey?: string): HarborJobFigures {
  const r = parseWith(jobResultSchema, result, "result.json");
  const evals: HarborEvalFigures[] = Object.entries(r.stats?.evals ?? {}).map(([name, e]) => {
    const statKeys = Object.keys(e.reward_stats ?? {});
    const key = rewardKey ?? (statKeys.includes("reward") || statKeys.length !== 1 ? "reward" : statKeys[0]);
    // one key: Harbor names the metric ("mean"); several: each key carries its own value
    const meanEntry =
      (e.metrics ?? []).find((m) => typeof m.mean === "number") ?? (e.metrics ?? []).find((m) => typeof m[key] === "number");
    const rewardCounts: Record<string, number> = {};
    for (const [value, trials] of Object.entries(e.reward_stats?.[key] ?? {})) rewardCounts[value] = trials.length;
    const exceptionCounts: Record<string, number> = {};
    for (const [type, trials] of Object.entries(e.exception_stats ?? {})) exceptionCounts[type] = trials.length;
    return {
      name,
      nTrials: e.n_trials ?? null,
      nErrors: e.n_errors ?? null,
      mean: meanEntry ? ((typeof meanEntry.mean === "number" ? meanEntry.mean : meanEntry[key]) as number) : null,
      passAtK: { ...(e.pass_at_k ?? {}) },
      rewardCounts,
      exceptionCounts,
    };
  });
  const only = evals.length === 1 ? evals[0] : null;
  return {
    jobId: r.id ?? null,
    nTotalTrials: r.n_total_trials ?? null,
    nCompletedTrials: r.stats?.n_completed_trials ?? null,
    nErroredTrials: r.stats?.n_errored_trials ?? null,
    evals,
    mean: only?.mean ?? null,
    passAtK: only?.passAtK ?? {},
    exceptionCounts: only?.exceptionCounts ?? {},
  };
}

/** True for a Harbor trial folder (it holds config.json or result.json; a link there still marks it, to be refused when read). */
export async function isTrialDir(dir: string, tree?: SafeTree): Promise<boolean> {
  const files = tree ?? (await SafeTree.open(dir));
  // A trial folder holds config.json (written first) and, once finished, result.json.
  for (const f of ["config.json", "result.json"]) {
    const kind = await files.kind(path.join(dir, f)).catch(() => undefined);
    if (kind === "file" || kind === "link") return true;
  }
  return false;
}

/** Options of readHarborJob. */
export interface ReadHarborJobOptions extends HarborReadOptions {
  /** trials read at once (default 16) */
  concurrency?: number;
  /** called after each trial folder, read or not */
  onProgress?: (done: number, total: number) => void;
}

/** A Harbor job folder opened: its config and result (with Harbor's own figures) and its trial folders, not yet read. */
export interface OpenedHarborJob {
  job: HarborJob["job"];
  /** trial folders in trial-name order */
  trialDirs: string[];
  /** entries refused before any trial is read (linked folders) */
  unreadable: { trialDir: string; reason: string }[];
}

/** Opens a Harbor job directory: the job's config and result, and which of its folders are trials. */
export async function openHarborJob(jobDir: string, options: HarborReadOptions = {}): Promise<OpenedHarborJob> {
  const tree = options.tree ?? (await SafeTree.open(jobDir));
  const trialDirs: string[] = [];
  const unreadable: { trialDir: string; reason: string }[] = [];
  for (const e of await tree.entries(jobDir)) {
    if (e.kind === "dir" && (await isTrialDir(e.path, tree))) trialDirs.push(e.path);
    // a linked folder may be a trial elsewhere on the machine: never entered, always reported
    else if (e.kind === "link") unreadable.push({ trialDir: e.path, reason: `${tree.relative(e.path)}: ${LINK_REFUSED}` });
  }

  const [config, result] = await Promise.all([
    readJsonIn(tree, path.join(jobDir, "config.json")),
    readJsonIn(tree, path.join(jobDir, "result.json")),
  ]);
  const figures = result === undefined ? null : harborJobFigures(result, options.rewardKey);
  const jobName =
    (config && typeof (config as { job_name?: unknown }).job_name === "string" ? (config as { job_name: string }).job_name : undefined) ??
    path.basename(jobDir);
  return {
    job: { id: figures?.jobId ?? jobName, name: jobName, dir: jobDir, config: config ?? null, result: result ?? null, figures },
    trialDirs,
    unreadable,
  };
}

/** One trial folder read: the trial, or why it could not be read. */
export type HarborTrialRead = { trialDir: string; trial: HarborTrial } | { trialDir: string; reason: string };

/**
 * The trial folders read `concurrency` at a time (default 16) and handed out in their order as soon as each is read,
 * so a caller can send the first trials while later ones are still read and never holds a whole job.
 */
export async function* readHarborTrials(trialDirs: string[], options: ReadHarborJobOptions = {}): AsyncGenerator<HarborTrialRead> {
  const concurrency = Math.max(1, options.concurrency ?? 16);
  const reading: Promise<HarborTrialRead>[] = [];
  let next = 0;
  const start = () => {
    const trialDir = trialDirs[next++];
    reading.push(
      readHarborTrial(trialDir, { rewardKey: options.rewardKey, tree: options.tree }).then(
        (trial) => ({ trialDir, trial }),
        (e: unknown) => ({ trialDir, reason: (e as Error).message }),
      ),
    );
  };
  while (next < trialDirs.length && reading.length < concurrency) start();
  let done = 0;
  while (reading.length) {
    const read = await reading.shift()!;
    if (next < trialDirs.length) start();
    options.onProgress?.(++done, trialDirs.length);
    yield read;
  }
}

/**
 * Reads a Harbor job directory: job config and result (with Harbor's own figures) and every
 * trial folder, in trial-name order; a folder that cannot be read is listed in `unreadable`.
 */
export async function readHarborJob(jobDir: string, options: ReadHarborJobOptions = {}): Promise<HarborJob> {
  const tree = options.tree ?? (await SafeTree.open(jobDir));
  const opened = await openHarborJob(jobDir, { ...options, tree });
  const trials: HarborTrial[] = [];
  const unreadable = [...opened.unreadable];
  for await (const read of readHarborTrials(opened.trialDirs, { ...options, tree })) {
    if ("trial" in read) trials.push(read.trial);
    else unreadable.push(read);
  }
  unreadable.sort((a, b) => (a.trialDir < b.trialDir ? -1 : 1));
  return { job: opened.job, trials, unreadable };
}

/** One trial as the rollouts API takes it: environments are created from the task (`?createEnvironments=1`). */
export function harborRolloutInput(trial: HarborTrial, opts: { generation?: number; policy?: string } = {}): RolloutInput {
  return {
    ...trial.rollout,
    ...(opts.generation !== undefined ? { generation: opts.generation } : {}),
    ...(opts.policy ? { policy: opts.policy } : {}),
    environmentConfig: { ...trial.environment.config },
  };
}

/** The Harbor job folder inside `dir` (itself or a descendant up to `depth` levels): the first that holds trial folders. */
export async function findHarborJobDir(dir: string, depth = 3, tree?: SafeTree): Promise<string | null> {
  const files = tree ?? (await SafeTree.open(dir));
  const subdirs = (await files.entries(dir)).filter((e) => e.kind === "dir").map((e) => e.path);
  // a job folder also holds config.json and result.json: a trial is such a folder without trials inside
  for (const sub of subdirs) if ((await isTrialDir(sub, files)) && !(await findHarborJobDir(sub, 0, files))) return dir;
  if (depth === 0) return null;
  for (const sub of subdirs) {
    const found = await findHarborJobDir(sub, depth - 1, files);
    if (found) return found;
  }
  return null;
}

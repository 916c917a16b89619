/**
 * `envforge run-dispatch --dispatch <url> -- <command...>`: the job side of a dispatch (a Ray
 * entrypoint, a Kubernetes container command, a local target's command). It fetches the
 * dispatch's payload with the dispatch-scoped key (ENVFORGE_API_KEY), runs the command once per
 * environment with the rendered task, and posts each environment's rollout and the progress back,
 * retrying what fails on the way.
 *
 * The command gets the task as JSON on stdin and in ENVFORGE_TASK_JSON ({ dispatchId, project,
 * generation, environmentKey, family, config, prompt }: the prompt is the chat the policy sees,
 * never the reference answer), and ENVFORGE_ENVIRONMENT_KEY. Its last stdout line may be a JSON
 * object with any of reward, success, turns, inputTokens, outputTokens, trajectory, metadata,
 * error; otherwise the exit code decides (0: success, reward 1).
 */
import { spawn } from "node:child_process";
import { renderTaskInstance } from "@/lib/families/tasks";
import type { GenerationPayload } from "@/lib/dispatch/types";
import { ApiError } from "../client";
import { processEnvironment } from "@/lib/config/env";

export interface RunDispatchOptions {
  /** the dispatch's URL (…/api/v1/dispatches/<id>) or its payload URL (…/payload) */
  dispatch: string;
  command: string[];
  key: string | undefined;
  policy?: string;
  /** tries per HTTP call (default 5) */
  tries?: number;
  /** first retry delay in ms, doubled each time (default 500) */
  backoffMs?: number;
  quiet?: boolean;
  log?: (line: string) => void;
  /** report the end of the job (default true): the dispatch succeeds and its key stops working; false for one shard of several */
  finish?: boolean;
}

export interface RunDispatchResult {
  environments: number;
  succeeded: number;
  failed: number;
  posted: number;
  rejected: number;
}

const STDOUT_TAIL = 64 * 1024;

/** One HTTP call with retries on network errors, 408, 429 and 5xx; other errors throw at once. */
async function call<T>(method: string, url: string, key: string | undefined, body: unknown, tries: number, backoffMs: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let status = 0;
    let message: string;
    try {
      const res = await fetch(url, {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(120_000),
      });
      const text = await res.text();
      const data = text ? (JSON.parse(text) as unknown) : undefined;
      if (res.ok) return data as T;
      status = res.status;
      message = (data as { error?: { message?: string } } | undefined)?.error?.message ?? `HTTP ${res.status}`;
      if (status !== 408 && status !== 429 && status < 500) throw new ApiError(`${method} ${url}: ${message}`, status, data);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      message = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    }
    if (attempt >= tries) throw new ApiError(`${method} ${url} failed ${tries} times: ${message}`, status);
    await new Promise((r) => setTimeout(r, backoffMs * 2 ** (attempt - 1)));
  }
}

/** The payload URL of a dispatch URL. */
export function payloadUrl(dispatch: string): string {
  const url = dispatch.replace(/\/+$/, "");
  return url.endsWith("/payload") ? url : `${url}/payload`;
}

interface CommandOutcome {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

function runOnce(command: string[], input: string, env: NodeJS.ProcessEnv): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout = (stdout + c.toString("utf8")).slice(-STDOUT_TAIL)));
    child.stderr.on("data", (c: Buffer) => {
      process.stderr.write(c); // the command's own log stays in the job's log
      stderr = (stderr + c.toString("utf8")).slice(-STDOUT_TAIL);
    });
    child.on("error", (err) => resolve({ exitCode: null, stdout, stderr: `${stderr}${err.message}` }));
    child.on("close", (code) => resolve({ exitCode: code, stdout, stderr }));
    child.stdin.on("error", () => undefined); // a command that does not read its stdin
    child.stdin.end(input);
  });
}

function lastJsonLine(stdout: string): Record<string, unknown> | null {
  const lines = stdout.trim().split("\n");
  const last = lines[lines.length - 1]?.trim();
  if (!last?.startsWith("{")) return null;
  try {
    const value = JSON.parse(last) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const ROLLOUT_FIELDS = [
  "reward",
  "success",
  "turns",
  "inputTokens",
  "outputTokens",
  "trajectory",
  "metadata",
  "error",
  "status",
  "verifierOutput",
] as const;

/** The rollout of one run: the command's JSON line where it gave one, its exit code otherwise. */
export function rolloutOf(
  payload: GenerationPayload,
  environmentKey: string,
  policy: string,
  outcome: CommandOutcome,
  startedAt: Date,
): Record<string, unknown> {
  const result = lastJsonLine(outcome.stdout) ?? {};
  const rollout: Record<string, unknown> = {
    externalId: `${payload.dispatchId}:${environmentKey}`,
    environmentKey,
    generation: payload.generation.index,
    policy,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
  };
  for (const f of ROLLOUT_FIELDS) if (result[f] !== undefined) rollout[f] = result[f];
  if (rollout.success === undefined)
    rollout.success = typeof rollout.reward === "number" ? rollout.reward >= payload.project.successThreshold : outcome.exitCode === 0;
  if (rollout.reward === undefined) rollout.reward = rollout.success ? 1 : 0;
  if (outcome.exitCode !== 0 && rollout.error === undefined) {
    rollout.status = "errored";
    rollout.error = {
      type: outcome.exitCode === null ? "CommandNotStarted" : "NonZeroExit",
      message: `exit code ${outcome.exitCode}: ${outcome.stderr.trim().slice(-2000)}`,
    };
  }
  return rollout;
}

/** Run the command for every environment of the dispatch and post rollouts and progress back. */
export async function runDispatch(opts: RunDispatchOptions): Promise<RunDispatchResult> {
  const tries = opts.tries ?? 5;
  const backoff = opts.backoffMs ?? 500;
  const log = opts.quiet ? () => undefined : (opts.log ?? ((line: string) => process.stderr.write(`${line}\n`)));
  if (!opts.key)
    throw new ApiError(
      "No key: run-dispatch posts back with the dispatch's key in ENVFORGE_API_KEY (EnvForge sets it for Ray, Kubernetes and local targets), or pass --token.",
      401,
    );
  const payload = await call<GenerationPayload>("GET", payloadUrl(opts.dispatch), opts.key, undefined, tries, backoff);
  const policy = opts.policy ?? `run-dispatch:${opts.command[0]}`;
  const total = payload.environments.length;
  const result: RunDispatchResult = { environments: total, succeeded: 0, failed: 0, posted: 0, rejected: 0 };
  const progressUrl = payload.callbacks.progress ?? payloadUrl(opts.dispatch).replace(/\/payload$/, "/progress");
  const progress = async (message?: string, status?: "succeeded") => {
    try {
      await call(
        "POST",
        progressUrl,
        opts.key,
        {
          completed: result.succeeded + result.failed,
          total,
          failed: result.failed,
          ...(message ? { message } : {}),
          ...(status ? { status } : {}),
        },
        tries,
        backoff,
      );
    } catch (err) {
      log(`progress not recorded: ${(err as Error).message}`); // progress is advisory: the rollouts are what counts
    }
  };
  await progress(`started on ${total} environments`);
  for (const env of payload.environments) {
    const task = renderTaskInstance(payload.project.family, env.config);
    const taskJson = JSON.stringify({
      dispatchId: payload.dispatchId,
      project: payload.project.slug,
      generation: payload.generation.index,
      environmentKey: env.key,
      family: payload.project.family,
      config: env.config,
      prompt: task?.messages ?? null,
    });
    const startedAt = new Date();
    const outcome = await runOnce(opts.command, taskJson, {
      ...processEnvironment(),
      ENVFORGE_TASK_JSON: taskJson,
      ENVFORGE_ENVIRONMENT_KEY: env.key,
    });
    const rollout = rolloutOf(payload, env.key, policy, outcome, startedAt);
    if (rollout.status === "errored") result.failed += 1;
    else result.succeeded += 1;
    const summary = await call<{ accepted: number; duplicates: number; rejected: { message: string }[] }>(
      "POST",
      payload.callbacks.rollouts,
      opts.key,
      [rollout],
      tries,
      backoff,
    );
    result.posted += summary.accepted + summary.duplicates;
    result.rejected += summary.rejected.length;
    for (const r of summary.rejected) log(`rollout of ${env.key} rejected: ${r.message}`);
    log(
      `${env.key}: ${rollout.status === "errored" ? "errored" : rollout.success ? "success" : "failure"} (reward ${String(rollout.reward)})`,
    );
    await progress();
  }
  // the job is done: the dispatch ends and its key stops working (every rollout is posted by now)
  if (opts.finish !== false && result.rejected === 0)
    await progress(`ran ${total} environments: ${result.succeeded} finished, ${result.failed} errored`, "succeeded");
  return result;
}

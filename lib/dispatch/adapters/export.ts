/**
 * Export adapter: writes a generation as trainer-ready files into
 * `<directory>/<project>-g<generation>-<dispatch id first 8>/`:
 *   environments.jsonl     one environment a line, as in the payload
 *   verl.parquet           verl RL dataset rows (data_source, prompt, ability, reward_model, extra_info): the
 *                          rendered task as the prompt, rows repeated in proportion to the weights
 *                          (verl.json, JSON Lines, with parquet: false)
 *   envforge_reward.py     verl custom reward function scoring those rows (export/verl.ts)
 *   agent-lightning.jsonl  Agent Lightning tasks ({ id, input, metadata }: one dataset row per environment)
 *   agent-lightning-enqueue.json  Agent Lightning 0.3 queue request (POST /v1/agl/queues/rollouts/enqueue)
 *   agent-lightning-rollouts.json  Agent Lightning 1.0 RolloutCreate bodies (POST /api/rollouts)
 *   harbor-dataset/<task>/ every terminal task with its files, a complete Harbor task folder (export/harbor-dataset.ts)
 *   harbor-job.json        a Harbor JobConfig running them (terminal-task projects with harbor.agents set)
 *   manifest.json          counts, size and sha256 of every other file, and the data.max_prompt_length the verl rows need
 * The folder is built under a temporary name and renamed into place, so a resend replaces it whole.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { DeliveryError, type DeliveryContext, type DeliveryResult, type DispatchAdapter, type GenerationPayload } from "../types";
import { DEFAULT_VERL_ROWS_PER_ENVIRONMENT, verlParquet, verlPromptBudget, verlRewardModule, verlRows } from "./export/verl";
import { agentLightningEnqueueRequest, agentLightningRolloutCreates } from "./export/agent-lightning";
import { configErrors, parseTargetConfig } from "./target-config";
import { resolveExportDirectory } from "../server-paths";
import { HARBOR_ENVIRONMENT_TYPES, harborJobConfig, planHarborTasks, writeHarborDataset } from "./export/harbor-dataset";

export { harborJobConfig, planHarborTasks } from "./export/harbor-dataset";

export { describeEnvironment, verlParquet, verlPromptBudget, verlRows, type VerlRow } from "./export/verl";

export const exportConfigSchema = z
  .object({
    /** parent folder of the export folders (created when missing) */
    directory: z.string().min(1),
    /** write verl.parquet (true) or verl.json (false; JSON Lines under the only other suffix verl reads, rl_dataset.py) */
    parquet: z.boolean().default(true),
    /** verl rows per environment on average; weights apportion them (curriculum honoured by verl's random sampler) */
    verlRowsPerEnvironment: z.number().int().min(1).max(100).default(DEFAULT_VERL_ROWS_PER_ENVIRONMENT),
    /** Harbor job settings (harbor-job.json, terminal-task projects only) */
    harbor: z
      .object({
        jobsDir: z.string().min(1).default("jobs"),
        nAttempts: z.number().int().min(1).max(100).default(1),
        nConcurrentTrials: z.number().int().min(1).max(1024).default(4),
        environmentType: z
          .enum(HARBOR_ENVIRONMENT_TYPES, { message: `must be one of Harbor's environment types: ${HARBOR_ENVIRONMENT_TYPES.join(", ")}` })
          .default("docker"),
        datasetPath: z.string().min(1).nullable().default(null),
        datasetName: z.string().min(1).nullable().default(null),
        /** the registry dataset's version; for a package dataset (datasetName "org/name") its ref (a tag, revision or digest) */
        datasetVersion: z.string().min(1).nullable().default(null),
        /** Harbor AgentConfigs, e.g. { name: "terminus-2", model_name: "…" }; harbor-job.json is written only with at least one */
        agents: z
          .array(
            z
              .record(z.string(), z.unknown())
              .refine((a) => typeof a.name === "string" || typeof a.import_path === "string", "an agent needs name or import_path"),
          )
          .default([]),
      })
      .strict()
      .default({
        jobsDir: "jobs",
        nAttempts: 1,
        nConcurrentTrials: 4,
        environmentType: "docker",
        datasetPath: null,
        datasetName: null,
        datasetVersion: null,
        agents: [],
      }),
  })
  .strict();
export type ExportConfig = z.infer<typeof exportConfigSchema>;

/** `<project>-g<generation>-<dispatch id first 8>`, safe as a folder name. */
export function exportFolderName(payload: GenerationPayload): string {
  const slug = payload.project.slug.replace(/[^A-Za-z0-9_.-]/g, "-");
  const id = payload.dispatchId.replace(/[^A-Za-z0-9]/g, "").slice(0, 8);
  return `${slug}-g${payload.generation.index}-${id}`;
}

/** Agent Lightning dataset rows: one task per environment. */
export function agentLightningRows(payload: GenerationPayload): Record<string, unknown>[] {
  return payload.environments.map((env) => ({
    id: env.key,
    input: env.config,
    metadata: {
      environment_key: env.key,
      generation: payload.generation.index,
      weight: env.weight,
      family: payload.project.family,
      project: payload.project.slug,
    },
  }));
}

const jsonl = (rows: unknown[]) => rows.map((row) => `${JSON.stringify(row)}\n`).join("");

/** Writes the export folder; returns its path and the manifest. */
export async function writeExport(
  payload: GenerationPayload,
  config: ExportConfig,
  readBlob?: (sha256: string) => Promise<Buffer>,
): Promise<{ folder: string; manifest: Record<string, unknown> }> {
  const parent = path.resolve(config.directory);
  await fs.mkdir(parent, { recursive: true });
  const name = exportFolderName(payload);
  const folder = path.join(parent, name);
  const suffix = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const staging = path.join(parent, `.${name}.tmp-${suffix}`);

  const verl = verlRows(payload, config.verlRowsPerEnvironment);
  const verlFile = config.parquet ? "verl.parquet" : "verl.json";
  const budget = verlPromptBudget(verl);
  const files: { name: string; content: string | Buffer; rows?: number }[] = [
    { name: "environments.jsonl", content: jsonl(payload.environments), rows: payload.environments.length },
    { name: verlFile, content: config.parquet ? verlParquet(verl) : jsonl(verl), rows: verl.length },
    { name: "envforge_reward.py", content: verlRewardModule() },
    {
      name: "agent-lightning-rollouts.json",
      content: `${JSON.stringify(agentLightningRolloutCreates(payload), null, 2)}\n`,
      rows: payload.environments.length,
    },
    {
      name: "agent-lightning-enqueue.json",
      content: `${JSON.stringify(agentLightningEnqueueRequest(payload), null, 2)}\n`,
      rows: payload.environments.length,
    },
    { name: "agent-lightning.jsonl", content: jsonl(agentLightningRows(payload)), rows: payload.environments.length },
  ];
  const warnings: string[] = [];
  let plan = planHarborTasks(payload, config.harbor);
  if (!readBlob && plan.some((p) => p.kind === "local")) {
    plan = plan.map((p) =>
      p.kind === "local" ? { ...p, kind: "skipped" as const, repeats: 0, reason: "task files cannot be read here" } : p,
    );
  }
  const job = plan.length > 0 ? harborJobConfig(payload, config.harbor, plan) : null;
  if (plan.length > 0 && config.harbor.agents.length === 0)
    warnings.push("harbor-job.json not written: set harbor.agents in the target config (Harbor runs no trials without an agent)");
  else if (plan.length > 0 && !job) warnings.push("harbor-job.json not written: no task of the generation can run in Harbor");
  for (const p of plan) if (p.kind === "skipped") warnings.push(`${p.key}: not in harbor-job.json (${p.reason})`);
  if (job) files.push({ name: "harbor-job.json", content: `${JSON.stringify(job, null, 2)}\n` });
  const harborTasks = plan.filter((p) => p.kind !== "skipped").length;

  const manifest = {
    format: "envforge-export/1",
    dispatchId: payload.dispatchId,
    project: payload.project,
    generation: payload.generation,
    target: payload.target,
    createdAt: payload.createdAt,
    exportedAt: new Date().toISOString(),
    counts: {
      environments: payload.environments.length,
      verlRows: verl.length,
      agentLightningTasks: payload.environments.length,
      harborTasks,
      harborDatasetTasks: plan.filter((p) => p.kind === "local").length,
    },
    // verl stops at the first prompt over data.max_prompt_length (default 512, truncation=error): the value these rows need
    verl: {
      file: verlFile,
      ...budget,
      override: `data.max_prompt_length=${budget.maxPromptLength}`,
    },
    ...(plan.length > 0 ? { harbor: { tasks: plan, run: job ? "cd <this folder> && harbor run -c harbor-job.json" : null } } : {}),
    ...(warnings.length ? { warnings } : {}),
    files: files.map((f) => ({
      name: f.name,
      bytes: Buffer.byteLength(f.content),
      sha256: createHash("sha256").update(f.content).digest("hex"),
      ...(f.rows !== undefined ? { rows: f.rows } : {}),
    })),
  };

  try {
    await fs.mkdir(staging);
    for (const f of files) await fs.writeFile(path.join(staging, f.name), f.content);
    if (readBlob) await writeHarborDataset(staging, payload, plan, readBlob);
    await fs.writeFile(path.join(staging, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    // rename() cannot replace a non-empty folder: move the old one aside, move the new one in, drop the old.
    const retired = path.join(parent, `.${name}.old-${suffix}`);
    let hadOld = false;
    try {
      await fs.rename(folder, retired);
      hadOld = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    await fs.rename(staging, folder);
    if (hadOld) await fs.rm(retired, { recursive: true, force: true });
  } catch (e) {
    await fs.rm(staging, { recursive: true, force: true });
    throw e;
  }
  return { folder, manifest };
}

async function deliver(ctx: DeliveryContext): Promise<DeliveryResult> {
  const config = parseTargetConfig(exportConfigSchema, ctx.config, "export");
  // checked again at delivery: a symlink may have appeared since the target was created
  const where = await resolveExportDirectory(config.directory);
  if (!where.ok)
    throw new DeliveryError(`The export target's directory ${where.message}: fix the target.`, false, { field: "config.directory" });
  try {
    const { folder, manifest } = await writeExport(ctx.payload, { ...config, directory: where.path }, ctx.readBlob);
    return {
      status: "succeeded",
      externalId: folder,
      message: `wrote ${(manifest.files as unknown[]).length + 1} files to ${folder}`,
      data: { folder, counts: manifest.counts, files: manifest.files },
    };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    // A full disk may clear; a missing permission or a file where the folder should be will not.
    const retryable = !["EACCES", "EPERM", "EROFS", "ENOTDIR", "EEXIST", "EISDIR"].includes(err.code ?? "");
    throw new DeliveryError(
      `Writing the export to ${config.directory} failed: ${err.message}${retryable ? "" : " (fix the target's directory)"}`,
      retryable,
      { code: err.code ?? null },
    );
  }
}

/** The export adapter. */
export const exportAdapter: DispatchAdapter = {
  name: "export",
  needsSecret: false,
  checkConfig: (config) => configErrors(exportConfigSchema, config),
  deliver,
};

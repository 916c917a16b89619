/**
 * Storing Harbor task folders as `terminal-task` environments: one environment per task (keyed by
 * the folder name, as Harbor's trials name a task), its files content-addressed in `blobs`
 * (sha256, shared across tasks, generations and projects) and listed in `environment_files`.
 * Idempotent: an unchanged task changes nothing. An environment created earlier from a Harbor
 * job's trials (same task name) gets its files and task.toml fields: it is the same environment.
 */
import path from "node:path";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { blobs, environmentFiles, environments, generationEnvironments, generations } from "@/lib/db/schema";
import { BadRequest } from "@/lib/errors";
import { configHash } from "@/lib/families/hash";
import { parseConfig } from "@/lib/families/parse";
import type { FamilyDefinition } from "@/lib/families/types";
import type { ProjectRow } from "@/lib/projects/service";
import { recordAudit } from "@/lib/audit";
import { findTaskDirs, readTaskFolder, TaskFolderError, type TaskFile, type TaskFolder } from "./folder";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
type Queryable = Db | Tx;

/** Where imported tasks come from (pins unchanged tasks in exports). */
export interface TaskSourceOptions {
  source?: string;
  gitUrl?: string;
  gitCommit?: string;
}

export interface ImportTasksOptions extends TaskSourceOptions {
  /** add the tasks to this generation (created when missing); without it they join the project's pool only (generation 0 when the project has none) */
  generation?: number;
  actor: string;
  onProgress?: (done: number, total: number) => void;
}

/** What one task import did. */
export interface TaskImportSummary {
  created: string[];
  /** existing environments (from a Harbor job's trials) that got their task files */
  attached: string[];
  unchanged: string[];
  rejected: { task: string; message: string }[];
  files: { total: number; newBlobs: number; bytes: number };
  generation: number | null;
}

/** Store file contents once per sha256 (existing blobs are left as they are). Returns how many were new. */
export async function storeBlobs(db: Queryable, files: Pick<TaskFile, "sha256" | "size" | "data">[]): Promise<number> {
  const unique = [...new Map(files.map((f) => [f.sha256, f])).values()];
  if (!unique.length) return 0;
  const existing = new Set(
    (
      await db
        .select({ sha256: blobs.sha256 })
        .from(blobs)
        .where(
          inArray(
            blobs.sha256,
            unique.map((f) => f.sha256),
          ),
        )
    ).map((r) => r.sha256),
  );
  let made = 0;
  for (const f of unique) {
    if (existing.has(f.sha256)) continue;
    const rows = await db
      .insert(blobs)
      .values({ sha256: f.sha256, size: f.size, data: f.data })
      .onConflictDoNothing()
      .returning({ sha256: blobs.sha256 });
    made += rows.length;
  }
  return made;
}

/** The files of an environment, by path. */
export async function environmentFileList(db: Queryable, environmentId: number) {
  return db
    .select({
      path: environmentFiles.path,
      size: environmentFiles.size,
      sha256: environmentFiles.sha256,
      executable: environmentFiles.executable,
    })
    .from(environmentFiles)
    .where(eq(environmentFiles.environmentId, environmentId))
    .orderBy(environmentFiles.path);
}

const fileSignature = (files: { path: string; sha256: string; executable: boolean }[]) =>
  files
    .map((f) => `${f.path}\0${f.sha256}\0${f.executable ? 1 : 0}`)
    .sort()
    .join("\n");

/** The environment config of a task: task.toml's honoured fields on top of what is already known (trial-derived identity kept). */
export function taskEnvironmentConfig(
  task: TaskFolder,
  base: Record<string, unknown> | null,
  src: TaskSourceOptions,
): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...task.fields };
  if (fields.difficulty && !["easy", "medium", "hard"].includes(fields.difficulty as string)) delete fields.difficulty;
  const config: Record<string, unknown> = { ...(base ?? {}), ...fields, task_name: task.name };
  if (src.source) config.source = src.source;
  if (src.gitUrl) config.git_url = src.gitUrl;
  if (src.gitCommit) config.git_commit = src.gitCommit;
  return config;
}

/** Replace an environment's file list (blobs must be stored). */
export async function writeEnvironmentFiles(
  db: Queryable,
  environmentId: number,
  files: Pick<TaskFile, "path" | "sha256" | "size" | "executable">[],
) {
  await db.delete(environmentFiles).where(eq(environmentFiles.environmentId, environmentId));
  for (let i = 0; i < files.length; i += 500) {
    await db
      .insert(environmentFiles)
      .values(
        files.slice(i, i + 500).map((f) => ({ environmentId, path: f.path, sha256: f.sha256, size: f.size, executable: f.executable })),
      );
  }
}

async function generationIdFor(db: Queryable, projectId: number, index: number): Promise<number> {
  await db.insert(generations).values({ projectId, index, status: "active", source: "import" }).onConflictDoNothing();
  const [g] = await db
    .select({ id: generations.id })
    .from(generations)
    .where(and(eq(generations.projectId, projectId), eq(generations.index, index)));
  return g.id;
}

/** Store one read task; returns what happened. Runs in its own transaction. */
async function storeTask(
  db: Db,
  project: ProjectRow,
  family: FamilyDefinition,
  task: TaskFolder,
  opts: ImportTasksOptions,
  generationId: number | null,
): Promise<{ outcome: "created" | "attached" | "unchanged"; newBlobs: number }> {
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(environments)
      .where(and(eq(environments.projectId, project.id), eq(environments.key, task.name)));
    const config = taskEnvironmentConfig(task, (existing?.config as Record<string, unknown>) ?? null, opts);
    const parsed = parseConfig(family, config);
    if (!parsed.ok)
      throw new TaskFolderError(
        `${task.name}: task.toml gives an invalid environment config: ${parsed.errors[0].path}: ${parsed.errors[0].message}`,
      );
    const hash = configHash(parsed.config);
    const newBlobs = await storeBlobs(tx, task.files);
    let outcome: "created" | "attached" | "unchanged";
    let environmentId: number;
    if (!existing) {
      const [row] = await tx
        .insert(environments)
        .values({ projectId: project.id, key: task.name, config: parsed.config, configHash: hash, op: "import" })
        .returning({ id: environments.id });
      environmentId = row.id;
      await writeEnvironmentFiles(tx, environmentId, task.files);
      outcome = "created";
    } else {
      environmentId = existing.id;
      const current = await environmentFileList(tx, existing.id);
      if (current.length > 0) {
        if (fileSignature(current) !== fileSignature(task.files)) {
          throw new TaskFolderError(
            `${task.name}: the project already has this task with different files; environments are immutable (give the changed task a new folder name)`,
          );
        }
        outcome = "unchanged";
      } else {
        // an environment known from a Harbor job's trials: the task folder is the same environment
        await writeEnvironmentFiles(tx, existing.id, task.files);
        outcome = "attached";
      }
      if (hash !== existing.configHash) {
        if (outcome === "unchanged") {
          throw new TaskFolderError(`${task.name}: the project already has this task with a different config; environments are immutable`);
        }
        await tx.update(environments).set({ config: parsed.config, configHash: hash }).where(eq(environments.id, existing.id));
      }
    }
    if (generationId !== null) {
      await tx.insert(generationEnvironments).values({ generationId, environmentId, op: "import" }).onConflictDoNothing();
    }
    if (outcome !== "unchanged") {
      await recordAudit(tx, {
        projectId: project.id,
        actor: opts.actor,
        action: outcome === "created" ? "environment.import_task" : "environment.attach_task",
        entity: "environment",
        entityId: task.name,
        before: existing ? { config: existing.config } : null,
        after: { config: parsed.config, files: task.files.length },
      });
    }
    return { outcome, newBlobs };
  });
}

/** Import every Harbor task folder under `root` (a dataset folder or one task) into the project. */
export async function importTaskFolders(
  db: Db,
  project: ProjectRow,
  family: FamilyDefinition,
  root: string,
  opts: ImportTasksOptions,
): Promise<TaskImportSummary> {
  if (family.id !== "terminal-task")
    throw new BadRequest(`Harbor task folders go into a terminal-task project; '${project.slug}' is a ${family.id} project.`);
  const dirs = await findTaskDirs(root);
  if (dirs.length === 0) throw new BadRequest("No Harbor task folders found (folders holding task.toml).");
  let generationIndex: number | null = opts.generation ?? null;
  if (generationIndex === null) {
    const [latest] = await db
      .select({ index: generations.index })
      .from(generations)
      .where(eq(generations.projectId, project.id))
      .orderBy(desc(generations.index))
      .limit(1);
    if (!latest) generationIndex = 0;
  }
  const generationId = generationIndex === null ? null : await generationIdFor(db, project.id, generationIndex);
  const summary: TaskImportSummary = {
    created: [],
    attached: [],
    unchanged: [],
    rejected: [],
    files: { total: 0, newBlobs: 0, bytes: 0 },
    generation: generationIndex,
  };
  const seen = new Set<string>();
  let done = 0;
  for (const dir of dirs) {
    try {
      const task = await readTaskFolder(dir, root);
      if (seen.has(task.name)) throw new TaskFolderError(`${task.name}: the task name appears twice in the import`);
      seen.add(task.name);
      const { outcome, newBlobs } = await storeTask(db, project, family, task, opts, generationId);
      summary[outcome].push(task.name);
      summary.files.total += task.files.length;
      summary.files.newBlobs += newBlobs;
      summary.files.bytes += task.files.reduce((s, f) => s + f.size, 0);
    } catch (e) {
      if (!(e instanceof TaskFolderError)) throw e;
      summary.rejected.push({ task: path.relative(root, dir) || ".", message: e.message });
    }
    opts.onProgress?.(++done, dirs.length);
  }
  return summary;
}

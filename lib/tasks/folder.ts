/**
 * Reading Harbor task folders from disk: a dataset folder of task folders, or one task folder.
 * Links are never followed (lstat only; a symlink, hardlink target or device is refused with its
 * path), and files, tasks and whole imports have size limits that say which file or task is over.
 * Layout: harbor/src/harbor/models/task/paths.py (task.toml, instruction.md, environment/, tests/,
 * solution/, steps/<name>/{instruction.md,tests,solution}).
 */
import { createHash } from "node:crypto";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parseTaskToml, TaskTomlError, taskTomlFields, type HarborTaskToml, type TaskTomlFields } from "./task-toml";

/** Size limits of task files (bytes). */
export const TASK_LIMITS = {
  /** one file */
  fileBytes: 64 * 1024 * 1024,
  /** all files of one task */
  taskBytes: 512 * 1024 * 1024,
  /** files in one task */
  taskFiles: 5000,
};

/** One file of a task, with its bytes. */
export interface TaskFile {
  /** POSIX path relative to the task folder */
  path: string;
  sha256: string;
  size: number;
  executable: boolean;
  data: Buffer;
}

/** A task folder read and checked. */
export interface TaskFolder {
  /** the folder name: the environment key, as Harbor's trials name the task */
  name: string;
  /** path of the folder relative to the scanned root ("." for a single task) */
  relPath: string;
  fields: TaskTomlFields;
  files: TaskFile[];
}

/** A task folder that cannot be imported, with the reason. */
export interface TaskFolderProblem {
  task: string;
  message: string;
}

/** A file or folder that breaks a rule of task folders (links, sizes, layout). */
export class TaskFolderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TaskFolderError";
  }
}

/** A task name usable as an environment key and folder name. */
export const TASK_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export const sha256Hex = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

async function isFile(p: string) {
  try {
    return (await lstat(p)).isFile();
  } catch {
    return false;
  }
}

/** Folders under `root` (itself, or descendants up to `depth` levels) that hold a task.toml; a task's own subfolders are not searched. */
export async function findTaskDirs(root: string, depth = 3): Promise<string[]> {
  if (await isFile(path.join(root, "task.toml"))) return [root];
  if (depth === 0) return [];
  const entries = await readdir(root, { withFileTypes: true });
  const out: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!e.isDirectory() || e.name.startsWith(".")) continue;
    out.push(...(await findTaskDirs(path.join(root, e.name), depth - 1)));
  }
  return out;
}

/** Every regular file under `dir` (lstat: links and special files are refused with their path). */
async function walkFiles(dir: string, rel: string, out: { rel: string; abs: string; size: number; mode: number }[], taskName: string) {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const abs = path.join(dir, e.name);
    const relPath = rel ? `${rel}/${e.name}` : e.name;
    const st = await lstat(abs);
    if (st.isSymbolicLink())
      throw new TaskFolderError(`${taskName}/${relPath}: symbolic links are not allowed in task folders (never followed)`);
    if (st.isDirectory()) await walkFiles(abs, relPath, out, taskName);
    else if (st.isFile()) {
      if (st.nlink > 1) throw new TaskFolderError(`${taskName}/${relPath}: hard links are not allowed in task folders`);
      out.push({ rel: relPath, abs, size: st.size, mode: st.mode });
      if (out.length > TASK_LIMITS.taskFiles)
        throw new TaskFolderError(`${taskName}: more than ${TASK_LIMITS.taskFiles} files (the limit per task)`);
    } else throw new TaskFolderError(`${taskName}/${relPath}: not a regular file or folder (devices, sockets and pipes are not allowed)`);
  }
}

const hasUnder = (files: { path: string }[], prefix: string) => files.some((f) => f.path.startsWith(`${prefix}/`));

type VerifierModes = { environment_mode?: string | null; environment?: unknown } | null | undefined;

/** Whether a verify pass runs in a separate environment (then Harbor needs no test script in the task): models/task/verifier_mode.py. */
function separateVerifier(...levels: VerifierModes[]): boolean {
  for (const v of levels) {
    if (v?.environment_mode) return v.environment_mode === "separate";
    if (v?.environment) return true;
  }
  return false;
}

/**
 * Check the layout Harbor needs (models/task/task.py: is_valid_dir and _validate_tests): task.toml,
 * environment/ (without it `harbor run -p <dataset>` skips the task without a word), an instruction,
 * and the verifier's script for the task's os, tests/test.sh (tests/test.bat on windows); a
 * multi-step task needs steps/<name>/instruction.md and steps/<name>/tests/test.sh or the shared
 * tests/test.sh. A verify pass in a separate environment needs no script.
 */
export function checkTaskLayout(
  files: { path: string }[],
  config: HarborTaskToml,
  { environmentDir = hasUnder(files, "environment") }: { environmentDir?: boolean } = {},
): string | null {
  const has = (p: string) => files.some((f) => f.path === p);
  if (!has("task.toml")) return "task.toml is missing";
  if (!environmentDir) return "environment/ is missing (Harbor lists only task folders that have one)";
  const script = config.environment?.os === "windows" ? "test.bat" : "test.sh";
  const steps = config.steps ?? [];
  if (steps.length) {
    for (const step of steps) {
      const at = `step '${step.name}' of task.toml`;
      if (!has(`steps/${step.name}/instruction.md`)) return `steps/${step.name}/instruction.md is missing (${at})`;
      if (separateVerifier(step.verifier, config.verifier)) continue;
      if (!has(`steps/${step.name}/tests/${script}`) && !has(`tests/${script}`))
        return `steps/${step.name}/tests/${script} (or a shared tests/${script}) is missing (${at}; Harbor runs it to verify the step)`;
    }
    return null;
  }
  if (!has("instruction.md")) return "instruction.md is missing";
  if (!separateVerifier(config.verifier) && !has(`tests/${script}`))
    return `tests/${script} is missing (Harbor runs it to verify the task${script === "test.bat" ? " on windows" : ""})`;
  return null;
}

/** Read one task folder: every file (hashed), task.toml validated, layout checked. */
export async function readTaskFolder(dir: string, root: string): Promise<TaskFolder> {
  const name = path.basename(path.resolve(dir));
  if (!TASK_NAME.test(name))
    throw new TaskFolderError(
      `${name}: a task folder name must be letters, digits, '.', '_' or '-' (at most 200), starting with a letter or digit`,
    );
  const listed: { rel: string; abs: string; size: number; mode: number }[] = [];
  await walkFiles(dir, "", listed, name);
  let total = 0;
  const files: TaskFile[] = [];
  for (const f of listed) {
    if (f.size > TASK_LIMITS.fileBytes)
      throw new TaskFolderError(`${name}/${f.rel}: ${f.size} bytes, over the limit of ${TASK_LIMITS.fileBytes} bytes per file`);
    total += f.size;
    if (total > TASK_LIMITS.taskBytes)
      throw new TaskFolderError(`${name}: over the limit of ${TASK_LIMITS.taskBytes} bytes per task (at ${f.rel})`);
    const data = await readFile(f.abs);
    files.push({ path: f.rel, sha256: sha256Hex(data), size: data.length, executable: (f.mode & 0o111) !== 0, data });
  }
  const toml = files.find((f) => f.path === "task.toml");
  if (!toml) throw new TaskFolderError(`${name}: task.toml is missing`);
  let config: HarborTaskToml;
  try {
    config = parseTaskToml(toml.data.toString("utf8")).config;
  } catch (e) {
    if (e instanceof TaskTomlError) throw new TaskFolderError(`${name}/task.toml: ${e.message}`);
    throw e;
  }
  const fields = taskTomlFields(config);
  const environmentDir = await lstat(path.join(dir, "environment")).then(
    (st) => st.isDirectory(),
    () => false,
  );
  const layout = checkTaskLayout(files, config, { environmentDir });
  if (layout) throw new TaskFolderError(`${name}: ${layout}`);
  return { name, relPath: path.relative(root, dir) || ".", fields, files };
}

/** Read every task folder under `root`; a folder that breaks a rule is listed in `problems`, the rest are read. */
export async function readTaskFolders(root: string): Promise<{ tasks: TaskFolder[]; problems: TaskFolderProblem[] }> {
  const dirs = await findTaskDirs(root);
  const tasks: TaskFolder[] = [];
  const problems: TaskFolderProblem[] = [];
  const seen = new Map<string, string>();
  for (const dir of dirs) {
    const rel = path.relative(root, dir) || ".";
    try {
      const task = await readTaskFolder(dir, root);
      const dup = seen.get(task.name);
      if (dup) {
        problems.push({ task: rel, message: `task name '${task.name}' appears twice (also ${dup})` });
        continue;
      }
      seen.set(task.name, rel);
      tasks.push(task);
    } catch (e) {
      if (!(e instanceof TaskFolderError)) throw e;
      problems.push({ task: rel, message: e.message });
    }
  }
  return { tasks, problems };
}

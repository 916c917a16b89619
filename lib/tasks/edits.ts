/**
 * Evolving a Harbor task by its files (pure): an evolved task is its parent's files plus edits
 * (search/replace blocks, unified diffs of one file, or a whole new file) and task.toml changes
 * (dotted keys). Every edit must apply exactly (a search text found once, a patch whose context
 * matches), the resulting task.toml must follow Harbor's rules and tests/ must still hold a
 * non-empty file. Errors carry a path ("files.2", "taskToml.agent.timeout_sec") and a message
 * meant to be quoted back to an LLM in a repair turn, or shown to a reviewer.
 */
import { createHash } from "node:crypto";
import { applyPatch } from "diff";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { parseTaskToml, scaleStepTimeouts, TaskTomlError, taskTomlFields, type TaskTomlFields } from "./task-toml";

/** One edit of one file of a task. */
export type FileEdit =
  /** replace the one occurrence of `search` with `replace` */
  | { path: string; search: string; replace: string }
  /** a unified diff of this one file */
  | { path: string; patch: string }
  /** the whole file (a new file, or its complete new text) */
  | { path: string; content: string };

/** The edits that make an evolved task from its parent. */
export interface TaskEdits {
  files: FileEdit[];
  /** task.toml keys ("agent.timeout_sec") and their new values; null removes the key */
  taskToml: Record<string, unknown>;
}

/** One file of the parent task; `text` is null for binary or oversized files (they cannot be edited). */
export interface ParentTaskFile {
  path: string;
  sha256: string;
  size: number;
  executable: boolean;
  text: string | null;
}

/** A file of the evolved task whose content differs from the parent's (or is new). */
export interface ChangedTaskFile {
  path: string;
  before: string | null;
  after: string;
}

/** An edit that cannot be applied, or a rule the result breaks. */
export interface TaskEditError {
  path: string;
  message: string;
}

export type TaskEditResult =
  | {
      ok: true;
      /** files whose content changed or that are new, task.toml included when it changed, in path order */
      changed: ChangedTaskFile[];
      /** the evolved task.toml's honoured fields (for the environment config) */
      fields: TaskTomlFields;
      /** sha256 over the evolved task's whole file list (path and content hash): its identity */
      filesDigest: string;
    }
  | { ok: false; errors: TaskEditError[] };

/** Largest text a file edit may produce (bytes of UTF-8). */
export const MAX_EDITED_FILE_BYTES = 1024 * 1024;
/** Most edits one evolved task may carry. */
export const MAX_FILE_EDITS = 50;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A relative POSIX path inside the task folder, or a message saying why not. */
function pathProblem(p: string): string | null {
  if (p.trim() === "") return "path must name a file of the task, e.g. instruction.md or tests/test_outputs.py";
  if (p.startsWith("/") || p.includes("\\") || p.includes("\0"))
    return `path "${p}" must be relative to the task folder, with / between parts`;
  if (p.split("/").some((part) => part === "" || part === "." || part === ".."))
    return `path "${p}" must not contain empty, "." or ".." parts`;
  return null;
}

function occurrences(text: string, search: string): number {
  let count = 0;
  for (let at = text.indexOf(search); at >= 0; at = text.indexOf(search, at + search.length)) count++;
  return count;
}

/** Read raw edits (from an LLM answer or a reviewer) into TaskEdits; shape errors named by path. */
export function parseTaskEdits(raw: unknown): { edits: TaskEdits; errors: TaskEditError[] } {
  const errors: TaskEditError[] = [];
  const edits: TaskEdits = { files: [], taskToml: {} };
  if (!isRecord(raw)) return { edits, errors: [{ path: "", message: 'give {"files": [...], "taskToml": {...}}' }] };
  const files = raw.files ?? [];
  if (!Array.isArray(files)) errors.push({ path: "files", message: "files must be a list of edits" });
  else if (files.length > MAX_FILE_EDITS) errors.push({ path: "files", message: `at most ${MAX_FILE_EDITS} edits per task` });
  else
    files.forEach((e: unknown, i) => {
      const at = `files.${i}`;
      if (!isRecord(e) || typeof e.path !== "string") {
        errors.push({ path: at, message: 'each edit is {"path", "search", "replace"}, {"path", "patch"} or {"path", "content"}' });
        return;
      }
      const bad = pathProblem(e.path);
      if (bad) return errors.push({ path: `${at}.path`, message: bad });
      if (typeof e.search === "string" && typeof e.replace === "string")
        edits.files.push({ path: e.path, search: e.search, replace: e.replace });
      else if (typeof e.patch === "string") edits.files.push({ path: e.path, patch: e.patch });
      else if (typeof e.content === "string") edits.files.push({ path: e.path, content: e.content });
      else errors.push({ path: at, message: 'an edit needs "search" and "replace" (strings), or "patch", or "content"' });
    });
  const toml = raw.taskToml ?? {};
  if (!isRecord(toml)) errors.push({ path: "taskToml", message: 'taskToml must be an object {"section.key": value}' });
  else edits.taskToml = { ...toml };
  return { edits, errors };
}

/** task.toml text with dotted keys set (null removes); the error names the key. */
function setTomlKeys(text: string, changes: Record<string, unknown>): { text: string } | TaskEditError {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    return { path: "files.task.toml", message: `task.toml is not valid TOML after the file edits: ${(e as Error).message.split("\n")[0]}` };
  }
  for (const [key, value] of Object.entries(changes)) {
    const parts = key.split(".");
    if (parts.some((p) => p === ""))
      return { path: `taskToml.${key}`, message: `"${key}" is not a task.toml key like "agent.timeout_sec"` };
    let node = raw;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (next === undefined) node[part] = {};
      else if (!isRecord(next)) return { path: `taskToml.${key}`, message: `"${part}" in "${key}" is not a table of task.toml` };
      node = node[part] as Record<string, unknown>;
    }
    const last = parts[parts.length - 1];
    const before = node[last];
    if (value === null) delete node[last];
    else node[last] = value;
    // a task-wide timeout reaches the steps that set their own (they win in Harbor's multi-step trial)
    if ((key === "agent.timeout_sec" || key === "verifier.timeout_sec") && typeof value === "number")
      scaleStepTimeouts(raw, parts[0] as "agent" | "verifier", before, value);
  }
  try {
    return { text: `${stringifyToml(raw)}\n` };
  } catch (e) {
    return { path: "taskToml", message: `cannot write task.toml: ${(e as Error).message}` };
  }
}

/** Test files that must stay: every tests/ folder (top level or a step's) that held a non-empty file. */
function testFolders(files: Map<string, string | null>, sizes: Map<string, number>): Set<string> {
  const out = new Set<string>();
  for (const p of files.keys()) {
    const m = /^(tests\/|steps\/[^/]+\/tests\/)/.exec(p);
    if (m && (sizes.get(p) ?? 0) > 0) out.add(m[1]);
  }
  return out;
}

/**
 * Apply edits to a parent task's files: in order, each on the result of the ones before it; then
 * the task.toml changes; then the rules (task.toml valid, tests/ still there, something changed).
 */
export function applyTaskEdits(parent: readonly ParentTaskFile[], edits: TaskEdits): TaskEditResult {
  const errors: TaskEditError[] = [];
  const text = new Map<string, string | null>(parent.map((f) => [f.path, f.text]));
  const sizes = new Map<string, number>(parent.map((f) => [f.path, f.size]));
  const before = new Map(text);
  const mustKeep = testFolders(text, sizes);

  edits.files.forEach((edit, i) => {
    const at = `files.${i}`;
    const bad = pathProblem(edit.path);
    if (bad) return errors.push({ path: `${at}.path`, message: bad });
    const current = text.get(edit.path);
    if ("content" in edit) {
      if (current === null) return errors.push({ path: at, message: `${edit.path} is a binary file: it cannot be replaced by text` });
      text.set(edit.path, edit.content);
    } else if (current === undefined) {
      errors.push({
        path: `${at}.path`,
        message: `${edit.path} is not a file of the parent task; files: ${[...text.keys()].slice(0, 30).join(", ")} (a new file takes "content")`,
      });
    } else if (current === null) {
      errors.push({ path: `${at}.path`, message: `${edit.path} is binary or too large to edit as text` });
    } else if ("search" in edit) {
      if (edit.search === "")
        return errors.push({ path: `${at}.search`, message: "search must not be empty: copy the lines to replace from the file" });
      const n = occurrences(current, edit.search);
      if (n === 0)
        errors.push({
          path: `${at}.search`,
          message:
            `the search text was not found in ${edit.path}: copy it exactly from the file as it is after the earlier edits, ` +
            `whitespace and line breaks included`,
        });
      else if (n > 1)
        errors.push({
          path: `${at}.search`,
          message: `the search text occurs ${n} times in ${edit.path}: include more surrounding lines so it occurs once`,
        });
      else
        text.set(
          edit.path,
          current.replace(edit.search, () => edit.replace),
        );
    } else {
      const patched = applyPatch(current, edit.patch);
      if (patched === false)
        errors.push({
          path: `${at}.patch`,
          message: `the patch does not apply to ${edit.path}: its context and removed lines must match the file exactly`,
        });
      else text.set(edit.path, patched);
    }
  });
  if (errors.length) return { ok: false, errors };

  const tomlText = text.get("task.toml");
  if (typeof tomlText !== "string")
    return { ok: false, errors: [{ path: "task.toml", message: "the parent task has no task.toml to evolve" }] };
  let finalToml = tomlText;
  if (Object.keys(edits.taskToml).length > 0) {
    const set = setTomlKeys(tomlText, edits.taskToml);
    if ("path" in set) return { ok: false, errors: [set] };
    finalToml = set.text;
    text.set("task.toml", finalToml);
  }
  let fields: TaskTomlFields = {};
  try {
    fields = taskTomlFields(parseTaskToml(finalToml).config);
  } catch (e) {
    const field = e instanceof TaskTomlError && e.field ? `taskToml.${e.field}` : "taskToml";
    errors.push({ path: field, message: `task.toml breaks Harbor's task config: ${(e as Error).message}` });
  }

  const changed: ChangedTaskFile[] = [];
  for (const [p, after] of text) {
    if (after === null) continue;
    const prior = before.get(p);
    if (prior === after) continue;
    if (Buffer.byteLength(after, "utf8") > MAX_EDITED_FILE_BYTES)
      errors.push({ path: p, message: `${p} would be over ${MAX_EDITED_FILE_BYTES} bytes: edit less` });
    changed.push({ path: p, before: prior ?? null, after });
    sizes.set(p, Buffer.byteLength(after, "utf8"));
  }
  for (const folder of mustKeep) {
    if (![...text.keys()].some((p) => p.startsWith(folder) && (sizes.get(p) ?? 0) > 0))
      errors.push({ path: folder, message: `${folder} must still hold the task's tests: do not empty them` });
  }
  if (changed.length === 0)
    errors.push({ path: "files", message: "the edits change nothing: an evolved task must differ from its parent" });
  if (errors.length) return { ok: false, errors };

  const shaOf = new Map(parent.map((f) => [f.path, f.sha256]));
  for (const c of changed) shaOf.set(c.path, sha256(c.after));
  const filesDigest = sha256(
    [...shaOf.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([p, s]) => `${p}\0${s}`)
      .join("\n"),
  );
  changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ok: true, changed, fields, filesDigest };
}

/** The task.toml fields an environment config carries, set from the evolved task.toml (fields it dropped removed). */
export const CONFIG_TOML_FIELDS = [
  "agent_timeout_sec",
  "verifier_timeout_sec",
  "cpus",
  "memory_mb",
  "storage_mb",
  "gpus",
  "allow_internet",
  "difficulty",
  "category",
  "tags",
] as const;

/** The evolved task's environment config: the parent's, with the honoured task.toml fields of the result and its files digest. */
export function evolvedConfig(parentConfig: Record<string, unknown>, fields: TaskTomlFields, filesDigest: string): Record<string, unknown> {
  const config: Record<string, unknown> = { ...parentConfig };
  for (const k of CONFIG_TOML_FIELDS) {
    const v = fields[k];
    if (v === undefined) delete config[k];
    else config[k] = v;
  }
  if (config.difficulty !== undefined && !["easy", "medium", "hard"].includes(config.difficulty as string)) delete config.difficulty;
  config.files_sha256 = filesDigest;
  return config;
}

/**
 * Evolved tasks in the database: the parent files an engineer edits (text where readable), and
 * materializing an evolved task (its parent's files with the approved edits, content-addressed:
 * new blobs only for the files that changed).
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Db, DbTx } from "@/lib/db/client";
import { blobs, environmentFiles, environments } from "@/lib/db/schema";
import { Invalid } from "@/lib/errors";
import { sha256Hex } from "./folder";
import { applyTaskEdits, type ParentTaskFile, type TaskEdits } from "./edits";
import { materializeTaskFiles } from "./materialize";
import { nameTaskTomlFor, parseTaskToml } from "./task-toml";
import { environmentFileList, storeBlobs, writeEnvironmentFiles } from "./store";

/** [task].name of a task.toml text, null without one. */
const taskNameOf = (text: string): string | null => parseTaskToml(text).config.task?.name ?? null;

type Queryable = Db | DbTx;

/** Files larger than this are shown and edited as binary (not as text). */
export const EDITABLE_TEXT_BYTES = 256 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A file's bytes as text, or null when it is binary (NUL bytes, not UTF-8) or too large. */
export function textOf(data: Buffer): string | null {
  if (data.length > EDITABLE_TEXT_BYTES || data.includes(0)) return null;
  try {
    return utf8.decode(data);
  } catch {
    return null;
  }
}

/** The files of one environment with their text (null for binaries). */
export async function parentTaskFiles(db: Queryable, environmentId: number): Promise<ParentTaskFile[]> {
  const list = await environmentFileList(db, environmentId);
  if (!list.length) return [];
  const small = [...new Set(list.filter((f) => f.size <= EDITABLE_TEXT_BYTES).map((f) => f.sha256))];
  const data = small.length
    ? new Map(
        (await db.select({ sha256: blobs.sha256, data: blobs.data }).from(blobs).where(inArray(blobs.sha256, small))).map((b) => [
          b.sha256,
          b.data,
        ]),
      )
    : new Map<string, Buffer>();
  return list.map((f) => {
    const bytes = data.get(f.sha256);
    return { path: f.path, sha256: f.sha256, size: f.size, executable: f.executable, text: bytes ? textOf(bytes) : null };
  });
}

/** Parent files by environment key, for the environments of a project that have files (others left out). */
export async function taskFilesByKey(db: Queryable, projectId: number, keys: string[]): Promise<Record<string, ParentTaskFile[]>> {
  if (!keys.length) return {};
  const rows = await db
    .selectDistinct({ id: environments.id, key: environments.key })
    .from(environments)
    .innerJoin(environmentFiles, eq(environmentFiles.environmentId, environments.id))
    .where(and(eq(environments.projectId, projectId), inArray(environments.key, keys)));
  const out: Record<string, ParentTaskFile[]> = {};
  for (const r of rows) out[r.key] = await parentTaskFiles(db, r.id);
  return out;
}

/** Parent files of one environment by key (materialized first when it is an evolved task without files yet). */
export async function taskFilesOf(db: Queryable, projectId: number, key: string): Promise<ParentTaskFile[]> {
  const [env] = await db
    .select({ id: environments.id })
    .from(environments)
    .where(and(eq(environments.projectId, projectId), eq(environments.key, key)));
  if (!env) return [];
  await materializeTaskFiles(db, [env.id]);
  return parentTaskFiles(db, env.id);
}

/**
 * Write an evolved task's files: its parent's list with the edited files replaced or added (new
 * blobs only for those), task.toml's [task].name made its own (nameTaskTomlFor). Throws Invalid when the edits no longer apply to the parent's files.
 */
export async function materializeEvolvedTask(
  db: Queryable,
  projectId: number,
  child: { environmentId: number; key: string; parentKey: string; edits: TaskEdits },
): Promise<{ changed: number }> {
  const parent = await taskFilesOf(db, projectId, child.parentKey);
  if (!parent.length) throw new Invalid(`The parent task '${child.parentKey}' of '${child.key}' has no files to evolve.`);
  const applied = applyTaskEdits(parent, child.edits);
  if (!applied.ok)
    throw new Invalid(
      `The edits of '${child.key}' no longer apply to '${child.parentKey}'.`,
      applied.errors.map((e) => ({ path: `${child.key}.${e.path}`, message: e.message })),
    );
  const byPath = new Map(parent.map((f) => [f.path, { path: f.path, sha256: f.sha256, size: f.size, executable: f.executable }]));
  const texts = new Map(applied.changed.map((c) => [c.path, c.after]));
  const parentToml = parent.find((f) => f.path === "task.toml")?.text;
  const toml = texts.get("task.toml") ?? parentToml;
  if (typeof toml === "string") {
    const inherited = typeof parentToml === "string" ? taskNameOf(parentToml) : null;
    const named = nameTaskTomlFor(toml, child.key, inherited);
    if (named !== toml) texts.set("task.toml", named);
  }
  const made = [...texts].map(([filePath, after]) => {
    const data = Buffer.from(after, "utf8");
    return { path: filePath, sha256: sha256Hex(data), size: data.length, data };
  });
  await storeBlobs(db, made);
  for (const m of made) {
    const prior = byPath.get(m.path);
    // a new shell script is meant to run (tests/test.sh); other new files are plain
    byPath.set(m.path, { path: m.path, sha256: m.sha256, size: m.size, executable: prior?.executable ?? m.path.endsWith(".sh") });
  }
  await writeEnvironmentFiles(db, child.environmentId, [...byPath.values()]);
  return { changed: made.length };
}

/** The new environments of a materialized proposal get their files: evolved ones by their edits, the rest from their nearest ancestor. */
export async function materializeTaskChildren(
  db: Queryable,
  projectId: number,
  children: { environmentId: number; key: string; parentKey: string | null; edits: TaskEdits | null }[],
): Promise<void> {
  const rest: number[] = [];
  for (const c of children) {
    if (c.edits && c.parentKey) await materializeEvolvedTask(db, projectId, { ...c, parentKey: c.parentKey, edits: c.edits });
    else rest.push(c.environmentId);
  }
  await materializeTaskFiles(db, rest);
}

/**
 * An evolved terminal task is a complete task folder: an environment without files of its own
 * takes its nearest ancestor's files with task.toml rewritten to its config (the honoured fields:
 * timeouts, resources, internet, labels) and its [task].name to its own key (nameTaskTomlFor). Idempotent; written once, then the environment has files.
 */
import { eq, inArray } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { blobs, environmentFiles, environments } from "@/lib/db/schema";
import { sha256Hex } from "./folder";
import { environmentFileList, storeBlobs, writeEnvironmentFiles } from "./store";
import { applyTaskTomlFields, nameTaskTomlFor, type TaskTomlFields } from "./task-toml";
import { CONFIG_TOML_FIELDS } from "./edits";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The task.toml changes that turn the parent's config into the child's (honoured fields only). */
export function taskTomlChanges(parent: Record<string, unknown>, child: Record<string, unknown>): Partial<TaskTomlFields> {
  const out: Record<string, unknown> = {};
  for (const k of CONFIG_TOML_FIELDS)
    if (child[k] !== undefined && JSON.stringify(child[k]) !== JSON.stringify(parent[k])) out[k] = child[k];
  return out as Partial<TaskTomlFields>;
}

/** Give every listed environment that has none the files of its nearest ancestor with files (task.toml per its config). Returns how many got files. */
export async function materializeTaskFiles(db: Db | Tx, environmentIds: number[]): Promise<number> {
  if (!environmentIds.length) return 0;
  const withFiles = new Set(
    (
      await db
        .selectDistinct({ id: environmentFiles.environmentId })
        .from(environmentFiles)
        .where(inArray(environmentFiles.environmentId, environmentIds))
    ).map((r) => r.id),
  );
  let made = 0;
  for (const id of environmentIds) {
    if (withFiles.has(id)) continue;
    const [env] = await db.select().from(environments).where(eq(environments.id, id));
    if (!env?.parentId) continue;
    let ancestorId: number | null = env.parentId;
    let ancestorFiles: Awaited<ReturnType<typeof environmentFileList>> = [];
    let ancestorConfig: Record<string, unknown> = {};
    for (let depth = 0; ancestorId !== null && depth < 100; depth++) {
      const [a] = await db.select().from(environments).where(eq(environments.id, ancestorId));
      if (!a) break;
      ancestorFiles = await environmentFileList(db, a.id);
      ancestorConfig = a.config as Record<string, unknown>;
      if (ancestorFiles.length) break;
      ancestorId = a.parentId;
    }
    if (!ancestorFiles.length) continue;
    const files = ancestorFiles.map((f) => ({ ...f }));
    const changes = taskTomlChanges(ancestorConfig, env.config as Record<string, unknown>);
    const toml = files.find((f) => f.path === "task.toml");
    if (toml) {
      const [blob] = await db.select({ data: blobs.data }).from(blobs).where(eq(blobs.sha256, toml.sha256));
      const before = blob.data.toString("utf8");
      const text = nameTaskTomlFor(Object.keys(changes).length ? applyTaskTomlFields(before, changes) : before, env.key);
      if (text !== before) {
        const data = Buffer.from(text, "utf8");
        const sha256 = sha256Hex(data);
        await storeBlobs(db, [{ sha256, size: data.length, data }]);
        Object.assign(toml, { sha256, size: data.length });
      }
    }
    await writeEnvironmentFiles(db, id, files);
    made++;
  }
  return made;
}

/** Bytes of a stored file by sha256. */
export async function readBlob(db: Db, sha256: string): Promise<Buffer> {
  const [row] = await db.select({ data: blobs.data }).from(blobs).where(eq(blobs.sha256, sha256));
  if (!row) throw new Error(`stored file ${sha256} is missing`);
  return row.data;
}

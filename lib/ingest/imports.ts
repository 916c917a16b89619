/**
 * Browser imports: an uploaded NDJSON file or a .tar.gz of a Harbor job is stored in Postgres (in
 * 1 MiB chunks, so any worker process can read it), queued, and ingested by the worker with
 * progress written to its `imports` row.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { importChunks, imports, projects } from "@/lib/db/schema";
import { BadRequest, NotFound, parseOrThrow } from "@/lib/errors";
import { maxBodyBytes } from "@/lib/http/body";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import { getFamily } from "@/lib/family-store";
import type { ProjectRow } from "@/lib/projects/service";
import { enqueue } from "@/lib/queue/boss";
import { recordAudit } from "@/lib/audit";
import { importLimits } from "@/lib/config/import-limits";
import { unpackArchive } from "./archive";
import { limitedBody, ndjsonLines } from "./body";
import { findHarborJobDir, harborRolloutInput, readHarborJob } from "./harbor";
import { storableText } from "./json-safety";
import { HARDLINK_REFUSED, LINK_REFUSED, SafeTree } from "./safe-tree";
import { makeTempDir } from "./temp";
import { ingestRollouts, type IngestLine, type IngestSummary } from "./store";
import { findTaskDirs } from "@/lib/tasks/folder";
import { importTaskFolders, type TaskImportSummary } from "@/lib/tasks/store";

const CHUNK_BYTES = 1024 * 1024;

export const importJobSchema = z.object({ importId: z.uuid() });

export const createImportQuery = z.object({
  kind: z.enum(["ndjson", "harbor", "harbor-tasks"], { message: "must be ndjson, harbor (a job) or harbor-tasks (task folders)" }),
  filename: z.string().max(300).optional(),
  generation: z.coerce.number().int().min(0).optional(),
});

export type ImportRow = typeof imports.$inferSelect;

export interface ImportProgress {
  phase: "uploaded" | "unpacking" | "reading" | "ingesting" | "done";
  done: number;
  total: number | null;
}

/** The public shape of an import. */
export function importView(row: ImportRow) {
  return {
    id: row.id,
    kind: row.kind,
    filename: row.filename,
    bytes: row.bytes,
    generation: row.generation,
    status: row.status,
    progress: row.progress as ImportProgress | null,
    summary: row.summary as IngestSummary | null,
    error: row.error,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}

/** Store an uploaded file with its import row in one transaction, then queue it for the worker. */
export async function createImport(db: Db, project: ProjectRow, principal: Principal, req: Request) {
  const query = parseOrThrow(createImportQuery, Object.fromEntries(new URL(req.url).searchParams), "query", 400);
  const { stream, cleanup } = await limitedBody(req, maxBodyBytes());
  let row: ImportRow;
  try {
    row = await db.transaction(async (tx) => {
      const [created] = await tx
        .insert(imports)
        .values({
          projectId: project.id,
          kind: query.kind,
          filename: query.filename,
          generation: query.generation,
          status: "queued",
          createdBy: principal.actor,
        })
        .returning();
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let seq = 0;
      let total = 0;
      const flush = async () => {
        if (!pendingBytes) return;
        await tx.insert(importChunks).values({ importId: created.id, seq: seq++, data: Buffer.concat(pending) });
        pending = [];
        pendingBytes = 0;
      };
      for await (const chunk of stream) {
        pending.push(Buffer.from(chunk));
        pendingBytes += chunk.byteLength;
        total += chunk.byteLength;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
      await flush();
      if (total === 0) throw new BadRequest("The uploaded file is empty.");
      const [updated] = await tx
        .update(imports)
        .set({ bytes: total, progress: { phase: "uploaded", done: 0, total: null } satisfies ImportProgress })
        .where(eq(imports.id, created.id))
        .returning();
      await recordAudit(tx, {
        projectId: project.id,
        actor: principal.actor,
        action: "import.create",
        entity: "import",
        entityId: created.id,
        after: { kind: query.kind, filename: query.filename, bytes: total },
      });
      return updated;
    });
  } finally {
    await cleanup();
  }
  try {
    await enqueue("envforge.import", importJobSchema, { importId: row.id }, { retryLimit: 2, retryDelay: 5, retryBackoff: true });
  } catch (err) {
    await db
      .update(imports)
      .set({ status: "failed", error: `Could not queue the import: ${(err as Error).message}` })
      .where(eq(imports.id, row.id));
    throw err;
  }
  return importView(row);
}

/** One import, checked against the principal's project access. */
export async function getImport(db: Db, id: string, principal: Principal) {
  if (!z.uuid().safeParse(id).success) throw new NotFound(`Import ${id} does not exist.`);
  const [row] = await db.select().from(imports).where(eq(imports.id, id));
  if (!row) throw new NotFound(`Import ${id} does not exist.`);
  requireScope(principal, "projects:read", row.projectId);
  return importView(row);
}

/** The project's recent imports, newest first. */
export async function listImports(db: Db, projectId: number, limit = 20) {
  const rows = await db.select().from(imports).where(eq(imports.projectId, projectId)).orderBy(desc(imports.createdAt)).limit(limit);
  return rows.map(importView);
}

async function setProgress(db: Db, id: string, progress: ImportProgress, extra: Partial<typeof imports.$inferInsert> = {}) {
  await db
    .update(imports)
    .set({ progress, ...extra })
    .where(eq(imports.id, id));
}

/** The stored chunks in order, read one at a time (the upload is never held whole, nor written to disk). */
async function* storedChunks(db: Db, id: string): AsyncGenerator<Buffer> {
  for (let seq = 0; ; seq++) {
    const [chunk] = await db
      .select({ data: importChunks.data })
      .from(importChunks)
      .where(and(eq(importChunks.importId, id), eq(importChunks.seq, seq)));
    if (!chunk) return;
    yield chunk.data;
  }
}

/** A throttled progress writer (at most one update a second). */
function progressWriter(db: Db, id: string) {
  let last = 0;
  return (p: ImportProgress) => {
    const now = Date.now();
    if (now - last < 1000 && p.phase !== "done") return;
    last = now;
    void setProgress(db, id, p).catch(() => {});
  };
}

/** The worker's job: ingest one uploaded import. Safe to run again (rollouts are idempotent by externalId). */
export async function runImport(db: Db, data: unknown): Promise<void> {
  const { importId } = importJobSchema.parse(data);
  const [row] = await db.select().from(imports).where(eq(imports.id, importId));
  if (!row || row.status === "succeeded") return;
  const [project] = await db.select().from(projects).where(eq(projects.id, row.projectId));
  if (!project) return;
  await db.update(imports).set({ status: "running", error: null }).where(eq(imports.id, importId));
  const progress = progressWriter(db, importId);
  try {
    const summary = await ingestImport(db, row, project, progress);
    await db.transaction(async (tx) => {
      await tx
        .update(imports)
        .set({
          status: "succeeded",
          summary: storableSummary(summary),
          progress: { phase: "done", done: summary.accepted + summary.duplicates + summary.rejected.length, total: null },
          finishedAt: new Date(),
        })
        .where(eq(imports.id, importId));
      await tx.delete(importChunks).where(eq(importChunks.importId, importId));
    });
  } catch (err) {
    await markFailed(db, importId, (err as Error).message ?? String(err));
    // a bad file will not get better: only unexpected errors are retried by the queue
    if (!(err instanceof BadRequest)) throw err;
  }
}

/** Record an import as failed with why (the text made storable: no NUL, no lone surrogate). */
async function markFailed(db: Db, importId: string, why: string) {
  await db
    .update(imports)
    .set({ status: "failed", error: storableText(why).slice(0, 4000), finishedAt: new Date() })
    .where(eq(imports.id, importId));
}

function storableSummary<S extends IngestSummary>(summary: S): S {
  return { ...summary, rejected: summary.rejected.map((r) => ({ ...r, message: storableText(r.message) })) };
}

type ImportSummary = IngestSummary & { tasks?: TaskImportSummary };

/** Read and store one import; its temporary folder is gone before this returns, whatever happened. */
async function ingestImport(db: Db, row: ImportRow, project: ProjectRow, progress: (p: ImportProgress) => void): Promise<ImportSummary> {
  const family = await getFamily(db, project.familyId);
  if (row.kind === "ndjson") {
    const lines = ndjsonLines(storedChunks(db, row.id));
    return ingestRollouts(db, project, family, withGeneration(lines, row.generation), {
      createEnvironments: false,
      onProgress: (s) => progress({ phase: "ingesting", done: s.lines, total: null }),
    });
  }
  progress({ phase: "unpacking", done: 0, total: null });
  const work = await makeTempDir("import", row.id);
  try {
    const limits = importLimits();
    // entries are read from the stream and only folders and regular files are written (archive.ts)
    const unpacked = await unpackArchive(storedChunks(db, row.id), work, limits);
    const tree = await SafeTree.open(work, { maxFileBytes: limits.maxFileBytes, refused: unpacked.refused });
    const jobDir = row.kind === "harbor-tasks" ? null : await findHarborJobDir(tree.root, 3, tree);
    if (!jobDir && (await findTaskDirs(tree.root)).length > 0) {
      // task folders hold files and folders only: a link or an entry out of the archive refuses the whole archive
      const [firstRefused] = [...unpacked.refused.entries()].map(([entry, why]) =>
        why === LINK_REFUSED || why === HARDLINK_REFUSED
          ? `${entry}: links are not allowed in the archive`
          : `${entry}: ${why} (not allowed in an archive of task folders)`,
      );
      const firstOutside =
        unpacked.outside[0] && `${unpacked.outside[0]}: lies outside the archive (not allowed in an archive of task folders)`;
      if (firstRefused || firstOutside) throw new BadRequest((firstRefused ?? firstOutside) as string);
      const tasks = await importTaskFolders(db, project, family, tree.root, {
        generation: row.generation ?? undefined,
        actor: row.createdBy ?? "import",
        onProgress: (done, total) => progress({ phase: "ingesting", done, total }),
      });
      return {
        accepted: tasks.created.length + tasks.attached.length,
        duplicates: tasks.unchanged.length,
        rejected: tasks.rejected.map((r, i) => ({ line: i + 1, code: "invalid_task", message: r.message })),
        tasks,
      };
    }
    if (!jobDir) throw new BadRequest("The archive holds no Harbor trial folders (folders with config.json / result.json).");
    const job = await readHarborJob(jobDir, { tree, onProgress: (done, total) => progress({ phase: "reading", done, total }) });
    const total = job.trials.length;
    const lines: IngestLine[] = job.trials.map((t, i) => ({
      line: i + 1,
      value: harborRolloutInput(t, { generation: row.generation ?? undefined }),
    }));
    const summary = await ingestRollouts(db, project, family, lines, {
      createEnvironments: true,
      onProgress: (s) => progress({ phase: "ingesting", done: s.lines, total }),
    });
    // unreadable trial folders count as rejected, named by folder; entries out of the archive after them
    summary.rejected.push(
      ...job.unreadable.map((u, i) => ({
        line: total + i + 1,
        code: "unreadable_trial",
        message: `${path.basename(u.trialDir)}: ${u.reason}`,
      })),
    );
    for (const r of summary.rejected) if (r.line <= total) r.message = `${job.trials[r.line - 1].trialName}: ${r.message}`;
    const n = summary.rejected.length;
    summary.rejected.push(
      ...unpacked.outside
        .slice(0, 20)
        .map((p, i) => ({ line: total + n + i + 1, code: "unsafe_entry", message: `${p}: lies outside the archive; not unpacked` })),
    );
    return summary;
  } finally {
    await fsp.rm(work, { recursive: true, force: true });
  }
}

/** Give lines without a generation the import's generation, when one was chosen. */
async function* withGeneration(lines: AsyncIterable<IngestLine>, generation: number | null): AsyncIterable<IngestLine> {
  for await (const l of lines) {
    if (
      generation !== null &&
      "value" in l &&
      l.value &&
      typeof l.value === "object" &&
      !Array.isArray(l.value) &&
      !("generation" in l.value)
    ) {
      yield { line: l.line, value: { ...(l.value as object), generation } };
    } else yield l;
  }
}

/**
 * Browser imports: an uploaded NDJSON file or a .tar.gz of a Harbor job is stored in Postgres (in
 * 1 MiB chunks, so any worker process can read it), queued, and ingested by the worker with
 * progress written to its `imports` row.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { and, desc, eq } from "drizzle-orm";
import * as tar from "tar";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { importChunks, imports, projects } from "@/lib/db/schema";
import { BadRequest, NotFound, parseOrThrow } from "@/lib/api/errors";
import { maxBodyBytes } from "@/lib/api/route";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import { getFamily } from "@/lib/projects/families";
import type { ProjectRow } from "@/lib/projects/service";
import { enqueue } from "@/lib/queue/boss";
import { recordAudit } from "@/lib/review/audit";
import { limitedBody, ndjsonLines } from "./body";
import { findHarborJobDir, harborRolloutInput, readHarborJob } from "./harbor";
import { ingestRollouts, type IngestLine, type IngestSummary } from "./store";
import { findTaskDirs } from "@/lib/tasks/folder";
import { importTaskFolders, type TaskImportSummary } from "@/lib/tasks/store";

const CHUNK_BYTES = 1024 * 1024;
/** A Harbor archive may unpack to at most this much (a guard against archive bombs). */
const MAX_UNPACKED_BYTES = 8 * 1024 ** 3;

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
  requireScope(principal, "rollouts:write", project.id);
  const query = parseOrThrow(createImportQuery, Object.fromEntries(new URL(req.url).searchParams), "query", 400);
  const { stream, cleanup } = await limitedBody(req, maxBodyBytes());
  let row: ImportRow;
  try {
    row = await db.transaction(async (tx) => {
      const [created] = await tx
        .insert(imports)
        .values({ projectId: project.id, kind: query.kind, filename: query.filename, generation: query.generation, status: "queued", createdBy: principal.actor })
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
      await recordAudit(tx, { projectId: project.id, actor: principal.actor, action: "import.create", entity: "import", entityId: created.id, after: { kind: query.kind, filename: query.filename, bytes: total } });
      return updated;
    });
  } finally {
    await cleanup();
  }
  try {
    await enqueue("envforge.import", importJobSchema, { importId: row.id }, { retryLimit: 2, retryDelay: 5, retryBackoff: true });
  } catch (err) {
    await db.update(imports).set({ status: "failed", error: `Could not queue the import: ${(err as Error).message}` }).where(eq(imports.id, row.id));
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
  await db.update(imports).set({ progress, ...extra }).where(eq(imports.id, id));
}

/** Write the stored chunks back into one file. */
async function spoolChunks(db: Db, id: string, file: string): Promise<void> {
  const out = fs.createWriteStream(file);
  for (let seq = 0; ; seq++) {
    const [chunk] = await db.select({ data: importChunks.data }).from(importChunks).where(and(eq(importChunks.importId, id), eq(importChunks.seq, seq)));
    if (!chunk) break;
    if (!out.write(chunk.data)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
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
  const work = await fsp.mkdtemp(path.join(os.tmpdir(), "envforge-import-"));
  const progress = progressWriter(db, importId);
  try {
    const family = await getFamily(db, project.familyId);
    const file = path.join(work, "upload");
    await spoolChunks(db, importId, file);
    let summary: IngestSummary & { tasks?: TaskImportSummary };
    if (row.kind === "ndjson") {
      const lines = ndjsonLines(fs.createReadStream(file));
      summary = await ingestRollouts(db, project, family, withGeneration(lines, row.generation), {
        createEnvironments: false,
        onProgress: (s) => progress({ phase: "ingesting", done: s.lines, total: null }),
      });
    } else {
      progress({ phase: "unpacking", done: 0, total: null });
      const root = path.join(work, "job");
      await fsp.mkdir(root);
      let unpacked = 0;
      // a throw inside tar's filter would escape its promise: remember the first refusal instead
      let refused: string | undefined;
      await tar.x({
        file,
        cwd: root,
        strict: true,
        filter: (p, entry) => {
          const type = (entry as { type?: string }).type;
          // links are never followed nor created: a task folder or job holds files and folders only
          if (type !== "File" && type !== "OldFile" && type !== "ContiguousFile" && type !== "Directory") {
            refused ??= `${p}: ${type === "SymbolicLink" || type === "Link" ? "links are" : `${type} entries are`} not allowed in the archive`;
            return false;
          }
          unpacked += (entry as { size?: number }).size ?? 0;
          if (unpacked > MAX_UNPACKED_BYTES) throw new BadRequest(`The archive unpacks to more than ${MAX_UNPACKED_BYTES / 1024 ** 3} GiB.`);
          return true;
        },
      }).catch((err: Error) => {
        throw err instanceof BadRequest ? err : new BadRequest(`The file is not a readable .tar.gz archive: ${err.message}`);
      });
      if (refused) throw new BadRequest(refused);
      const jobDir = row.kind === "harbor-tasks" ? null : await findHarborJobDir(root);
      if (!jobDir && (await findTaskDirs(root)).length > 0) {
        const tasks = await importTaskFolders(db, project, family, root, {
          generation: row.generation ?? undefined,
          actor: row.createdBy ?? "import",
          onProgress: (done, total) => progress({ phase: "ingesting", done, total }),
        });
        summary = { accepted: tasks.created.length + tasks.attached.length, duplicates: tasks.unchanged.length, rejected: tasks.rejected.map((r, i) => ({ line: i + 1, code: "invalid_task", message: r.message })), tasks };
      } else {
      if (!jobDir) throw new BadRequest("The archive holds no Harbor trial folders (folders with config.json / result.json).");
      const job = await readHarborJob(jobDir, { onProgress: (done, total) => progress({ phase: "reading", done, total }) });
      const total = job.trials.length;
      const lines: IngestLine[] = job.trials.map((t, i) => ({ line: i + 1, value: harborRolloutInput(t, { generation: row.generation ?? undefined }) }));
      summary = await ingestRollouts(db, project, family, lines, {
        createEnvironments: true,
        onProgress: (s) => progress({ phase: "ingesting", done: s.lines, total }),
      });
      // unreadable trial folders count as rejected, named by folder
      summary.rejected.push(...job.unreadable.map((u, i) => ({ line: total + i + 1, code: "unreadable_trial", message: `${path.basename(u.trialDir)}: ${u.reason}` })));
      for (const r of summary.rejected) if (r.line <= total) r.message = `${job.trials[r.line - 1].trialName}: ${r.message}`;
      }
    }
    await db.transaction(async (tx) => {
      await tx
        .update(imports)
        .set({ status: "succeeded", summary, progress: { phase: "done", done: summary.accepted + summary.duplicates + summary.rejected.length, total: null }, finishedAt: new Date() })
        .where(eq(imports.id, importId));
      await tx.delete(importChunks).where(eq(importChunks.importId, importId));
    });
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    await db.update(imports).set({ status: "failed", error: message, finishedAt: new Date() }).where(eq(imports.id, importId));
    // a bad file will not get better: only unexpected errors are retried by the queue
    if (!(err instanceof BadRequest)) throw err;
  } finally {
    await fsp.rm(work, { recursive: true, force: true });
  }
}

/** Give lines without a generation the import's generation, when one was chosen. */
async function* withGeneration(lines: AsyncIterable<IngestLine>, generation: number | null): AsyncIterable<IngestLine> {
  for await (const l of lines) {
    if (generation !== null && "value" in l && l.value && typeof l.value === "object" && !Array.isArray(l.value) && !("generation" in l.value)) {
      yield { line: l.line, value: { ...(l.value as object), generation } };
    } else yield l;
  }
}

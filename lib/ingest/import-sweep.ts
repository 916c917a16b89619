/**
 * No import stays `running` (or `queued`) forever: at worker start and every half minute, imports
 * whose worker died are marked `failed` with why, and their temporary folders are removed.
 *  - a temporary folder whose owning process is gone (kill -9, crash, power loss) is removed; the
 *    import it belonged to, if still `running`, is failed and its queue job cancelled (a retry
 *    would only repeat what killed it);
 *  - an import still `queued`/`running` whose queue job is over (failed after its retries,
 *    expired, cancelled or archived) is failed: no worker will ever finish it.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { imports } from "@/lib/db/schema";
import { getBoss } from "@/lib/queue/boss";
import { sweepStaleTempDirs } from "./temp";

/** How long a queued import may wait for its job row before it counts as lost (enqueue follows the insert). */
const QUEUED_GRACE_SECONDS = 120;

/** What one sweep did. */
export interface ImportSweep {
  removedFolders: string[];
  /** imports marked failed, with why */
  failed: { id: string; error: string }[];
}

async function liveJobIds(db: Db, importId: string): Promise<string[]> {
  const rows = await db.execute<{ id: string }>(
    sql`select id::text as id from pgboss.job where name = 'envforge.import' and data->>'importId' = ${importId} and state in ('created', 'retry', 'active')`,
  );
  return rows.rows.map((r) => r.id);
}

/** Remove dead processes' temporary folders and fail the imports no worker will finish (see the file comment). */
export async function sweepImports(db: Db, tmpBase?: string): Promise<ImportSweep> {
  const out: ImportSweep = { removedFolders: [], failed: [] };
  const swept = await sweepStaleTempDirs(tmpBase);
  out.removedFolders = swept.map((s) => s.dir);
  for (const s of swept) {
    if (!s.importId) continue;
    const error =
      `The worker process${s.pid ? ` ${s.pid}` : ""} stopped during the import (killed or crashed); its temporary folder ` +
      `was removed. Upload the file again.`;
    const failed = await db
      .update(imports)
      .set({ status: "failed", error, finishedAt: new Date() })
      .where(and(eq(imports.id, s.importId), eq(imports.status, "running")))
      .returning({ id: imports.id });
    if (!failed.length) continue;
    out.failed.push({ id: s.importId, error });
    const jobs = await liveJobIds(db, s.importId).catch(() => [] as string[]);
    if (jobs.length) await (await getBoss()).cancel("envforge.import", jobs).catch(() => undefined);
  }

  // imports whose queue job is over without a final status (the queue's tables exist once a worker started)
  const lost = await db
    .execute<{ id: string; job_state: string | null }>(
      sql`select i.id::text as id,
            (select j.state::text from pgboss.job j where j.name = 'envforge.import' and j.data->>'importId' = i.id::text
              order by j.created_on desc limit 1) as job_state
          from imports i
          where i.status in ('queued', 'running') and i.created_at < now() - make_interval(secs => ${QUEUED_GRACE_SECONDS})
            and not exists (select 1 from pgboss.job j where j.name = 'envforge.import' and j.data->>'importId' = i.id::text
              and j.state in ('created', 'retry', 'active'))`,
    )
    .catch(() => ({ rows: [] as { id: string; job_state: string | null }[] }));
  for (const row of lost.rows) {
    const error = `The import's queue job ended without finishing it (job ${row.job_state ?? "gone"}); upload the file again.`;
    const failed = await db
      .update(imports)
      .set({ status: "failed", error, finishedAt: new Date() })
      .where(and(eq(imports.id, row.id), inArray(imports.status, ["queued", "running"])))
      .returning({ id: imports.id });
    if (failed.length) out.failed.push({ id: row.id, error });
  }
  return out;
}

/**
 * The database's floor for the ingest's writes (bench:ingest, issue 19): the rows the API just stored are written again,
 * under new external ids, the way the ingest writes them (each batch of 1,000 in one transaction: ids from the rollouts'
 * sequence, the payloads by binary COPY, the rollouts into the real table with its indexes and triggers), by a client
 * that has done all the parsing, validation and classification beforehand, on as many connections as the API's uploads
 * keep busy. No HTTP server and no Node work is in it, so no server can ingest faster than this on the same machine;
 * the API's rate over the floor's says how much of the database's own capacity the API reaches.
 */
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { copyBinary } from "../lib/db/copy-binary";
import { PAYLOAD_COLUMNS } from "../lib/ingest/store";
import { treeCpuSeconds } from "./lib";

/** The rollouts' columns a floor row copies from the row the API stored (everything but id and external_id). */
const COPIED = [
  "project_id",
  "generation_id",
  "environment_id",
  "policy_id",
  "reward",
  "success",
  "status",
  "failure_category",
  "failure_signature",
  "error_type",
  "error_message",
  "input_tokens",
  "output_tokens",
  "turns",
  "cost_usd",
  "flags",
  "tests_passed",
  "tests_failed",
  "behaviours",
  "trial_name",
  "started_at",
  "finished_at",
] as const;

/** A value in COPY's text format (arrays as array literals, NULL as \N). */
export function copyText(v: unknown): string {
  if (v === null || v === undefined) return "\\N";
  const raw = Array.isArray(v)
    ? `{${v.map((x) => `"${String(x).replace(/["\\]/g, "\\$&")}"`).join(",")}}`
    : v instanceof Date
      ? v.toISOString()
      : String(v);
  return raw.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");
}

export interface FloorResult {
  rowsPerSecond: number;
  /** the database's CPU seconds per 1,000 rows */
  dbCpuPerThousand: number;
}

/**
 * Write `lines.length` rollouts again (external ids `floor-<tag>-<i>`), copying the stored row of `externalIds[i]` and
 * the payload of `lines[i]` (the same NDJSON the API got), `batch` a transaction on `connections` connections. With
 * `withoutTriggers` the rollouts' triggers (aggregates, parent checks, search queue) are disabled for the run and
 * enabled again after it: what the writes cost without the exact aggregates.
 */
export async function databaseFloor(
  databaseUrl: string,
  appPid: number,
  externalIds: readonly string[],
  lines: readonly string[],
  opts: { tag: string; connections: number; batch?: number; withoutTriggers?: boolean },
): Promise<FloorResult> {
  const batch = opts.batch ?? 1000;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const pool = new pg.Pool({ connectionString: databaseUrl, max: opts.connections });
  pool.on("error", () => {});
  try {
    const stored = new Map<string, Record<string, unknown>>();
    for (const r of (
      await admin.query(`select external_id, ${COPIED.join(", ")} from rollouts where external_id = any($1::text[])`, [externalIds])
    ).rows)
      stored.set(r.external_id, r);
    // everything a server would compute, computed before the clock starts: the rollouts' COPY text and the payload rows
    const rolloutLines: string[] = [];
    const payloads: (string | null)[][] = [];
    lines.forEach((line, i) => {
      const row = stored.get(externalIds[i]);
      if (!row) throw new Error(`the API did not store ${externalIds[i]}`);
      const r = JSON.parse(line) as { trajectory?: unknown; verifierOutput?: string; metadata?: unknown };
      rolloutLines.push([`floor-${opts.tag}-${i}`, ...COPIED.map((c) => row[c])].map(copyText).join("\t"));
      payloads.push([
        r.trajectory === undefined ? null : JSON.stringify(r.trajectory),
        r.verifierOutput ?? null,
        r.metadata === undefined ? null : JSON.stringify(r.metadata),
      ]);
    });
    if (opts.withoutTriggers) await admin.query("alter table rollouts disable trigger user");
    const starts: number[] = [];
    for (let i = 0; i < lines.length; i += batch) starts.push(i);
    const cpuBefore = treeCpuSeconds(appPid).postgres ?? 0;
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: opts.connections }, async () => {
        for (let at = next++; at < starts.length; at = next++) {
          const from = starts[at];
          const to = Math.min(from + batch, lines.length);
          const c = await pool.connect();
          try {
            await c.query("begin");
            await c.query(
              "set constraints rollout_payloads_rollout_id_rollouts_id_fk, trajectory_pages_rollout_id_rollouts_id_fk deferred",
            );
            const ids = (
              await c.query<{ id: string }>(
                "select nextval(pg_get_serial_sequence('rollouts', 'id')) as id from generate_series(1, $1::int)",
                [to - from],
              )
            ).rows.map((r) => r.id);
            await copyBinary(
              c,
              "rollout_payloads",
              PAYLOAD_COLUMNS,
              ids.map((id, k) => [Number(id), ...payloads[from + k]]),
            );
            const text = ids.map((id, k) => `${id}\t${rolloutLines[from + k]}`).join("\n") + "\n";
            await new Promise<void>((resolve, reject) => {
              const stream = c.query(copyFrom(`copy rollouts (id, external_id, ${COPIED.join(", ")}) from stdin`));
              stream.on("finish", resolve);
              stream.on("error", reject);
              stream.end(text);
            });
            await c.query("commit");
          } catch (err) {
            await c.query("rollback").catch(() => {});
            throw err;
          } finally {
            c.release();
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const dbCpu = (treeCpuSeconds(appPid).postgres ?? 0) - cpuBefore;
    return { rowsPerSecond: lines.length / seconds, dbCpuPerThousand: (dbCpu / lines.length) * 1000 };
  } finally {
    if (opts.withoutTriggers) await admin.query("alter table rollouts enable trigger user");
    await pool.end();
    await admin.end();
  }
}

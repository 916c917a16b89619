/**
 * The search indexer (ADR 0007): ingest only notes which rollouts need a search document
 * (rollout_search_pending, kept by triggers in drizzle/0021_search_index_queue.sql); this writes each
 * document once, with its trajectory and verifier output, in batches off the write path. A batch claims
 * its notes with SKIP LOCKED, writes the documents and deletes the notes in one transaction: a crash
 * leaves the notes for the next run, two indexers never take the same rollout, a rollout deleted before
 * its turn is dropped from the queue.
 */
import { count, eq, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { rolloutSearchPending } from "@/lib/db/schema";
import { batchRan, deferralStep, NO_DEFERRAL } from "./index-deferral";

/** Rollouts a batch indexes in one transaction (~5 KB of text each: a few MB per batch). */
export const SEARCH_INDEX_BATCH = 500;

/**
 * Stored (compressed) bytes of trajectories and verifier outputs a batch takes at most (and always one rollout): 500
 * synthetic 4.7 KB rollouts (~1.5 KB stored each) fit, about fifty Harbor trials do. 500 Harbor trials in one batch
 * (up to 256 KB of text per document, with its trigrams) kept two cores busy for half a minute.
 */
export const SEARCH_INDEX_BATCH_BYTES = 2 * 1024 * 1024;

/** Something that runs SQL: the pool or a transaction. */
type Executor = Pick<Db, "execute">;

/**
 * Index one batch of pending rollouts; returns how many notes it took (indexed, or dropped because the rollout is gone).
 * Each document goes to its generation's partition of rollout_search (ADR 0008), made first for generations without one;
 * a generation created between the two statements fails the batch, which the next one retries with its partition.
 */
export async function indexSearchBatch(
  db: Executor,
  limit = SEARCH_INDEX_BATCH,
  maxBytes = SEARCH_INDEX_BATCH_BYTES,
): Promise<{ taken: number; indexed: number }> {
  await db.execute(sql`select envforge_search_partitions()`);
  const result = await db.execute<{ taken: number; indexed: number }>(sql`
    with claimed as (
      select rollout_id from rollout_search_pending order by rollout_id limit ${limit} for update skip locked),
    sized as (
      -- the stored (compressed) size of what each document is made from, read without decompressing it
      select c.rollout_id, sum(coalesce(pg_column_size(p.trajectory), 0) + coalesce(pg_column_size(p.verifier_output), 0))
               over (order by c.rollout_id) as upto,
             coalesce(pg_column_size(p.trajectory), 0) + coalesce(pg_column_size(p.verifier_output), 0) as own
      from claimed c left join rollout_payloads p on p.rollout_id = c.rollout_id),
    batch as (
      -- the first rollouts up to maxBytes (always at least one): the others stay claimed until this commits, then wait
      delete from rollout_search_pending where rollout_id in (select rollout_id from sized where upto - own < ${maxBytes})
      returning rollout_id),
    written as (
      insert into rollout_search as s (rollout_id, generation_id, project_id, body, tsv)
      select d.id, d.generation_id, d.project_id, d.body, envforge_search_tsvector(d.body)
      from (select r.id, r.generation_id, r.project_id,
              envforge_search_document(r.external_id, r.trial_name, e.key, r.error_type, r.error_message, p.trajectory, p.verifier_output) as body
            from batch b join rollouts r on r.id = b.rollout_id join environments e on e.id = r.environment_id
            left join rollout_payloads p on p.rollout_id = r.id) d
      on conflict (rollout_id, generation_id) do update set project_id = excluded.project_id, body = excluded.body, tsv = excluded.tsv
      returning 1)
    select (select count(*) from batch)::int as taken, (select count(*) from written)::int as indexed`);
  return result.rows[0] ?? { taken: 0, indexed: 0 };
}

/**
 * Index every rollout pending when called, batch by batch, until none is left (or `maxBatches` ran);
 * returns how many documents were written. Tests call this to make what they ingested searchable.
 */
export async function indexPendingRollouts(db: Db, opts: { batch?: number; maxBatches?: number } = {}): Promise<number> {
  let indexed = 0;
  for (let i = 0; i < (opts.maxBatches ?? Infinity); i++) {
    const r = await indexSearchBatch(db, opts.batch);
    indexed += r.indexed;
    if (r.taken === 0) break;
  }
  return indexed;
}

/** How many rollouts of a project are not searchable yet (the index lag the explorer shows). */
export async function pendingSearchCount(db: Db, projectId: number): Promise<number> {
  const [row] = await db.select({ n: count() }).from(rolloutSearchPending).where(eq(rolloutSearchPending.projectId, projectId));
  return row?.n ?? 0;
}

/** The newest rollout id waiting for its document (0: none): what the indexer compares to see ingest writing. */
export async function newestPendingRollout(db: Executor): Promise<number> {
  const r = await db.execute<{ id: string | null }>(sql`select max(rollout_id) as id from rollout_search_pending`);
  return Number(r.rows[0]?.id ?? 0);
}

/**
 * A background loop that drains the queue every `intervalMs` (the worker runs one); `stop` waits for the batch in flight.
 * With `maxDeferMs`, it yields the cores to ingest: while new rollouts keep being noted it takes one batch per
 * `maxDeferMs` or per ten times the last batch's time, whichever is longer (lib/rollouts/index-deferral.ts), and the
 * whole backlog once none has been noted for `quietMs` (default `maxDeferMs`). `now` is the clock those times are read
 * from (tests pass one they move by hand, so no assertion depends on how fast the machine is).
 */
export function startSearchIndexer(
  db: Db,
  opts: { intervalMs: number; maxDeferMs?: number; quietMs?: number; onError: (err: unknown) => void; now?: () => number },
): { drain: () => Promise<number>; stop: () => Promise<void> } {
  const now = opts.now ?? Date.now;
  let running: Promise<number> | null = null;
  let stopped = false;
  let deferral = NO_DEFERRAL;
  const loop = async () => {
    let indexed = 0;
    while (!stopped) {
      if (opts.maxDeferMs !== undefined) {
        const step = deferralStep(deferral, await newestPendingRollout(db), now(), opts.maxDeferMs, undefined, opts.quietMs);
        deferral = step.state;
        if (!step.run) break; // ingest is writing: look again at the next tick
      }
      const started = now();
      const r = await indexSearchBatch(db);
      deferral = batchRan(deferral, now() - started);
      indexed += r.indexed;
      if (r.taken === 0) break;
    }
    return indexed;
  };
  const drain = () => {
    running ??= loop().finally(() => (running = null));
    return running;
  };
  const timer = setInterval(() => {
    if (!stopped) drain().catch(opts.onError);
  }, opts.intervalMs);
  timer.unref();
  return {
    drain,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}

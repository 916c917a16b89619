/**
 * Bulk load of rollouts into a database whose rollouts table is empty (bench:scale's data sets). Row-by-statement
 * triggers cost most of a COPY at scale (ADR 0005: 2,500 rollouts/s at 1,000,000), so for this one load the
 * insert triggers of rollouts and failure_aggregates are disabled and the secondary indexes of rollouts and
 * rollout_search dropped; the rollouts are COPYed on several connections, then the aggregates are built set-based
 * by the migrations' own statements over the whole table (envforge_aggregates_add_sql('rollouts') and its facet
 * and category siblings, as the backfill of drizzle/0012 and 0017; envforge_failure_clusters_backfill() of 0024),
 * the search documents written with the indexer's expression, the indexes rebuilt and the triggers enabled again.
 * tests/bulk-load.int.test.ts checks every aggregate table and search document against the trigger path.
 * Nothing else may write rollouts meanwhile (the bench's own database).
 */
import pg from "pg";

/** The insert triggers the bulk load replaces by set-based statements (table, trigger). */
const TRIGGERS: [string, string][] = [
  ["rollouts", "rollouts_aggregates_insert"],
  ["rollouts", "rollouts_search_pending_insert"],
  ["failure_aggregates", "failure_aggregates_clusters_insert"],
];

/** Tables that must be empty before (the set-based statements build them from scratch). */
const EMPTY = [
  "rollouts",
  "rollout_aggregates",
  "failure_aggregates",
  "behaviour_aggregates",
  "exception_aggregates",
  "category_aggregates",
  "value_aggregates",
  "failure_cluster_aggregates",
  "rollout_search",
  "rollout_search_pending",
];

/** The search document of each rollout with id in [lo, hi): the same expression as lib/rollouts/search-index.ts. */
const SEARCH_DOCUMENTS = `
  insert into rollout_search (rollout_id, generation_id, project_id, body, tsv)
  select d.id, d.generation_id, d.project_id, d.body, envforge_search_tsvector(d.body)
  from (select r.id, r.generation_id, r.project_id,
          envforge_search_document(r.external_id, r.trial_name, e.key, r.error_type, r.error_message, p.trajectory, p.verifier_output) as body
        from rollouts r join environments e on e.id = r.environment_id
        left join rollout_payloads p on p.rollout_id = r.id
        where r.id >= $1 and r.id < $2) d`;

export interface BulkLoadTimes {
  copySeconds: number;
  aggregateSeconds: number;
  searchSeconds: number;
  indexSeconds: number;
  totalSeconds: number;
}

/** Run `jobs` on `clients`, each client taking the next job when it is free. */
async function onClients<T>(clients: pg.Client[], jobs: T[], run: (client: pg.Client, job: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < jobs.length) await run(client, jobs[next++]);
    }),
  );
}

/**
 * COPY rollouts [0, total) in chunks of `chunk` over `connections` connections (`copy(client, from, to)` writes one
 * chunk), then build what the triggers would have. `copy` should give rollout i an explicit id (firstId + i): with
 * sequence ids two connections interleave, and the aggregates' first rollout of a group would differ from a serial
 * load's. Returns the time of each phase.
 */
export async function bulkLoadRollouts(
  databaseUrl: string,
  opts: {
    total: number;
    copy: (client: pg.Client, from: number, to: number) => Promise<void>;
    connections?: number;
    chunk?: number;
    log?: (message: string) => void;
  },
): Promise<BulkLoadTimes> {
  const log = opts.log ?? (() => {});
  const chunk = opts.chunk ?? 250_000;
  const clients = Array.from({ length: Math.max(1, opts.connections ?? 2) }, () => new pg.Client({ connectionString: databaseUrl }));
  await Promise.all(clients.map((c) => c.connect()));
  const [admin] = clients;
  const t0 = performance.now();
  const since = (t: number) => (performance.now() - t) / 1000;
  let indexes: { name: string; def: string }[] = [];
  try {
    for (const table of EMPTY) {
      const { rows } = await admin.query(`select exists (select 1 from ${table}) as any`);
      if (rows[0].any) throw new Error(`bulk load needs an empty ${table}`);
    }
    // secondary indexes (not those behind a constraint): dropped now, built once at the end
    // a partitioned table's index reads "ON ONLY <table>" (no partitions' indexes): without ONLY it is built on every partition
    indexes = (
      await admin.query<{ name: string; def: string }>(`
        select i.indexrelid::regclass::text as name, replace(pg_get_indexdef(i.indexrelid), ' ON ONLY ', ' ON ') as def from pg_index i
        where i.indrelid in ('rollouts'::regclass, 'rollout_search'::regclass)
          and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
        order by pg_relation_size(i.indrelid) desc, 1`)
    ).rows;
    for (const [table, trigger] of TRIGGERS) await admin.query(`alter table ${table} disable trigger ${trigger}`);
    for (const { name } of indexes) await admin.query(`drop index ${name}`);

    const chunks: [number, number][] = [];
    for (let from = 0; from < opts.total; from += chunk) chunks.push([from, Math.min(opts.total, from + chunk)]);
    let copied = 0;
    await onClients(clients, chunks, async (client, [from, to]) => {
      await opts.copy(client, from, to);
      copied += to - from;
      log(`copied ${copied.toLocaleString("en-US")} rollouts in ${since(t0).toFixed(0)} s`);
    });
    // rows COPYed with explicit ids leave the sequence behind: later inserts number on from the largest
    await admin.query("select setval(pg_get_serial_sequence('rollouts', 'id'), max(id)) from rollouts having max(id) is not null");
    const copySeconds = since(t0);

    // the aggregates: the migrations' backfill statements over the whole table, one table per connection at a time
    const t1 = performance.now();
    const statements = (
      await admin.query<{ stmt: string }>(
        `select unnest(envforge_aggregates_add_sql('rollouts') || envforge_facets_add_sql('rollouts')
           || envforge_categories_add_sql('rollouts') || envforge_values_add_sql('rollouts')) as stmt`,
      )
    ).rows.map((r) => r.stmt);
    await onClients(clients, statements, async (client, stmt) => {
      await client.query("set work_mem = '256MB'");
      await client.query(stmt);
    });
    await admin.query("select envforge_failure_clusters_backfill()");
    const aggregateSeconds = since(t1);
    log(`aggregates built in ${aggregateSeconds.toFixed(0)} s`);

    // search documents, id range by id range
    const t2 = performance.now();
    const { rows: bounds } = await admin.query<{ lo: string | null; hi: string | null }>(
      "select min(id) as lo, max(id) as hi from rollouts",
    );
    const ranges: [number, number][] = [];
    if (bounds[0].lo !== null)
      for (let lo = Number(bounds[0].lo); lo <= Number(bounds[0].hi); lo += 100_000) ranges.push([lo, lo + 100_000]);
    let searchable = 0;
    // each generation's partition of rollout_search (ADR 0008), as the indexer makes them
    await admin.query("select envforge_search_partitions()");
    await onClients(clients, ranges, async (client, [lo, hi]) => {
      const written = (await client.query(SEARCH_DOCUMENTS, [lo, hi])).rowCount ?? 0;
      searchable += written;
      log(`${searchable.toLocaleString("en-US")} search documents in ${since(t2).toFixed(0)} s`);
    });
    const searchSeconds = since(t2);

    const t3 = performance.now();
    await onClients(clients, indexes, async (client, { name, def }) => {
      await client.query("set maintenance_work_mem = '1GB'");
      await client.query(def);
      log(`index ${name} built (${since(t3).toFixed(0)} s)`);
    });
    indexes = [];
    const indexSeconds = since(t3);
    await admin.query("analyze");
    return { copySeconds, aggregateSeconds, searchSeconds, indexSeconds, totalSeconds: since(t0) };
  } finally {
    // whatever happened, the database keeps its triggers and indexes
    for (const { def } of indexes) await admin.query(def.replace(/^CREATE (UNIQUE )?INDEX /, "CREATE $1INDEX IF NOT EXISTS "));
    for (const [table, trigger] of TRIGGERS) await admin.query(`alter table ${table} enable trigger ${trigger}`);
    await Promise.all(clients.map((c) => c.end()));
  }
}

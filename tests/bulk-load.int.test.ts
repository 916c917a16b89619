/**
 * bench:scale's bulk load (bench/bulk-load.ts: COPY on two connections with the insert triggers off, aggregates and
 * search documents built set-based afterwards) leaves exactly what the triggers and the search indexer leave: the same
 * 20,000 generated rollouts loaded both ways into two fresh databases (serial COPY numbered by the sequence; parallel
 * COPY with explicit ids), every aggregate table and every search document compared row by row, and the triggers,
 * indexes and id sequence are as the trigger path leaves them afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { freshDatabase } from "./db";
import { createProject } from "@/lib/projects/service";
import { indexPendingRollouts } from "@/lib/rollouts/search-index";
import { bulkLoadRollouts } from "../bench/bulk-load";
import { copyRange, type Shape } from "../bench/scale-data";

const TOTAL = 20_000;
type Handle = Awaited<ReturnType<typeof freshDatabase>> & { url: string; shape: Shape };
let triggered: Handle;
let bulk: Handle;

async function database(): Promise<Handle> {
  const handle = await freshDatabase();
  const url = process.env.DATABASE_URL!;
  const project = await createProject(handle.db, { slug: "bulk", name: "bulk", family: "frozenlake-mapf" }, { actor: "test" });
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query("insert into generations (project_id, index) select $1, g from generate_series(0, 2) g", [project.id]);
    await c.query(
      `insert into environments (project_id, key, config, config_hash)
       select $1, 'env-' || lpad(e::text, 3, '0'), jsonb_build_object('n', e), 'h' || e from generate_series(0, 59) e`,
      [project.id],
    );
    await c.query("insert into policies (project_id, name, step) select $1, 'ckpt-' || p, p from generate_series(1, 4) p", [project.id]);
    const ids = async (table: string, order: string) =>
      (await c.query(`select id from ${table} where project_id = $1 order by ${order}`, [project.id])).rows.map((r) => Number(r.id));
    const shape: Shape = {
      projectId: project.id,
      generationIds: await ids("generations", "index"),
      environmentIds: await ids("environments", "key"),
      policyIds: await ids("policies", "name"),
      total: TOTAL,
      inGeneration: 8_000,
    };
    return { ...handle, url, shape };
  } finally {
    await c.end();
  }
}

/** Every table the triggers and the indexer write, rollout ids replaced by external ids, in a fixed order. */
async function snapshot(h: Handle) {
  const c = new pg.Client({ connectionString: h.url });
  await c.connect();
  const q = async (text: string) => (await c.query(text)).rows;
  try {
    return {
      rollout_aggregates: await q("select * from rollout_aggregates order by 1, 2, 3"),
      failure_aggregates: await q("select * from failure_aggregates order by 1, 2, 3, 4, 5"),
      behaviour_aggregates: await q("select * from behaviour_aggregates order by 1, 2, 3, 4"),
      exception_aggregates: await q("select * from exception_aggregates order by 1, 2, 3"),
      category_aggregates: await q("select * from category_aggregates order by 1, 2, 3"),
      value_aggregates: await q("select * from value_aggregates order by 1, 2, 3, 4"),
      failure_cluster_aggregates: await q("select * from failure_cluster_aggregates order by 1, 2, 3, 4"),
      rollout_search: await q(`
        select s.rollout_id, r.external_id, s.generation_id, s.tableoid::regclass::text as partition, s.project_id, s.body, s.tsv::text as tsv
        from rollout_search s join rollouts r on r.id = s.rollout_id order by 1`),
      pending: await q("select count(*)::int as n from rollout_search_pending"),
      triggers: await q(`
        select tgrelid::regclass::text as tbl, tgname, tgenabled from pg_trigger
        where not tgisinternal and tgrelid in ('rollouts'::regclass, 'failure_aggregates'::regclass, 'rollout_search'::regclass)
        order by 1, 2`),
      indexes: await q(`
        select tablename, indexdef from pg_indexes where tablename = 'rollouts' or tablename like 'rollout_search%' order by 1, 2`),
      rollouts: await q("select count(*)::int as n, count(distinct external_id)::int as ids from rollouts"),
      // the next rollout stored gets the next id
      sequence: await q("select last_value from rollouts_id_seq"),
    };
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  triggered = await database();
  bulk = await database();
  // the trigger path: COPY statements of 2,500 rollouts with every trigger on, then the search indexer
  const c = new pg.Client({ connectionString: triggered.url });
  await c.connect();
  for (let from = 0; from < TOTAL; from += 2_500) await copyRange(c, from, Math.min(TOTAL, from + 2_500), triggered.shape);
  await c.end();
  await indexPendingRollouts(triggered.db);
  // the bulk path, in chunks small enough that both connections COPY
  await bulkLoadRollouts(bulk.url, {
    total: TOTAL,
    chunk: 3_000,
    connections: 2,
    copy: (client, from, to) => copyRange(client, from, to, { ...bulk.shape, firstId: 1 }),
  });
}, 300_000);

afterAll(async () => {
  await triggered?.drop();
  await bulk?.drop();
});

describe("bulk load", () => {
  it("builds every aggregate and search document exactly as the triggers and the indexer do", async () => {
    const a = await snapshot(triggered);
    const b = await snapshot(bulk);
    expect(a.rollouts).toEqual([{ n: TOTAL, ids: TOTAL }]);
    expect(a.failure_aggregates.length).toBeGreaterThan(100);
    expect(a.behaviour_aggregates.length).toBeGreaterThan(10);
    expect(a.value_aggregates.length).toBeGreaterThan(100);
    expect(a.failure_cluster_aggregates.length).toBeGreaterThan(100);
    expect(a.rollout_search.length).toBe(TOTAL);
    for (const key of Object.keys(a) as (keyof typeof a)[]) expect(b[key], key).toEqual(a[key]);
  });

  it("refuses a database that holds rollouts already", async () => {
    await expect(
      bulkLoadRollouts(bulk.url, { total: 10, copy: (client, from, to) => copyRange(client, from, to, bulk.shape) }),
    ).rejects.toThrow(/empty rollouts/);
  });
});

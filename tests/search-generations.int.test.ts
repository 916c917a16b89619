/**
 * Search documents kept per generation (ADR 0008) on a real Postgres: each document sits in its generation's
 * partition of rollout_search; a search inside one generation finds exactly that generation's hits at every walk
 * length (walks and the GIN fallback) and reads only that generation's partition; a document filed under another
 * generation never makes a rollout a hit; partitions appear for new generations, and deletes and moves of
 * rollouts carry their documents along.
 */
import { sql, type SQL } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnvForgeClient } from "@/cli/client";
import { listRollouts } from "@/lib/rollouts/list";
import { searchCondition } from "@/lib/rollouts/search";
import { rollouts } from "@/lib/db/schema";
import { indexPendingRollouts } from "@/lib/rollouts/search-index";
import type { ProjectRow } from "@/lib/projects/service";
import type { Db } from "@/lib/db/client";
import { lake } from "./configs";
import { createProjectWith, startApi, stopApi, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-search-gens01";
let db: TestDb;
let server: TestServer;
let client: EnvForgeClient;
let project: ProjectRow;
/** generation index -> id */
const gen = new Map<number, number>();

const ENVIRONMENTS = [0, 1, 2].map((i) => ({ key: `e${i}`, config: lake(i + 1) }));
// every third rollout of each generation holds the word; the newest ones do not, so short walks find none
const holds = (i: number) => i % 3 === 0 && i < 40;
const line = (g: number, i: number) => ({
  externalId: `g${g}-${i}`,
  environmentKey: `e${i % 3}`,
  generation: g,
  policy: "p",
  reward: i % 2,
  trajectory: [{ role: "tool", content: holds(i) ? `the quince of run ${i} is ripe` : `nothing here for run ${i}` }],
});

const q = (query: string) => db.db.execute<Record<string, string>>(sql.raw(query));
const idsOf = async (where: string) => (await q(`select id from rollouts where ${where} order by id`)).rows.map((r) => Number(r.id));
/** Every hit of a search, page after page, with a given walk length (on `conn`: the pool, or a transaction). */
async function hits(query: Record<string, string | number>, walk: number, conn: Db = db.db): Promise<number[]> {
  const out: number[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: { id: number }[]; nextCursor: string | null } = await listRollouts(
      conn,
      project,
      { ...query, limit: 4, ...(cursor ? { cursor } : {}) },
      { searchWalk: walk },
    );
    out.push(...page.items.map((r) => r.id));
    cursor = page.nextCursor;
  } while (cursor);
  return out.sort((a, b) => a - b);
}
const WALKS = [1, 3, 10, 2000];

beforeAll(async () => {
  ({ db, server, admin: client } = await startApi(TOKEN));
  await createProjectWith(client, { slug: "sg" }, { environments: ENVIRONMENTS });
  await client.request("POST", "/api/v1/projects/sg/generations", { json: { index: 1, parentIndex: 0, environments: ENVIRONMENTS } });
  for (const g of [0, 1]) {
    const r = await client.request<{ accepted: number }>("POST", "/api/v1/projects/sg/rollouts", {
      json: Array.from({ length: 60 }, (_, i) => line(g, i)),
    });
    expect(r.accepted).toBe(60);
  }
  // another project, whose partitions no search of this one may touch
  await createProjectWith(client, { slug: "sg-other" }, { environments: ENVIRONMENTS });
  await client.request("POST", "/api/v1/projects/sg-other/rollouts", { json: [line(0, 0)] });
  await indexPendingRollouts(db.db);
  project = (await q("select * from projects where slug = 'sg'")).rows.map((r) => ({ ...r, id: Number(r.id) }))[0] as unknown as ProjectRow;
  for (const r of (await q(`select id, index from generations where project_id = ${project.id}`)).rows)
    gen.set(Number(r.index), Number(r.id));
}, 120_000);
afterAll(async () => {
  await stopApi({ server, db });
});

describe("search documents per generation", () => {
  it("each document sits in its own generation's partition", async () => {
    const docs = (
      await q(`select s.tableoid::regclass::text as part, s.generation_id, r.generation_id as rollout_generation
        from rollout_search s join rollouts r on r.id = s.rollout_id`)
    ).rows;
    expect(docs).toHaveLength(121);
    for (const d of docs) {
      expect(Number(d.generation_id)).toBe(Number(d.rollout_generation));
      expect(d.part).toBe(`rollout_search_g${d.rollout_generation}`);
    }
  });

  it("a search in one generation finds exactly its hits at every walk length, none of the other's; the project finds both", async () => {
    const inGeneration = async (g: number) =>
      idsOf(`generation_id = ${gen.get(g)} and external_id ~ '^g${g}-(\\d+)$'
      and substring(external_id from '\\d+$')::int % 3 = 0 and substring(external_id from '\\d+$')::int < 40`);
    const [zero, one] = [await inGeneration(0), await inGeneration(1)];
    expect(zero).toHaveLength(14);
    expect(one).toHaveLength(14);
    for (const walk of WALKS) {
      expect(await hits({ q: "quince", generation: 0 }, walk)).toEqual(zero);
      expect(await hits({ q: "quince", generation: 1 }, walk)).toEqual(one);
      expect(await hits({ q: "quinc", generation: 1 }, walk)).toEqual(one); // the substring (trigram) half
      expect(await hits({ q: "quince" }, walk)).toEqual([...zero, ...one].sort((a, b) => a - b));
      expect(await hits({ q: "quince", generation: 7 }, walk)).toEqual([]);
    }
  });

  it("a document filed under another generation never makes a rollout a hit", async () => {
    // a generation-0 rollout without the word, with a document holding it in generation 1's partition
    const [stray] = await idsOf(`generation_id = ${gen.get(0)} and external_id = 'g0-1'`);
    await q(`insert into rollout_search (rollout_id, generation_id, project_id, body, tsv)
      values (${stray}, ${gen.get(1)}, ${project.id}, 'a quince', to_tsvector('english', 'a quince'))`);
    try {
      for (const walk of WALKS) {
        expect(await hits({ q: "quince", generation: 0 }, walk)).not.toContain(stray);
        expect(await hits({ q: "quince", generation: 1 }, walk)).not.toContain(stray);
        expect(await hits({ q: "quince" }, walk)).not.toContain(stray);
      }
    } finally {
      await q(`delete from rollout_search where rollout_id = ${stray} and generation_id = ${gen.get(1)}`);
    }
  });

  it("a search never opens the partitions of generations it does not search (they are locked meanwhile)", async () => {
    const other = Number(
      (await q("select g.id from generations g join projects p on p.id = g.project_id where p.slug = 'sg-other'")).rows[0].id,
    );
    const expected = {
      zero: await hits({ q: "quince", generation: 0 }, 2000),
      project: await hits({ q: "quince" }, 2000),
    };
    const locker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await locker.connect();
    try {
      await locker.query("begin");
      // a search that planned or read one of these partitions would wait for this lock, and give up after lock_timeout
      await locker.query(`lock table rollout_search_g${gen.get(1)}, rollout_search_g${other} in access exclusive mode`);
      await db.db.transaction(async (tx) => {
        await tx.execute(sql`set local lock_timeout = '1s'`);
        for (const walk of WALKS) expect(await hits({ q: "quince", generation: 0 }, walk, tx as unknown as Db)).toEqual(expected.zero);
      });
      await locker.query(`rollback`);
      await locker.query("begin");
      await locker.query(`lock table rollout_search_g${other} in access exclusive mode`);
      await db.db.transaction(async (tx) => {
        await tx.execute(sql`set local lock_timeout = '1s'`);
        for (const walk of WALKS) expect(await hits({ q: "quince" }, walk, tx as unknown as Db)).toEqual(expected.project);
      });
    } finally {
      await locker.query("rollback").catch(() => undefined);
      await locker.end();
    }
  });

  it("the GIN query of one generation reads that generation's partition only", async () => {
    const condition: SQL = searchCondition(project.id, [gen.get(0)!], "quince");
    const plan = await db.db.execute<{ "QUERY PLAN": unknown }>(
      sql`explain (format json) select ${rollouts.id} from ${rollouts} where ${condition}`,
    );
    const relations: string[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        const rel = (node as Record<string, unknown>)["Relation Name"];
        if (typeof rel === "string") relations.push(rel);
        Object.values(node).forEach(walk);
      }
    };
    walk(plan.rows[0]["QUERY PLAN"]);
    expect(relations.filter((r) => r.startsWith("rollout_search"))).toEqual([`rollout_search_g${gen.get(0)}`]);
  });

  it("a new generation gets its partition; deleted rollouts and generations take their documents; a moved rollout is found where it is", async () => {
    await client.request("POST", "/api/v1/projects/sg/generations", { json: { index: 2, parentIndex: 1, environments: ENVIRONMENTS } });
    await client.request("POST", "/api/v1/projects/sg/rollouts", { json: [line(2, 0), line(2, 3), line(2, 4)] });
    await indexPendingRollouts(db.db);
    const two = Number((await q(`select id from generations where project_id = ${project.id} and index = 2`)).rows[0].id);
    const inTwo = await q(`select rollout_id from rollout_search_g${two} order by 1`);
    expect(inTwo.rows.map((r) => Number(r.rollout_id))).toEqual(await idsOf(`generation_id = ${two}`));
    expect(await hits({ q: "quince", generation: 2 }, 2000)).toEqual(await idsOf(`external_id in ('g2-0', 'g2-3')`));

    const [deleted] = await idsOf(`external_id = 'g0-0'`);
    await q(`delete from rollouts where id = ${deleted}`);
    expect((await q(`select count(*)::int as n from rollout_search where rollout_id = ${deleted}`)).rows[0].n).toBe(0);

    const [moved] = await idsOf(`external_id = 'g0-3'`);
    await q(`update rollouts set generation_id = ${gen.get(1)} where id = ${moved}`);
    expect(await indexPendingRollouts(db.db)).toBe(1);
    const where = await q(`select tableoid::regclass::text as part from rollout_search where rollout_id = ${moved}`);
    expect(where.rows.map((r) => r.part)).toEqual([`rollout_search_g${gen.get(1)}`]);
    expect(await hits({ q: "quince", generation: 1 }, 2000)).toContain(moved);
    expect(await hits({ q: "quince", generation: 0 }, 2000)).not.toContain(moved);

    await q(`delete from generations where id = ${two}`);
    expect((await q(`select count(*)::int as n from rollout_search where generation_id = ${two}`)).rows[0].n).toBe(0);
    expect((await q(`select count(*)::int as n from rollout_search`)).rows[0].n).toBe(120);
  });
});

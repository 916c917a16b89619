/**
 * The search indexer on a real Postgres (ADR 0007): ingest notes rollouts as pending and writes no search
 * document; the indexer writes exactly one per rollout, with its trajectory, and the explorer's `q` finds
 * them only then (the list says how many are still pending). Nothing is lost or doubled: a rollout deleted
 * or changed before its turn, a batch that dies before commit, two indexers at once, a re-import of the
 * same rollouts.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnvForgeClient } from "@/cli/client";
import { indexPendingRollouts, indexSearchBatch, pendingSearchCount, startSearchIndexer } from "@/lib/rollouts/search-index";
import { lake } from "./configs";
import { createProjectWith, startApi, stopApi, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-search-index1";
let db: TestDb;
let server: TestServer;
let client: EnvForgeClient;
let projectId: number;

type Page = { items: { id: number; externalId: string }[]; nextCursor: string | null; searchPending?: number };

const line = (i: number, word = "marmalade") => ({
  externalId: `x${i}`,
  environmentKey: `e${i % 3}`,
  policy: "p",
  reward: i % 2,
  trajectory: [
    { role: "user", content: `task ${i}` },
    { role: "tool", content: `the ${word} of run_${i} is ready` },
  ],
  verifierOutput: i % 2 ? "1 passed" : `FAILED test_${i}`,
});
const post = (lines: unknown[]) =>
  client.request<{ accepted: number; duplicates: number }>("POST", "/api/v1/projects/si/rollouts", { json: lines });
const search = (q: string) => client.request<Page>("GET", `/api/v1/projects/si/rollouts?q=${encodeURIComponent(q)}&limit=1000`);
/** Every search document: rollout id -> its text. */
const documents = async () =>
  new Map(
    (await db.db.execute<{ rollout_id: string; body: string }>(sql`select rollout_id, body from rollout_search`)).rows.map((r) => [
      Number(r.rollout_id),
      r.body,
    ]),
  );
const rolloutIds = async () =>
  (await db.db.execute<{ id: string }>(sql`select id from rollouts order by id`)).rows.map((r) => Number(r.id));

beforeAll(async () => {
  ({ db, server, admin: client } = await startApi(TOKEN));
  await createProjectWith(client, { slug: "si" }, { environments: [0, 1, 2].map((i) => ({ key: `e${i}`, config: lake(i + 1) })) });
  projectId = Number((await db.db.execute<{ id: number }>(sql`select id from projects where slug = 'si'`)).rows[0].id);
}, 120_000);
afterAll(async () => {
  await stopApi({ server, db });
});

describe("search indexer", () => {
  it("ingest writes no document; the indexer writes one per rollout with its trajectory, and search finds them only then", async () => {
    expect((await post(Array.from({ length: 30 }, (_, i) => line(i)))).accepted).toBe(30);
    expect((await documents()).size).toBe(0);
    const before = await search("marmalade");
    expect(before.items).toEqual([]);
    expect(before.searchPending).toBe(30);
    expect(await pendingSearchCount(db.db, projectId)).toBe(30);

    // small batches: the drain loops until none is left
    expect(await indexPendingRollouts(db.db, { batch: 7 })).toBe(30);
    const docs = await documents();
    expect([...docs.keys()].sort((a, b) => a - b)).toEqual(await rolloutIds());
    for (const body of docs.values()) expect(body).toMatch(/the marmalade of run_\d+ is ready/);
    const after = await search("marmalade");
    expect(after.items).toHaveLength(30);
    expect(after.searchPending).toBe(0);
    expect((await search("run_17")).items.map((r) => r.externalId)).toEqual(["x17"]);
    expect(await indexPendingRollouts(db.db)).toBe(0);
  });

  it("a re-import of the same rollouts queues nothing and leaves one document each", async () => {
    const again = await post(Array.from({ length: 30 }, (_, i) => line(i, "different")));
    expect(again).toMatchObject({ accepted: 0, duplicates: 30 });
    expect(await pendingSearchCount(db.db, projectId)).toBe(0);
    expect(await indexPendingRollouts(db.db)).toBe(0);
    const docs = await documents();
    expect(docs.size).toBe(30);
    expect((await search("different")).items).toEqual([]);
    expect((await search("marmalade")).items).toHaveLength(30);
  });

  it("a rollout deleted before its turn is dropped from the queue; one changed before or after is indexed as it is now", async () => {
    await post([30, 31, 32].map((i) => line(i, "loquat")));
    const [gone, changed, plain] = (
      await db.db.execute<{ id: string }>(sql`select id from rollouts where external_id in ('x30', 'x31', 'x32') order by external_id`)
    ).rows.map((r) => Number(r.id));
    await db.db.execute(sql`delete from rollouts where id = ${gone}`);
    await db.db.execute(sql`update rollouts set error_type = 'BergamotError', failure_category = 'infra_error' where id = ${changed}`);
    expect(await indexPendingRollouts(db.db)).toBe(2);
    expect(await pendingSearchCount(db.db, projectId)).toBe(0);
    const docs = await documents();
    expect(docs.has(gone)).toBe(false);
    expect(docs.get(changed)).toContain("BergamotError");
    expect(docs.get(plain)).toContain("loquat");
    expect(docs.size).toBe(32);

    // changed after indexing: queued again and rewritten (one document, the new text)
    await db.db.execute(sql`update rollouts set error_message = 'clementine overflow' where id = ${plain}`);
    // a change to a column the document does not hold queues nothing
    await db.db.execute(sql`update rollouts set failure_category = 'policy_error' where id = ${changed}`);
    expect(await pendingSearchCount(db.db, projectId)).toBe(1);
    expect(await indexPendingRollouts(db.db)).toBe(1);
    expect((await search("clementine")).items.map((r) => r.id)).toEqual([plain]);
    expect((await documents()).size).toBe(32);
  });

  it("a batch that dies before its commit leaves every rollout pending, and the next run indexes each once", async () => {
    await post(Array.from({ length: 12 }, (_, i) => line(100 + i, "persimmon")));
    const crashed = await db.db
      .transaction(async (tx) => {
        const r = await indexSearchBatch(tx, 1000);
        expect(r).toEqual({ taken: 12, indexed: 12 });
        throw new Error("the worker died here");
      })
      .catch((err: Error) => err.message);
    expect(crashed).toBe("the worker died here");
    expect(await pendingSearchCount(db.db, projectId)).toBe(12);
    expect((await search("persimmon")).items).toEqual([]);
    expect(await indexPendingRollouts(db.db)).toBe(12);
    expect((await search("persimmon")).items).toHaveLength(12);
    expect((await documents()).size).toBe(44);
  });

  it("two indexers at once take disjoint batches: every rollout indexed exactly once", async () => {
    await post(Array.from({ length: 200 }, (_, i) => line(1000 + i, "tamarind")));
    const [a, b] = await Promise.all([indexPendingRollouts(db.db, { batch: 10 }), indexPendingRollouts(db.db, { batch: 10 })]);
    // the second indexer may find the queue locked and stop early: together they must have taken each rollout once
    const rest = await indexPendingRollouts(db.db);
    expect(a + b + rest).toBe(200);
    expect(await pendingSearchCount(db.db, projectId)).toBe(0);
    expect((await search("tamarind")).items).toHaveLength(200);
    expect((await documents()).size).toBe(244);
    expect([...(await documents()).keys()].sort((x, y) => x - y)).toEqual(await rolloutIds());
  });

  it("the same rollouts posted twice at once are stored once, each with one payload, and indexed once", async () => {
    const lines = Array.from({ length: 60 }, (_, i) => line(5000 + i, "kumquat"));
    const [a, b] = await Promise.all([post(lines), post(lines)]);
    expect(a.accepted + b.accepted).toBe(60);
    expect(a.duplicates + b.duplicates).toBe(60);
    const counts = await db.db.execute<{ rollouts: number; payloads: number; orphans: number }>(sql`
      select (select count(*) from rollouts where external_id like 'x50__')::int as rollouts,
        (select count(*) from rollout_payloads p join rollouts r on r.id = p.rollout_id where r.external_id like 'x50__')::int as payloads,
        (select count(*) from rollout_payloads p where not exists (select 1 from rollouts r where r.id = p.rollout_id))::int as orphans`);
    expect(counts.rows[0]).toEqual({ rollouts: 60, payloads: 60, orphans: 0 });
    expect(await indexPendingRollouts(db.db)).toBe(60);
    expect((await search("kumquat")).items).toHaveLength(60);
  });

  it("the worker's indexer defers while ingest keeps noting rollouts, one batch per maxDeferMs, and indexes them all once it stops", async () => {
    await indexPendingRollouts(db.db);
    // ticks far apart: each drain below is one look by the indexer
    // ingest counts as writing until 1.5 s pass without a new note, on a clock the test moves
    let clock = 1_000_000;
    const indexer = startSearchIndexer(db.db, {
      intervalMs: 3_600_000,
      maxDeferMs: 3_600_000,
      quietMs: 1500,
      onError: (err) => console.error(err),
      now: () => clock,
    });
    try {
      expect(await indexer.drain()).toBe(0); // nothing pending
      await post(Array.from({ length: 5 }, (_, i) => line(7000 + i, "loquat")));
      expect(await indexer.drain()).toBe(0); // new notes since the last look: ingest is writing
      await post(Array.from({ length: 5 }, (_, i) => line(7100 + i, "loquat")));
      expect(await indexer.drain()).toBe(0);
      expect(await pendingSearchCount(db.db, projectId)).toBe(10);
      clock += 1499;
      expect(await indexer.drain()).toBe(0); // no new notes since the last look, but not quiet for long enough yet
      clock += 1;
      expect(await indexer.drain()).toBe(10); // quiet: the backlog goes
      expect(await pendingSearchCount(db.db, projectId)).toBe(0);
    } finally {
      await indexer.stop();
    }
    // maxDeferMs 0: a batch at every look even while ingest writes, so documents keep arriving
    const eager = startSearchIndexer(db.db, {
      intervalMs: 3_600_000,
      maxDeferMs: 0,
      quietMs: 3_600_000,
      onError: (err) => console.error(err),
    });
    try {
      await post(Array.from({ length: 5 }, (_, i) => line(7200 + i, "loquat")));
      expect(await eager.drain()).toBe(5); // the first look has nothing to compare with: it indexes what it finds
      await post(Array.from({ length: 5 }, (_, i) => line(7300 + i, "loquat")));
      expect(await eager.drain()).toBe(0); // new notes since: the deferral starts
      await post(Array.from({ length: 5 }, (_, i) => line(7400 + i, "loquat")));
      expect(await eager.drain()).toBe(10);
    } finally {
      await eager.stop();
    }
  });

  it("a batch takes rollouts in order up to its byte budget (always one), so long trajectories go a few at a time", async () => {
    await indexPendingRollouts(db.db);
    // tens of KB of barely compressible text per trajectory
    const noise = (i: number) => Array.from({ length: 6000 }, (_, k) => ((i * 7919 + k * 104729) % 1e9).toString(36)).join(" ");
    const long = (i: number) => ({ ...line(i, "persimmon"), trajectory: [{ role: "tool", content: `persimmon ${noise(i)}` }] });
    expect((await post([9040, 9041, 9042, 9043].map(long))).accepted).toBe(4);
    const sizes = (
      await db.db.execute<{ n: number }>(sql`
        select pg_column_size(p.trajectory) + coalesce(pg_column_size(p.verifier_output), 0) as n
        from rollout_payloads p join rollouts r on r.id = p.rollout_id where r.external_id in ('x9040', 'x9041', 'x9042', 'x9043') order by r.id`)
    ).rows.map((r) => Number(r.n));
    expect(Math.min(...sizes)).toBeGreaterThan(10_000);
    // the budget is passed once the first two are in: the third waits for the next batch
    expect((await indexSearchBatch(db.db, 500, sizes[0] + 1)).taken).toBe(2);
    // a budget below one document still takes one
    expect((await indexSearchBatch(db.db, 500, 1)).taken).toBe(1);
    expect(await pendingSearchCount(db.db, projectId)).toBe(1);
    expect(await indexPendingRollouts(db.db)).toBe(1);
    const found = (await search("persimmon")).items.map((r) => r.externalId);
    for (const x of ["x9040", "x9041", "x9042", "x9043"]) expect(found).toContain(x);
  });
});

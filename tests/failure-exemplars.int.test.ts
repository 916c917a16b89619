/**
 * The failures view keeps what it computes (migrations 0028 and 0029): each failure cluster's exemplars and each behaviour's
 * figures are stored by a read and used by the next one; any change by the ingest triggers sets them back to NULL; a
 * write-back never stores figures of a row version it did not read, nor waits for a row an ingest holds.
 * (tests/aggregates.int.test.ts checks both against a recomputation over rollouts after ingests, reclassification, moves
 * and deletes.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { freshDatabase } from "./db";
import { createDb } from "@/lib/db/client";
import { createProject, type ProjectRow } from "@/lib/projects/service";
import { getFamily } from "@/lib/family-store";
import { ingestRollouts } from "@/lib/ingest/store";
import type { FamilyDefinition } from "@/lib/families/types";
import type { RolloutInput } from "@/lib/ingest/normalized";
import { lake } from "./configs";
import { generationBehaviours, generationClusters } from "@/lib/generations/analytics";
import { storeBehaviourSummaries, storeClusterExemplars } from "@/lib/generations/analytics-repository";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let project: ProjectRow;
let family: FamilyDefinition;
let generationId: number;

/** Rollout i of environment i % 5, every one failing one of two ways. */
function failing(i: number, policy = "pol-a"): RolloutInput {
  return {
    externalId: `${policy}-r${i}`,
    environmentKey: `e${i % 5}`,
    environmentConfig: lake(i % 5),
    generation: 1,
    policy,
    reward: 0,
    status: "errored",
    error: { type: i % 2 ? "SandboxStartError" : "AgentTimeoutError", message: `boom ${i % 2}` },
  };
}
const ingest = (ids: number[], policy?: string) =>
  ingestRollouts(
    db.db,
    project,
    family,
    ids.map((i, n) => ({ line: n + 1, value: failing(i, policy) })),
    { createEnvironments: true },
  );

type Row = { policy_id: number; category: string; signature: string; first: string[] | null; some: string[] | null; version: string };
async function stored(): Promise<Row[]> {
  return (
    await db.db.execute<Row>(sql`
      select policy_id, category, signature, exemplar_first_ids::text[] as first, exemplar_some_ids::text[] as some, xmin::text as version
      from failure_cluster_aggregates where generation_id = ${generationId} order by policy_id, category, signature`)
  ).rows;
}

beforeAll(async () => {
  db = await freshDatabase();
  project = await createProject(db.db, { slug: "ex", name: "ex", family: "frozenlake-mapf" }, { actor: "test" });
  family = await getFamily(db.db, "frozenlake-mapf");
  await ingest([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  generationId = (await db.db.execute<{ id: number }>(sql`select id from generations where project_id = ${project.id}`)).rows[0].id;
});

afterAll(async () => {
  await db?.drop();
});

describe("stored failure-cluster exemplars", () => {
  it("are NULL until a read computes them, then stored for every cluster the read returned", async () => {
    const before = await stored();
    expect(before.length).toBeGreaterThan(1);
    expect(before.every((r) => r.first === null && r.some === null)).toBe(true);
    const clusters = await generationClusters(db.db, generationId);
    expect(clusters.length).toBe(before.filter((r) => r.policy_id === 0).length);
    const after = await stored();
    const allPolicies = after.filter((r) => r.policy_id === 0);
    for (const c of clusters) {
      const row = allPolicies.find((r) => r.category === c.category && r.signature === c.signature)!;
      expect(row.first).toEqual(c.exemplarRolloutIds.slice(0, row.first!.length));
      expect(row.first!.length).toBe(Math.min(3, c.environments));
    }
    // a policy's own rows are only stored by a read of that policy
    expect(after.filter((r) => r.policy_id !== 0).every((r) => r.first === null)).toBe(true);
  });

  it("are what the next read returns (a value planted in the row is read back)", async () => {
    const [row] = (await stored()).filter((r) => r.policy_id === 0);
    await db.db.execute(sql`update failure_cluster_aggregates set exemplar_first_ids = '{424242}', exemplar_some_ids = '{}'
      where generation_id = ${generationId} and policy_id = 0 and category = ${row.category} and signature = ${row.signature}`);
    const c = (await generationClusters(db.db, generationId)).find((x) => x.category === row.category && x.signature === row.signature)!;
    expect(c.exemplarRolloutIds).toEqual(["424242"]);
  });

  it("go back to NULL when an ingest changes the cluster, and the next read computes them from the rollouts again", async () => {
    await ingest([10, 12], "pol-b"); // both AgentTimeoutError: one cluster of the two grows
    const rows = (await stored()).filter((r) => r.policy_id === 0);
    expect(rows.filter((r) => r.first === null)).toHaveLength(1);
    expect(rows.filter((r) => r.first !== null)).toHaveLength(rows.length - 1);
    const grown = rows.find((r) => r.first === null)!;
    const c = (await generationClusters(db.db, generationId)).find(
      (x) => x.category === grown.category && x.signature === grown.signature,
    )!;
    const firstIds = (
      await db.db.execute<{ id: string }>(sql`
        select min(id)::text as id from rollouts where generation_id = ${generationId} and failure_category = ${grown.category}
          and coalesce(failure_signature, '') = ${grown.signature} group by environment_id order by min(id) limit 3`)
    ).rows.map((r) => r.id);
    expect(c.exemplarRolloutIds).toEqual(firstIds);
    expect(
      (await stored()).find((r) => r.policy_id === 0 && r.category === grown.category && r.signature === grown.signature)!.first,
    ).toEqual(firstIds);
  });

  it("are not stored over a row that changed after it was read", async () => {
    await db.db.execute(sql`update failure_cluster_aggregates set exemplar_first_ids = null, exemplar_some_ids = null
      where generation_id = ${generationId}`);
    const [row] = (await stored()).filter((r) => r.policy_id === 0);
    // the row changes between the read (its version) and the write-back
    await db.db.execute(sql`update failure_cluster_aggregates set n = n
      where generation_id = ${generationId} and policy_id = 0 and category = ${row.category} and signature = ${row.signature}`);
    const write = { category: row.category, signature: row.signature, first_ids: ["1"], some_ids: [], version: row.version };
    await storeClusterExemplars(db.db, generationId, 0, [write]);
    expect((await stored()).find((r) => r.policy_id === 0 && r.category === row.category)!.first).toBeNull();
    // the same write against the row's current version is stored
    const [now] = (await stored()).filter((r) => r.policy_id === 0 && r.category === row.category && r.signature === row.signature);
    await storeClusterExemplars(db.db, generationId, 0, [{ ...write, version: now.version }]);
    expect((await stored()).find((r) => r.policy_id === 0 && r.category === row.category)!.first).toEqual(["1"]);
  });

  it("never wait for a cluster row an ingest holds: the read answers, that row stays NULL, the others are stored", async () => {
    await db.db.execute(sql`update failure_cluster_aggregates set exemplar_first_ids = null, exemplar_some_ids = null
      where generation_id = ${generationId}`);
    const rows = (await stored()).filter((r) => r.policy_id === 0);
    const held = rows[0];
    const client = await db.pool.connect();
    await client.query("begin");
    await client.query(
      "update failure_cluster_aggregates set n = n where generation_id = $1 and policy_id = 0 and category = $2 and signature = $3",
      [generationId, held.category, held.signature],
    );
    // a write-back that waited for the held row would wait forever: the holder gives up after 10 s, so such a read ends, late
    let gaveUp = false;
    const holder = setTimeout(() => {
      gaveUp = true;
      void client.query("rollback");
    }, 10_000);
    try {
      const clusters = await generationClusters(db.db, generationId);
      expect(gaveUp).toBe(false);
      expect(clusters).toHaveLength(rows.length);
      const now = (await stored()).filter((r) => r.policy_id === 0);
      expect(now.find((r) => r.category === held.category && r.signature === held.signature)!.first).toBeNull();
      expect(now.filter((r) => r.first !== null)).toHaveLength(rows.length - 1);
    } finally {
      clearTimeout(holder);
      if (!gaveUp) await client.query("rollback");
      client.release();
    }
  });
});

describe("stored behaviour figures", () => {
  type Summary = { policy_id: number; behaviour: string; n: number | null; keys: string[] | null; version: string };
  const summaries = async () =>
    (
      await db.db.execute<Summary>(sql`
        select policy_id, behaviour, n, keys, xmin::text as version from behaviour_summaries
        where generation_id = ${generationId} order by policy_id, behaviour`)
    ).rows;

  it("keep a row per policy and behaviour, NULL until read, then what the next read returns", async () => {
    await db.db.execute(sql`update rollouts set behaviours = '{step_cap}' where project_id = ${project.id} and id % 2 = 0`);
    const before = await summaries();
    expect(before.map((r) => r.behaviour)).toContain("step_cap");
    expect(before.every((r) => r.n === null)).toBe(true);
    const [view] = await generationBehaviours(db.db, generationId);
    const stored = (await summaries()).find((r) => r.policy_id === 0 && r.behaviour === "step_cap")!;
    expect(stored.n).toBe(view.count);
    expect(stored.keys).toEqual(view.environmentKeys);
    await db.db.execute(sql`update behaviour_summaries set keys = '{planted}' where generation_id = ${generationId} and policy_id = 0`);
    expect((await generationBehaviours(db.db, generationId))[0].environmentKeys).toEqual(["planted"]);
    // a rollout's behaviours change: the row is NULL again and the read counts from the rollouts
    await db.db.execute(sql`update rollouts set behaviours = '{}' where id = ${view.exemplarRolloutIds[0]}`);
    expect((await summaries()).find((r) => r.policy_id === 0 && r.behaviour === "step_cap")!.n).toBeNull();
    expect((await generationBehaviours(db.db, generationId))[0].count).toBe(view.count - 1);
  });

  it("are not stored over a row that changed after it was read", async () => {
    await db.db.execute(sql`update behaviour_summaries set n = null where generation_id = ${generationId}`);
    const [row] = (await summaries()).filter((r) => r.policy_id === 0);
    await db.db.execute(sql`update behaviour_summaries set n = null where generation_id = ${generationId} and policy_id = 0`);
    const write = { behaviour: row.behaviour, policy_id: 0, n: 1, environments: 1, keys: ["x"], first_ids: ["1"], version: row.version };
    await storeBehaviourSummaries(db.db, generationId, [write]);
    expect((await summaries()).find((r) => r.policy_id === 0)!.n).toBeNull();
    const [now] = (await summaries()).filter((r) => r.policy_id === 0);
    await storeBehaviourSummaries(db.db, generationId, [{ ...write, version: now.version }]);
    expect((await summaries()).find((r) => r.policy_id === 0)!.n).toBe(1);
  });
});

describe("on a read-only connection (a replica, say)", () => {
  it("the failures view answers as it would on the primary, stores nothing, and says so in the log", async () => {
    await db.db.execute(sql`update failure_cluster_aggregates set exemplar_first_ids = null, exemplar_some_ids = null
      where generation_id = ${generationId}`);
    await db.db.execute(sql`update behaviour_summaries set n = null where generation_id = ${generationId}`);
    expect((await db.db.execute(sql`select 1 from behaviour_summaries where generation_id = ${generationId}`)).rows.length).toBeGreaterThan(
      0,
    );
    const url = new URL(process.env.DATABASE_URL!);
    url.searchParams.set("options", "-c default_transaction_read_only=on");
    const replica = createDb(url.toString(), 2);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const clusters = await generationClusters(replica.db, generationId);
      const behaviours = await generationBehaviours(replica.db, generationId);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
        expect.stringMatching(/^\[failures\] exemplars not stored: .*read-only transaction/),
        expect.stringMatching(/^\[failures\] behaviour figures not stored: .*read-only transaction/),
      ]);
      expect(clusters.length).toBeGreaterThan(1);
      expect((await stored()).every((r) => r.first === null && r.some === null)).toBe(true);
      expect(
        (
          await db.db.execute<{ n: number }>(sql`select count(*)::int as n from behaviour_summaries where generation_id = ${generationId}
          and n is not null`)
        ).rows[0].n,
      ).toBe(0);
      // the same answers the primary gives (which stores them)
      expect(await generationClusters(db.db, generationId)).toEqual(clusters);
      expect(await generationBehaviours(db.db, generationId)).toEqual(behaviours);
      expect((await stored()).filter((r) => r.policy_id === 0).every((r) => r.first !== null)).toBe(true);
    } finally {
      warn.mockRestore();
      await replica.pool.end();
    }
  });
});

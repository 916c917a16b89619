/**
 * rollout_aggregates, failure_aggregates and the facet and category aggregates (kept by triggers on rollouts, ADR 0005) always equal a
 * from-scratch recomputation over the rollouts table: ingest in many small batches with duplicates
 * inside and across batches, a re-import, two overlapping imports at once, reclassification and
 * moves (updates), deletes of single rollouts and cascades, and the migration's backfill.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { freshDatabase } from "./db";
import { createProject, type ProjectRow } from "@/lib/projects/service";
import { getFamily } from "@/lib/family-store";
import { ingestRollouts, type IngestLine } from "@/lib/ingest/store";
import type { FamilyDefinition } from "@/lib/families/types";
import type { RolloutInput } from "@/lib/ingest/normalized";
import { lake } from "./configs";
import { generationBehaviours, generationClusters } from "@/lib/generations/analytics";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let project: ProjectRow;
let family: FamilyDefinition;

/** Rollout i: skewed over environments, two policies, two generations, fractional and missing rewards, errors, tests, turns. */
function rollout(i: number): RolloutInput {
  const env = i % 10 < 6 ? 0 : i % 10 < 8 ? 1 : (i % 5) + 2;
  const reward = i % 9 === 8 ? undefined : [0, 0.1, 0.3, 1, 0.7][i % 5];
  return {
    externalId: `r${i}`,
    environmentKey: `e${env}`,
    environmentConfig: lake(env),
    generation: 1 + (i % 3 === 0 ? 1 : 0),
    policy: i % 4 === 0 ? "pol-b" : "pol-a",
    ...(reward === undefined ? {} : { reward }),
    ...(i % 11 === 3
      ? { status: "errored" as const, error: { type: i % 2 ? "SandboxStartError" : "AgentTimeoutError", message: `boom ${i % 3}` } }
      : {}),
    ...(i % 6 === 1 ? {} : { turns: (i * 7) % 23, inputTokens: i * 13, outputTokens: (i * 31) % 500 }),
    ...(i % 4 === 2 ? { metadata: { tests: { passed: i % 3, failed: i % 2 } } } : {}),
    ...(i % 7 === 5 ? { verifierOutput: `FAILED tests/test_${i % 4}.py::test_x - AssertionError` } : {}),
  };
}

const lines = (ids: number[], policy?: string): IngestLine[] =>
  ids.map((i, n) => ({ line: n + 1, value: policy ? { ...rollout(i), externalId: `${policy}-r${i}`, policy } : rollout(i) }));
const range = (lo: number, hi: number) => Array.from({ length: hi - lo }, (_, k) => lo + k);
const ingest = (ids: number[], batchSize: number, policy?: string) =>
  ingestRollouts(db.db, project, family, lines(ids, policy), { createEnvironments: true, batchSize });

/** The stored aggregates next to the same sums recomputed from every rollout, both in key order. */
async function storedAndRecomputed() {
  const q = async (text: ReturnType<typeof sql>) => (await db.db.execute(text)).rows;
  const stored = await q(sql`
    select generation_id, environment_id::int, policy_id, n, successes, trim_scale(reward_sum)::text as reward_sum, infra_errors, errored, unrewarded,
      tests_passed::int, tests_passed_n, tests_run::int, tests_run_n, turns_sum::int, input_tokens_sum::int, output_tokens_sum::int
    from rollout_aggregates order by 1, 2, 3`);
  const recomputed = await q(sql`
    select generation_id, environment_id::int, policy_id, count(*)::int as n, sum(case when success then 1 else 0 end)::int as successes,
      trim_scale(coalesce(sum(reward::numeric), 0))::text as reward_sum,
      sum(case when failure_category = 'infra_error' then 1 else 0 end)::int as infra_errors,
      sum(case when status = 'errored' then 1 else 0 end)::int as errored,
      sum(case when reward is null then 1 else 0 end)::int as unrewarded,
      coalesce(sum(tests_passed), 0)::int as tests_passed, sum(case when tests_passed is null then 0 else 1 end)::int as tests_passed_n,
      coalesce(sum(tests_passed + tests_failed), 0)::int as tests_run,
      sum(case when tests_passed is null or tests_failed is null then 0 else 1 end)::int as tests_run_n,
      coalesce(sum(turns), 0)::int as turns_sum, coalesce(sum(input_tokens), 0)::int as input_tokens_sum,
      coalesce(sum(output_tokens), 0)::int as output_tokens_sum
    from rollouts group by 1, 2, 3 order by 1, 2, 3`);
  const storedFailures = await q(sql`
    select generation_id, environment_id::int, policy_id, category, signature, n, first_rollout_id::int
    from failure_aggregates order by 1, 2, 3, 4, 5`);
  const recomputedFailures = await q(sql`
    select generation_id, environment_id::int, policy_id, failure_category as category, coalesce(failure_signature, '') as signature,
      count(*)::int as n, min(id)::int as first_rollout_id
    from rollouts where failure_category is not null group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`);
  const storedBehaviours = await q(sql`
    select generation_id, environment_id::int, policy_id, behaviour, n, first_rollout_id::int from behaviour_aggregates order by 1, 2, 3, 4`);
  const recomputedBehaviours = await q(sql`
    select generation_id, environment_id::int, policy_id, b as behaviour, count(*)::int as n, min(id)::int as first_rollout_id
    from rollouts, unnest(behaviours) as b where not success group by 1, 2, 3, 4 order by 1, 2, 3, 4`);
  const storedExceptions = await q(
    sql`select generation_id, policy_id, error_type, n, successes from exception_aggregates order by 1, 2, 3`,
  );
  const recomputedExceptions = await q(sql`
    select generation_id, policy_id, error_type, count(*)::int as n, sum(case when success then 1 else 0 end)::int as successes
    from rollouts where error_type is not null group by 1, 2, 3 order by 1, 2, 3`);
  const storedCategories = await q(sql`select generation_id, policy_id, category, n from category_aggregates order by 1, 2, 3`);
  const recomputedCategories = await q(sql`
    select generation_id, policy_id, failure_category as category, count(*)::int as n
    from rollouts where failure_category is not null group by 1, 2, 3 order by 1, 2, 3`);
  const storedValues = await q(sql`select generation_id, policy_id, metric, value, n from value_aggregates order by 1, 2, 3, 4`);
  const recomputedValues = await q(sql`
    select * from (
      select generation_id, policy_id, 'turns' as metric, turns as value, count(*)::int as n
      from rollouts where turns is not null group by 1, 2, 4
      union all
      select generation_id, policy_id, 'output_tokens', output_tokens, count(*)::int
      from rollouts where output_tokens is not null group by 1, 2, 4) v
    order by 1, 2, 3, 4`);
  const storedClusters = await q(sql`
    select generation_id, policy_id, category, signature, n, environments from failure_cluster_aggregates order by 1, 2, 3, 4`);
  const recomputedClusters = await q(sql`
    select * from (
      select generation_id, policy_id, failure_category as category, coalesce(failure_signature, '') as signature,
        count(*)::int as n, count(distinct environment_id)::int as environments
      from rollouts where failure_category is not null group by 1, 2, 3, 4
      union all
      select generation_id, 0, failure_category, coalesce(failure_signature, ''), count(*)::int, count(distinct environment_id)::int
      from rollouts where failure_category is not null group by 1, 3, 4) c
    order by 1, 2, 3, 4`);
  return {
    stored,
    recomputed,
    storedClusters,
    recomputedClusters,
    storedCategories,
    recomputedCategories,
    storedValues,
    recomputedValues,
    storedFailures,
    recomputedFailures,
    storedBehaviours,
    recomputedBehaviours,
    storedExceptions,
    recomputedExceptions,
  };
}

async function expectExact() {
  const s = await storedAndRecomputed();
  expect(s.recomputed.length).toBeGreaterThan(0);
  expect(s.stored).toEqual(s.recomputed);
  expect(s.storedFailures).toEqual(s.recomputedFailures);
  expect(s.storedBehaviours).toEqual(s.recomputedBehaviours);
  expect(s.storedExceptions).toEqual(s.recomputedExceptions);
  expect(s.storedCategories).toEqual(s.recomputedCategories);
  expect(s.storedValues).toEqual(s.recomputedValues);
  expect(s.storedClusters).toEqual(s.recomputedClusters);
  return s;
}

/**
 * Failure clusters (counts, environments, exemplars = the 3 smallest per-environment first rollout
 * ids, padded with the cluster's smallest other ids) equal a recomputation over rollouts, for
 * every generation, with and without a policy.
 */
async function expectClustersAsRecomputed() {
  const gens = (await db.db.execute<{ id: number }>(sql`select id from generations where project_id = ${project.id}`)).rows;
  const pols = (await db.db.execute<{ id: number }>(sql`select id from policies where project_id = ${project.id}`)).rows;
  let checked = 0;
  for (const g of gens) {
    for (const policyId of [undefined, ...pols.map((p) => p.id)]) {
      const policyFilter = policyId === undefined ? sql`` : sql`and policy_id = ${policyId}`;
      const rows = (
        await db.db.execute<{ category: string; signature: string; id: string; environment_id: string }>(sql`
        select failure_category as category, coalesce(failure_signature, '') as signature, id::text, environment_id::text
        from rollouts where generation_id = ${g.id} and failure_category is not null ${policyFilter} order by rollouts.id`)
      ).rows;
      const expected = new Map<string, { count: number; envs: Map<string, string>; ids: string[] }>();
      for (const r of rows) {
        const key = `${r.category}\u0000${r.signature}`;
        const c = expected.get(key) ?? { count: 0, envs: new Map<string, string>(), ids: [] as string[] };
        c.count += 1;
        if (!c.envs.has(r.environment_id)) c.envs.set(r.environment_id, r.id);
        c.ids.push(r.id);
        expected.set(key, c);
      }
      const clusters = await generationClusters(db.db, g.id, policyId);
      expect(clusters.length).toBe(expected.size);
      for (const cl of clusters) {
        const e = expected.get(`${cl.category}\u0000${cl.signature}`)!;
        const firsts = [...e.envs.values()].slice(0, 3); // ids ascending: first seen = smallest per environment
        const exemplars = [...firsts, ...e.ids.filter((id) => !firsts.includes(id))].slice(0, 3);
        expect({ count: cl.count, environments: cl.environments, exemplars: cl.exemplarRolloutIds }).toEqual({
          count: e.count,
          environments: e.envs.size,
          exemplars,
        });
        checked++;
      }
    }
  }
  expect(checked).toBeGreaterThan(0);
}

/**
 * Behaviours of failed rollouts (count per policy, environments, the first 50 environment keys in code-point order and
 * the 3 smallest per-environment first rollout ids) equal a recomputation over rollouts, for every generation, with and
 * without a policy: the figures stored by earlier reads (behaviour_summaries) must have followed every change since.
 */
async function expectBehavioursAsRecomputed() {
  const gens = (await db.db.execute<{ id: number }>(sql`select id from generations where project_id = ${project.id}`)).rows;
  const pols = (await db.db.execute<{ id: number; name: string }>(sql`select id, name from policies where project_id = ${project.id}`))
    .rows;
  let checked = 0;
  for (const g of gens) {
    for (const policyId of [undefined, ...pols.map((p) => p.id)]) {
      const policyFilter = policyId === undefined ? sql`` : sql`and r.policy_id = ${policyId}`;
      const rows = (
        await db.db.execute<{ b: string; id: string; key: string; policy: string }>(sql`
        select b, r.id::text, e.key, p.name as policy from rollouts r cross join lateral unnest(r.behaviours) b
        join environments e on e.id = r.environment_id join policies p on p.id = r.policy_id
        where r.generation_id = ${g.id} and not r.success ${policyFilter} order by r.id`)
      ).rows;
      const expected = new Map<string, { perPolicy: Record<string, number>; firsts: Map<string, string> }>();
      for (const r of rows) {
        const e = expected.get(r.b) ?? { perPolicy: {}, firsts: new Map<string, string>() };
        e.perPolicy[r.policy] = (e.perPolicy[r.policy] ?? 0) + 1;
        if (!e.firsts.has(r.key)) e.firsts.set(r.key, r.id);
        expected.set(r.b, e);
      }
      const views = await generationBehaviours(db.db, g.id, policyId);
      expect(views.map((v) => v.id).sort()).toEqual([...expected.keys()].sort());
      for (const v of views) {
        const e = expected.get(v.id)!;
        const keys = [...e.firsts.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const firstIds = [...e.firsts.values()].sort((a, b) => Number(a) - Number(b));
        expect({ perPolicy: v.perPolicy, environments: v.environments, keys: v.environmentKeys, exemplars: v.exemplarRolloutIds }).toEqual({
          perPolicy: e.perPolicy,
          environments: e.firsts.size,
          keys: keys.slice(0, 50),
          exemplars: firstIds.slice(0, 3),
        });
        checked++;
      }
    }
  }
  return checked;
}

beforeAll(async () => {
  db = await freshDatabase();
  project = await createProject(db.db, { slug: "agg", name: "agg", family: "frozenlake-mapf" }, { actor: "test" });
  family = await getFamily(db.db, "frozenlake-mapf");
});

afterAll(async () => {
  await db?.drop();
});

describe("incremental rollout aggregates", () => {
  it("equal a recomputation after batches with duplicates, a re-import and overlapping concurrent imports", async () => {
    // duplicates inside one request (r5 three times) and batches of 7
    const first = await ingest([...range(0, 60), 5, 5], 7);
    expect(first).toMatchObject({ accepted: 60, duplicates: 2, rejected: [] });
    const afterFirst = await expectExact();
    expect(afterFirst.storedFailures.length).toBeGreaterThan(0);
    // a re-import overlapping the first by 20 rollouts, batches of 11
    const second = await ingest(range(40, 120), 11);
    expect(second).toMatchObject({ accepted: 60, duplicates: 20 });
    // the same rollouts again: nothing changes
    const before = await storedAndRecomputed();
    expect(await ingest(range(0, 120), 50)).toMatchObject({ accepted: 0, duplicates: 120 });
    expect((await storedAndRecomputed()).stored).toEqual(before.stored);
    // two imports at once that overlap: each rollout counted once
    const [a, b] = await Promise.all([ingest(range(100, 220), 13), ingest(range(150, 260), 17)]);
    expect(a.accepted + b.accepted).toBe(140);
    const all = await expectExact();
    expect(all.stored.reduce((acc, r) => acc + Number(r.n), 0)).toBe(260);
    await expectClustersAsRecomputed();
  });

  it("count a cluster's environments once over every policy when two policies' imports fail in the same environments at once", async () => {
    // the same rollouts under two new policies, in small batches at once: every environment of a cluster gains a second and a
    // third policy row concurrently, and the cluster over every policy must still count it once
    const [c, d] = await Promise.all([ingest(range(0, 120), 3, "pol-c"), ingest(range(0, 120), 5, "pol-d")]);
    expect(c.accepted + d.accepted).toBe(240);
    const s = await expectExact();
    const allPolicies = s.storedClusters.filter((r) => Number(r.policy_id) === 0);
    expect(allPolicies.length).toBeGreaterThan(0);
    // summed per policy, environments would be counted once per policy: the policy-0 row must be smaller somewhere
    const perPolicySum = (r: Record<string, unknown>) =>
      s.storedClusters
        .filter(
          (p) =>
            Number(p.policy_id) !== 0 && p.generation_id === r.generation_id && p.category === r.category && p.signature === r.signature,
        )
        .reduce((acc, p) => acc + Number(p.environments), 0);
    expect(allPolicies.some((r) => Number(r.environments) < perPolicySum(r))).toBe(true);
    await expectClustersAsRecomputed();
  });

  it("follow reclassification, reward corrections and moves between generations and policies", async () => {
    await db.db.execute(sql`update rollouts set failure_category = 'infra_error', failure_signature = 'sandbox down', success = false
      where id % 5 = 0`);
    await expectExact();
    await db.db.execute(sql`update rollouts set behaviours = '{gave_up_early,step_cap}', error_type = 'RewardFileNotFoundError'
      where id % 3 = 0`);
    expect((await expectExact()).storedBehaviours.length).toBeGreaterThan(0);
    expect(await expectBehavioursAsRecomputed()).toBeGreaterThan(0);
    await db.db.execute(sql`update rollouts set reward = 1, success = true, failure_category = null, failure_signature = null
      where id % 13 = 1`);
    await expectExact();
    const [g2] = (await db.db.execute<{ id: number }>(sql`select id from generations where project_id = ${project.id} and index = 2`)).rows;
    const [pb] = (await db.db.execute<{ id: number }>(sql`select id from policies where name = 'pol-b'`)).rows;
    await db.db.execute(sql`update rollouts set generation_id = ${g2.id}, policy_id = ${pb.id} where id % 8 = 3`);
    await expectExact();
    // an update touching no aggregated column leaves the sums alone
    await db.db.execute(sql`update rollouts set trial_name = 'renamed'`);
    await expectExact();
    // the exemplars and behaviours stored by the reads above follow the reclassification and the moves
    await expectClustersAsRecomputed();
    expect(await expectBehavioursAsRecomputed()).toBeGreaterThan(0);
  });

  it("follow deletes, including each group's smallest rollout id and cascades from environments and generations", async () => {
    await db.db.execute(sql`delete from rollouts where id % 7 = 0`);
    await expectExact();
    // the first failed rollout of every group: exemplars must move on to the next one
    await db.db.execute(sql`delete from rollouts where id in (select first_rollout_id from failure_aggregates)`);
    await expectExact();
    await db.db.execute(sql`delete from environments where project_id = ${project.id} and key = 'e1'`);
    await expectExact();
    await db.db.execute(sql`delete from policies where project_id = ${project.id} and name = 'pol-c'`);
    await expectExact();
    await expectClustersAsRecomputed();
    expect(await expectBehavioursAsRecomputed()).toBeGreaterThan(0);
    await db.db.execute(sql`delete from generations where project_id = ${project.id} and index = 2`);
    const left = await expectExact();
    expect(left.stored.every((r) => Number(r.n) > 0)).toBe(true);
    // every rollout gone: no row left behind with n = 0
    await db.db.execute(sql`delete from rollouts where project_id = ${project.id}`);
    expect((await db.db.execute(sql`select count(*)::int as n from rollout_aggregates`)).rows[0].n).toBe(0);
    expect((await db.db.execute(sql`select count(*)::int as n from failure_aggregates`)).rows[0].n).toBe(0);
    expect((await db.db.execute(sql`select count(*)::int as n from category_aggregates`)).rows[0].n).toBe(0);
    expect((await db.db.execute(sql`select count(*)::int as n from failure_cluster_aggregates`)).rows[0].n).toBe(0);
  });

  it("are rebuilt exactly by the migration's backfill over rollouts already stored", async () => {
    await ingest(range(0, 300), 100);
    await db.db.execute(sql`update rollouts set behaviours = '{never_ran_tests}' where id % 4 = 1`);
    const expected = await expectExact();
    expect(expected.storedBehaviours.length).toBeGreaterThan(0);
    expect(expected.storedExceptions.length).toBeGreaterThan(0);
    expect(expected.storedCategories.length).toBeGreaterThan(0);
    expect(expected.storedValues.length).toBeGreaterThan(0);
    await db.db.execute(sql`delete from rollout_aggregates`);
    await db.db.execute(sql`delete from failure_aggregates`);
    await db.db.execute(sql`delete from behaviour_aggregates`);
    await db.db.execute(sql`delete from exception_aggregates`);
    await db.db.execute(sql`delete from category_aggregates`);
    await db.db.execute(sql`delete from value_aggregates`);
    await db.db.execute(sql`do $$ declare stmt text; begin
      foreach stmt in array envforge_aggregates_add_sql('rollouts') || envforge_facets_add_sql('rollouts')
        || envforge_categories_add_sql('rollouts') || envforge_values_add_sql('rollouts') loop execute stmt; end loop; end $$`);
    const rebuilt = await expectExact();
    expect(rebuilt.stored).toEqual(expected.stored);
    expect(rebuilt.storedValues).toEqual(expected.storedValues);
    // migration 0024's backfill of the clusters from failure_aggregates
    await db.db.execute(sql`delete from failure_cluster_aggregates`);
    await db.db.execute(sql`select envforge_failure_clusters_backfill()`);
    expect((await expectExact()).storedClusters).toEqual(expected.storedClusters);
  });
});

/**
 * The generation dashboard's and failures view's queries: per-(environment, policy) aggregates,
 * failure clusters with their first rollouts, exception and behaviour counts, and one cluster's
 * rollouts. SQL only over the aggregate tables (and rollouts where a cluster is opened); the views,
 * ordering and exemplar choice live in lib/generations/analytics.ts.
 */
import { and, asc, eq, inArray, isNotNull, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "@/lib/db/client";
import { describeError } from "@/lib/db/errors";
import {
  behaviourAggregates,
  behaviourSummaries,
  categoryAggregates,
  environments,
  exceptionAggregates,
  failureAggregates,
  failureClusterAggregates,
  policies,
  rollouts,
  rolloutAggregates,
} from "@/lib/db/schema";
import { storedAggregateColumns, type PerEnvironmentAggregate } from "./repository";

/** Stored aggregates per environment and policy name of a generation (optionally one policy). */
export async function aggregatesPerEnvironmentAndPolicy(db: Queryable, generationId: number, policyId?: number) {
  return db
    .select({ environmentId: rolloutAggregates.environmentId, policy: policies.name, ...storedAggregateColumns })
    .from(rolloutAggregates)
    .innerJoin(policies, eq(policies.id, rolloutAggregates.policyId))
    .where(
      and(eq(rolloutAggregates.generationId, generationId), policyId !== undefined ? eq(rolloutAggregates.policyId, policyId) : undefined),
    );
}

/**
 * The same rows for the dashboard, read without the ORM's row mapping (20,000 rows at 1,000,000 rollouts: a third of the
 * read's time went to mapping them) and with a pMax slot the caller fills from the generation's members.
 */
export async function dashboardAggregateRows(db: Queryable, generationId: number, policyId?: number) {
  const policyFilter = policyId !== undefined ? sql`and a.policy_id = ${policyId}` : sql``;
  const result = await db.execute<Omit<PerEnvironmentAggregate, "generationId"> & { policy: string }>(sql`
    select a.environment_id as "environmentId", p.name as policy, a.n, a.successes as s, a.reward_sum::float8 as "rewardSum",
      a.infra_errors as "infraErrors", a.errored, a.unrewarded, null::float8 as "pMax"
    from ${rolloutAggregates} a join ${policies} p on p.id = a.policy_id
    where a.generation_id = ${generationId} ${policyFilter}`);
  // bigint arrives as a string
  for (const r of result.rows) r.environmentId = Number(r.environmentId);
  return result.rows;
}

/** How many rollouts a generation has (optionally one policy's), from rollout_aggregates. */
export async function rolloutCount(db: Queryable, generationId: number, policyId?: number): Promise<number> {
  const [{ n }] = await db
    .select({ n: sql<number>`coalesce(sum(${rolloutAggregates.n}), 0)::int` })
    .from(rolloutAggregates)
    .where(
      and(eq(rolloutAggregates.generationId, generationId), policyId !== undefined ? eq(rolloutAggregates.policyId, policyId) : undefined),
    );
  return n;
}

/** A failure cluster as stored: counts, environments, each environment's first rollout id and (for small clusters) a few more ids. */
export interface StoredCluster {
  category: string;
  signature: string;
  count: number;
  environments: number;
  /** smallest rollout id per environment, ascending, at most `exemplars` */
  firstIds: string[];
  /** the cluster's smallest rollout ids, to pad exemplars when it spans fewer environments than exemplars */
  someIds: string[];
}

/** How many exemplars a cluster keeps: the failures view's count, and the length its stored exemplar arrays are cut to. */
export const CLUSTER_EXEMPLARS = 3;

/**
 * Clusters from failure_cluster_aggregates (a row per cluster, policy 0 for every policy) with their exemplars. A row keeps
 * the exemplars last computed for it (migration 0028); a row changed since (its trigger set them back to NULL) or never read
 * has them computed here, in the same statement as the read, and written back for the next read.
 *
 * Computing them walks the (generation, category, signature, first_rollout_id) index: an environment has at most one row
 * per policy, so the first exemplars × policies rows in id order hold the smallest per-environment first ids. A cluster on
 * fewer environments than exemplars pads with its smallest other ids, read in id order from the rollouts (generation,
 * category, signature, id) index: a few index entries, where looking them up through the environments read every
 * generation's rollouts of those environments.
 */
export async function storedClusters(db: Queryable, generationId: number, policyId?: number): Promise<StoredCluster[]> {
  const exemplars = CLUSTER_EXEMPLARS;
  const walkPolicyFilter = policyId !== undefined ? sql`and f.policy_id = ${policyId}` : sql``;
  const rolloutPolicyFilter = policyId !== undefined ? sql`and r.policy_id = ${policyId}` : sql``;
  // policies with failures in the generation (category_aggregates: a few rows), 1 when one policy is asked
  const walkRows =
    policyId !== undefined
      ? sql`${exemplars}`
      : sql`${exemplars} * (select greatest(1, count(distinct policy_id)) from ${categoryAggregates} where generation_id = ${generationId})`;
  const result = await db.execute<{
    category: string;
    signature: string;
    count: number;
    environments: number;
    first_ids: string[] | null;
    some_ids: string[] | null;
    /** the row version the exemplars were computed against; null when they were read as stored */
    version: string | null;
  }>(sql`
    with clusters as (
      select category, signature, n as count, environments, exemplar_first_ids, exemplar_some_ids, xmin::text as version
      from ${failureClusterAggregates}
      where generation_id = ${generationId} and policy_id = ${policyId ?? 0}
    ), walked as (
      select c.*, ex.ids from clusters c cross join lateral (
        select array_agg(m.first_id order by m.first_id) as ids from (
          select distinct on (w.environment_id) w.environment_id, w.first_rollout_id as first_id
          from (select f.environment_id, f.first_rollout_id from ${failureAggregates} f
                where f.generation_id = ${generationId} and f.category = c.category and f.signature = c.signature ${walkPolicyFilter}
                order by f.first_rollout_id limit ${walkRows}) w
          order by w.environment_id, w.first_rollout_id) m) ex
      where c.exemplar_first_ids is null
    )
    select category, signature, count, environments, exemplar_first_ids::text[] as first_ids,
      exemplar_some_ids::text[] as some_ids, null as version
    from clusters where exemplar_first_ids is not null
    union all
    select c.category, c.signature, c.count, c.environments, coalesce(c.ids[1:${exemplars}], '{}')::text[] as first_ids,
      case when c.environments < ${exemplars} and c.count > c.environments then array(
        select r.id::text from ${rollouts} r
        where r.generation_id = ${generationId} and r.failure_category = c.category
          and coalesce(r.failure_signature, '') = c.signature ${rolloutPolicyFilter}
        order by r.id limit ${exemplars}) else '{}'::text[] end as some_ids,
      c.version
    from walked c`);
  const computed = result.rows.filter((r) => r.version !== null);
  if (computed.length > 0) await storeClusterExemplars(db, generationId, policyId ?? 0, computed);
  return result.rows.map((r) => ({
    category: r.category,
    signature: r.signature,
    count: r.count,
    environments: r.environments,
    firstIds: r.first_ids ?? [],
    someIds: r.some_ids ?? [],
  }));
}

/**
 * Writes computed exemplars back to their cluster rows, each only if the row is still the version they were computed
 * against (its xmin) and still has none: a row an ingest changed since, or is changing now (locked; skipped, never waited
 * for), keeps NULL and is computed again by the next read. A failure to write (a read-only connection, say) leaves the
 * rows as they were; the read has its answer either way.
 */
export async function storeClusterExemplars(
  db: Queryable,
  generationId: number,
  policyId: number,
  rows: { category: string; signature: string; first_ids: string[] | null; some_ids: string[] | null; version: string | null }[],
): Promise<void> {
  const payload = JSON.stringify(
    rows.map((r) => ({ category: r.category, signature: r.signature, version: r.version, first_ids: r.first_ids, some_ids: r.some_ids })),
  );
  try {
    await db.transaction(async (tx) => {
      await tx.execute(sql`
        update ${failureClusterAggregates} c
        set exemplar_first_ids = v.first_ids::bigint[], exemplar_some_ids = v.some_ids::bigint[]
        from (
          select c2.generation_id, c2.policy_id, c2.category, c2.signature, x.first_ids, x.some_ids
          from ${failureClusterAggregates} c2
          join jsonb_to_recordset(${payload}::jsonb) as x(category text, signature text, version text, first_ids text[], some_ids text[])
            on c2.category = x.category and c2.signature = x.signature
          where c2.generation_id = ${generationId} and c2.policy_id = ${policyId}
            and c2.xmin::text = x.version and c2.exemplar_first_ids is null
          for update of c2 skip locked) v
        where c.generation_id = v.generation_id and c.policy_id = v.policy_id and c.category = v.category and c.signature = v.signature`);
    });
  } catch (err) {
    // the answer stands; the next read computes them again
    console.warn(`[failures] exemplars not stored: ${describeError(err)}`);
  }
}

/** Error types over a generation's rollouts (optionally one policy's): how many, how many rewarded; most frequent first. */
export async function exceptionCounts(db: Queryable, generationId: number, policyId?: number) {
  return db
    .select({
      type: exceptionAggregates.errorType,
      count: sql<number>`sum(${exceptionAggregates.n})::int`,
      rewarded: sql<number>`sum(${exceptionAggregates.successes})::int`,
    })
    .from(exceptionAggregates)
    .where(
      and(
        eq(exceptionAggregates.generationId, generationId),
        policyId !== undefined ? eq(exceptionAggregates.policyId, policyId) : undefined,
      ),
    )
    .groupBy(exceptionAggregates.errorType)
    .orderBy(sql`sum(${exceptionAggregates.n}) desc`, asc(exceptionAggregates.errorType));
}

/** Environment keys a behaviour lists (the first in key order), the length its stored key arrays are cut to. */
export const BEHAVIOUR_KEYS = 50;

/**
 * Behaviour counts of a generation per policy name, and per behaviour: how many environments showed it, the first
 * BEHAVIOUR_KEYS of their keys in code-point order and the CLUSTER_EXEMPLARS smallest of their first rollout ids (an
 * environment's first rollout is its smallest over policies). Read from behaviour_summaries (migration 0029), a row per
 * generation × policy × behaviour (policy 0: every policy); rows an ingest changed since they were last read (NULL figures)
 * are computed in the same statement from behaviour_aggregates, grouped by environment before the keys are joined (a key
 * names one environment of the project), and written back for the next read.
 */
export async function behaviourCounts(db: Queryable, generationId: number, policyId: number | undefined) {
  const summaryFilter = policyId !== undefined ? sql`and policy_id = ${policyId}` : sql``;
  const policyFilter = policyId !== undefined ? sql`and a.policy_id = ${policyId}` : sql``;
  // one policy: its own rows; every policy: each policy's rows and, grouped over policies, the policy-0 rows
  const grouping =
    policyId !== undefined
      ? sql`a.policy_id as p, a.environment_id as env, sum(a.n)::int as n, min(a.first_rollout_id) as first_id
            from ${behaviourAggregates} a where a.generation_id = ${generationId} ${policyFilter} and exists (select 1 from stale)
            group by a.behaviour, a.policy_id, a.environment_id`
      : sql`case when grouping(a.policy_id) = 1 then 0 else a.policy_id end as p, a.environment_id as env, sum(a.n)::int as n,
              min(a.first_rollout_id) as first_id
            from ${behaviourAggregates} a where a.generation_id = ${generationId} and exists (select 1 from stale)
            group by grouping sets ((a.behaviour, a.policy_id, a.environment_id), (a.behaviour, a.environment_id))`;
  const result = await db.execute<SummaryRow & { policy: string | null }>(sql`
    with s as (
      select behaviour, policy_id, n, environments, keys, first_ids, xmin::text as version
      from ${behaviourSummaries} where generation_id = ${generationId} ${summaryFilter}
    ), stale as (
      select behaviour, policy_id, version from s where n is null
    ), per_env as (
      select a.behaviour as b, ${grouping}
    ), computed as (
      select y.b, y.p, sum(y.n)::int as n, count(*)::int as environments,
        (array_agg(e.key order by e.key collate "C"))[1:${BEHAVIOUR_KEYS}] as keys,
        (array_agg(y.first_id order by y.first_id))[1:${CLUSTER_EXEMPLARS}] as first_ids
      from per_env y join ${environments} e on e.id = y.env
      where (y.b, y.p) in (select behaviour, policy_id from stale)
      group by y.b, y.p
    ), answered as (
      select behaviour, policy_id, n, environments, keys, first_ids::text[] as first_ids, null as version from s where n is not null
      union all
      select st.behaviour, st.policy_id, coalesce(c.n, 0), coalesce(c.environments, 0), coalesce(c.keys, '{}'),
        coalesce(c.first_ids, '{}')::text[], st.version
      from stale st left join computed c on c.b = st.behaviour and c.p = st.policy_id
    )
    select x.*, p.name as policy from answered x left join ${policies} p on p.id = x.policy_id`);
  const computed = result.rows.filter((r) => r.version !== null);
  if (computed.length > 0) await storeBehaviourSummaries(db, generationId, computed);
  const shown = result.rows.filter((r) => r.n > 0);
  const perPolicy = shown.filter((r) => r.policy_id !== 0).map((r) => ({ b: r.behaviour, policy: r.policy!, n: r.n }));
  const perBehaviour = shown
    .filter((r) => r.policy_id === (policyId ?? 0))
    .map((r) => ({ b: r.behaviour, environments: r.environments, keys: r.keys, first_ids: r.first_ids }));
  return { perPolicy, perBehaviour };
}

/** A behaviour_summaries row as a read answers it; `version` is the row version its figures were computed against, or null. */
type SummaryRow = {
  behaviour: string;
  policy_id: number;
  n: number;
  environments: number;
  keys: string[];
  first_ids: string[];
  version: string | null;
};

/**
 * Writes computed behaviour figures back, each only over the row version they were computed against and only where the
 * row still has none; rows an ingest holds are skipped, never waited for (as storeClusterExemplars).
 */
export async function storeBehaviourSummaries(db: Queryable, generationId: number, rows: SummaryRow[]): Promise<void> {
  const payload = JSON.stringify(rows);
  try {
    await db.transaction(async (tx) => {
      await tx.execute(sql`
        update ${behaviourSummaries} s
        set n = v.n, environments = v.environments, keys = v.keys, first_ids = v.first_ids::bigint[]
        from (
          select s2.generation_id, s2.policy_id, s2.behaviour, x.n, x.environments, x.keys, x.first_ids
          from ${behaviourSummaries} s2
          join jsonb_to_recordset(${payload}::jsonb)
            as x(behaviour text, policy_id int, version text, n int, environments int, keys text[], first_ids text[])
            on s2.behaviour = x.behaviour and s2.policy_id = x.policy_id
          where s2.generation_id = ${generationId} and s2.xmin::text = x.version and s2.n is null
          for update of s2 skip locked) v
        where s.generation_id = v.generation_id and s.policy_id = v.policy_id and s.behaviour = v.behaviour`);
    });
  } catch (err) {
    console.warn(`[failures] behaviour figures not stored: ${describeError(err)}`);
  }
}

/** Which rollouts make up one failure cluster of a generation (optionally one policy's). */
export interface ClusterFilter {
  generationId: number;
  category: string;
  signature: string;
  policyId?: number;
}

function clusterWhere(c: ClusterFilter): SQL | undefined {
  return and(
    eq(rollouts.generationId, c.generationId),
    eq(rollouts.failureCategory, c.category),
    // the form of the rollouts_generation_cluster_idx expression, so a cluster's rollouts are read from that index
    sql`coalesce(${rollouts.failureSignature}, '') = ${c.signature}`,
    c.policyId !== undefined ? eq(rollouts.policyId, c.policyId) : undefined,
  );
}

/** A cluster's rollouts, oldest first, at most `limit` (error messages cut to 300 characters). */
export async function clusterRollouts(db: Queryable, cluster: ClusterFilter, limit: number) {
  return db
    .select({
      id: rollouts.id,
      environmentKey: environments.key,
      policy: policies.name,
      reward: rollouts.reward,
      status: rollouts.status,
      errorType: rollouts.errorType,
      errorMessage: sql<string | null>`left(${rollouts.errorMessage}, 300)`,
      turns: rollouts.turns,
      outputTokens: rollouts.outputTokens,
    })
    .from(rollouts)
    .innerJoin(environments, eq(environments.id, rollouts.environmentId))
    .innerJoin(policies, eq(policies.id, rollouts.policyId))
    .where(clusterWhere(cluster))
    .orderBy(asc(rollouts.id))
    .limit(limit);
}

/** A cluster's environments with how many of its rollouts each has, most first. */
export async function clusterEnvironmentCounts(db: Queryable, cluster: ClusterFilter) {
  return db
    .select({ key: environments.key, count: sql<number>`count(*)::int` })
    .from(rollouts)
    .innerJoin(environments, eq(environments.id, rollouts.environmentId))
    .where(clusterWhere(cluster))
    .groupBy(environments.key)
    .orderBy(sql`count(*) desc`, asc(environments.key));
}

/** Failed rollouts per category name of a generation (optionally one policy), summed over category_aggregates. */
export async function categoryCountRows(db: Queryable, generationId: number, policyId?: number) {
  return db
    .select({ category: categoryAggregates.category, count: sql<number>`sum(${categoryAggregates.n})::int` })
    .from(categoryAggregates)
    .where(
      and(
        eq(categoryAggregates.generationId, generationId),
        policyId !== undefined ? eq(categoryAggregates.policyId, policyId) : undefined,
      ),
    )
    .groupBy(categoryAggregates.category);
}

/** Ids of a generation's environments with failures of one category (optionally one policy's). */
export async function environmentIdsWithCategory(db: Queryable, generationId: number, category: string, policyId?: number) {
  const rows = await db
    .selectDistinct({ environmentId: failureAggregates.environmentId })
    .from(failureAggregates)
    .where(
      and(
        eq(failureAggregates.generationId, generationId),
        eq(failureAggregates.category, category),
        policyId !== undefined ? eq(failureAggregates.policyId, policyId) : undefined,
      ),
    );
  return rows.map((r) => r.environmentId);
}

/** The distinct failure categories of some environments of a generation (optionally one policy's), one row an environment. */
export async function categoriesOfEnvironments(db: Queryable, generationId: number, environmentIds: number[], policyId?: number) {
  return db
    .select({
      environmentId: failureAggregates.environmentId,
      categories: sql<string[]>`array_agg(distinct ${failureAggregates.category})`,
    })
    .from(failureAggregates)
    .where(
      and(
        eq(failureAggregates.generationId, generationId),
        inArray(failureAggregates.environmentId, environmentIds),
        policyId !== undefined ? eq(failureAggregates.policyId, policyId) : undefined,
      ),
    )
    .groupBy(failureAggregates.environmentId);
}

/** Tests passed and run of some environments of a generation (optionally one policy's); null where no rollout reported tests. */
export async function testCountsOfEnvironments(db: Queryable, generationId: number, environmentIds: number[], policyId?: number) {
  return db
    .select({
      environmentId: rolloutAggregates.environmentId,
      // a sum over no rollout that reported tests is null, as SQL's sum over the rollouts would be
      testsPassed: sql<
        number | null
      >`case when sum(${rolloutAggregates.testsPassedN}) > 0 then sum(${rolloutAggregates.testsPassed}) end::int`,
      testsRun: sql<number | null>`case when sum(${rolloutAggregates.testsRunN}) > 0 then sum(${rolloutAggregates.testsRun}) end::int`,
    })
    .from(rolloutAggregates)
    .where(
      and(
        eq(rolloutAggregates.generationId, generationId),
        inArray(rolloutAggregates.environmentId, environmentIds),
        policyId !== undefined ? eq(rolloutAggregates.policyId, policyId) : undefined,
      ),
    )
    .groupBy(rolloutAggregates.environmentId);
}

/** Count and sum of the reported costs of a generation's rollouts (optionally one policy's), from the partial index on priced rollouts. */
export async function pricedRolloutTotals(db: Queryable, generationId: number, policyId?: number) {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int`, total: sql<number | null>`sum(${rollouts.costUsd})` })
    .from(rollouts)
    .where(
      and(
        eq(rollouts.generationId, generationId),
        policyId !== undefined ? eq(rollouts.policyId, policyId) : undefined,
        isNotNull(rollouts.costUsd),
      ),
    );
  return { n: row?.n ?? 0, total: row?.total ?? null };
}

/**
 * Generation queries: generations, their members and the project's environments. The one query of
 * a generation's members (environment joined with its membership row and its parent's key) lives
 * here, shared by the analytics, the environment pages, the engineer's summary, review and dispatch.
 * SQL only, each selecting the columns its caller reads; no rules, no scopes: the services decide.
 */
import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import type { Queryable } from "@/lib/db/client";
import { environments, generationEnvironments, generations, policies, rollouts, rolloutAggregates } from "@/lib/db/schema";
import { qualified } from "@/lib/db/qualified";

type GenerationInsert = typeof generations.$inferInsert;
type EnvironmentInsert = typeof environments.$inferInsert;

/** How an environment enters a generation. */
export interface MembershipInsert {
  environmentId: number;
  weight?: number;
  op?: string;
  direction?: string | null;
  rationale?: string | null;
}

function membersQuery(db: Queryable) {
  return db
    .select({
      id: environments.id,
      key: environments.key,
      config: environments.config,
      configHash: environments.configHash,
      parentId: environments.parentId,
      pMax: environments.pMax,
      validationState: environments.validationState,
      op: generationEnvironments.op,
      direction: generationEnvironments.direction,
      weight: generationEnvironments.weight,
      rationale: generationEnvironments.rationale,
      parentKey: sql<string | null>`(select p.key from ${environments} p where p.id = ${qualified(environments.parentId)})`,
    })
    .from(generationEnvironments)
    .innerJoin(environments, eq(environments.id, generationEnvironments.environmentId));
}

/** One member of a generation: its environment, how it entered the generation, its parent's key. */
export type GenerationMember = Awaited<ReturnType<typeof generationMembers>>[number];

/** Members of a generation ordered by key: all of them, or `limit` after the key `after` (a cursor page). */
export async function generationMembers(db: Queryable, generationId: number, page: { after?: string; limit?: number } = {}) {
  const q = membersQuery(db)
    .where(and(eq(generationEnvironments.generationId, generationId), page.after ? gt(environments.key, page.after) : undefined))
    .orderBy(asc(environments.key));
  return page.limit === undefined ? q : q.limit(page.limit);
}

/** A generation's members as the dashboard reads them (id, key, pMax, config), ordered by key: no membership or parent columns. */
export async function generationMemberConfigs(db: Queryable, generationId: number) {
  return db
    .select({ id: environments.id, key: environments.key, pMax: environments.pMax, config: environments.config })
    .from(generationEnvironments)
    .innerJoin(environments, eq(environments.id, generationEnvironments.environmentId))
    .where(eq(generationEnvironments.generationId, generationId))
    .orderBy(asc(environments.key));
}

/** The environment ids of a generation (membership only, no environment columns). */
export async function generationMemberIds(db: Queryable, generationId: number): Promise<number[]> {
  const rows = await db
    .select({ id: generationEnvironments.environmentId })
    .from(generationEnvironments)
    .where(eq(generationEnvironments.generationId, generationId));
  return rows.map((r) => r.id);
}

/** Keys of a generation's members the oracle marked invalid, ordered by key. */
export async function invalidMemberKeys(db: Queryable, generationId: number): Promise<string[]> {
  const rows = await db
    .select({ key: environments.key })
    .from(generationEnvironments)
    .innerJoin(environments, eq(environments.id, generationEnvironments.environmentId))
    .where(and(eq(generationEnvironments.generationId, generationId), eq(environments.validationState, "invalid")))
    .orderBy(asc(environments.key));
  return rows.map((r) => r.key);
}

/** A project's generation by index (every column: the API returns the row), or undefined. */
export async function generationAt(db: Queryable, projectId: number, index: number) {
  const [g] = await db
    .select()
    .from(generations)
    .where(and(eq(generations.projectId, projectId), eq(generations.index, index)));
  return g;
}

/** The id of a project's generation by index, or undefined. */
export async function generationIdAt(db: Queryable, projectId: number, index: number): Promise<number | undefined> {
  const [g] = await db
    .select({ id: generations.id })
    .from(generations)
    .where(and(eq(generations.projectId, projectId), eq(generations.index, index)));
  return g?.id;
}

/** The highest generation index of a project, or null while it has none. */
export async function maxGenerationIndex(db: Queryable, projectId: number): Promise<number | null> {
  const [{ maxIndex }] = await db
    .select({ maxIndex: sql<number | null>`max(${generations.index})` })
    .from(generations)
    .where(eq(generations.projectId, projectId));
  return maxIndex;
}

/** All generations of a project, oldest first. */
export async function generationsOfProject(db: Queryable, projectId: number) {
  return db.select().from(generations).where(eq(generations.projectId, projectId)).orderBy(asc(generations.index));
}

/** Inserts a generation; returns the row. */
export async function insertGeneration(db: Queryable, values: GenerationInsert) {
  const [gen] = await db.insert(generations).values(values).returning();
  return gen;
}

/** Adds environments to a generation (ignoring ones already members), in chunks. */
export async function insertMembership(db: Queryable, generationId: number, members: MembershipInsert[]): Promise<void> {
  for (let i = 0; i < members.length; i += 5000) {
    const chunk = members.slice(i, i + 5000);
    if (chunk.length === 0) continue;
    await db
      .insert(generationEnvironments)
      .values(
        chunk.map((m) => ({
          generationId,
          environmentId: m.environmentId,
          weight: m.weight ?? 1,
          op: m.op ?? "seed",
          direction: m.direction ?? null,
          rationale: m.rationale ?? null,
        })),
      )
      .onConflictDoNothing();
  }
}

/** A project's environments among `keys` (id, key, config hash), looked up in chunks. */
export async function environmentsByKey(db: Queryable, projectId: number, keys: string[]) {
  const found: { id: number; key: string; hash: string }[] = [];
  for (let i = 0; i < keys.length; i += 5000) {
    const rows = await db
      .select({ id: environments.id, key: environments.key, hash: environments.configHash })
      .from(environments)
      .where(and(eq(environments.projectId, projectId), inArray(environments.key, keys.slice(i, i + 5000))));
    found.push(...rows);
  }
  return found;
}

/** The config of a project's environment by key, or undefined when there is none. */
export async function environmentConfigByKey(db: Queryable, projectId: number, key: string): Promise<unknown> {
  const [env] = await db
    .select({ config: environments.config })
    .from(environments)
    .where(and(eq(environments.projectId, projectId), eq(environments.key, key)));
  return env?.config;
}

/** A project's environments whose config hash is among `hashes` (key, hash). */
export async function environmentsByConfigHash(db: Queryable, projectId: number, hashes: string[]) {
  if (hashes.length === 0) return [];
  return db
    .select({ key: environments.key, hash: environments.configHash })
    .from(environments)
    .where(and(eq(environments.projectId, projectId), inArray(environments.configHash, hashes)));
}

/**
 * A project's environments among `keys` with their weight in the generation `generationId` (null
 * where they are not members of it, or when there is no such generation).
 */
export async function environmentsWithWeightIn(db: Queryable, projectId: number, keys: string[], generationId: number | undefined) {
  if (keys.length === 0) return [];
  return db
    .select({ id: environments.id, key: environments.key, weight: generationEnvironments.weight })
    .from(environments)
    .leftJoin(
      generationEnvironments,
      and(
        eq(generationEnvironments.environmentId, environments.id),
        generationId !== undefined ? eq(generationEnvironments.generationId, generationId) : sql`false`,
      ),
    )
    .where(and(eq(environments.projectId, projectId), inArray(environments.key, keys)));
}

/** Inserts environments in chunks; returns each new one's id by key. */
export async function insertEnvironments(db: Queryable, rows: EnvironmentInsert[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (let i = 0; i < rows.length; i += 2000) {
    const inserted = await db
      .insert(environments)
      .values(rows.slice(i, i + 2000))
      .returning({ id: environments.id, key: environments.key });
    for (const r of inserted) ids.set(r.key, r.id);
  }
  return ids;
}

/** Sets the parent of each child environment, in one statement: `links` are [child id, parent id]. */
export async function linkParents(db: Queryable, links: [number, number][]): Promise<void> {
  if (links.length === 0) return;
  await db.execute(sql`
    update ${environments} set parent_id = l.parent
    from unnest(${sql.param(links.map((l) => l[0]))}::bigint[], ${sql.param(links.map((l) => l[1]))}::bigint[]) as l(child, parent)
    where ${environments.id} = l.child`);
}

/** Serialises generation creation in a project until the transaction ends (index allocation, key reuse). */
export async function lockProjectGenerations(tx: Queryable, projectId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${projectId})`);
}

// --- read models: policies, stored aggregates, one environment's page ----------------------

/** A policy of the project by name (id and name), or undefined. */
export async function policyByName(db: Queryable, projectId: number, name: string) {
  const [p] = await db
    .select({ id: policies.id, name: policies.name })
    .from(policies)
    .where(and(eq(policies.projectId, projectId), eq(policies.name, name)));
  return p;
}

/** Names of the policies with rollouts in a project, sorted. */
export async function policyNamesOfProject(db: Queryable, projectId: number): Promise<string[]> {
  const rows = await db.select({ name: policies.name }).from(policies).where(eq(policies.projectId, projectId)).orderBy(asc(policies.name));
  return rows.map((r) => r.name);
}

/** Names of the policies with rollouts in a generation, sorted. */
export async function policyNamesOfGeneration(db: Queryable, generationId: number): Promise<string[]> {
  const rows = await db
    .selectDistinct({ name: policies.name })
    .from(rolloutAggregates)
    .innerJoin(policies, eq(policies.id, rolloutAggregates.policyId))
    .where(eq(rolloutAggregates.generationId, generationId))
    .orderBy(asc(policies.name));
  return rows.map((r) => r.name);
}

/** How many environments each of the generations has (generations without members are absent). */
export async function memberCounts(db: Queryable, generationIds: number[]): Promise<Map<number, number>> {
  if (generationIds.length === 0) return new Map();
  const rows = await db
    .select({ generationId: generationEnvironments.generationId, n: sql<number>`count(*)::int` })
    .from(generationEnvironments)
    .where(inArray(generationEnvironments.generationId, generationIds))
    .groupBy(generationEnvironments.generationId);
  return new Map(rows.map((r) => [r.generationId, r.n]));
}

/** The columns of an EnvironmentAggregate read from rollout_aggregates (one row per generation × environment × policy). */
export const storedAggregateColumns = {
  n: rolloutAggregates.n,
  s: rolloutAggregates.successes,
  rewardSum: sql<number>`${rolloutAggregates.rewardSum}::float8`,
  infraErrors: rolloutAggregates.infraErrors,
  errored: rolloutAggregates.errored,
  unrewarded: rolloutAggregates.unrewarded,
};

/** One generation × environment's rollout sums (over its policies, or one), with the environment's pMax. */
export type PerEnvironmentAggregate = {
  generationId: number;
  environmentId: number;
  n: number;
  s: number;
  rewardSum: number;
  infraErrors: number;
  errored: number;
  unrewarded: number;
  pMax: number | null;
};

/**
 * Rollout aggregates per generation and environment, summed over policies (or one policy), with the environment's pMax.
 * One statement that groups before it joins, its rows handed on as the driver parsed them: the project trend reads
 * 50,000 of them at 10,000,000 rollouts (200,000 rollout_aggregates rows of four policies), and the ORM's select with the
 * join before the grouping took 550-580 ms of which its row mapping was half (issue 19).
 */
export async function aggregatesPerEnvironment(
  db: Queryable,
  generationIds: number[],
  filter: { policyId?: number; environmentIds?: number[] } = {},
): Promise<PerEnvironmentAggregate[]> {
  if (generationIds.length === 0 || filter.environmentIds?.length === 0) return [];
  const result = await db.execute<PerEnvironmentAggregate>(sql`
    select a."generationId", a."environmentId", a.n, a.s, a."rewardSum", a."infraErrors", a.errored, a.unrewarded,
           e.p_max as "pMax"
      from (select ra.generation_id as "generationId", ra.environment_id as "environmentId",
                   sum(ra.n)::int as n, sum(ra.successes)::int as s, sum(ra.reward_sum)::float8 as "rewardSum",
                   sum(ra.infra_errors)::int as "infraErrors", sum(ra.errored)::int as errored,
                   sum(ra.unrewarded)::int as unrewarded
              from ${rolloutAggregates} ra
             where ra.generation_id = any(${sql.param(generationIds)}::int[])
               ${filter.policyId !== undefined ? sql`and ra.policy_id = ${filter.policyId}` : sql``}
               ${filter.environmentIds ? sql`and ra.environment_id = any(${sql.param(filter.environmentIds)}::bigint[])` : sql``}
             group by ra.generation_id, ra.environment_id) a
      join ${environments} e on e.id = a."environmentId"`);
  // bigint arrives as a string: callers look rows up by the environment's numeric id
  for (const r of result.rows) r.environmentId = Number(r.environmentId);
  return result.rows;
}

/** What an environment's page shows of its own row, by key; undefined when the project has no such environment. */
export async function environmentForPage(db: Queryable, projectId: number, key: string) {
  const [env] = await db
    .select({
      id: environments.id,
      key: environments.key,
      config: environments.config,
      configHash: environments.configHash,
      op: environments.op,
      direction: environments.direction,
      validationState: environments.validationState,
      pMax: environments.pMax,
      validationDetails: environments.validationDetails,
      createdAt: environments.createdAt,
    })
    .from(environments)
    .where(and(eq(environments.projectId, projectId), eq(environments.key, key)));
  return env;
}

/** An environment's ancestors, nearest first, followed at most `maxDepth` steps up (a guard against a cycle written by hand). */
export async function environmentAncestors(db: Queryable, environmentId: number, maxDepth: number) {
  const result = await db.execute<{ key: string; op: string; direction: string | null; depth: number; config: unknown }>(sql`
      with recursive up as (
        select id, parent_id, key, op, direction, config, 0 as depth from ${environments} where id = ${environmentId}
        union all
        select e.id, e.parent_id, e.key, e.op, e.direction, e.config, up.depth + 1
        from ${environments} e join up on e.id = up.parent_id where up.depth < ${maxDepth}
      )
      select key, op, direction, depth, config from up where depth > 0 order by depth`);
  return result.rows;
}

/** An environment's children (key, op, direction), by key. */
export async function environmentChildren(db: Queryable, environmentId: number) {
  return db
    .select({ key: environments.key, op: environments.op, direction: environments.direction })
    .from(environments)
    .where(eq(environments.parentId, environmentId))
    .orderBy(asc(environments.key));
}

/** The generations an environment is a member of, with how it entered each, oldest first. */
export async function environmentMemberships(db: Queryable, environmentId: number) {
  return db
    .select({
      index: generations.index,
      status: generations.status,
      op: generationEnvironments.op,
      direction: generationEnvironments.direction,
      weight: generationEnvironments.weight,
      rationale: generationEnvironments.rationale,
    })
    .from(generationEnvironments)
    .innerJoin(generations, eq(generations.id, generationEnvironments.generationId))
    .where(eq(generationEnvironments.environmentId, environmentId))
    .orderBy(asc(generations.index));
}

/** An environment's stored aggregates per generation index and policy name, in that order. */
export async function environmentAggregatesByGenerationAndPolicy(db: Queryable, environmentId: number) {
  return db
    .select({ generation: generations.index, policy: policies.name, ...storedAggregateColumns })
    .from(rolloutAggregates)
    .innerJoin(generations, eq(generations.id, rolloutAggregates.generationId))
    .innerJoin(policies, eq(policies.id, rolloutAggregates.policyId))
    .where(eq(rolloutAggregates.environmentId, environmentId))
    .orderBy(asc(generations.index), asc(policies.name));
}

/**
 * The newest rollout id of an environment per outcome (success true / false; an outcome it never had is left out). Each
 * walks rollouts_environment_idx backwards from the newest and stops at the first match, reading success from the index.
 */
export async function newestRolloutPerOutcome(db: Queryable, environmentId: number): Promise<{ success: boolean; id: number }[]> {
  const result = await db.execute<{ success: boolean; id: string | null }>(sql`
    select o.success, (select r.id from ${rollouts} r where r.environment_id = ${environmentId} and r.success = o.success
                       order by r.id desc limit 1) as id
    from (values (true), (false)) as o(success)`);
  return result.rows.filter((r) => r.id !== null).map((r) => ({ success: r.success, id: Number(r.id) }));
}

/**
 * Rollouts of a project's environment by key for its attempts list: by policy name, newest first, at most `limit`. One
 * walk per policy the environment has results of, newest first along rollouts_environment_idx (policy_id is in the
 * index), instead of sorting every rollout of the environment.
 */
export async function attemptsOfEnvironment(db: Queryable, projectId: number, key: string, limit: number) {
  const result = await db.execute<Record<string, unknown>>(sql`
    with env as (select id from ${environments} where project_id = ${projectId} and key = ${key}),
    pols as (
      select p.id, p.name from ${policies} p
      where p.id in (select a.policy_id from ${rolloutAggregates} a where a.environment_id = (select id from env)))
    select r.id, g.index as generation, pols.name as policy, r.reward, r.success, r.status,
           r.failure_category as "failureCategory", r.error_type as "errorType", r.turns, r.output_tokens as "outputTokens"
    from pols
    cross join lateral (
      select * from ${rollouts} r where r.environment_id = (select id from env) and r.policy_id = pols.id
      order by r.id desc limit ${limit}) r
    join ${generations} g on g.id = r.generation_id
    order by pols.name, r.id desc
    limit ${limit}`);
  return result.rows.map((r) => ({
    id: Number(r.id),
    generation: r.generation as number,
    policy: r.policy as string,
    reward: r.reward as number | null,
    success: r.success as boolean,
    status: r.status as string,
    failureCategory: r.failureCategory as string | null,
    errorType: r.errorType as string | null,
    turns: r.turns as number | null,
    outputTokens: r.outputTokens as number | null,
  }));
}

/** The id of the newest rollout of a project's environment by key that passed (or failed), or undefined. */
export async function newestAttemptIdWithOutcome(db: Queryable, projectId: number, key: string, success: boolean) {
  const result = await db.execute<{ id: string }>(sql`
    select r.id from ${rollouts} r
    where r.environment_id = (select id from ${environments} where project_id = ${projectId} and key = ${key}) and r.success = ${success}
    order by r.id desc limit 1`);
  return result.rows[0] ? Number(result.rows[0].id) : undefined;
}

/**
 * The environment table's inputs: every member of a generation with its rollouts and successes summed over policies
 * (or one policy's) and its best policy's success rate (Tmax), grouped in SQL: one row an environment, no configs
 * (the table reads those for its page, or all of them only to filter by a field).
 */
export async function environmentTableStats(db: Queryable, generationId: number, policyId?: number) {
  const agg = db
    .select({
      environmentId: rolloutAggregates.environmentId,
      n: sql<number>`sum(${rolloutAggregates.n})::int`.as("n"),
      s: sql<number>`sum(${rolloutAggregates.successes})::int`.as("s"),
      // the same float8 division as s / n in JavaScript, over the policies that have rollouts
      best: sql<
        number | null
      >`max(${rolloutAggregates.successes}::float8 / ${rolloutAggregates.n}) filter (where ${rolloutAggregates.n} > 0)`.as("best"),
    })
    .from(rolloutAggregates)
    .where(
      and(eq(rolloutAggregates.generationId, generationId), policyId !== undefined ? eq(rolloutAggregates.policyId, policyId) : undefined),
    )
    .groupBy(rolloutAggregates.environmentId)
    .as("a");
  return db
    .select({
      id: environments.id,
      key: environments.key,
      pMax: environments.pMax,
      validationState: environments.validationState,
      op: generationEnvironments.op,
      direction: generationEnvironments.direction,
      weight: generationEnvironments.weight,
      aggregated: sql<boolean>`${agg.environmentId} is not null`,
      n: agg.n,
      s: agg.s,
      best: agg.best,
    })
    .from(generationEnvironments)
    .innerJoin(environments, eq(environments.id, generationEnvironments.environmentId))
    .leftJoin(agg, eq(agg.environmentId, environments.id))
    .where(eq(generationEnvironments.generationId, generationId));
}

/** Config and parent key of some environments (a page of the environment table). */
export async function environmentConfigs(db: Queryable, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .select({
      id: environments.id,
      config: environments.config,
      parentKey: sql<string | null>`(select p.key from ${environments} p where p.id = ${qualified(environments.parentId)})`,
    })
    .from(environments)
    .where(inArray(environments.id, ids));
}

/** Configs of a generation's members (the environment table's field filters). */
export async function memberConfigs(db: Queryable, generationId: number) {
  return db
    .select({ id: environments.id, config: environments.config })
    .from(generationEnvironments)
    .innerJoin(environments, eq(environments.id, generationEnvironments.environmentId))
    .where(eq(generationEnvironments.generationId, generationId));
}

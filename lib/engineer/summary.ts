/**
 * The structured summary of (generation, policy) and the population an engineer works on, read
 * from the database. Deterministic (every list has a total order) and bounded by a token budget.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import {
  environments,
  failureAggregates,
  generationEnvironments,
  generations,
  proposalItems,
  proposals,
  rollouts,
  rolloutAggregates,
  valueAggregates,
} from "@/lib/db/schema";
import { clusterId, type FailureCategory } from "@/lib/analytics/failures";
import { difficultyTier, populationMetrics, tierHistogram } from "@/lib/analytics/metrics";
import { percentileCont, type ValueCount } from "@/lib/analytics/percentile";
import type { FamilyDefinition } from "@/lib/families/types";
import type { ProjectRow } from "@/lib/projects/service";
import type { GenerationRow } from "@/lib/generations/service";
import { resolvePolicy } from "@/lib/generations/overview";
import {
  categoryCounts,
  combineByEnvironment,
  environmentPolicyAggregates,
  familyFieldBreakdowns,
  generationClusters,
} from "@/lib/generations/analytics";
import { generationMembers } from "@/lib/generations/repository";
import { classifyPopulation } from "./classification";
import type { PopulationMember, StructuredSummary, SummaryCluster } from "./types";

/** Default token budget of the summary (ENGINEER.md: 6k tokens for the LLM view). */
export const SUMMARY_TOKEN_BUDGET = 6000;

const MAX_CLUSTERS = 12;
const MAX_KEYS = 40;
const EXCERPT = 240;

/** Tokens of a text as the budget counts them (characters / 4, rounded up). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The decisive part of a failure: the failing test lines, else the error, else the last message. */
export function failureExcerpt(row: {
  errorType: string | null;
  errorMessage: string | null;
  verifier: string | null;
  lastMessage: string | null;
}): string {
  const failing = (row.verifier ?? "")
    .split("\n")
    .filter((l) => /FAILED|Error|error:|assert/i.test(l))
    .slice(0, 3)
    .join(" | ");
  const text =
    failing ||
    (row.errorType ? `${row.errorType}: ${row.errorMessage ?? ""}` : "") ||
    (row.verifier ?? "").trim() ||
    (row.lastMessage ?? "");
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > EXCERPT ? `${oneLine.slice(0, EXCERPT)}…` : oneLine;
}

async function excerpts(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const result = await db.execute<{
    id: string;
    error_type: string | null;
    error_message: string | null;
    verifier: string | null;
    last_message: string | null;
  }>(sql`
    select r.id::text as id, r.error_type, left(r.error_message, 1000) as error_message, left(p.verifier_output, 4000) as verifier,
           right(case when jsonb_typeof(p.trajectory) = 'array' then (p.trajectory -> -1) ->> 'content' end, 400) as last_message
    from ${rollouts} r left join rollout_payloads p on p.rollout_id = r.id
    where r.id in (${sql.join(
      ids.map((id) => sql`${Number(id)}`),
      sql`, `,
    )})`);
  return new Map(
    result.rows.map((r) => [
      r.id,
      failureExcerpt({ errorType: r.error_type, errorMessage: r.error_message, verifier: r.verifier, lastMessage: r.last_message }),
    ]),
  );
}

/** Turns and output tokens (median, p90) of a generation's rollouts, optionally one policy's, as percentile_cont gives them. */
async function distribution(db: Db, generationId: number, policyId?: number) {
  // The rollouts per value of each column, kept at ingest (value_aggregates, drizzle/0031: rollouts without the figure are
  // not counted, as percentile_cont leaves them out), the percentiles from those counts (lib/analytics/percentile.ts gives
  // percentile_cont's doubles). percentile_cont sorted a million rows per column; a hashed scan of them still took 0.4 s.
  const result = await db.execute<{ metric: "turns" | "output_tokens"; value: number; n: string }>(sql`
    select metric, value, sum(n) as n from ${valueAggregates}
    where generation_id = ${generationId} ${policyId !== undefined ? sql`and policy_id = ${policyId}` : sql``}
    group by metric, value`);
  const counts = { turns: [] as ValueCount[], output_tokens: [] as ValueCount[] };
  for (const r of result.rows) counts[r.metric].push({ value: r.value, n: Number(r.n) });
  return {
    turns: { median: percentileCont(counts.turns, 0.5), p90: percentileCont(counts.turns, 0.9) },
    outputTokens: { median: percentileCont(counts.output_tokens, 0.5), p90: percentileCont(counts.output_tokens, 0.9) },
  };
}

async function proposalHistory(db: Db, projectId: number, beforeGeneration: number) {
  // The 5 latest proposals, then their approved and rejected items in one pass over each proposal's decided items
  // (proposal_items_decided_idx holds only items that are no longer pending, so an unreviewed 15,000-item proposal
  // costs an index probe). The counts were two subqueries whose `i.proposal_id = "id"` Drizzle rendered unqualified:
  // `"id"` bound to the item's own id, so every count was 0 and each scanned all of proposal_items.
  const rows = (
    await db.execute<{
      id: string;
      base_generation: number;
      engineer: string;
      status: string;
      materialized_generation: number | null;
      approved: number;
      rejected: number;
    }>(sql`
      select p.id, p.base_generation, p.engineer, p.status, p.materialized_generation,
             coalesce(c.approved, 0)::int as approved, coalesce(c.rejected, 0)::int as rejected
      from (select id, base_generation, engineer, status, materialized_generation, created_at
            from ${proposals} where project_id = ${projectId} and base_generation < ${beforeGeneration}
            order by created_at desc, id asc limit 5) p
      left join lateral (
        select count(*) filter (where i.decision = 'approved') as approved, count(*) filter (where i.decision = 'rejected') as rejected
        from ${proposalItems} i where i.proposal_id = p.id and i.decision <> 'pending') c on true
      order by p.created_at desc, p.id asc`)
  ).rows.map((r) => ({
    id: r.id,
    baseGeneration: r.base_generation,
    engineer: r.engineer,
    status: r.status,
    materializedGeneration: r.materialized_generation,
    approved: r.approved,
    rejected: r.rejected,
  }));
  // predicted vs measured: approved new environments of those proposals, measured wherever they ran since
  const ids = rows.map((r) => r.id);
  const predictions =
    ids.length === 0
      ? []
      : (
          await db.execute<{ key: string; predicted: number; n: number; s: number }>(sql`
            select i.environment_key as key, i.predicted_success as predicted,
                   coalesce(sum(a.n), 0)::int as n, coalesce(sum(a.successes), 0)::int as s
            from ${proposalItems} i
            join ${environments} e on e.project_id = ${projectId} and e.key = i.environment_key
            left join ${rolloutAggregates} a on a.environment_id = e.id
            where i.proposal_id in (${sql.join(
              ids.map((id) => sql`${id}::uuid`),
              sql`, `,
            )})
              and i.decision = 'approved' and i.op in ('mutate', 'add') and i.predicted_success is not null
            group by i.environment_key, i.predicted_success
            order by i.environment_key
            limit 30`)
        ).rows.map((r) => ({ key: r.key, predicted: r.predicted, n: r.n, measured: r.n > 0 ? r.s / r.n : null }));
  return { proposals: rows, predictions };
}

/** Append to the list under `key`, in place (a copy per append is quadratic in the list's length). */
function appendTo<K, V>(lists: Map<K, V[]>, key: K, value: V): void {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
}

/** Cut the summary's lists until its JSON fits the budget; say what was cut. */
export function fitToBudget(summary: StructuredSummary, budget: number): StructuredSummary {
  const s: StructuredSummary = structuredClone(summary);
  const measure = () => {
    s.tokenEstimate = 0;
    s.tokenEstimate = estimateTokens(JSON.stringify(s));
    return s.tokenEstimate;
  };
  const cuts: [string, () => boolean][] = [
    ["history.predictions", () => s.history.predictions.length > 5 && !!(s.history.predictions = s.history.predictions.slice(0, 5))],
    [
      "environment key lists",
      () => {
        const lists = [
          s.environments.solved,
          s.environments.frontier,
          s.environments.hopeless,
          s.environments.unvalidated,
          s.environments.unsolvable,
        ];
        const longest = lists.reduce((a, b) => (b.length > a.length ? b : a));
        if (longest.length <= 5) return false;
        longest.splice(Math.max(5, Math.floor(longest.length / 2)));
        return true;
      },
    ],
    [
      "cluster environment keys",
      () => {
        const c = s.failures.clusters.find((x) => x.environmentKeys.length > 3);
        if (!c) return false;
        for (const x of s.failures.clusters) x.environmentKeys = x.environmentKeys.slice(0, 3);
        return true;
      },
    ],
    ["clusters", () => s.failures.clusters.length > 4 && !!s.failures.clusters.pop()],
    ["fields", () => s.environments.fields.length > 2 && !!s.environments.fields.pop()],
  ];
  for (const [what, cut] of cuts) {
    while (measure() > budget) {
      if (!cut()) break;
      if (!s.truncated.includes(what)) s.truncated.push(what);
    }
  }
  measure();
  return s;
}

/** Everything an engineer is given about (generation, policy): summary, population, known hashes. */
export async function buildEngineerContext(
  db: Db,
  project: ProjectRow,
  family: FamilyDefinition,
  g: GenerationRow,
  policyName?: string,
  budget = SUMMARY_TOKEN_BUDGET,
) {
  const policy = policyName ? await resolvePolicy(db, project.id, policyName) : undefined;
  const policyFilter = policy ? sql`and a.policy_id = ${policy.id}` : sql``;
  const [members, aggs, categories, clusters, dist, history, hashes, memberships, earlier, envClusters] = await Promise.all([
    generationMembers(db, g.id),
    environmentPolicyAggregates(db, g.id, policy?.id),
    categoryCounts(db, g.id, policy?.id),
    generationClusters(db, g.id, policy?.id),
    distribution(db, g.id, policy?.id),
    proposalHistory(db, project.id, g.index + 1),
    db.select({ hash: environments.configHash }).from(environments).where(eq(environments.projectId, project.id)),
    db
      .select({ environmentId: generationEnvironments.environmentId, n: sql<number>`count(*)::int` })
      .from(generationEnvironments)
      .innerJoin(generations, eq(generations.id, generationEnvironments.generationId))
      .where(and(eq(generations.projectId, project.id), sql`${generations.index} <= ${g.index}`))
      .groupBy(generationEnvironments.environmentId),
    db.execute<{ environment_id: string; idx: number; n: number; s: number }>(sql`
      select a.environment_id, gg.index as idx, sum(a.n)::int as n, sum(a.successes)::int as s
      from ${rolloutAggregates} a join ${generations} gg on gg.id = a.generation_id
      where gg.project_id = ${project.id} and gg.index < ${g.index} ${policyFilter}
      group by a.environment_id, gg.index order by a.environment_id, gg.index`),
    db.execute<{ environment_id: string; category: string; signature: string; n: number }>(sql`
      select a.environment_id, a.category, a.signature, sum(a.n)::int as n
      from ${failureAggregates} a where a.generation_id = ${g.id} ${policyFilter}
      group by 1, 2, 3 order by 1, 4 desc, 2, 3`),
  ]);

  const byEnv = combineByEnvironment(aggs, new Map(members.map((m) => [m.id, m.pMax])));
  const ages = new Map(memberships.map((m) => [m.environmentId, m.n]));
  const pastRates = new Map<number, number[]>();
  // bigint ids arrive from node-postgres as strings
  for (const r of earlier.rows) appendTo(pastRates, Number(r.environment_id), r.n > 0 ? r.s / r.n : 0);
  const clustersOfEnv = new Map<number, string[]>();
  for (const r of envClusters.rows)
    appendTo(clustersOfEnv, Number(r.environment_id), clusterId(r.category as FailureCategory, r.signature));

  const population: PopulationMember[] = members.map((m) => {
    const a = byEnv.get(m.id);
    return {
      key: m.key,
      config: m.config as Record<string, unknown>,
      configHash: m.configHash,
      parentKey: m.parentKey,
      op: m.op,
      direction: m.direction,
      validation: { state: m.validationState, pMax: m.pMax },
      n: a?.n ?? 0,
      s: a?.s ?? 0,
      age: ages.get(m.id) ?? 1,
      history: pastRates.get(m.id) ?? [],
      clusterIds: clustersOfEnv.get(m.id) ?? [],
    };
  });

  // key lists (classifyPopulation), each in key order (deterministic)
  const topClusters = clusters.slice(0, MAX_CLUSTERS);
  const clusterEnvKeys = new Map<string, string[]>();
  const keyOfId = new Map(members.map((m) => [m.id, m.key]));
  for (const r of envClusters.rows) {
    const id = clusterId(r.category as FailureCategory, r.signature);
    const key = keyOfId.get(Number(r.environment_id));
    if (!key) continue;
    // appended in place: copying the list per row was quadratic in a cluster's environments (10,000 in one cluster)
    appendTo(clusterEnvKeys, id, key);
  }
  const ex = await excerpts(db, topClusters.map((c) => c.exemplarRolloutIds[0]).filter(Boolean));
  const summaryClusters: SummaryCluster[] = topClusters.map((c) => ({
    id: c.id,
    category: c.category,
    signature: c.signature.length > 200 ? `${c.signature.slice(0, 200)}…` : c.signature,
    count: c.count,
    environments: c.environments,
    environmentKeys: (clusterEnvKeys.get(c.id) ?? []).slice(0, 10),
    exemplarRolloutIds: c.exemplarRolloutIds,
    excerpt: ex.get(c.exemplarRolloutIds[0]) ?? "",
    infra: c.infra,
  }));
  const metrics = populationMetrics(byEnv.values());
  const summary: StructuredSummary = {
    project: project.slug,
    family: family.id,
    generation: g.index,
    policy: policy?.name ?? null,
    successThreshold: project.successThreshold,
    behaviour: {
      rollouts: metrics.rollouts,
      environments: metrics.environments,
      successRate: metrics.successRate,
      meanReward: metrics.meanReward,
      passAtK: metrics.passAtK,
      turns: dist.turns,
      outputTokens: dist.outputTokens,
      infraErrorRate: metrics.infraErrorRate,
      zeroSignalFraction: metrics.zeroSignalFraction,
      learnability: metrics.learnability,
      tiers: tierHistogram([...byEnv.values()].map((a) => (a.n > 0 ? difficultyTier(a.s / a.n) : null))),
    },
    failures: { categories, clusters: summaryClusters },
    environments: {
      fields: familyFieldBreakdowns(family, members, byEnv).map((f) => ({
        path: f.path,
        kind: f.kind,
        direction: f.direction,
        difficulty: f.difficulty,
        buckets: f.buckets.map((b) => ({ label: b.label, environments: b.environments, rollouts: b.rollouts, successRate: b.successRate })),
      })),
      ...classifyPopulation(population, MAX_KEYS),
    },
    history,
    tokenEstimate: 0,
    truncated: [],
  };
  return {
    summary: fitToBudget(summary, budget),
    population,
    knownHashes: new Set(hashes.map((h) => h.hash)),
  };
}

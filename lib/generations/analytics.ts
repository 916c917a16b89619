/**
 * Generation analytics read models: the dashboard (distribution, tiers, fields, per policy),
 * failures (categories, clusters, exceptions), one cluster's rollouts, and a two-policy comparison.
 * Aggregation happens in SQL; the formulas are the pure ones in lib/analytics.
 */
import type { Db } from "@/lib/db/client";
import { BadRequest, NotFound } from "@/lib/errors";
import {
  difficultyTier,
  environmentTier,
  fieldBreakdown,
  populationMetrics,
  tierHistogram,
  type DifficultyTier,
  type EnvironmentAggregate,
} from "@/lib/analytics/metrics";
import { generationMemberConfigs, policyNamesOfGeneration } from "./repository";
import {
  aggregatesPerEnvironmentAndPolicy,
  behaviourCounts,
  categoryCountRows,
  clusterEnvironmentCounts,
  dashboardAggregateRows,
  clusterRollouts,
  exceptionCounts,
  rolloutCount,
  storedClusters,
  CLUSTER_EXEMPLARS,
  type StoredCluster,
} from "./analytics-repository";
import { generationCost } from "./cost";
import { FAILURE_CATEGORIES, clusterId, type FailureCategory } from "@/lib/analytics/failures";
import { BEHAVIOURS, behaviourLabel } from "@/lib/analytics/behaviours";
import { changeOf, type Change } from "@/lib/analytics/comparison-chart";
import type {
  BehaviourView,
  ComparisonPoint,
  FailureClusterView,
  FailuresView,
  FieldBreakdownView,
  GenerationAnalytics,
  PolicyComparison,
  SuccessBin,
} from "@/lib/analytics/views";
import type { FamilyDefinition } from "@/lib/families/types";
import type { ProjectRow } from "@/lib/projects/service";
import type { GenerationRow } from "./service";
import { resolvePolicy } from "./overview";

/** Categories outside the policy's control, shown apart and left out of its failure figures. */
export const INFRA_CATEGORIES: ReadonlySet<FailureCategory> = new Set(["infra_error"]);

/** Per-(environment, policy) aggregates of one generation. */
export interface EnvironmentPolicyAggregate extends EnvironmentAggregate {
  environmentId: number;
  policy: string;
}

/** Aggregates per environment and policy (optionally one policy), read from rollout_aggregates. */
export async function environmentPolicyAggregates(db: Db, generationId: number, policyId?: number): Promise<EnvironmentPolicyAggregate[]> {
  return aggregatesPerEnvironmentAndPolicy(db, generationId, policyId);
}

/** Sum per-policy aggregates into one aggregate per environment. */
export function combineByEnvironment(rows: readonly EnvironmentPolicyAggregate[], pMax: ReadonlyMap<number, number | null>) {
  const out = new Map<number, EnvironmentAggregate>();
  for (const r of rows) {
    let a = out.get(r.environmentId);
    if (!a) {
      a = { n: 0, s: 0, rewardSum: 0, infraErrors: 0, errored: 0, unrewarded: 0, pMax: pMax.get(r.environmentId) ?? null };
      out.set(r.environmentId, a);
    }
    a.n += r.n;
    a.s += r.s;
    a.rewardSum += r.rewardSum;
    a.infraErrors += r.infraErrors;
    a.errored += r.errored;
    a.unrewarded += r.unrewarded;
  }
  return out;
}

/** Tier of each environment: the best policy's success rate decides (Tmax). */
export function tiersByEnvironment(rows: readonly EnvironmentPolicyAggregate[]): Map<number, DifficultyTier | null> {
  const perEnv = new Map<number, EnvironmentPolicyAggregate[]>();
  for (const r of rows) {
    const list = perEnv.get(r.environmentId);
    if (list) list.push(r);
    else perEnv.set(r.environmentId, [r]);
  }
  return new Map([...perEnv].map(([id, list]) => [id, environmentTier(list)]));
}

/** Ten equal bins of per-environment success rate over [0, 1]. */
export function successDistribution(aggs: Iterable<Pick<EnvironmentAggregate, "n" | "s">>, bins = 10): SuccessBin[] {
  const out: SuccessBin[] = Array.from({ length: bins }, (_, i) => ({ lo: i / bins, hi: (i + 1) / bins, environments: 0 }));
  for (const a of aggs) {
    if (a.n < 1) continue;
    out[Math.min(bins - 1, Math.floor((a.s / a.n) * bins))].environments += 1;
  }
  return out;
}

/** Value at a dotted path of a config. */
export function configValue(config: unknown, path: string): unknown {
  let cur: unknown = config;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Success by value of every field of the family, over the environments that have rollouts. */
export function familyFieldBreakdowns(
  family: FamilyDefinition,
  members: readonly { id: number; config: unknown }[],
  byEnv: ReadonlyMap<number, EnvironmentAggregate>,
): FieldBreakdownView[] {
  const withRollouts = members.filter((m) => (byEnv.get(m.id)?.n ?? 0) > 0);
  return family.fields
    .filter((f) => !(f.kind === "nominal" && !f.levels)) // open identity strings (task names): one bucket per environment says nothing
    .map((f) => ({
      path: f.path,
      direction: f.direction ?? null,
      difficulty: f.difficulty ?? null,
      ...fieldBreakdown(
        withRollouts.map((m) => ({ value: configValue(m.config, f.path), env: byEnv.get(m.id)! })),
        { kind: f.kind, levels: f.levels },
      ),
    }));
}

/** Failed rollouts per failure category of a generation (optionally one policy), from category_aggregates (a few rows a policy). */
export async function categoryCounts(db: Db, generationId: number, policyId?: number) {
  const rows = await categoryCountRows(db, generationId, policyId);
  const order = (c: string) => FAILURE_CATEGORIES.indexOf(c as FailureCategory);
  return rows
    .map((r) => ({ category: r.category as FailureCategory, count: r.count, infra: INFRA_CATEGORIES.has(r.category as FailureCategory) }))
    .sort((a, b) => b.count - a.count || order(a.category) - order(b.category));
}

/** Names of the policies with rollouts in a generation, sorted. */
export async function generationPolicies(db: Db, generationId: number) {
  return policyNamesOfGeneration(db, generationId);
}

/** Rows grouped by policy name, each group in the rows' order. */
function rowsByPolicy(rows: readonly EnvironmentPolicyAggregate[]): Map<string, EnvironmentPolicyAggregate[]> {
  const out = new Map<string, EnvironmentPolicyAggregate[]>();
  for (const r of rows) {
    const list = out.get(r.policy);
    if (list) list.push(r);
    else out.set(r.policy, [r]);
  }
  return out;
}

/** GET .../generations/{index}/analytics: what the generation dashboard draws. */
export async function generationAnalytics(
  db: Db,
  project: ProjectRow,
  family: FamilyDefinition,
  g: GenerationRow,
  policyName?: string,
): Promise<GenerationAnalytics> {
  const policy = policyName ? await resolvePolicy(db, project.id, policyName) : undefined;
  const [rows, members, categories, policyNames, cost] = await Promise.all([
    dashboardAggregateRows(db, g.id, policy?.id),
    generationMemberConfigs(db, g.id),
    categoryCounts(db, g.id, policy?.id),
    generationPolicies(db, g.id),
    generationCost(db, g.id, policy?.id),
  ]);
  const pMax = new Map(members.map((m) => [m.id, m.pMax]));
  const byEnv = combineByEnvironment(rows, pMax);
  // each (environment, policy) row gets its environment's pMax in place (the per-policy metrics use it), no copies
  for (const r of rows) r.pMax = pMax.get(r.environmentId) ?? null;
  const byPolicy = rowsByPolicy(rows);
  const perPolicyNames = [...byPolicy.keys()].sort();
  return {
    index: g.index,
    policy: policy?.name ?? null,
    policies: policyNames,
    // the charts draw a few hundred points of each pass@k curve (passAtKChartPoints), not every k
    metrics: populationMetrics(byEnv.values(), { passAtK: "chart" }),
    tiers: tierHistogram(tiersByEnvironment(rows).values()),
    distribution: successDistribution(byEnv.values()),
    perPolicy: perPolicyNames.map((name) => {
      const own = byPolicy.get(name)!;
      return {
        policy: name,
        metrics: populationMetrics(own, { passAtK: "chart" }),
        tiers: tierHistogram(own.map((a) => (a.n > 0 ? difficultyTier(a.s / a.n) : null))),
      };
    }),
    categories,
    fields: familyFieldBreakdowns(family, members, byEnv),
    comparison: !policy && perPolicyNames.length >= 2 ? policyComparison(g.index, rows, members) : null,
    cost,
  };
}

// --- failures ----------------------------------------------------------------------------

const EXEMPLARS = CLUSTER_EXEMPLARS;

/** A stored cluster with its category typed. */
type ClusterRow = Omit<StoredCluster, "category"> & { category: FailureCategory };

async function clusterRows(db: Db, generationId: number, policyId?: number): Promise<ClusterRow[]> {
  return (await storedClusters(db, generationId, policyId)).map((r) => ({ ...r, category: r.category as FailureCategory }));
}

/** Exemplars: the first rollout of each environment (spread across environments), padded with others. */
function exemplarsOf(r: ClusterRow): string[] {
  const out = r.firstIds.slice(0, EXEMPLARS);
  const rest = r.someIds.filter((id) => !out.includes(id)).sort((a, b) => Number(a) - Number(b));
  for (const id of rest) {
    if (out.length >= EXEMPLARS) break;
    out.push(id);
  }
  return out;
}

/** All clusters of a generation, largest first. */
export async function generationClusters(db: Db, generationId: number, policyId?: number): Promise<FailureClusterView[]> {
  const order = (c: FailureCategory) => FAILURE_CATEGORIES.indexOf(c);
  return (await clusterRows(db, generationId, policyId))
    .map((r) => ({
      id: clusterId(r.category, r.signature),
      category: r.category,
      signature: r.signature,
      count: r.count,
      environments: r.environments,
      exemplarRolloutIds: exemplarsOf(r),
      infra: INFRA_CATEGORIES.has(r.category),
    }))
    .sort(
      (x, y) =>
        y.count - x.count || order(x.category) - order(y.category) || (x.signature < y.signature ? -1 : x.signature > y.signature ? 1 : 0),
    );
}

/** GET .../generations/{index}/failures: categories, clusters and exception types. */
export async function generationFailures(db: Db, project: ProjectRow, g: GenerationRow, policyName?: string): Promise<FailuresView> {
  const policy = policyName ? await resolvePolicy(db, project.id, policyName) : undefined;
  const [categories, clusters, rollouts, exceptions, behaviours] = await Promise.all([
    categoryCounts(db, g.id, policy?.id),
    generationClusters(db, g.id, policy?.id),
    rolloutCount(db, g.id, policy?.id),
    generationExceptions(db, g.id, policy?.id),
    generationBehaviours(db, g.id, policy?.id),
  ]);
  const failures = categories.reduce((acc, c) => acc + c.count, 0);
  const infraFailures = categories.filter((c) => c.infra).reduce((acc, c) => acc + c.count, 0);
  return {
    policy: policy?.name ?? null,
    rollouts,
    failures,
    policyFailures: failures - infraFailures,
    infraFailures,
    categories,
    clusters,
    behaviours,
    exceptions,
  };
}

/** Error types over a generation's rollouts as the source reported them (Harbor's exception counts), passing ones included. */
export async function generationExceptions(
  db: Db,
  generationId: number,
  policyId?: number,
): Promise<{ type: string; count: number; rewarded: number }[]> {
  const rows = await exceptionCounts(db, generationId, policyId);
  return rows.map((e) => ({ type: e.type as string, count: e.count, rewarded: e.rewarded }));
}

/**
 * Behaviours of the agents across a generation's failed rollouts (lib/analytics/behaviours.ts):
 * count, per policy, the environments involved and exemplars spread across them.
 */
export async function generationBehaviours(db: Db, generationId: number, policyId?: number): Promise<BehaviourView[]> {
  const { perPolicy, perBehaviour } = await behaviourCounts(db, generationId, policyId);
  const views = new Map<string, BehaviourView>();
  const viewOf = (b: string) => {
    let v = views.get(b);
    if (!v)
      views.set(
        b,
        (v = { id: b, label: behaviourLabel(b), count: 0, environments: 0, environmentKeys: [], exemplarRolloutIds: [], perPolicy: {} }),
      );
    return v;
  };
  for (const r of perPolicy) {
    const v = viewOf(r.b);
    v.count += r.n;
    v.perPolicy[r.policy] = r.n;
  }
  for (const r of perBehaviour) {
    const v = viewOf(r.b);
    v.environments = r.environments;
    v.environmentKeys = r.keys;
    v.exemplarRolloutIds = r.first_ids;
  }
  const order = (id: string) => BEHAVIOURS.findIndex((b) => b.id === id);
  return [...views.values()].sort((x, y) => y.count - x.count || order(x.id) - order(y.id));
}

/** GET .../generations/{index}/failures/{clusterId}: the cluster, its environments and its rollouts. */
export async function failureClusterDetail(db: Db, project: ProjectRow, g: GenerationRow, id: string, policyName?: string, limit = 200) {
  const policy = policyName ? await resolvePolicy(db, project.id, policyName) : undefined;
  const cluster = (await generationClusters(db, g.id, policy?.id)).find((c) => c.id === id);
  if (!cluster) throw new NotFound(`Generation ${g.index} has no failure cluster '${id}'${policy ? ` for ${policy.name}` : ""}.`);
  const filter = { generationId: g.id, category: cluster.category, signature: cluster.signature, policyId: policy?.id };
  const [items, envs] = await Promise.all([clusterRollouts(db, filter, limit), clusterEnvironmentCounts(db, filter)]);
  return { cluster, environments: envs, rollouts: items, truncated: cluster.count > items.length };
}

// --- policy comparison -------------------------------------------------------------------

/** GET .../generations/{index}/compare?a=&b=: per-environment success of two policies on the same environments. */
export async function comparePolicies(
  db: Db,
  project: ProjectRow,
  g: GenerationRow,
  a?: string,
  b?: string,
  margin = 0.2,
): Promise<PolicyComparison> {
  const [rows, members] = await Promise.all([environmentPolicyAggregates(db, g.id), generationMemberConfigs(db, g.id)]);
  return policyComparison(g.index, rows, members, a, b, margin);
}

/** The comparison from aggregates already read (the dashboard reads them once for everything). */
export function policyComparison(
  generationIndex: number,
  rows: readonly EnvironmentPolicyAggregate[],
  members: readonly { id: number; key: string }[],
  a?: string,
  b?: string,
  margin = 0.2,
): PolicyComparison {
  const byPolicy = rowsByPolicy(rows);
  const names = [...byPolicy.keys()];
  if (names.length < 2 && !(a && b)) {
    throw new BadRequest(
      `Generation ${generationIndex} has rollouts of ${names.length} polic${names.length === 1 ? "y" : "ies"}; a comparison needs two.`,
      [{ path: "a", message: "needs a second policy" }],
    );
  }
  // default: the two policies with the most rollouts, the first in name order as a
  const byVolume = names
    .map((name) => ({ name, n: byPolicy.get(name)!.reduce((acc, r) => acc + r.n, 0) }))
    .sort((x, y) => y.n - x.n || x.name.localeCompare(y.name));
  const pa = a ?? [byVolume[0].name, byVolume[1].name].sort()[0];
  const pb = b ?? [byVolume[0].name, byVolume[1].name].find((n) => n !== pa)!;
  for (const [param, name] of [
    ["a", pa],
    ["b", pb],
  ] as const) {
    if (!names.includes(name)) throw new NotFound(`Policy '${name}' (${param}) has no rollouts in generation ${generationIndex}.`);
  }
  const ofA = new Map((byPolicy.get(pa) ?? []).map((r) => [r.environmentId, r]));
  const ofB = new Map((byPolicy.get(pb) ?? []).map((r) => [r.environmentId, r]));
  const side = (r?: EnvironmentPolicyAggregate) => ({ n: r?.n ?? 0, s: r?.s ?? 0, rate: r && r.n > 0 ? r.s / r.n : null });
  const points: ComparisonPoint[] = [];
  for (const { id, key } of members) {
    const ra = ofA.get(id);
    const rb = ofB.get(id);
    if (!ra && !rb) continue;
    const A = side(ra);
    const B = side(rb);
    points.push({ key, a: A, b: B, delta: A.rate !== null && B.rate !== null ? B.rate - A.rate : null });
  }
  // the chart's rule (changeOf): a tie is unchanged even at margin 0, where ">= margin" and "<= -margin" both took it
  const changes = points.flatMap((p) => (p.delta === null ? [] : [changeOf(p.delta, margin)]));
  const count = (c: Change) => changes.filter((x) => x === c).length;
  return { a: pa, b: pb, points, improved: count("improved"), regressed: count("regressed"), unchanged: count("unchanged"), margin };
}

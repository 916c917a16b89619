/** Read models of generations: headline metrics per generation, per policy, and environment pages. */
import type { Db } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";
import { environmentLearnability, populationMetrics, type EnvironmentAggregate } from "@/lib/analytics/metrics";
import { projectView, type ProjectRow } from "@/lib/projects/service";
import { generationCost } from "./cost";
import { listGenerationEnvironments, listGenerationRows, type GenerationRow } from "./service";
import { aggregatesPerEnvironment, memberCounts, policyByName, policyNamesOfGeneration, policyNamesOfProject } from "./repository";

export interface EnvironmentAggregateRow extends EnvironmentAggregate {
  environmentId: number;
}

/** Per-environment rollout aggregates of generations (optionally one policy, or some environments), from rollout_aggregates. */
export async function environmentAggregates(
  db: Db,
  generationIds: number[],
  filter: { policyId?: number; environmentIds?: number[] } = {},
) {
  if (generationIds.length === 0) return new Map<number, EnvironmentAggregateRow[]>();
  const rows = await aggregatesPerEnvironment(db, generationIds, filter);
  const byGeneration = new Map<number, EnvironmentAggregateRow[]>();
  for (const r of rows) {
    const list = byGeneration.get(r.generationId) ?? [];
    list.push({ ...r, pMax: r.pMax ?? undefined });
    byGeneration.set(r.generationId, list);
  }
  return byGeneration;
}

/** The fields every view of a generation starts with. */
function generationHeadline(g: GenerationRow) {
  return { index: g.index, status: g.status, source: g.source, parentIndex: g.parentIndex, createdAt: g.createdAt.toISOString() };
}

/** Resolve a policy name of the project to its id, or 404. */
export async function resolvePolicy(db: Db, projectId: number, name: string) {
  const p = await policyByName(db, projectId, name);
  if (!p) throw new NotFound(`Policy '${name}' has no rollouts in this project.`);
  return p;
}

/** Names of the policies with rollouts in a project, sorted. */
export async function listPolicyNames(db: Db, projectId: number): Promise<string[]> {
  return policyNamesOfProject(db, projectId);
}

/** Every generation with counts and metrics (the project overview and GET .../generations). */
export async function listGenerationsWithMetrics(db: Db, project: ProjectRow) {
  const gens = await listGenerationRows(db, project.id);
  const ids = gens.map((g) => g.id);
  const [aggs, members] = await Promise.all([environmentAggregates(db, ids), memberCounts(db, ids)]);
  return gens.map((g) => {
    const metrics = populationMetrics(aggs.get(g.id) ?? []);
    return {
      ...generationHeadline(g),
      environments: members.get(g.id) ?? 0,
      rollouts: metrics.rollouts,
      metrics,
    };
  });
}

/** GET .../generations/{index}: status and metrics, optionally for one policy. */
export async function generationDetail(db: Db, project: ProjectRow, g: GenerationRow, policyName?: string) {
  const policy = policyName ? await resolvePolicy(db, project.id, policyName) : undefined;
  const [aggs, members, policyNames, cost] = await Promise.all([
    environmentAggregates(db, [g.id], { policyId: policy?.id }),
    memberCounts(db, [g.id]),
    policyNamesOfGeneration(db, g.id),
    generationCost(db, g.id, policy?.id),
  ]);
  return {
    ...generationHeadline(g),
    trainingSteps: g.trainingSteps,
    mixWeight: g.mixWeight,
    policy: policy?.name ?? null,
    policies: policyNames,
    environments: members.get(g.id) ?? 0,
    metrics: populationMetrics(aggs.get(g.id) ?? []),
    cost,
  };
}

/** GET .../generations/{index}/environments: a cursor page with per-environment stats. */
export async function generationEnvironmentsPage(db: Db, project: ProjectRow, g: GenerationRow, cursor: string | undefined, limit: number) {
  const page = await listGenerationEnvironments(db, g.id, cursor, limit);
  // only this page's environments: a page stays cheap however large the generation
  const aggs = (await environmentAggregates(db, [g.id], { environmentIds: page.rows.map((r) => r.id) })).get(g.id) ?? [];
  const byEnv = new Map(aggs.map((a) => [a.environmentId, a]));
  return {
    items: page.rows.map((r) => {
      const a = byEnv.get(r.id);
      return {
        key: r.key,
        config: r.config,
        parentKey: r.parentKey,
        op: r.op,
        direction: r.direction,
        weight: r.weight,
        rationale: r.rationale,
        validation: { state: r.validationState, pMax: r.pMax },
        stats: {
          rollouts: a?.n ?? 0,
          successRate: a && a.n > 0 ? a.s / a.n : null,
          learnability: a ? environmentLearnability(a) : null,
        },
      };
    }),
    nextCursor: page.nextCursor,
  };
}

/** GET /projects/{slug}: the project with its family and generation headlines. */
export async function projectOverview(db: Db, project: ProjectRow) {
  const gens = await listGenerationsWithMetrics(db, project);
  return { ...projectView(project), generations: gens };
}

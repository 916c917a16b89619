/**
 * The environment table of a generation: filters (field values, tier, success range, failure
 * category, key text), sorting by any stat, keyset cursor over (sort value, key).
 */
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { categoriesOfEnvironments, environmentIdsWithCategory, testCountsOfEnvironments } from "./analytics-repository";
import { BadRequest, parseOrThrow } from "@/lib/errors";
import { DIFFICULTY_TIERS, difficultyTier, learnability, type DifficultyTier } from "@/lib/analytics/metrics";
import type { FamilyDefinition } from "@/lib/families/types";
import type { ProjectRow } from "@/lib/projects/service";
import type { GenerationRow } from "./service";
import { configValue } from "./analytics";
import { environmentConfigs, environmentTableStats, memberConfigs } from "./repository";
import { resolvePolicy } from "./overview";

export const ENVIRONMENT_SORTS = ["key", "success", "learnability", "rollouts", "pmax", "tier"] as const;
export type EnvironmentSort = (typeof ENVIRONMENT_SORTS)[number];

const rate = z.coerce.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1");

export const environmentTableQuery = z.object({
  policy: z.string().min(1).optional(),
  tier: z.enum(DIFFICULTY_TIERS).optional(),
  minSuccess: rate.optional(),
  maxSuccess: rate.optional(),
  category: z.string().min(1).optional(),
  q: z.string().max(200).optional(),
  sort: z.enum(ENVIRONMENT_SORTS).default("key"),
  order: z.enum(["asc", "desc"]).default("asc"),
  cursor: z.string().max(1000).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** Query keys that make GET .../environments use the table (the plain listing is a key-ordered page). */
export function wantsEnvironmentTable(params: URLSearchParams): boolean {
  for (const k of params.keys()) if (k !== "cursor" && k !== "limit") return true;
  return false;
}

/** One row of the table. */
export interface EnvironmentTableRow {
  key: string;
  config: unknown;
  parentKey: string | null;
  op: string;
  direction: string | null;
  weight: number;
  validation: { state: string; pMax: number | null };
  tier: DifficultyTier | null;
  categories: string[];
  stats: {
    rollouts: number;
    successes: number;
    successRate: number | null;
    learnability: number | null;
    /** partial credit: tests passed over tests run, summed over the rollouts that report tests (null when none do) */
    testsPassed: number | null;
    testsRun: number | null;
  };
}

/** A field filter `field.<path>=<value>`: equality, or `lo..hi` (inclusive) for numbers. */
interface FieldFilter {
  path: string;
  test: (v: unknown) => boolean;
}

function fieldFilters(family: FamilyDefinition, params: URLSearchParams): FieldFilter[] {
  const out: FieldFilter[] = [];
  for (const [k, raw] of params) {
    if (!k.startsWith("field.")) continue;
    const path = k.slice("field.".length);
    const spec = family.fields.find((f) => f.path === path);
    if (!spec) throw new BadRequest(`The ${family.id} family has no field '${path}'.`, [{ path: k, message: "unknown field" }]);
    const range = /^(-?[\d.]+)?\.\.(-?[\d.]+)?$/.exec(raw);
    if ((spec.kind === "integer" || spec.kind === "number") && range) {
      const lo = range[1] !== undefined ? Number(range[1]) : -Infinity;
      const hi = range[2] !== undefined ? Number(range[2]) : Infinity;
      if (Number.isNaN(lo) || Number.isNaN(hi))
        throw new BadRequest(`${k} must be a number or a range lo..hi.`, [{ path: k, message: "not a range" }]);
      out.push({ path, test: (v) => typeof v === "number" && v >= lo && v <= hi });
    } else {
      out.push({ path, test: (v) => v !== undefined && v !== null && String(v) === raw });
    }
  }
  return out;
}

function sortValue(row: EnvironmentTableRow, sort: EnvironmentSort): number | string | null {
  switch (sort) {
    case "key":
      return row.key;
    case "success":
      return row.stats.successRate;
    case "learnability":
      return row.stats.learnability;
    case "rollouts":
      return row.stats.rollouts;
    case "pmax":
      return row.validation.pMax;
    case "tier":
      return row.tier === null ? null : DIFFICULTY_TIERS.indexOf(row.tier);
  }
}

type Position = { v: number | string | null; k: string };

/** Order by value (nulls last in both directions), then key; `desc` flips the value only. */
function compare(x: Position, y: Position, desc: boolean): number {
  if (x.v !== y.v) {
    if (x.v === null) return 1;
    if (y.v === null) return -1;
    const c = x.v < y.v ? -1 : 1;
    return desc ? -c : c;
  }
  return x.k < y.k ? -1 : x.k > y.k ? 1 : 0;
}

function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify(p)).toString("base64url");
}

function decodeCursor(cursor: string): Position {
  try {
    const p = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (typeof p?.k === "string" && (p.v === null || typeof p.v === "number" || typeof p.v === "string")) return p;
  } catch {
    // fall through to the error
  }
  throw new BadRequest("The cursor is not one this endpoint gave out; start again without it.", [
    { path: "cursor", message: "is not valid" },
  ]);
}

/** GET .../environments with filters or a sort: the matching rows, one page, the total. */
export async function environmentTable(db: Db, project: ProjectRow, family: FamilyDefinition, g: GenerationRow, params: URLSearchParams) {
  const q = parseOrThrow(environmentTableQuery, Object.fromEntries([...params].filter(([k]) => !k.startsWith("field."))), "query", 400);
  const fields = fieldFilters(family, params);
  const policy = q.policy ? await resolvePolicy(db, project.id, q.policy) : undefined;
  // one row an environment, summed in SQL; categories, tests and configs are read for the page's environments only
  // (configs of all of them only to filter by a field, and the ids with a category to filter by one)
  const [members, withCategory, configs] = await Promise.all([
    environmentTableStats(db, g.id, policy?.id),
    q.category ? environmentsWithCategory(db, g.id, q.category, policy?.id) : undefined,
    fields.length ? memberConfigs(db, g.id).then((rows) => new Map(rows.map((r) => [r.id, r.config]))) : undefined,
  ]);
  const needle = q.q?.trim().toLowerCase();

  const rows: (EnvironmentTableRow & { id: number })[] = [];
  for (const m of members) {
    // an environment with an aggregate row (even one at n = 0) has stats; one without has none
    const a = m.aggregated ? { n: m.n ?? 0, s: m.s ?? 0, pMax: m.pMax } : undefined;
    const successRate = a && a.n > 0 ? a.s / a.n : null;
    const tier = policy ? (successRate === null ? null : difficultyTier(successRate)) : m.best === null ? null : difficultyTier(m.best);
    if (q.tier && tier !== q.tier) continue;
    if (q.minSuccess !== undefined && (successRate === null || successRate < q.minSuccess)) continue;
    if (q.maxSuccess !== undefined && (successRate === null || successRate > q.maxSuccess)) continue;
    if (withCategory && !withCategory.has(m.id)) continue;
    if (needle && !m.key.toLowerCase().includes(needle)) continue;
    if (configs && fields.some((f) => !f.test(configValue(configs.get(m.id), f.path)))) continue;
    rows.push({
      id: m.id,
      key: m.key,
      config: null,
      parentKey: null,
      op: m.op,
      direction: m.direction,
      weight: m.weight,
      validation: { state: m.validationState, pMax: m.pMax },
      tier,
      categories: [],
      stats: {
        rollouts: a?.n ?? 0,
        successes: a?.s ?? 0,
        successRate,
        learnability: a ? learnability(a.n, a.s, a.pMax) : null,
        testsPassed: null,
        testsRun: null,
      },
    });
  }

  const desc = q.order === "desc";
  const pos = (r: EnvironmentTableRow): Position => ({ v: sortValue(r, q.sort), k: r.key });
  rows.sort((x, y) => compare(pos(x), pos(y), desc));
  const after = q.cursor ? decodeCursor(q.cursor) : null;
  const start = after ? rows.findIndex((r) => compare(pos(r), after, desc) > 0) : 0;
  const page = start < 0 ? [] : rows.slice(start, start + q.limit);
  const more = start >= 0 && start + q.limit < rows.length;
  const ids = page.map((r) => r.id);
  const [{ categories, tests }, pageConfigs] = await Promise.all([
    pageDetails(db, g.id, ids, policy?.id),
    environmentConfigs(db, ids).then((list) => new Map(list.map((r) => [r.id, r]))),
  ]);
  const items: EnvironmentTableRow[] = page.map(({ id, ...row }) => ({
    ...row,
    config: pageConfigs.get(id)?.config ?? null,
    parentKey: pageConfigs.get(id)?.parentKey ?? null,
    categories: categories.get(id) ?? [],
    stats: { ...row.stats, testsPassed: tests.get(id)?.passed ?? null, testsRun: tests.get(id)?.run ?? null },
  }));
  return { items, total: rows.length, nextCursor: more ? encodeCursor(pos(page[page.length - 1])) : null };
}

/** Ids of a generation's environments with failures of a category (optionally one policy's). */
async function environmentsWithCategory(db: Db, generationId: number, category: string, policyId?: number): Promise<Set<number>> {
  return new Set(await environmentIdsWithCategory(db, generationId, category, policyId));
}

/** Failure categories (sorted) and tests passed/run of some environments of a generation, from the aggregates. */
async function pageDetails(db: Db, generationId: number, environmentIds: number[], policyId?: number) {
  if (environmentIds.length === 0)
    return { categories: new Map<number, string[]>(), tests: new Map<number, { passed: number | null; run: number | null }>() };
  const [categoryRows, testRows] = await Promise.all([
    categoriesOfEnvironments(db, generationId, environmentIds, policyId),
    testCountsOfEnvironments(db, generationId, environmentIds, policyId),
  ]);
  return {
    categories: new Map(categoryRows.map((r) => [r.environmentId, r.categories])),
    tests: new Map(testRows.map((r) => [r.environmentId, { passed: r.testsPassed, run: r.testsRun }])),
  };
}

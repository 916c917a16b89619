/** The rollouts list of a project (API and explorer): filters, full-text search with snippets, orders with keyset cursors. */
import { and, asc, desc, eq, inArray, isNotNull, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { environments, generations, policies, rollouts, rolloutSearch } from "@/lib/db/schema";
import { BadRequest, parseOrThrow } from "@/lib/errors";
import type { ProjectRow } from "@/lib/projects/service";
import { hasLabel } from "@/lib/annotations/service";
import { clusterId, type FailureCategory } from "@/lib/analytics/failures";
import { rolloutColumns } from "./read";
import { searchCondition, searchGenerations, searchMatch, searchSnippets, type SearchSnippet } from "./search";
import { pendingSearchCount } from "./search-index";

/** Orders of the rollouts list; the value sorts ascending, "-" descending, ties broken by id the same way. */
export const ROLLOUT_SORTS = [
  "newest",
  "oldest",
  "reward",
  "-reward",
  "turns",
  "-turns",
  "tokens",
  "-tokens",
  "duration",
  "-duration",
] as const;
export type RolloutSort = (typeof ROLLOUT_SORTS)[number];

const tokensExpr = sql`(coalesce(${rollouts.inputTokens}, 0) + coalesce(${rollouts.outputTokens}, 0))`;
const durationExpr = sql`extract(epoch from (${rollouts.finishedAt} - ${rollouts.startedAt}))`;

type KeyType = "float8" | "int" | "numeric";

/**
 * The sort key of an order, written exactly as its index (schema.ts rollouts_project_*_idx) so keyset pages
 * walk the index: missing values sort lowest (reward -Infinity, turns and duration -1, tokens 0).
 */
function sortKey(sort: RolloutSort): { key: SQL | null; type: KeyType; descending: boolean } {
  const descending = sort === "newest" || sort.startsWith("-");
  const field = sort.replace("-", "");
  if (field === "reward") return { key: sql`coalesce(${rollouts.reward}, '-Infinity'::float8)`, type: "float8", descending };
  if (field === "turns") return { key: sql`coalesce(${rollouts.turns}, -1)`, type: "int", descending };
  if (field === "tokens") return { key: tokensExpr, type: "int", descending };
  if (field === "duration") return { key: sql`coalesce(${durationExpr}, -1::numeric)`, type: "numeric", descending };
  return { key: null, type: "int", descending };
}

/** A keyset cursor: the id alone for id orders, else "<key>~<id>"; 400 naming `cursor` when it is not one of ours. */
function parseCursor(cursor: string, withKey: boolean, type: KeyType): { key: string | null; id: number } {
  const bad = () =>
    new BadRequest("cursor is not a cursor this list gave (pass nextCursor back unchanged, with the same sort).", [
      { path: "query.cursor", message: "invalid cursor" },
    ]);
  const at = cursor.lastIndexOf("~");
  if (withKey !== at >= 0) throw bad();
  const id = Number(withKey ? cursor.slice(at + 1) : cursor);
  const key = withKey ? cursor.slice(0, at) : null;
  if (!Number.isSafeInteger(id) || id <= 0) throw bad();
  if (key !== null && (key.trim() === "" || Number.isNaN(Number(key)) || (type === "int" && !Number.isSafeInteger(Number(key)))))
    throw bad();
  return { key, id };
}

const noNul = (v: string) => !v.includes("\0");
const count = z.coerce.number().int().min(0).max(2_147_483_647);

/**
 * The explorer's filter from a page's search parameters: one value per key (the first), empty fields of the
 * filter form meaning "any", and the paging or download keys in `drop` left out.
 */
export function explorerFilters(raw: Record<string, string | string[] | undefined>, drop: readonly string[]): Record<string, string> {
  const filters: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined && value !== "" && !drop.includes(k)) filters[k] = value;
  }
  return filters;
}

export const listRolloutsQuery = z.object({
  generation: z.coerce.number().int().min(0).optional(),
  policy: z.string().optional(),
  environmentKey: z.string().optional(),
  success: z.enum(["true", "false"]).optional(),
  status: z.enum(["completed", "errored"]).optional(),
  category: z.string().optional(),
  /** rollouts that showed this behaviour (failures API `behaviours[].id`, e.g. step_cap) */
  behaviour: z.string().max(100).optional(),
  /** rollouts of one failure cluster (failures API `clusters[].id`, 16 hex digits) */
  cluster: z
    .string()
    .regex(/^[0-9a-f]{16}$/, "a cluster id is 16 hex digits (failures API clusters[].id)")
    .optional(),
  /**
   * full-text search (websearch syntax: words, "a phrase", -not, or) over ids, errors, trajectory messages,
   * tool calls and outputs and verifier output; 3+ characters also match as a substring (identifiers, paths)
   */
  q: z.string().trim().min(1).max(500).refine(noNul, "holds a NUL character: search for printable text").optional(),
  /** rollouts with at least one annotation carrying this label */
  label: z.string().trim().min(1).max(60).optional(),
  minTurns: count.optional(),
  maxTurns: count.optional(),
  minReward: z.coerce.number().finite().optional(),
  maxReward: z.coerce.number().finite().optional(),
  minTestsPassed: count.optional(),
  maxTestsPassed: count.optional(),
  minTestsFailed: count.optional(),
  maxTestsFailed: count.optional(),
  /** input + output tokens */
  minTokens: count.optional(),
  maxTokens: count.optional(),
  /** seconds from start to finish */
  minDuration: z.coerce.number().finite().min(0).optional(),
  maxDuration: z.coerce.number().finite().min(0).optional(),
  /** newest (default) | oldest | reward | turns | tokens | duration, "-" for descending; ties by id */
  sort: z.enum(ROLLOUT_SORTS).optional(),
  /** opaque: the nextCursor of the previous page (same filters and sort) */
  cursor: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** csv | parquet: every matching rollout as a streamed download (lib/csv/exports.ts, lib/parquet) */
  format: z.enum(["json", "csv", "parquet"]).optional(),
});
export type ListRolloutsQuery = z.infer<typeof listRolloutsQuery>;

/** The (category, signature) pairs of the project whose cluster id is `id`. */
async function clusterCondition(db: Db, projectId: number, id: string): Promise<SQL> {
  const pairs = await db
    .selectDistinct({ category: rollouts.failureCategory, signature: rollouts.failureSignature })
    .from(rollouts)
    .where(and(eq(rollouts.projectId, projectId), isNotNull(rollouts.failureCategory), isNotNull(rollouts.failureSignature)));
  const matching = pairs.filter((p) => clusterId(p.category as FailureCategory, p.signature!) === id);
  if (matching.length === 0) return sql`false`;
  return or(...matching.map((p) => and(eq(rollouts.failureCategory, p.category!), eq(rollouts.failureSignature, p.signature!))))!;
}

/**
 * Candidates in the list's order that a search walks before it gives up on finding a page among them and asks
 * the GIN indexes for every match instead: common words fill a page within the first candidates, rare ones are
 * cheaper to collect whole (docs/BENCHMARKS.md, Search).
 */
export const SEARCH_WALK = 2000;
/** How much further than SEARCH_WALK a second walk may go when the first found hits, but not a page. */
const WALK_GROWTH = 8;

/** GET .../rollouts: filtered and ordered (newest first by default), one page with the cursor of the next; with `q`, each item has its snippet. */
export async function listRollouts(db: Db, project: ProjectRow, query: unknown, opts: { searchWalk?: number } = {}) {
  const q = parseOrThrow(listRolloutsQuery, query, "query", 400);
  const where: (SQL | undefined)[] = [eq(rollouts.projectId, project.id)];
  // on the rollout's own columns (the id looked up once), so the planner knows how selective they are and a
  // search inside one generation walks rollouts_generation_id_idx instead of the whole project
  if (q.generation !== undefined)
    where.push(
      eq(
        rollouts.generationId,
        sql`(select ${generations.id} from ${generations} where ${generations.projectId} = ${project.id} and ${generations.index} = ${q.generation})`,
      ),
    );
  if (q.policy)
    where.push(
      eq(
        rollouts.policyId,
        sql`(select ${policies.id} from ${policies} where ${policies.projectId} = ${project.id} and ${policies.name} = ${q.policy})`,
      ),
    );
  if (q.environmentKey)
    where.push(
      eq(
        rollouts.environmentId,
        sql`(select ${environments.id} from ${environments} where ${environments.projectId} = ${project.id} and ${environments.key} = ${q.environmentKey})`,
      ),
    );
  if (q.success) where.push(eq(rollouts.success, q.success === "true"));
  if (q.status) where.push(eq(rollouts.status, q.status));
  if (q.category) where.push(eq(rollouts.failureCategory, q.category));
  if (q.behaviour) where.push(sql`${rollouts.behaviours} @> array[${q.behaviour}]::text[]`);
  if (q.cluster) where.push(await clusterCondition(db, project.id, q.cluster));
  if (q.label) where.push(hasLabel(project.id, q.label));
  const range = (expr: SQL | AnyColumn, min?: number, max?: number) => {
    if (min !== undefined) where.push(sql`${expr} >= ${min}`);
    if (max !== undefined) where.push(sql`${expr} <= ${max}`);
  };
  range(rollouts.turns, q.minTurns, q.maxTurns);
  range(rollouts.reward, q.minReward, q.maxReward);
  range(rollouts.testsPassed, q.minTestsPassed, q.maxTestsPassed);
  range(rollouts.testsFailed, q.minTestsFailed, q.maxTestsFailed);
  range(tokensExpr, q.minTokens, q.maxTokens);
  range(durationExpr, q.minDuration, q.maxDuration);
  const { key, type, descending } = sortKey(q.sort ?? "newest");
  if (q.cursor) {
    const c = parseCursor(q.cursor, key !== null, type);
    const op = sql.raw(descending ? "<" : ">");
    where.push(
      key === null ? sql`${rollouts.id} ${op} ${c.id}` : sql`(${key}, ${rollouts.id}) ${op} (${c.key}::${sql.raw(type)}, ${c.id}::bigint)`,
    );
  }
  const dir = descending ? desc : asc;
  const order = key === null ? [dir(rollouts.id)] : [dir(key), dir(rollouts.id)];
  const select = (conn: Pick<Db, "select">, conditions: (SQL | undefined)[]) =>
    conn
      .select({ ...rolloutColumns, sortKey: key === null ? sql<null>`null` : sql<string | number>`${key}` })
      .from(rollouts)
      .innerJoin(environments, eq(environments.id, rollouts.environmentId))
      .innerJoin(generations, eq(generations.id, rollouts.generationId))
      .innerJoin(policies, eq(policies.id, rollouts.policyId))
      .where(and(...conditions))
      .orderBy(...order)
      .limit(q.limit + 1);
  // the generations whose search documents a `q` reads: the one asked, else every generation of the project (ADR 0008)
  const generationIds = q.q ? await searchedGenerations(db, project.id, q.generation) : [];
  const rows = q.q
    ? await searchPage(
        db,
        project.id,
        q.q,
        { where, key, dir, limit: q.limit + 1, walk: opts.searchWalk ?? SEARCH_WALK, generationIds },
        select,
      )
    : await select(db, where);
  const page = rows.slice(0, q.limit).map(({ sortKey: _k, ...r }) => r);
  const last = rows[q.limit - 1];
  const nextCursor = rows.length > q.limit ? (key === null ? String(last.id) : `${last.sortKey}~${last.id}`) : null;
  if (!q.q) return { items: page, nextCursor };
  const [snippets, searchPending] = await Promise.all([
    searchSnippets(
      db,
      page.map((r) => r.id),
      generationIds,
      q.q,
    ),
    pendingSearchCount(db, project.id),
  ]);
  // searchPending: rollouts stored but not indexed yet (ADR 0007), so not among the hits until the worker gets to them
  return { items: page.map((r) => ({ ...r, snippet: snippets.get(r.id) ?? null })), nextCursor, searchPending };
}

/** Ids of the project's generation with index `index`, or of all its generations when no index is given. */
async function searchedGenerations(db: Db, projectId: number, index: number | undefined): Promise<number[]> {
  const rows = await db
    .select({ id: generations.id })
    .from(generations)
    .where(and(eq(generations.projectId, projectId), index === undefined ? undefined : eq(generations.index, index)));
  return rows.map((r) => r.id);
}

/**
 * One page of search hits (`limit` rows, in the list's order), in up to three steps:
 * 1. walk the first `walk` rollouts that pass the other filters, in the list's order (the sort's index), and
 *    look each one's document up by key until `limit` match: a word in a few percent of the rollouts or more
 *    fills the page here after a few hundred lookups, however many rollouts match in all;
 * 2. when that walk found some hits but not a page, walk again as far as their density says a page needs
 *    (at most WALK_GROWTH times as far): a word in about 1% of the rollouts;
 * 3. when the walks ran out before the page was full, and there are more candidates, ask the GIN indexes for
 *    every match (few, since the walks found them sparse) and order those.
 * Each gives exactly the first `limit` matches in order: a walk sees the candidates in that order.
 */
async function searchPage<T>(
  db: Db,
  projectId: number,
  text: string,
  page: { where: (SQL | undefined)[]; key: SQL | null; dir: typeof asc; limit: number; walk: number; generationIds: number[] },
  select: (conn: Pick<Db, "select">, conditions: (SQL | undefined)[]) => Promise<T[]>,
): Promise<T[]> {
  const { where, key, dir, limit, generationIds } = page;
  const order = (id: SQL, k: SQL) => (key === null ? [dir(id)] : [dir(k), dir(id)]);
  const candidates = (conn: Pick<Db, "select">, walk: number) =>
    conn
      // every filter is on the rollout's own columns: no joins, whose per-row cost would push the planner to a parallel scan
      .select({
        id: sql<number>`${rollouts.id}`.as("cid"),
        g: sql<number>`${rollouts.generationId}`.as("cg"),
        k: (key ?? sql`null`).as("ck"),
      })
      .from(rollouts)
      .where(and(...where))
      .orderBy(...order(sql`${rollouts.id}`, key ?? sql`${rollouts.id}`))
      .limit(walk)
      .as("c");
  const walkFor = (walk: number) =>
    db.transaction(async (tx) => {
      // lookups by key along the order's index: no bitmap collecting every candidate, no hash or scan over the
      // documents (the planner takes a match for rare and would otherwise scan them once for the whole walk)
      for (const plan of ["bitmapscan", "hashjoin", "mergejoin", "seqscan", "material"])
        await tx.execute(sql.raw(`set local enable_${plan} = off`));
      const c = candidates(tx, walk);
      const hits = await tx
        .select({ id: c.id })
        .from(c)
        // the document's key is (rollout, generation): each lookup goes to the candidate's own partition
        .innerJoin(rolloutSearch, and(eq(rolloutSearch.rolloutId, c.id), eq(rolloutSearch.generationId, c.g)))
        .where(and(searchGenerations(generationIds), searchMatch(text)))
        .orderBy(...order(sql`${c.id}`, sql`${c.k}`))
        .limit(limit);
      const ids = hits.map((h) => Number(h.id));
      if (ids.length >= limit) return { ids, complete: true };
      // fewer hits than a page: complete when the walk saw every candidate there is
      const [{ n }] = await tx.select({ n: sql<number>`count(*)::int` }).from(candidates(tx, walk));
      return { ids, complete: n < walk };
    });
  let walked = await walkFor(page.walk);
  if (!walked.complete && walked.ids.length > 0)
    walked = await walkFor(Math.min(page.walk * WALK_GROWTH, Math.ceil((1.5 * limit * page.walk) / walked.ids.length)));
  if (walked.complete) return walked.ids.length ? select(db, [eq(rollouts.projectId, projectId), inArray(rollouts.id, walked.ids)]) : [];
  // Search documents live in TOAST, so the planner prices reading them far too low and scans them (seconds on
  // real trajectories) instead of asking the GIN indexes (milliseconds): only bitmap plans are allowed.
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_seqscan = off`);
    await tx.execute(sql`set local enable_indexscan = off`);
    return select(tx, [...where, searchCondition(projectId, generationIds, text)]);
  });
}

export type { SearchSnippet };

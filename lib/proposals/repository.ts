/**
 * The proposals module's queries (proposals, their items, engineer runs, stored summaries): SQL
 * only, each selecting the columns its caller reads. No rules, no scopes: the service and the job
 * decide.
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { and, desc, eq, sql } from "drizzle-orm";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { Db, Queryable } from "@/lib/db/client";
import { uuidv7 } from "@/lib/db/uuid7";
import { engineerRuns, environments, failureSummaries, policies, projects, proposalItems, proposals } from "@/lib/db/schema";
import type { StructuredSummary } from "@/lib/engineer/types";
import { projectById } from "@/lib/projects/repository";
import type { ProposalProgress } from "./contracts";

type ProposalInsert = typeof proposals.$inferInsert;

/** A proposal item as insertProposalItems stores it (column names; absent or null columns are NULL, evidence defaults to []). */
export interface NewProposalItem {
  position: number;
  op: string;
  environment_key: string | null;
  parent_key: string | null;
  config: unknown;
  direction: string | null;
  rationale: string;
  evidence: unknown;
  predicted_success: number | null;
  proposer: string | null;
  task_edits: unknown;
  flags: unknown;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");

/** Strings as a bound text parameter sends them: a lone surrogate becomes U+FFFD (jsonb rejects it escaped). */
function wellFormed(_key: string, value: unknown): unknown {
  return typeof value === "string" && LONE_SURROGATE.test(value) ? value.replace(LONE_SURROGATES, "\uFFFD") : value;
}

type EngineerRunUpdate = Partial<typeof engineerRuns.$inferInsert>;

/** The id of a policy of the project by name, or undefined. */
export async function findPolicyId(db: Queryable, projectId: number, name: string): Promise<number | undefined> {
  const [p] = await db
    .select({ id: policies.id })
    .from(policies)
    .where(and(eq(policies.projectId, projectId), eq(policies.name, name)));
  return p?.id;
}

/** Inserts a proposal; returns its id. */
export async function insertProposal(db: Queryable, values: ProposalInsert): Promise<{ id: string }> {
  const [created] = await db.insert(proposals).values(values).returning({ id: proposals.id });
  return created;
}

/** Sets a proposal's fields (status, progress, error, summary…) and its updatedAt. */
export async function updateProposal(
  db: Queryable,
  id: string,
  set: Partial<ProposalInsert> & { progress?: ProposalProgress },
): Promise<void> {
  await db
    .update(proposals)
    .set({ updatedAt: new Date(), ...set })
    .where(eq(proposals.id, id));
}

/** Marks a proposal failed with its error, leaving its updatedAt (a run that could not be queued). */
export async function markQueueFailed(db: Queryable, id: string, error: string): Promise<void> {
  await db.update(proposals).set({ status: "failed", error }).where(eq(proposals.id, id));
}

/** What the worker needs of a proposal to run it. */
export async function proposalForRun(db: Queryable, id: string) {
  const [p] = await db
    .select({
      status: proposals.status,
      projectId: proposals.projectId,
      options: proposals.options,
      engineer: proposals.engineer,
      baseGeneration: proposals.baseGeneration,
    })
    .from(proposals)
    .where(eq(proposals.id, id));
  return p;
}

/** The project row a proposal belongs to. */
export const projectOf = projectById;

/** Starts an engineer run record; returns its id. */
export async function insertEngineerRun(db: Queryable, proposalId: string, engineer: string): Promise<{ id: number }> {
  const [run] = await db.insert(engineerRuns).values({ proposalId, engineer, status: "running" }).returning({ id: engineerRuns.id });
  return run;
}

/** Finishes an engineer run (succeeded or failed, with tokens, latency, cost, raw output). */
export async function finishEngineerRun(db: Queryable, runId: number, set: EngineerRunUpdate): Promise<void> {
  await db.update(engineerRuns).set(set).where(eq(engineerRuns.id, runId));
}

/** Deletes a proposal's items (a retried job starts clean). */
export async function deleteProposalItems(db: Queryable, proposalId: string): Promise<void> {
  await db.delete(proposalItems).where(eq(proposalItems.proposalId, proposalId));
}

/** A COPY text cell: NULL as \\N; backslash, tab, newline and carriage return escaped. */
function copyCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "\\N";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "\\N"; // JSON had no NaN: stored as null before
  return value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]);
}
const COPY_ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** A jsonb cell: JSON with lone surrogates as U+FFFD (jsonb rejects them escaped); undefined and null as NULL. */
const jsonCell = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value, wellFormed));

/** A proposal item as one line of COPY text, in ITEM_COLUMNS order; its id time-ordered (uuid7.ts says why). */
function itemLine(proposalId: string, r: NewProposalItem): string {
  return (
    [
      uuidv7(),
      proposalId,
      r.position,
      r.op,
      r.environment_key,
      r.parent_key,
      jsonCell(r.config),
      r.direction,
      r.rationale,
      jsonCell(r.evidence ?? []),
      r.predicted_success,
      r.proposer,
      jsonCell(r.task_edits),
      jsonCell(r.flags),
    ]
      .map(copyCell)
      .join("\t") + "\n"
  );
}

const ITEM_COLUMNS =
  "id, proposal_id, position, op, environment_key, parent_key, config, direction, rationale, evidence, predicted_success, proposer, task_edits, flags";
const ITEM_LINES_PER_CHUNK = 1000;

/**
 * Inserts items with one COPY on `connection` (inside the caller's transaction, see transactionOnConnection). One JSON
 * parameter per 5,000 rows unpacked by jsonb_to_recordset (the previous way) spent about a third more of the
 * database's time: the recordset was materialised and spilled to disk before the insert.
 */
export async function insertProposalItems(connection: pg.PoolClient, proposalId: string, rows: readonly NewProposalItem[]): Promise<void> {
  if (rows.length === 0) return;
  async function* lines() {
    for (let i = 0; i < rows.length; i += ITEM_LINES_PER_CHUNK)
      yield rows
        .slice(i, i + ITEM_LINES_PER_CHUNK)
        .map((r) => itemLine(proposalId, r))
        .join("");
  }
  await pipeline(Readable.from(lines()), connection.query(copyFrom(`copy proposal_items (${ITEM_COLUMNS}) from stdin`)));
}

/** Stores the structured summary a run read; returns its id. */
export async function insertFailureSummary(db: Queryable, values: typeof failureSummaries.$inferInsert): Promise<{ id: number }> {
  const [stored] = await db.insert(failureSummaries).values(values).returning({ id: failureSummaries.id });
  return stored;
}

/** A proposal with the columns its view shows, or undefined. */
export async function proposalRow(db: Queryable, id: string) {
  const [p] = await db
    .select({
      id: proposals.id,
      projectId: proposals.projectId,
      status: proposals.status,
      engineer: proposals.engineer,
      baseGeneration: proposals.baseGeneration,
      options: proposals.options,
      error: proposals.error,
      progress: proposals.progress,
      summaryId: proposals.summaryId,
      materializedGeneration: proposals.materializedGeneration,
      createdBy: proposals.createdBy,
      createdAt: proposals.createdAt,
      updatedAt: proposals.updatedAt,
    })
    .from(proposals)
    .where(eq(proposals.id, id));
  return p;
}

/** The slug of a project. */
export async function projectSlug(db: Queryable, projectId: number): Promise<string | undefined> {
  const [project] = await db.select({ slug: projects.slug }).from(projects).where(eq(projects.id, projectId));
  return project?.slug;
}

/** A proposal item as GET /proposals/{id} reads it. */
export interface ProposalItemRow {
  id: string;
  op: string;
  environmentKey: string | null;
  parentKey: string | null;
  config: unknown;
  direction: string | null;
  rationale: string;
  evidence: unknown;
  predictedSuccess: number | null;
  proposer: string | null;
  flags: unknown;
  decision: string;
  decidedBy: string | null;
  editedConfig: unknown;
}

/**
 * A proposal's items in position order, with their review decisions. Read without the ORM's row mapping: node-postgres
 * already gives these columns their JavaScript types (jsonb parsed, float8 a number), and mapping 15,000 rows of 14
 * columns was a quarter to a third of the read's node CPU in the GET that says a 10,000-environment proposal is ready
 * (issue 19: 134-242 ms -> 100-156 ms).
 */
export async function proposalItemRows(db: Queryable, proposalId: string, ids?: readonly string[]): Promise<ProposalItemRow[]> {
  // some items by id: one uuid[] parameter (ids not of this proposal match nothing)
  const only = ids ? sql` and id = any(${sql.param([...ids])}::uuid[])` : sql``;
  const result = await db.execute<Record<string, unknown>>(sql`
    select id, op, environment_key as "environmentKey", parent_key as "parentKey", config, direction, rationale, evidence,
           predicted_success as "predictedSuccess", proposer, flags, decision, decided_by as "decidedBy", edited_config as "editedConfig"
    from ${proposalItems} where proposal_id = ${proposalId}${only} order by position`);
  return result.rows as unknown as ProposalItemRow[];
}

/** What every item of a proposal needs for the population, the filters and the counts: no configs, rationale or evidence. */
export interface ProposalItemIndexRow {
  id: string;
  op: string;
  direction: string | null;
  predictedSuccess: number | null;
  decision: string;
  decidedBy: string | null;
}

/** A proposal's items in position order without their large columns (a 15,000-item proposal: 13 MB of JSON in full). */
export async function proposalItemIndexRows(db: Queryable, proposalId: string): Promise<ProposalItemIndexRow[]> {
  const result = await db.execute<Record<string, unknown>>(sql`
    select id, op, direction, predicted_success as "predictedSuccess", decision, decided_by as "decidedBy"
    from ${proposalItems} where proposal_id = ${proposalId} order by position`);
  return result.rows as unknown as ProposalItemIndexRow[];
}

/** The latest engineer run of a proposal, or undefined. */
export async function latestEngineerRun(db: Queryable, proposalId: string) {
  const [run] = await db
    .select({
      engineer: engineerRuns.engineer,
      model: engineerRuns.model,
      status: engineerRuns.status,
      promptTokens: engineerRuns.promptTokens,
      completionTokens: engineerRuns.completionTokens,
      latencyMs: engineerRuns.latencyMs,
      costUsd: engineerRuns.costUsd,
      attempts: engineerRuns.attempts,
      error: engineerRuns.error,
      rawOutput: engineerRuns.rawOutput,
    })
    .from(engineerRuns)
    .where(eq(engineerRuns.proposalId, proposalId))
    .orderBy(desc(engineerRuns.id))
    .limit(1);
  return run;
}

/** A stored structured summary, or null. */
export async function storedSummary(db: Queryable, summaryId: number | null): Promise<StructuredSummary | null> {
  if (!summaryId) return null;
  const [row] = await db.select({ summary: failureSummaries.summary }).from(failureSummaries).where(eq(failureSummaries.id, summaryId));
  return (row?.summary ?? null) as StructuredSummary | null;
}

/** Configs of the project's environments with these keys, by key. */
export async function configsByKey(db: Queryable, projectId: number, keys: readonly string[]): Promise<Map<string, unknown>> {
  if (keys.length === 0) return new Map();
  // the keys as one jsonb parameter: a bound parameter per key (4,000 parents in a 15,000-item proposal) cost more to build than to run
  const rows = await db
    .select({ key: environments.key, config: environments.config })
    .from(environments)
    .where(
      and(
        eq(environments.projectId, projectId),
        sql`${environments.key} in (select jsonb_array_elements_text(${JSON.stringify([...keys])}::jsonb))`,
      ),
    );
  return new Map(rows.map((r) => [r.key, r.config]));
}

/** The newest 100 proposals of a project, newest first. */
export async function recentProposals(db: Db, projectId: number) {
  return db
    .select({
      id: proposals.id,
      status: proposals.status,
      engineer: proposals.engineer,
      baseGeneration: proposals.baseGeneration,
      createdBy: proposals.createdBy,
      createdAt: proposals.createdAt,
      error: proposals.error,
      materializedGeneration: proposals.materializedGeneration,
    })
    .from(proposals)
    .where(eq(proposals.projectId, projectId))
    .orderBy(desc(proposals.createdAt))
    .limit(100);
}

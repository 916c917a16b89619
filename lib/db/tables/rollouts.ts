/** Rollouts (narrow rows) with their payloads and search documents, sync cursors, and background imports with their chunks. */
import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { bytea, createdAt, tsvector } from "./columns";
import { projects } from "./projects";

export const rollouts = pgTable(
  "rollouts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    // generation, environment and policy are checked once per statement, not by foreign keys row by row: they must be
    // of the rollout's own project, and deleting one deletes its rollouts (drizzle/0034_rollout_parents_checked.sql)
    generationId: integer("generation_id").notNull(),
    environmentId: bigint("environment_id", { mode: "number" }).notNull(),
    policyId: integer("policy_id").notNull(),
    externalId: text("external_id").notNull(),
    reward: doublePrecision("reward"),
    success: boolean("success").notNull(),
    status: text("status").notNull().default("completed"), // completed | errored
    failureCategory: text("failure_category"),
    failureSignature: text("failure_signature"),
    errorType: text("error_type"),
    errorMessage: text("error_message"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    turns: integer("turns"),
    /** what the rollout cost in USD where the source reported it (lib/rollouts/cost.ts); null when unknown */
    costUsd: doublePrecision("cost_usd"),
    flags: text("flags").array(),
    /** tests the verifier reported passed / failed (CTRF report, else pytest's summary); null when none ran */
    testsPassed: integer("tests_passed"),
    testsFailed: integer("tests_failed"),
    /** behaviour ids the agent showed (lib/analytics/behaviours.ts) */
    behaviours: text("behaviours").array(),
    /** the source's own name of the run (Harbor's trial name), searchable */
    trialName: text("trial_name"),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("rollouts_project_external_uq").on(t.projectId, t.externalId),
    index("rollouts_generation_policy_idx").on(t.generationId, t.policyId),
    // an environment's rollouts newest first (its attempts, the explorer's environment filter, its newest pass and fail);
    // migration 0032 adds INCLUDE (policy_id, success), which Drizzle cannot say, so a policy's or an outcome's newest
    // are read from the index alone (an environment can hold 6% of 10,000,000 rollouts: issue 19)
    index("rollouts_environment_idx").on(t.environmentId, t.id),
    // a category's rollouts, and a failure cluster's in id order (its first rollouts, the cluster's page): ADR 0005
    index("rollouts_generation_cluster_idx").on(t.generationId, t.failureCategory, sql`coalesce(${t.failureSignature}, '')`, t.id),
    // the explorer's orders and range filters walk these (keyset pages on (key, id) within a project)
    index("rollouts_project_id_idx").on(t.projectId, t.id),
    // a search or list inside one generation walks its rollouts newest (or oldest) first here, not through the whole project
    index("rollouts_generation_id_idx").on(t.generationId, t.id),
    index("rollouts_project_reward_idx").on(t.projectId, sql`coalesce(${t.reward}, '-Infinity'::float8)`, t.id),
    index("rollouts_project_turns_idx").on(t.projectId, sql`coalesce(${t.turns}, -1)`, t.id),
    index("rollouts_project_tokens_idx").on(t.projectId, sql`(coalesce(${t.inputTokens}, 0) + coalesce(${t.outputTokens}, 0))`, t.id),
    index("rollouts_project_duration_idx").on(
      t.projectId,
      sql`coalesce(extract(epoch from (${t.finishedAt} - ${t.startedAt})), -1::numeric)`,
      t.id,
    ),
    // the same orders inside one generation (the explorer's usual view): a page walks that generation's rollouts only (ADR 0008)
    index("rollouts_generation_reward_idx").on(t.generationId, sql`coalesce(${t.reward}, '-Infinity'::float8)`, t.id),
    index("rollouts_generation_turns_idx").on(t.generationId, sql`coalesce(${t.turns}, -1)`, t.id),
    index("rollouts_generation_tokens_idx").on(t.generationId, sql`(coalesce(${t.inputTokens}, 0) + coalesce(${t.outputTokens}, 0))`, t.id),
    index("rollouts_generation_duration_idx").on(
      t.generationId,
      sql`coalesce(extract(epoch from (${t.finishedAt} - ${t.startedAt})), -1::numeric)`,
      t.id,
    ),
    index("rollouts_behaviours_idx").using("gin", t.behaviours),
    // a generation's cost (lib/generations/cost.ts) from the index alone, over the priced rollouts only
    index("rollouts_generation_cost_idx")
      .on(t.generationId, t.policyId, t.costUsd)
      .where(sql`${t.costUsd} is not null`),
  ],
);

export const rolloutPayloads = pgTable("rollout_payloads", {
  rolloutId: bigint("rollout_id", { mode: "number" })
    .primaryKey()
    .references(() => rollouts.id, { onDelete: "cascade" }),
  trajectory: jsonb("trajectory"),
  verifierOutput: text("verifier_output"),
  metadata: jsonb("metadata"),
});

/** Messages in one row of trajectory_pages (the last page of a trajectory may hold fewer). */
export const TRAJECTORY_PAGE_MESSAGES = 100;

/**
 * A long trajectory again, in pages of TRAJECTORY_PAGE_MESSAGES messages, written at ingest beside the
 * whole document (rollout_payloads.trajectory stays what the API, search and exports read; ADR 0006): the
 * viewer reads the pages of the rows it shows, the timeline each page's timed steps (index, role,
 * timestamp, usage), and the message count is the last page's, so a 100 MB trajectory is never
 * decompressed whole to show a screen of it. Only trajectories over 1 MB of JSON are paged.
 */
export const trajectoryPages = pgTable(
  "trajectory_pages",
  {
    rolloutId: bigint("rollout_id", { mode: "number" })
      .notNull()
      .references(() => rollouts.id, { onDelete: "cascade" }),
    page: integer("page").notNull(),
    messageCount: integer("message_count").notNull(),
    messages: jsonb("messages").notNull(),
    steps: jsonb("steps").notNull(),
  },
  (t) => [primaryKey({ columns: [t.rolloutId, t.page] })],
);

/**
 * The search document of a rollout: its ids, error, trajectory text (messages, tool calls, tool
 * outputs) and verifier output, written once per rollout by the search indexer (lib/rollouts/search-index.ts)
 * off the ingest path (ADR 0007); full-text (tsv) and trigram (body) GIN indexes answer the explorer's `q`.
 * Partitioned by generation (drizzle/0027, ADR 0008; Drizzle does not model that): one table and one pair of
 * GIN indexes per generation, so a search inside a generation reads that generation's posting lists only.
 * No foreign key (a partition's would lock `rollouts` when it is attached): a trigger on `rollouts` deletes
 * the documents of deleted rollouts.
 */
export const rolloutSearch = pgTable(
  "rollout_search",
  {
    rolloutId: bigint("rollout_id", { mode: "number" }).notNull(),
    generationId: integer("generation_id").notNull(),
    projectId: integer("project_id").notNull(),
    body: text("body").notNull(),
    tsv: tsvector("tsv").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.rolloutId, t.generationId] }),
    index("rollout_search_tsv_idx").using("gin", t.tsv),
    index("rollout_search_body_trgm_idx").using("gin", sql`${t.body} gin_trgm_ops`),
  ],
);

/**
 * Rollouts whose search document is missing or stale: a trigger (drizzle/0021) adds a row for every new
 * rollout, every payload written and every change to a searched column; the indexer writes the
 * document and deletes the row in one transaction. No foreign key, so ingest pays no check per row:
 * the indexer drops rows whose rollout is gone.
 */
export const rolloutSearchPending = pgTable(
  "rollout_search_pending",
  {
    rolloutId: bigint("rollout_id", { mode: "number" }).primaryKey(),
    projectId: integer("project_id").notNull(),
  },
  (t) => [index("rollout_search_pending_project_idx").on(t.projectId)],
);

export const syncCursors = pgTable(
  "sync_cursors",
  {
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    source: text("source").notNull(),
    url: text("url").notNull(),
    cursor: text("cursor"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.source, t.url] })],
);

export const imports = pgTable(
  "imports",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(), // ndjson | harbor
    filename: text("filename"),
    bytes: bigint("bytes", { mode: "number" }),
    generation: integer("generation"),
    // queued | running | succeeded | failed
    status: text("status").notNull().default("queued"),
    progress: jsonb("progress"),
    summary: jsonb("summary"),
    error: text("error"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("imports_project_idx").on(t.projectId)],
);

/** An uploaded import file in 1 MiB pieces, so whichever worker takes the job can read it. */
export const importChunks = pgTable(
  "import_chunks",
  {
    importId: uuid("import_id")
      .notNull()
      .references(() => imports.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    data: bytea("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.seq] })],
);

/** Failure summaries, engineer runs, proposals with their items, the items' decision history, and review comments. */
import { sql } from "drizzle-orm";
import { doublePrecision, index, integer, jsonb, pgTable, serial, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { generations, policies } from "./environments";
import { projects } from "./projects";

export const failureSummaries = pgTable(
  "failure_summaries",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    generationId: integer("generation_id")
      .notNull()
      .references(() => generations.id, { onDelete: "cascade" }),
    policyId: integer("policy_id").references(() => policies.id, { onDelete: "cascade" }),
    summary: jsonb("summary").notNull(),
    tokenEstimate: integer("token_estimate").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("failure_summaries_generation_idx").on(t.generationId)],
);

export const proposals = pgTable(
  "proposals",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    baseGeneration: integer("base_generation").notNull(),
    engineer: text("engineer").notNull(), // heuristic | llm
    status: text("status").notNull().default("queued"),
    options: jsonb("options")
      .notNull()
      .default(sql`'{}'::jsonb`),
    summaryId: integer("summary_id").references(() => failureSummaries.id, { onDelete: "set null" }),
    error: text("error"),
    progress: jsonb("progress"),
    materializedGeneration: integer("materialized_generation"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("proposals_project_idx").on(t.projectId, t.createdAt)],
);

export const engineerRuns = pgTable(
  "engineer_runs",
  {
    id: serial("id").primaryKey(),
    proposalId: uuid("proposal_id")
      .notNull()
      .references(() => proposals.id, { onDelete: "cascade" }),
    engineer: text("engineer").notNull(),
    model: text("model"),
    status: text("status").notNull(),
    promptTokens: integer("prompt_tokens"),
    completionTokens: integer("completion_tokens"),
    latencyMs: integer("latency_ms"),
    costUsd: doublePrecision("cost_usd"),
    attempts: integer("attempts").notNull().default(0),
    rawOutput: text("raw_output"),
    error: text("error"),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("engineer_runs_proposal_idx").on(t.proposalId)],
);

export const proposalItems = pgTable(
  "proposal_items",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    proposalId: uuid("proposal_id")
      .notNull()
      .references(() => proposals.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    op: text("op").notNull(), // keep | mutate | add | retire
    environmentKey: text("environment_key"),
    parentKey: text("parent_key"),
    config: jsonb("config").notNull(),
    editedConfig: jsonb("edited_config"),
    // an evolved terminal task: the file edits and task.toml changes that make it from its parent (lib/tasks/edits)
    taskEdits: jsonb("task_edits"),
    // the reviewer's version of taskEdits (inline edits before approving)
    editedTaskEdits: jsonb("edited_task_edits"),
    direction: text("direction"),
    rationale: text("rationale").notNull(),
    evidence: jsonb("evidence")
      .notNull()
      .default(sql`'[]'::jsonb`),
    predictedSuccess: doublePrecision("predicted_success"),
    proposer: text("proposer"),
    flags: jsonb("flags"),
    decision: text("decision").notNull().default("pending"),
    decidedBy: text("decided_by"),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
  },
  (t) => [
    index("proposal_items_proposal_idx").on(t.proposalId, t.position),
    // the reviewed items only: the engineer summary's history counts a proposal's approved and rejected items through it
    // (lib/engineer/summary.ts) without visiting its pending ones, most of a 15,000-item proposal
    index("proposal_items_decided_idx")
      .on(t.proposalId, t.decision)
      .where(sql`${t.decision} <> 'pending'`),
  ],
);

// One row per change of a proposal item (a decision, an edit, an undo): the item's history, and what undo reverts.
export const proposalItemEvents = pgTable(
  "proposal_item_events",
  {
    id: serial("id").primaryKey(),
    proposalId: uuid("proposal_id")
      .notNull()
      .references(() => proposals.id, { onDelete: "cascade" }),
    itemId: uuid("item_id")
      .notNull()
      .references(() => proposalItems.id, { onDelete: "cascade" }),
    // the changes of one request share a batch: undo takes a bulk action back as a whole
    batchId: uuid("batch_id").notNull(),
    action: text("action").notNull(), // approve | reject | pending | edit | undo
    actor: text("actor").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    // { decision, editedConfig } of the item before and after this change
    before: jsonb("before").notNull(),
    after: jsonb("after").notNull(),
    // an undo event names the event it reverted; a reverted event says when and by whom
    revertsEventId: integer("reverts_event_id"),
    undoneAt: timestamp("undone_at", { withTimezone: true }),
    undoneBy: text("undone_by"),
  },
  (t) => [index("proposal_item_events_item_idx").on(t.itemId, t.id), index("proposal_item_events_proposal_idx").on(t.proposalId, t.id)],
);

export const comments = pgTable(
  "comments",
  {
    id: serial("id").primaryKey(),
    proposalId: uuid("proposal_id")
      .notNull()
      .references(() => proposals.id, { onDelete: "cascade" }),
    itemId: uuid("item_id").references(() => proposalItems.id, { onDelete: "cascade" }),
    author: text("author").notNull(),
    body: text("body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("comments_proposal_idx").on(t.proposalId)],
);

/** Drizzle schema: every concept of PRODUCT.md as a table. Migrations in drizzle/ are generated from this file. */
import { sql } from "drizzle-orm";
import {
  customType,
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });
const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

// ---------------------------------------------------------------- auth

export const users = pgTable("users", {
  id: serial("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name").notNull(),
  passwordHash: text("password_hash").notNull(),
  role: text("role").notNull(), // admin | reviewer | ingest | viewer
  // set by an admin: the account cannot sign in and its sessions are gone
  disabledAt: timestamp("disabled_at", { withTimezone: true }),
  createdAt: createdAt(),
});

// failed (and in-flight) sign-ins, kept in the database so the limit holds across processes
export const signinAttempts = pgTable(
  "signin_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    email: text("email").notNull(),
    address: text("address").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("signin_attempts_email_idx").on(t.email, t.at), index("signin_attempts_address_idx").on(t.address, t.at)],
);

export const sessions = pgTable(
  "sessions",
  {
    // sha256 of the cookie token: a stolen database does not give live sessions
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    role: text("role").notNull(),
    projectId: integer("project_id").references(() => projects.id, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    // a dispatch-scoped key: minted for one dispatch, limited to its generation, revoked when it ends
    dispatchId: uuid("dispatch_id"),
    generationIndex: integer("generation_index"),
  },
  (t) => [index("api_keys_role_idx").on(t.role), index("api_keys_dispatch_idx").on(t.dispatchId)],
);

// ---------------------------------------------------------------- families and projects

export const families = pgTable("families", {
  id: text("id").primaryKey(),
  version: text("version").notNull(),
  jsonSchema: jsonb("json_schema").notNull(),
  fields: jsonb("fields").notNull(),
  createdBy: text("created_by"),
  createdAt: createdAt(),
});

export const projects = pgTable("projects", {
  id: serial("id").primaryKey(),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  familyId: text("family_id").notNull(),
  successThreshold: doublePrecision("success_threshold").notNull().default(1),
  isDemo: boolean("is_demo").notNull().default(false),
  // the demo loop's progress (demo projects only): { status, cycle, cycles, message, at }
  demoState: jsonb("demo_state"),
  settings: jsonb("settings")
    .notNull()
    .default(sql`'{}'::jsonb`),
  createdAt: createdAt(),
});

// ---------------------------------------------------------------- environments and generations

export const environments = pgTable(
  "environments",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    config: jsonb("config").notNull(),
    configHash: text("config_hash").notNull(),
    parentId: bigint("parent_id", { mode: "number" }),
    op: text("op").notNull().default("seed"), // seed | keep | mutate | add | crossover | import
    direction: text("direction"),
    validationState: text("validation_state").notNull().default("unvalidated"),
    pMax: doublePrecision("p_max"),
    validationDetails: jsonb("validation_details"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("environments_project_key_uq").on(t.projectId, t.key),
    index("environments_project_hash_idx").on(t.projectId, t.configHash),
    index("environments_parent_idx").on(t.parentId),
  ],
);

/** File contents by sha256, shared by every task file (across tasks, generations and projects) with these bytes. */
export const blobs = pgTable("blobs", {
  sha256: text("sha256").primaryKey(),
  size: bigint("size", { mode: "number" }).notNull(),
  data: bytea("data").notNull(),
  createdAt: createdAt(),
});

/** The files of a Harbor task environment (task.toml, instruction.md, environment/, tests/, solution/, steps/). */
export const environmentFiles = pgTable(
  "environment_files",
  {
    environmentId: bigint("environment_id", { mode: "number" })
      .notNull()
      .references(() => environments.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    sha256: text("sha256")
      .notNull()
      .references(() => blobs.sha256),
    size: bigint("size", { mode: "number" }).notNull(),
    executable: boolean("executable").notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.path] }), index("environment_files_sha_idx").on(t.sha256)],
);

export const generations = pgTable(
  "generations",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    index: integer("index").notNull(),
    // draft | active | approved | materialized | archived
    status: text("status").notNull().default("active"),
    source: text("source").notNull().default("seed"), // seed | import | proposal
    parentIndex: integer("parent_index"),
    proposalId: uuid("proposal_id"),
    trainingSteps: integer("training_steps"),
    mixWeight: doublePrecision("mix_weight"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("generations_project_index_uq").on(t.projectId, t.index)],
);

export const generationEnvironments = pgTable(
  "generation_environments",
  {
    generationId: integer("generation_id")
      .notNull()
      .references(() => generations.id, { onDelete: "cascade" }),
    environmentId: bigint("environment_id", { mode: "number" })
      .notNull()
      .references(() => environments.id, { onDelete: "cascade" }),
    weight: doublePrecision("weight").notNull().default(1),
    op: text("op").notNull().default("seed"),
    direction: text("direction"),
    rationale: text("rationale"),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.environmentId] }), index("generation_environments_env_idx").on(t.environmentId)],
);

export const policies = pgTable(
  "policies",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    step: integer("step"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("policies_project_name_uq").on(t.projectId, t.name)],
);

// ---------------------------------------------------------------- rollouts (narrow) and their payloads

export const rollouts = pgTable(
  "rollouts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    generationId: integer("generation_id")
      .notNull()
      .references(() => generations.id, { onDelete: "cascade" }),
    environmentId: bigint("environment_id", { mode: "number" })
      .notNull()
      .references(() => environments.id, { onDelete: "cascade" }),
    policyId: integer("policy_id")
      .notNull()
      .references(() => policies.id, { onDelete: "cascade" }),
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
    index("rollouts_environment_idx").on(t.environmentId, t.policyId),
    index("rollouts_generation_category_idx").on(t.generationId, t.failureCategory),
    // the explorer's orders and range filters walk these (keyset pages on (key, id) within a project)
    index("rollouts_project_id_idx").on(t.projectId, t.id),
    index("rollouts_project_reward_idx").on(t.projectId, sql`coalesce(${t.reward}, '-Infinity'::float8)`, t.id),
    index("rollouts_project_turns_idx").on(t.projectId, sql`coalesce(${t.turns}, -1)`, t.id),
    index("rollouts_project_tokens_idx").on(t.projectId, sql`(coalesce(${t.inputTokens}, 0) + coalesce(${t.outputTokens}, 0))`, t.id),
    index("rollouts_project_duration_idx").on(
      t.projectId,
      sql`coalesce(extract(epoch from (${t.finishedAt} - ${t.startedAt})), -1::numeric)`,
      t.id,
    ),
    index("rollouts_behaviours_idx").using("gin", t.behaviours),
  ],
);

/**
 * Rollout sums per generation × environment × policy, kept by triggers on rollouts in the same
 * transaction as every insert, delete and update (drizzle/*_rollout_aggregates SQL; ADR 0005). The dashboards read these
 * instead of scanning rollouts; a row disappears when its last rollout does.
 */
export const rolloutAggregates = pgTable(
  "rollout_aggregates",
  {
    generationId: integer("generation_id")
      .notNull()
      .references(() => generations.id, { onDelete: "cascade" }),
    environmentId: bigint("environment_id", { mode: "number" })
      .notNull()
      .references(() => environments.id, { onDelete: "cascade" }),
    policyId: integer("policy_id")
      .notNull()
      .references(() => policies.id, { onDelete: "cascade" }),
    n: integer("n").notNull(),
    successes: integer("successes").notNull(),
    /** numeric: sums and differences of rewards stay exact whatever the order of inserts and deletes */
    rewardSum: numeric("reward_sum").notNull(),
    infraErrors: integer("infra_errors").notNull(),
    errored: integer("errored").notNull(),
    unrewarded: integer("unrewarded").notNull(),
    /** sum over rollouts reporting tests, and how many did (a sum over none is null) */
    testsPassed: bigint("tests_passed", { mode: "number" }).notNull(),
    testsPassedN: integer("tests_passed_n").notNull(),
    testsRun: bigint("tests_run", { mode: "number" }).notNull(),
    testsRunN: integer("tests_run_n").notNull(),
    turnsSum: bigint("turns_sum", { mode: "number" }).notNull(),
    inputTokensSum: bigint("input_tokens_sum", { mode: "number" }).notNull(),
    outputTokensSum: bigint("output_tokens_sum", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.environmentId, t.policyId] })],
);

/** Failed rollouts per generation × environment × policy × failure category × signature, kept like rollout_aggregates. */
export const failureAggregates = pgTable(
  "failure_aggregates",
  {
    generationId: integer("generation_id")
      .notNull()
      .references(() => generations.id, { onDelete: "cascade" }),
    environmentId: bigint("environment_id", { mode: "number" })
      .notNull()
      .references(() => environments.id, { onDelete: "cascade" }),
    policyId: integer("policy_id")
      .notNull()
      .references(() => policies.id, { onDelete: "cascade" }),
    category: text("category").notNull(),
    /** the rollout's failure_signature, '' for none */
    signature: text("signature").notNull(),
    n: integer("n").notNull(),
    /** the smallest rollout id of the group (the cluster's exemplar for this environment) */
    firstRolloutId: bigint("first_rollout_id", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.environmentId, t.policyId, t.category, t.signature] })],
);

/** Behaviours of failed rollouts per generation × environment × policy × behaviour, kept like rollout_aggregates. */
export const behaviourAggregates = pgTable(
  "behaviour_aggregates",
  {
    generationId: integer("generation_id")
      .notNull()
      .references(() => generations.id, { onDelete: "cascade" }),
    environmentId: bigint("environment_id", { mode: "number" })
      .notNull()
      .references(() => environments.id, { onDelete: "cascade" }),
    policyId: integer("policy_id")
      .notNull()
      .references(() => policies.id, { onDelete: "cascade" }),
    behaviour: text("behaviour").notNull(),
    n: integer("n").notNull(),
    firstRolloutId: bigint("first_rollout_id", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.environmentId, t.policyId, t.behaviour] })],
);

/** Rollouts per generation × policy × error type the source reported (passing ones included), kept like rollout_aggregates. */
export const exceptionAggregates = pgTable(
  "exception_aggregates",
  {
    generationId: integer("generation_id")
      .notNull()
      .references(() => generations.id, { onDelete: "cascade" }),
    policyId: integer("policy_id")
      .notNull()
      .references(() => policies.id, { onDelete: "cascade" }),
    errorType: text("error_type").notNull(),
    n: integer("n").notNull(),
    successes: integer("successes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.policyId, t.errorType] })],
);

/**
 * The search document of a rollout: its ids, error, trajectory text (messages, tool calls, tool
 * outputs) and verifier output, kept by database triggers (drizzle/0015_rollout_search.sql) on every insert into
 * rollouts and rollout_payloads; full-text (tsv) and trigram (body) GIN indexes answer the explorer's `q`.
 */
export const rolloutSearch = pgTable(
  "rollout_search",
  {
    rolloutId: bigint("rollout_id", { mode: "number" })
      .primaryKey()
      .references(() => rollouts.id, { onDelete: "cascade" }),
    projectId: integer("project_id").notNull(),
    body: text("body").notNull(),
    tsv: tsvector("tsv").notNull(),
  },
  (t) => [
    index("rollout_search_tsv_idx").using("gin", t.tsv),
    index("rollout_search_body_trgm_idx").using("gin", sql`${t.body} gin_trgm_ops`),
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

// ---------------------------------------------------------------- summaries, engineer runs, proposals

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
  (t) => [index("proposal_items_proposal_idx").on(t.proposalId, t.position)],
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

// ---------------------------------------------------------------- dispatch

export const dispatchTargets = pgTable(
  "dispatch_targets",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    kind: text("kind").notNull(), // sandbox | trainer
    adapter: text("adapter").notNull(), // local | webhook | ray | kubernetes | export
    config: jsonb("config").notNull(),
    // AES-256-GCM ciphertext of the target's secrets (ENVFORGE_SECRET_KEY); never returned by the API
    secretCiphertext: text("secret_ciphertext"),
    // or the NAME of an environment variable holding the secret (never its value)
    secretEnv: text("secret_env"),
    maxAttempts: integer("max_attempts").notNull().default(5),
    createdBy: text("created_by"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("dispatch_targets_project_name_uq").on(t.projectId, t.name)],
);

export const dispatches = pgTable(
  "dispatches",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    generationId: integer("generation_id")
      .notNull()
      .references(() => generations.id, { onDelete: "cascade" }),
    targetId: integer("target_id")
      .notNull()
      .references(() => dispatchTargets.id, { onDelete: "cascade" }),
    status: text("status").notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    externalId: text("external_id"),
    // the generation as delivered, frozen when the dispatch was created
    payload: jsonb("payload"),
    // the dispatch-scoped ingest key, encrypted with ENVFORGE_SECRET_KEY (every attempt sends the same key)
    callbackKeyCiphertext: text("callback_key_ciphertext"),
    // a worker holds the dispatch while it sends; another may take it over once the lease ran out
    leaseOwner: text("lease_owner"),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("dispatches_project_idx").on(t.projectId, t.createdAt)],
);

export const dispatchEvents = pgTable(
  "dispatch_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    dispatchId: uuid("dispatch_id")
      .notNull()
      .references(() => dispatches.id, { onDelete: "cascade" }),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    status: text("status").notNull(),
    message: text("message"),
    data: jsonb("data"),
  },
  (t) => [index("dispatch_events_dispatch_idx").on(t.dispatchId, t.at)],
);

// ---------------------------------------------------------------- audit (append-only, no foreign keys so it survives deletes)

export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    projectId: integer("project_id"),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    entity: text("entity").notNull(),
    entityId: text("entity_id").notNull(),
    before: jsonb("before"),
    after: jsonb("after"),
  },
  (t) => [index("audit_events_project_idx").on(t.projectId, t.id)],
);

// ---------------------------------------------------------------- annotations (project-defined labels, reviewers' notes on rollouts)

export const labels = pgTable(
  "labels",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("labels_project_name_uq").on(t.projectId, t.name)],
);

export const annotations = pgTable(
  "annotations",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    rolloutId: bigint("rollout_id", { mode: "number" })
      .notNull()
      .references(() => rollouts.id, { onDelete: "cascade" }),
    labelId: integer("label_id").references(() => labels.id, { onDelete: "restrict" }),
    score: doublePrecision("score"),
    note: text("note"),
    /** the trajectory message the annotation is about; null for the whole rollout */
    turn: integer("turn"),
    actor: text("actor").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("annotations_rollout_idx").on(t.rolloutId, t.id), index("annotations_label_idx").on(t.labelId, t.rolloutId)],
);

// ---------------------------------------------------------------- curriculum arena

export const arenaRuns = pgTable(
  "arena_runs",
  {
    id: serial("id").primaryKey(),
    // queued | running | succeeded | failed; an uploaded report is succeeded at once
    status: text("status").notNull().default("queued"),
    options: jsonb("options")
      .notNull()
      .default(sql`'{}'::jsonb`),
    progress: jsonb("progress"),
    report: jsonb("report"),
    error: text("error"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("arena_runs_created_idx").on(t.createdAt)],
);

// ---------------------------------------------------------------- explorer saved views

/** A user's named explorer filter in one project: the query string of the explorer's URL. */
export const savedViews = pgTable(
  "saved_views",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** the principal's actor name (user:<email> or key:<name>): views are private to it */
    owner: text("owner").notNull(),
    name: text("name").notNull(),
    query: text("query").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("saved_views_owner_name_uq").on(t.projectId, t.owner, t.name)],
);

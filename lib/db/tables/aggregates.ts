/** Sums of rollouts kept by triggers in the same transaction as every write (ADR 0005): what the dashboards read instead of scanning rollouts. */
import { bigint, index, integer, numeric, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { environments, generations, policies } from "./environments";

// the columns every aggregate is grouped by; each row goes when its generation, environment or policy does
const generationId = () =>
  integer("generation_id")
    .notNull()
    .references(() => generations.id, { onDelete: "cascade" });
const policyId = () =>
  integer("policy_id")
    .notNull()
    .references(() => policies.id, { onDelete: "cascade" });
const groupKey = () => ({
  generationId: generationId(),
  environmentId: bigint("environment_id", { mode: "number" })
    .notNull()
    .references(() => environments.id, { onDelete: "cascade" }),
  policyId: policyId(),
});

/**
 * Rollout sums per generation × environment × policy, kept by triggers on rollouts in the same
 * transaction as every insert, delete and update (drizzle/*_rollout_aggregates SQL; ADR 0005). The dashboards read these
 * instead of scanning rollouts; a row disappears when its last rollout does.
 */
export const rolloutAggregates = pgTable(
  "rollout_aggregates",
  {
    ...groupKey(),
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
    ...groupKey(),
    category: text("category").notNull(),
    /** the rollout's failure_signature, '' for none */
    signature: text("signature").notNull(),
    n: integer("n").notNull(),
    /** the smallest rollout id of the group (the cluster's exemplar for this environment) */
    firstRolloutId: bigint("first_rollout_id", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.generationId, t.environmentId, t.policyId, t.category, t.signature] }),
    // a cluster's rows in first-rollout order: its exemplars without sorting the generation's rows; environment and
    // policy trail the key so the failures view's walk is an index-only scan (no heap page per row: 48,000 -> 10,600
    // buffers for 3,200 clusters at 1,000,000 rollouts)
    index("failure_aggregates_cluster_walk_idx").on(t.generationId, t.category, t.signature, t.firstRolloutId, t.environmentId, t.policyId),
  ],
);

/** Behaviours of failed rollouts per generation × environment × policy × behaviour, kept like rollout_aggregates. */
export const behaviourAggregates = pgTable(
  "behaviour_aggregates",
  {
    ...groupKey(),
    behaviour: text("behaviour").notNull(),
    n: integer("n").notNull(),
    firstRolloutId: bigint("first_rollout_id", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.environmentId, t.policyId, t.behaviour] })],
);

/**
 * The failures view's behaviours as last read (migration 0029), a row per generation × policy × behaviour (policy 0: every
 * policy): its failed rollouts, environments, first environment keys and exemplar rollout ids. A trigger on
 * behaviour_aggregates keeps a row for every behaviour it holds and sets its figures back to NULL on every change; a read
 * computes the NULL ones and writes them back (lib/generations/analytics-repository.ts, behaviourCounts).
 */
export const behaviourSummaries = pgTable(
  "behaviour_summaries",
  {
    generationId: generationId(),
    /** a policy's id, or 0 for every policy of the generation */
    policyId: integer("policy_id").notNull(),
    behaviour: text("behaviour").notNull(),
    n: integer("n"),
    environments: integer("environments"),
    keys: text("keys").array(),
    firstIds: bigint("first_ids", { mode: "number" }).array(),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.policyId, t.behaviour] })],
);

/** Rollouts per generation × policy × error type the source reported (passing ones included), kept like rollout_aggregates. */
export const exceptionAggregates = pgTable(
  "exception_aggregates",
  {
    generationId: generationId(),
    policyId: policyId(),
    errorType: text("error_type").notNull(),
    n: integer("n").notNull(),
    successes: integer("successes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.policyId, t.errorType] })],
);

/** Failed rollouts per generation × policy × failure category, kept like rollout_aggregates (the dashboard's and failures' category counts). */
export const categoryAggregates = pgTable(
  "category_aggregates",
  {
    generationId: generationId(),
    policyId: policyId(),
    category: text("category").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.policyId, t.category] })],
);

/**
 * Failed rollouts per generation × policy × failure category × signature (a failure cluster), and on how many environments;
 * `policy_id` 0 is the cluster over every policy (its environments counted once however many policies failed there). Kept by
 * statement triggers on failure_aggregates (drizzle/0024), so the failures view reads a row per cluster instead of one per
 * environment of each cluster. No foreign key on policy_id (0 is no policy): a deleted policy's failure_aggregates rows go by
 * cascade and their trigger takes them out here.
 */
export const failureClusterAggregates = pgTable(
  "failure_cluster_aggregates",
  {
    generationId: generationId(),
    /** a policy's id, or 0 for every policy of the generation */
    policyId: integer("policy_id").notNull(),
    category: text("category").notNull(),
    signature: text("signature").notNull(),
    n: integer("n").notNull(),
    /** failure_aggregates rows of the cluster with n > 0, counted once per environment across policies for policy 0 */
    environments: integer("environments").notNull(),
    /**
     * The failures view's exemplars as last read (migration 0028): the smallest first rollout ids of the cluster's environments
     * and, for a cluster on fewer environments than exemplars, its smallest rollout ids. NULL until a read computes them, and
     * again after any other change of the row (a BEFORE UPDATE trigger), so a stored value always belongs to the row's counts.
     */
    exemplarFirstIds: bigint("exemplar_first_ids", { mode: "number" }).array(),
    exemplarSomeIds: bigint("exemplar_some_ids", { mode: "number" }).array(),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.policyId, t.category, t.signature] })],
);

/**
 * Rollouts per generation × policy × metric × value of their turns and output tokens (a rollout without the figure is
 * not counted), kept by the rollouts trigger with the other sums (drizzle/0031). The engineer summary's medians and p90s
 * (percentile_cont over a generation's rollouts, lib/analytics/percentile.ts) read these counts instead of scanning the
 * generation's rollouts: a million rows, 0.4 s of the database for every proposal (issue 19).
 */
export const valueAggregates = pgTable(
  "value_aggregates",
  {
    generationId: generationId(),
    policyId: policyId(),
    /** turns | output_tokens */
    metric: text("metric").notNull(),
    value: integer("value").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.policyId, t.metric, t.value] })],
);

CREATE TABLE "failure_aggregates" (
	"generation_id" integer NOT NULL,
	"environment_id" bigint NOT NULL,
	"policy_id" integer NOT NULL,
	"category" text NOT NULL,
	"signature" text NOT NULL,
	"n" integer NOT NULL,
	"first_rollout_id" bigint NOT NULL,
	CONSTRAINT "failure_aggregates_generation_id_environment_id_policy_id_category_signature_pk" PRIMARY KEY("generation_id","environment_id","policy_id","category","signature")
);
--> statement-breakpoint
CREATE TABLE "rollout_aggregates" (
	"generation_id" integer NOT NULL,
	"environment_id" bigint NOT NULL,
	"policy_id" integer NOT NULL,
	"n" integer NOT NULL,
	"successes" integer NOT NULL,
	"reward_sum" numeric NOT NULL,
	"infra_errors" integer NOT NULL,
	"errored" integer NOT NULL,
	"unrewarded" integer NOT NULL,
	"tests_passed" bigint NOT NULL,
	"tests_passed_n" integer NOT NULL,
	"tests_run" bigint NOT NULL,
	"tests_run_n" integer NOT NULL,
	"turns_sum" bigint NOT NULL,
	"input_tokens_sum" bigint NOT NULL,
	"output_tokens_sum" bigint NOT NULL,
	CONSTRAINT "rollout_aggregates_generation_id_environment_id_policy_id_pk" PRIMARY KEY("generation_id","environment_id","policy_id")
);
--> statement-breakpoint
ALTER TABLE "failure_aggregates" ADD CONSTRAINT "failure_aggregates_generation_id_generations_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "failure_aggregates" ADD CONSTRAINT "failure_aggregates_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "failure_aggregates" ADD CONSTRAINT "failure_aggregates_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rollout_aggregates" ADD CONSTRAINT "rollout_aggregates_generation_id_generations_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rollout_aggregates" ADD CONSTRAINT "rollout_aggregates_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rollout_aggregates" ADD CONSTRAINT "rollout_aggregates_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The sums of a set of rollouts per generation × environment × policy: one definition for the triggers and the backfill.
CREATE OR REPLACE FUNCTION envforge_rollout_sums_sql(rel text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT format($q$
    SELECT generation_id, environment_id, policy_id, count(*)::int AS n,
      count(*) FILTER (WHERE success)::int AS successes,
      coalesce(sum(reward::numeric), 0) AS reward_sum,
      count(*) FILTER (WHERE failure_category = 'infra_error')::int AS infra_errors,
      count(*) FILTER (WHERE status = 'errored')::int AS errored,
      count(*) FILTER (WHERE reward IS NULL)::int AS unrewarded,
      coalesce(sum(tests_passed), 0)::bigint AS tests_passed, count(tests_passed)::int AS tests_passed_n,
      coalesce(sum(tests_passed + tests_failed), 0)::bigint AS tests_run, count(tests_passed + tests_failed)::int AS tests_run_n,
      coalesce(sum(turns), 0)::bigint AS turns_sum,
      coalesce(sum(input_tokens), 0)::bigint AS input_tokens_sum,
      coalesce(sum(output_tokens), 0)::bigint AS output_tokens_sum
    FROM %I GROUP BY 1, 2, 3 ORDER BY 1, 2, 3$q$, rel)
$fn$;
--> statement-breakpoint
-- Failed rollouts of a set per generation × environment × policy × category × signature.
CREATE OR REPLACE FUNCTION envforge_failure_sums_sql(rel text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT format($q$
    SELECT generation_id, environment_id, policy_id, failure_category AS category, coalesce(failure_signature, '') AS signature,
      count(*)::int AS n, min(id) AS first_rollout_id
    FROM %I WHERE failure_category IS NOT NULL GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5$q$, rel)
$fn$;
--> statement-breakpoint
-- Statements that add the rows of a relation (a transition table, or rollouts for the backfill) to the aggregates.
CREATE OR REPLACE FUNCTION envforge_aggregates_add_sql(rel text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ARRAY[
    format($q$
    INSERT INTO rollout_aggregates AS a (generation_id, environment_id, policy_id, n, successes, reward_sum, infra_errors, errored, unrewarded,
      tests_passed, tests_passed_n, tests_run, tests_run_n, turns_sum, input_tokens_sum, output_tokens_sum)
    %s
    ON CONFLICT (generation_id, environment_id, policy_id) DO UPDATE SET
      n = a.n + excluded.n, successes = a.successes + excluded.successes, reward_sum = a.reward_sum + excluded.reward_sum,
      infra_errors = a.infra_errors + excluded.infra_errors, errored = a.errored + excluded.errored, unrewarded = a.unrewarded + excluded.unrewarded,
      tests_passed = a.tests_passed + excluded.tests_passed, tests_passed_n = a.tests_passed_n + excluded.tests_passed_n,
      tests_run = a.tests_run + excluded.tests_run, tests_run_n = a.tests_run_n + excluded.tests_run_n,
      turns_sum = a.turns_sum + excluded.turns_sum, input_tokens_sum = a.input_tokens_sum + excluded.input_tokens_sum,
      output_tokens_sum = a.output_tokens_sum + excluded.output_tokens_sum$q$, envforge_rollout_sums_sql(rel)),
    format($q$
    INSERT INTO failure_aggregates AS f (generation_id, environment_id, policy_id, category, signature, n, first_rollout_id)
    %s
    ON CONFLICT (generation_id, environment_id, policy_id, category, signature) DO UPDATE SET
      n = f.n + excluded.n, first_rollout_id = least(f.first_rollout_id, excluded.first_rollout_id)$q$, envforge_failure_sums_sql(rel))]
$fn$;
--> statement-breakpoint
-- Statements that take the rows of a transition table out of the aggregates; they never insert (a cascade may have removed the row already).
CREATE OR REPLACE FUNCTION envforge_aggregates_remove_sql(rel text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ARRAY[
    format($q$
    UPDATE rollout_aggregates a SET
      n = a.n - d.n, successes = a.successes - d.successes, reward_sum = a.reward_sum - d.reward_sum,
      infra_errors = a.infra_errors - d.infra_errors, errored = a.errored - d.errored, unrewarded = a.unrewarded - d.unrewarded,
      tests_passed = a.tests_passed - d.tests_passed, tests_passed_n = a.tests_passed_n - d.tests_passed_n,
      tests_run = a.tests_run - d.tests_run, tests_run_n = a.tests_run_n - d.tests_run_n,
      turns_sum = a.turns_sum - d.turns_sum, input_tokens_sum = a.input_tokens_sum - d.input_tokens_sum,
      output_tokens_sum = a.output_tokens_sum - d.output_tokens_sum
    FROM (%s) d
    WHERE a.generation_id = d.generation_id AND a.environment_id = d.environment_id AND a.policy_id = d.policy_id$q$, envforge_rollout_sums_sql(rel)),
    format($q$
    DELETE FROM rollout_aggregates WHERE n <= 0
      AND (generation_id, environment_id, policy_id) IN (SELECT generation_id, environment_id, policy_id FROM %I)$q$, rel),
    format($q$
    UPDATE failure_aggregates f SET n = f.n - d.n
    FROM (%s) d
    WHERE f.generation_id = d.generation_id AND f.environment_id = d.environment_id AND f.policy_id = d.policy_id
      AND f.category = d.category AND f.signature = d.signature$q$, envforge_failure_sums_sql(rel)),
    format($q$
    DELETE FROM failure_aggregates WHERE n <= 0
      AND (generation_id, environment_id, policy_id) IN (SELECT generation_id, environment_id, policy_id FROM %I)$q$, rel),
    -- a group that lost its smallest rollout id looks the new one up (the rollouts index on environment_id, policy_id finds it)
    format($q$
    UPDATE failure_aggregates f SET first_rollout_id = (
        SELECT min(r.id) FROM rollouts r
        WHERE r.generation_id = f.generation_id AND r.environment_id = f.environment_id AND r.policy_id = f.policy_id
          AND r.failure_category = f.category AND coalesce(r.failure_signature, '') = f.signature)
      WHERE f.first_rollout_id IN (SELECT id FROM %I)$q$, rel)]
$fn$;
--> statement-breakpoint
-- Transition tables are visible only to the trigger function itself, so it runs the statements (EXECUTE) here.
CREATE OR REPLACE FUNCTION envforge_rollout_aggregates_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  stmt text;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM rollout_aggregates;
    DELETE FROM failure_aggregates;
    RETURN NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    FOREACH stmt IN ARRAY envforge_aggregates_remove_sql('old_rows') LOOP
      EXECUTE stmt;
    END LOOP;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    FOREACH stmt IN ARRAY envforge_aggregates_add_sql('new_rows') LOOP
      EXECUTE stmt;
    END LOOP;
  END IF;
  RETURN NULL;
END;
$fn$;
--> statement-breakpoint
CREATE TRIGGER rollouts_aggregates_insert AFTER INSERT ON rollouts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollout_aggregates_trigger();
--> statement-breakpoint
CREATE TRIGGER rollouts_aggregates_delete AFTER DELETE ON rollouts REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollout_aggregates_trigger();
--> statement-breakpoint
CREATE TRIGGER rollouts_aggregates_update AFTER UPDATE ON rollouts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollout_aggregates_trigger();
--> statement-breakpoint
CREATE TRIGGER rollouts_aggregates_truncate AFTER TRUNCATE ON rollouts
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollout_aggregates_trigger();
--> statement-breakpoint
-- Backfill: the rollouts already stored (the triggers above hold the lock that keeps new ones out until this commits).
DO $$
DECLARE
  stmt text;
BEGIN
  FOREACH stmt IN ARRAY envforge_aggregates_add_sql('rollouts') LOOP
    EXECUTE stmt;
  END LOOP;
END;
$$;

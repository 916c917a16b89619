CREATE TABLE "behaviour_aggregates" (
	"generation_id" integer NOT NULL,
	"environment_id" bigint NOT NULL,
	"policy_id" integer NOT NULL,
	"behaviour" text NOT NULL,
	"n" integer NOT NULL,
	"first_rollout_id" bigint NOT NULL,
	CONSTRAINT "behaviour_aggregates_generation_id_environment_id_policy_id_behaviour_pk" PRIMARY KEY("generation_id","environment_id","policy_id","behaviour")
);
--> statement-breakpoint
CREATE TABLE "exception_aggregates" (
	"generation_id" integer NOT NULL,
	"policy_id" integer NOT NULL,
	"error_type" text NOT NULL,
	"n" integer NOT NULL,
	"successes" integer NOT NULL,
	CONSTRAINT "exception_aggregates_generation_id_policy_id_error_type_pk" PRIMARY KEY("generation_id","policy_id","error_type")
);
--> statement-breakpoint
ALTER TABLE "behaviour_aggregates" ADD CONSTRAINT "behaviour_aggregates_generation_id_generations_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "behaviour_aggregates" ADD CONSTRAINT "behaviour_aggregates_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "behaviour_aggregates" ADD CONSTRAINT "behaviour_aggregates_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exception_aggregates" ADD CONSTRAINT "exception_aggregates_generation_id_generations_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exception_aggregates" ADD CONSTRAINT "exception_aggregates_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Behaviours of failed rollouts per generation × environment × policy × behaviour.
CREATE OR REPLACE FUNCTION envforge_behaviour_sums_sql(rel text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT format($q$
    SELECT r.generation_id, r.environment_id, r.policy_id, b AS behaviour, count(*)::int AS n, min(r.id) AS first_rollout_id
    FROM %I r CROSS JOIN LATERAL unnest(r.behaviours) AS b
    WHERE NOT r.success GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4$q$, rel)
$fn$;
--> statement-breakpoint
-- Error types of rollouts (passing ones included) per generation × policy × error type.
CREATE OR REPLACE FUNCTION envforge_exception_sums_sql(rel text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT format($q$
    SELECT generation_id, policy_id, error_type, count(*)::int AS n, count(*) FILTER (WHERE success)::int AS successes
    FROM %I WHERE error_type IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3$q$, rel)
$fn$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION envforge_facets_add_sql(rel text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ARRAY[
    format($q$
    INSERT INTO behaviour_aggregates AS f (generation_id, environment_id, policy_id, behaviour, n, first_rollout_id)
    %s
    ON CONFLICT (generation_id, environment_id, policy_id, behaviour) DO UPDATE SET
      n = f.n + excluded.n, first_rollout_id = least(f.first_rollout_id, excluded.first_rollout_id)$q$, envforge_behaviour_sums_sql(rel)),
    format($q$
    INSERT INTO exception_aggregates AS f (generation_id, policy_id, error_type, n, successes)
    %s
    ON CONFLICT (generation_id, policy_id, error_type) DO UPDATE SET
      n = f.n + excluded.n, successes = f.successes + excluded.successes$q$, envforge_exception_sums_sql(rel))]
$fn$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION envforge_facets_remove_sql(rel text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ARRAY[
    format($q$
    UPDATE behaviour_aggregates f SET n = f.n - d.n
    FROM (%s) d
    WHERE f.generation_id = d.generation_id AND f.environment_id = d.environment_id AND f.policy_id = d.policy_id
      AND f.behaviour = d.behaviour$q$, envforge_behaviour_sums_sql(rel)),
    format($q$
    DELETE FROM behaviour_aggregates WHERE n <= 0
      AND (generation_id, environment_id, policy_id) IN (SELECT generation_id, environment_id, policy_id FROM %I)$q$, rel),
    format($q$
    UPDATE behaviour_aggregates f SET first_rollout_id = (
        SELECT min(r.id) FROM rollouts r
        WHERE r.generation_id = f.generation_id AND r.environment_id = f.environment_id AND r.policy_id = f.policy_id
          AND NOT r.success AND f.behaviour = ANY (r.behaviours))
      WHERE f.first_rollout_id IN (SELECT id FROM %I)$q$, rel),
    format($q$
    UPDATE exception_aggregates f SET n = f.n - d.n, successes = f.successes - d.successes
    FROM (%s) d
    WHERE f.generation_id = d.generation_id AND f.policy_id = d.policy_id AND f.error_type = d.error_type$q$, envforge_exception_sums_sql(rel)),
    format($q$
    DELETE FROM exception_aggregates WHERE n <= 0 AND (generation_id, policy_id) IN (SELECT generation_id, policy_id FROM %I)$q$, rel)]
$fn$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION envforge_rollout_aggregates_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  stmt text;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM rollout_aggregates;
    DELETE FROM failure_aggregates;
    DELETE FROM behaviour_aggregates;
    DELETE FROM exception_aggregates;
    RETURN NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    FOREACH stmt IN ARRAY envforge_aggregates_remove_sql('old_rows') || envforge_facets_remove_sql('old_rows') LOOP
      EXECUTE stmt;
    END LOOP;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    FOREACH stmt IN ARRAY envforge_aggregates_add_sql('new_rows') || envforge_facets_add_sql('new_rows') LOOP
      EXECUTE stmt;
    END LOOP;
  END IF;
  RETURN NULL;
END;
$fn$;
--> statement-breakpoint
-- Backfill (the trigger is already in place and took the table's lock with the first migration's; this one locks it explicitly).
LOCK TABLE rollouts IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
DO $$
DECLARE
  stmt text;
BEGIN
  FOREACH stmt IN ARRAY envforge_facets_add_sql('rollouts') LOOP
    EXECUTE stmt;
  END LOOP;
END;
$$;

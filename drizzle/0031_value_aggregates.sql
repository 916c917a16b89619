CREATE TABLE "value_aggregates" (
	"generation_id" integer NOT NULL,
	"policy_id" integer NOT NULL,
	"metric" text NOT NULL,
	"value" integer NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "value_aggregates_generation_id_policy_id_metric_value_pk" PRIMARY KEY("generation_id","policy_id","metric","value")
);
--> statement-breakpoint
ALTER TABLE "value_aggregates" ADD CONSTRAINT "value_aggregates_generation_id_generations_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "value_aggregates" ADD CONSTRAINT "value_aggregates_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Rollouts per generation × policy × metric × value of turns and output tokens: the engineer summary's percentiles read
-- these counts instead of scanning a generation's rollouts. One pass over the changed rows gives both metrics.
CREATE OR REPLACE FUNCTION envforge_value_sums_sql(rel text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT format($q$
    SELECT r.generation_id, r.policy_id, v.metric, v.value, count(*)::int AS n
    FROM %I r CROSS JOIN LATERAL (VALUES ('turns', r.turns), ('output_tokens', r.output_tokens)) v(metric, value)
    WHERE v.value IS NOT NULL GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4$q$, rel)
$fn$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION envforge_values_add_sql(rel text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ARRAY[
    format($q$
    INSERT INTO value_aggregates AS f (generation_id, policy_id, metric, value, n)
    %s
    ON CONFLICT (generation_id, policy_id, metric, value) DO UPDATE SET n = f.n + excluded.n$q$, envforge_value_sums_sql(rel))]
$fn$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION envforge_values_remove_sql(rel text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ARRAY[
    format($q$
    UPDATE value_aggregates f SET n = f.n - d.n
    FROM (%s) d
    WHERE f.generation_id = d.generation_id AND f.policy_id = d.policy_id AND f.metric = d.metric AND f.value = d.value$q$,
      envforge_value_sums_sql(rel)),
    format($q$
    DELETE FROM value_aggregates WHERE n <= 0 AND (generation_id, policy_id) IN (SELECT generation_id, policy_id FROM %I)$q$, rel)]
$fn$;
--> statement-breakpoint
-- 0017's trigger with the value counts added on each side
CREATE OR REPLACE FUNCTION envforge_rollout_aggregates_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  stmt text;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM rollout_aggregates;
    DELETE FROM failure_aggregates;
    DELETE FROM behaviour_aggregates;
    DELETE FROM exception_aggregates;
    DELETE FROM category_aggregates;
    DELETE FROM value_aggregates;
    RETURN NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    FOREACH stmt IN ARRAY envforge_aggregates_remove_sql('old_rows') || envforge_facets_remove_sql('old_rows')
        || envforge_categories_remove_sql('old_rows') || envforge_values_remove_sql('old_rows') LOOP
      EXECUTE stmt;
    END LOOP;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    FOREACH stmt IN ARRAY envforge_aggregates_add_sql('new_rows') || envforge_facets_add_sql('new_rows')
        || envforge_categories_add_sql('new_rows') || envforge_values_add_sql('new_rows') LOOP
      EXECUTE stmt;
    END LOOP;
  END IF;
  RETURN NULL;
END;
$fn$;
--> statement-breakpoint
-- the backfill counts every stored rollout; no write may slip between it and the trigger's first count
LOCK TABLE rollouts IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
DO $$
DECLARE
  stmt text;
BEGIN
  FOREACH stmt IN ARRAY envforge_values_add_sql('rollouts') LOOP
    EXECUTE stmt;
  END LOOP;
END;
$$;

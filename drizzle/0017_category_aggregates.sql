CREATE TABLE "category_aggregates" (
	"generation_id" integer NOT NULL,
	"policy_id" integer NOT NULL,
	"category" text NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "category_aggregates_generation_id_policy_id_category_pk" PRIMARY KEY("generation_id","policy_id","category")
);
--> statement-breakpoint
ALTER TABLE "category_aggregates" ADD CONSTRAINT "category_aggregates_generation_id_generations_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "category_aggregates" ADD CONSTRAINT "category_aggregates_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Failed rollouts per generation × policy × failure category: the category counts of the dashboard and the failures view
-- read these few rows instead of summing failure_aggregates (one row per environment × signature).
CREATE OR REPLACE FUNCTION envforge_category_sums_sql(rel text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT format($q$
    SELECT generation_id, policy_id, failure_category AS category, count(*)::int AS n
    FROM %I WHERE failure_category IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3$q$, rel)
$fn$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION envforge_categories_add_sql(rel text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ARRAY[
    format($q$
    INSERT INTO category_aggregates AS f (generation_id, policy_id, category, n)
    %s
    ON CONFLICT (generation_id, policy_id, category) DO UPDATE SET n = f.n + excluded.n$q$, envforge_category_sums_sql(rel))]
$fn$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION envforge_categories_remove_sql(rel text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ARRAY[
    format($q$
    UPDATE category_aggregates f SET n = f.n - d.n
    FROM (%s) d
    WHERE f.generation_id = d.generation_id AND f.policy_id = d.policy_id AND f.category = d.category$q$, envforge_category_sums_sql(rel)),
    format($q$
    DELETE FROM category_aggregates WHERE n <= 0 AND (generation_id, policy_id) IN (SELECT generation_id, policy_id FROM %I)$q$, rel)]
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
    DELETE FROM category_aggregates;
    RETURN NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    FOREACH stmt IN ARRAY envforge_aggregates_remove_sql('old_rows') || envforge_facets_remove_sql('old_rows')
        || envforge_categories_remove_sql('old_rows') LOOP
      EXECUTE stmt;
    END LOOP;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    FOREACH stmt IN ARRAY envforge_aggregates_add_sql('new_rows') || envforge_facets_add_sql('new_rows')
        || envforge_categories_add_sql('new_rows') LOOP
      EXECUTE stmt;
    END LOOP;
  END IF;
  RETURN NULL;
END;
$fn$;
--> statement-breakpoint
-- Backfill, with writes to rollouts held off until this commits (no row missed or counted twice).
LOCK TABLE rollouts IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
DO $$
DECLARE
  stmt text;
BEGIN
  FOREACH stmt IN ARRAY envforge_categories_add_sql('rollouts') LOOP
    EXECUTE stmt;
  END LOOP;
END;
$$;

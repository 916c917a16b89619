CREATE TABLE "behaviour_summaries" (
	"generation_id" integer NOT NULL,
	"policy_id" integer NOT NULL,
	"behaviour" text NOT NULL,
	"n" integer,
	"environments" integer,
	"keys" text[],
	"first_ids" bigint[],
	CONSTRAINT "behaviour_summaries_generation_id_policy_id_behaviour_pk" PRIMARY KEY("generation_id","policy_id","behaviour")
);
--> statement-breakpoint
ALTER TABLE "behaviour_summaries" ADD CONSTRAINT "behaviour_summaries_generation_id_generations_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- A row per generation × policy × behaviour that behaviour_aggregates holds (and policy 0 for every policy), its figures set
-- back to NULL by every change of its behaviour_aggregates rows: a new version of the row each time, so a read that computed
-- the figures from an older snapshot cannot store them (lib/generations/analytics-repository.ts writes back only over the
-- version it read). Rows are inserted only for inserted behaviour_aggregates rows (a generation being deleted may have lost
-- its row already); a behaviour whose last rollout went keeps its row, and a read stores n = 0 for it.
CREATE OR REPLACE FUNCTION envforge_behaviour_summaries_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM behaviour_summaries;
    RETURN NULL;
  END IF;
  -- the project lock of failure_cluster_aggregates' trigger (0024), taken in the same statement of an ingest: one writer of a
  -- project's rows at a time, so two writers never lock these rows in crossing orders
  IF TG_OP = 'INSERT' THEN
    PERFORM pg_advisory_xact_lock(1717, p.project_id) FROM (
      SELECT DISTINCT g.project_id FROM generations g WHERE g.id IN (SELECT generation_id FROM new_rows) ORDER BY 1) p;
    INSERT INTO behaviour_summaries AS s (generation_id, policy_id, behaviour)
    SELECT DISTINCT x.generation_id, v.policy_id, x.behaviour
    FROM new_rows x CROSS JOIN LATERAL (VALUES (x.policy_id), (0)) v(policy_id) ORDER BY 1, 2, 3
    ON CONFLICT (generation_id, policy_id, behaviour) DO UPDATE SET n = NULL, environments = NULL, keys = NULL, first_ids = NULL;
  ELSE
    PERFORM pg_advisory_xact_lock(1717, p.project_id) FROM (
      SELECT DISTINCT g.project_id FROM generations g WHERE g.id IN (SELECT generation_id FROM old_rows) ORDER BY 1) p;
    UPDATE behaviour_summaries s SET n = NULL, environments = NULL, keys = NULL, first_ids = NULL
    FROM (SELECT DISTINCT x.generation_id, v.policy_id, x.behaviour
          FROM old_rows x CROSS JOIN LATERAL (VALUES (x.policy_id), (0)) v(policy_id)) k
    WHERE s.generation_id = k.generation_id AND s.policy_id = k.policy_id AND s.behaviour = k.behaviour;
  END IF;
  RETURN NULL;
END;
$fn$;
--> statement-breakpoint
CREATE TRIGGER behaviour_aggregates_summaries_insert AFTER INSERT ON behaviour_aggregates REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_behaviour_summaries_trigger();
--> statement-breakpoint
CREATE TRIGGER behaviour_aggregates_summaries_update AFTER UPDATE ON behaviour_aggregates REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_behaviour_summaries_trigger();
--> statement-breakpoint
CREATE TRIGGER behaviour_aggregates_summaries_delete AFTER DELETE ON behaviour_aggregates REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_behaviour_summaries_trigger();
--> statement-breakpoint
CREATE TRIGGER behaviour_aggregates_summaries_truncate AFTER TRUNCATE ON behaviour_aggregates
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_behaviour_summaries_trigger();
--> statement-breakpoint
-- Backfill after the triggers exist: creating them locked behaviour_aggregates against writes until this commits.
INSERT INTO behaviour_summaries (generation_id, policy_id, behaviour)
SELECT DISTINCT a.generation_id, v.policy_id, a.behaviour
FROM behaviour_aggregates a CROSS JOIN LATERAL (VALUES (a.policy_id), (0)) v(policy_id) ORDER BY 1, 2, 3;

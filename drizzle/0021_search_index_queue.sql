CREATE TABLE "rollout_search_pending" (
	"rollout_id" bigint PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "rollout_search_pending_project_idx" ON "rollout_search_pending" USING btree ("project_id");--> statement-breakpoint
-- Hand-written below the generated part (ADR 0007): search documents leave the write transaction. Ingest only notes
-- which rollouts need one (a two-column row, one statement per insert); the search indexer (lib/rollouts/search-index.ts)
-- writes each document once, with its trajectory, in batches, and deletes the note in the same transaction.
DROP TRIGGER IF EXISTS rollouts_search_insert ON rollouts;
--> statement-breakpoint
DROP TRIGGER IF EXISTS rollout_payloads_search_insert ON rollout_payloads;
--> statement-breakpoint
DROP TRIGGER IF EXISTS rollout_payloads_search_update ON rollout_payloads;
--> statement-breakpoint
DROP FUNCTION IF EXISTS envforge_rollout_search_from_rollouts();
--> statement-breakpoint
DROP FUNCTION IF EXISTS envforge_rollout_search_from_payloads();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION envforge_search_pending_from_rollouts() RETURNS trigger AS $$
BEGIN
  INSERT INTO rollout_search_pending (rollout_id, project_id) SELECT n.id, n.project_id FROM new_rows n
  ON CONFLICT (rollout_id) DO NOTHING;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
-- a payload written or rewritten after its rollout was indexed (same transaction as the rollout: the note is already there)
CREATE OR REPLACE FUNCTION envforge_search_pending_from_payloads() RETURNS trigger AS $$
BEGIN
  INSERT INTO rollout_search_pending (rollout_id, project_id)
  SELECT d.rollout_id, d.project_id FROM (
    SELECT p.rollout_id, (SELECT r.project_id FROM rollouts r WHERE r.id = p.rollout_id) AS project_id FROM new_rows p
    WHERE NOT EXISTS (SELECT 1 FROM rollout_search_pending q WHERE q.rollout_id = p.rollout_id)) d
  WHERE d.project_id IS NOT NULL
  ON CONFLICT (rollout_id) DO NOTHING;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
-- a searched column changed (never on the ingest path: ingest only inserts); row-level because a column list
-- and a transition table do not go together
CREATE OR REPLACE FUNCTION envforge_search_pending_from_rollout_update() RETURNS trigger AS $$
BEGIN
  INSERT INTO rollout_search_pending (rollout_id, project_id) VALUES (NEW.id, NEW.project_id) ON CONFLICT (rollout_id) DO NOTHING;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER rollouts_search_pending_insert AFTER INSERT ON rollouts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_search_pending_from_rollouts();
--> statement-breakpoint
CREATE TRIGGER rollout_payloads_search_pending_insert AFTER INSERT ON rollout_payloads REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_search_pending_from_payloads();
--> statement-breakpoint
CREATE TRIGGER rollout_payloads_search_pending_update AFTER UPDATE ON rollout_payloads REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_search_pending_from_payloads();
--> statement-breakpoint
CREATE TRIGGER rollouts_search_pending_update AFTER UPDATE OF project_id, environment_id, external_id, trial_name, error_type, error_message
  ON rollouts FOR EACH ROW
  WHEN (ROW(OLD.project_id, OLD.environment_id, OLD.external_id, OLD.trial_name, OLD.error_type, OLD.error_message)
    IS DISTINCT FROM ROW(NEW.project_id, NEW.environment_id, NEW.external_id, NEW.trial_name, NEW.error_type, NEW.error_message))
  EXECUTE FUNCTION envforge_search_pending_from_rollout_update();
--> statement-breakpoint
-- rollouts stored without a document (none when the old triggers ran, but a restore or a COPY with triggers off may leave some)
INSERT INTO rollout_search_pending (rollout_id, project_id)
SELECT r.id, r.project_id FROM rollouts r WHERE NOT EXISTS (SELECT 1 FROM rollout_search s WHERE s.rollout_id = r.id)
ON CONFLICT (rollout_id) DO NOTHING;

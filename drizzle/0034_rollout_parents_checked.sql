ALTER TABLE "rollouts" DROP CONSTRAINT "rollouts_generation_id_generations_id_fk";
--> statement-breakpoint
ALTER TABLE "rollouts" DROP CONSTRAINT "rollouts_environment_id_environments_id_fk";
--> statement-breakpoint
ALTER TABLE "rollouts" DROP CONSTRAINT "rollouts_policy_id_policies_id_fk";
--> statement-breakpoint
-- The three foreign keys above were checked row by row: RI_FKey_check ran one query per key for every inserted rollout
-- (3,000 for a batch of 1,000; about a tenth of the database's CPU through the ingest API, a perf profile of
-- bench:ingest). This checks a statement's rows at once and is stricter: the generation, environment and policy must
-- be of the rollout's own project (no key did that). The parents are locked as a foreign key locks them (FOR KEY
-- SHARE), each once, so a concurrent delete waits for the insert's commit or makes it fail. project_id keeps its key.
CREATE OR REPLACE FUNCTION envforge_rollout_parents_check() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  bad record;
BEGIN
  PERFORM 1 FROM generations g WHERE g.id IN (SELECT generation_id FROM new_rows) FOR KEY SHARE;
  PERFORM 1 FROM environments e WHERE e.id IN (SELECT environment_id FROM new_rows) FOR KEY SHARE;
  PERFORM 1 FROM policies p WHERE p.id IN (SELECT policy_id FROM new_rows) FOR KEY SHARE;
  SELECT n.id, n.project_id, n.generation_id, n.environment_id, n.policy_id,
      g.id IS NULL AS no_generation, e.id IS NULL AS no_environment
    INTO bad
    FROM new_rows n
      LEFT JOIN generations g ON g.id = n.generation_id AND g.project_id = n.project_id
      LEFT JOIN environments e ON e.id = n.environment_id AND e.project_id = n.project_id
      LEFT JOIN policies p ON p.id = n.policy_id AND p.project_id = n.project_id
    WHERE g.id IS NULL OR e.id IS NULL OR p.id IS NULL
    LIMIT 1;
  IF FOUND THEN
    IF bad.no_generation THEN
      RAISE EXCEPTION 'rollout %: generation_id % is not a generation of project %', bad.id, bad.generation_id, bad.project_id
        USING ERRCODE = 'foreign_key_violation', TABLE = 'rollouts', COLUMN = 'generation_id';
    ELSIF bad.no_environment THEN
      RAISE EXCEPTION 'rollout %: environment_id % is not an environment of project %', bad.id, bad.environment_id, bad.project_id
        USING ERRCODE = 'foreign_key_violation', TABLE = 'rollouts', COLUMN = 'environment_id';
    ELSE
      RAISE EXCEPTION 'rollout %: policy_id % is not a policy of project %', bad.id, bad.policy_id, bad.project_id
        USING ERRCODE = 'foreign_key_violation', TABLE = 'rollouts', COLUMN = 'policy_id';
    END IF;
  END IF;
  RETURN NULL;
END;
$fn$;
--> statement-breakpoint
-- statement triggers fire in the order of their names: "rollout_parents" sorts before "rollouts_aggregates", so a parent
-- that does not exist is reported here, by column, before the aggregate tables' keys refuse it
CREATE TRIGGER rollout_parents_insert AFTER INSERT ON rollouts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollout_parents_check();
--> statement-breakpoint
-- nothing in the app moves a rollout to another parent, but an UPDATE is checked all the same (over the rows it updated)
CREATE TRIGGER rollout_parents_update AFTER UPDATE ON rollouts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollout_parents_check();
--> statement-breakpoint
-- what ON DELETE CASCADE did: deleting a generation, environment or policy deletes its rollouts (one statement for all the
-- deleted parents, not one per row; a project's deletion still reaches its rollouts through project_id's key)
CREATE OR REPLACE FUNCTION envforge_rollouts_of_deleted_parents() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_TABLE_NAME = 'generations' THEN
    DELETE FROM rollouts WHERE generation_id IN (SELECT id FROM old_rows);
  ELSIF TG_TABLE_NAME = 'environments' THEN
    DELETE FROM rollouts WHERE environment_id IN (SELECT id FROM old_rows);
  ELSIF TG_TABLE_NAME = 'policies' THEN
    DELETE FROM rollouts WHERE policy_id IN (SELECT id FROM old_rows);
  END IF;
  RETURN NULL;
END;
$fn$;
--> statement-breakpoint
CREATE TRIGGER generations_rollouts_delete AFTER DELETE ON generations REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollouts_of_deleted_parents();
--> statement-breakpoint
CREATE TRIGGER environments_rollouts_delete AFTER DELETE ON environments REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollouts_of_deleted_parents();
--> statement-breakpoint
CREATE TRIGGER policies_rollouts_delete AFTER DELETE ON policies REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollouts_of_deleted_parents();

-- ADR 0008: a search inside one generation reads that generation's part only. The explorer's orders get
-- generation-keyed twins of rollouts_project_*_idx, and rollout_search becomes a table partitioned by generation
-- (one table and one pair of GIN indexes per generation). Hand-written: Drizzle does not model partitioning.
CREATE INDEX "rollouts_generation_reward_idx" ON "rollouts" USING btree ("generation_id",coalesce("reward", '-Infinity'::float8),"id");--> statement-breakpoint
CREATE INDEX "rollouts_generation_turns_idx" ON "rollouts" USING btree ("generation_id",coalesce("turns", -1),"id");--> statement-breakpoint
CREATE INDEX "rollouts_generation_tokens_idx" ON "rollouts" USING btree ("generation_id",(coalesce("input_tokens", 0) + coalesce("output_tokens", 0)),"id");--> statement-breakpoint
CREATE INDEX "rollouts_generation_duration_idx" ON "rollouts" USING btree ("generation_id",coalesce(extract(epoch from ("finished_at" - "started_at")), -1::numeric),"id");--> statement-breakpoint
-- the documents as they are, set aside (their GIN indexes are rebuilt per partition below)
DROP INDEX "rollout_search_tsv_idx";--> statement-breakpoint
DROP INDEX "rollout_search_body_trgm_idx";--> statement-breakpoint
ALTER TABLE "rollout_search" DROP CONSTRAINT "rollout_search_rollout_id_rollouts_id_fk";--> statement-breakpoint
ALTER TABLE "rollout_search" RENAME TO "rollout_search_unpartitioned";--> statement-breakpoint
ALTER TABLE "rollout_search_unpartitioned" RENAME CONSTRAINT "rollout_search_pkey" TO "rollout_search_unpartitioned_pkey";--> statement-breakpoint
-- No foreign key to rollouts: attaching a partition would clone it, and adding a foreign key locks the referenced
-- table against inserts (SHARE ROW EXCLUSIVE), so a new generation's partition would wait for ingest and block it.
-- The trigger rollouts_search_delete below deletes a deleted rollout's document instead.
CREATE TABLE "rollout_search" (
	"rollout_id" bigint NOT NULL,
	"generation_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"body" text NOT NULL,
	"tsv" "tsvector" NOT NULL,
	CONSTRAINT "rollout_search_rollout_id_generation_id_pk" PRIMARY KEY("rollout_id","generation_id")
) PARTITION BY LIST ("generation_id");
--> statement-breakpoint
-- A partition (rollout_search_g<generation id>) for every generation that has none; returns how many it made.
-- CREATE TABLE + ATTACH takes SHARE UPDATE EXCLUSIVE on rollout_search (searches and the indexer's inserts go on),
-- where CREATE TABLE ... PARTITION OF would take ACCESS EXCLUSIVE. The indexer calls it before each batch.
CREATE OR REPLACE FUNCTION envforge_search_partitions() RETURNS integer AS $$
DECLARE
  parent regclass := 'rollout_search'::regclass;
  ns text;
  g integer;
  made integer := 0;
BEGIN
  SELECT n.nspname INTO ns FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = parent;
  FOR g IN SELECT gen.id FROM generations gen
      WHERE to_regclass(format('%I.%I', ns, 'rollout_search_g' || gen.id)) IS NULL ORDER BY gen.id LOOP
    -- two indexers at once: the second waits here, then sees the first one's partition
    PERFORM pg_advisory_xact_lock(727275, g);
    CONTINUE WHEN to_regclass(format('%I.%I', ns, 'rollout_search_g' || g)) IS NOT NULL;
    EXECUTE format('CREATE TABLE %I.%I (LIKE %s)', ns, 'rollout_search_g' || g, parent);
    EXECUTE format('ALTER TABLE %s ATTACH PARTITION %I.%I FOR VALUES IN (%s)', parent, ns, 'rollout_search_g' || g, g);
    made := made + 1;
  END LOOP;
  RETURN made;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
SELECT envforge_search_partitions();--> statement-breakpoint
-- the GIN indexes are built once per partition after the copy (faster than growing them row by row)
SET LOCAL maintenance_work_mem = '256MB';--> statement-breakpoint
INSERT INTO "rollout_search" (rollout_id, generation_id, project_id, body, tsv)
SELECT s.rollout_id, r.generation_id, s.project_id, s.body, s.tsv
FROM "rollout_search_unpartitioned" s JOIN rollouts r ON r.id = s.rollout_id;--> statement-breakpoint
DROP TABLE "rollout_search_unpartitioned";--> statement-breakpoint
CREATE INDEX "rollout_search_tsv_idx" ON "rollout_search" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "rollout_search_body_trgm_idx" ON "rollout_search" USING gin ("body" gin_trgm_ops);--> statement-breakpoint
-- a deleted rollout's document goes with it (what ON DELETE CASCADE did); statement-level, so a project's deletion
-- is one join, and the transition table's row count lets the planner look a few rows up by key
CREATE OR REPLACE FUNCTION envforge_search_delete_from_rollouts() RETURNS trigger AS $$
BEGIN
  DELETE FROM rollout_search s USING old_rows o WHERE s.rollout_id = o.id AND s.generation_id = o.generation_id;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER rollouts_search_delete AFTER DELETE ON rollouts REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_search_delete_from_rollouts();
--> statement-breakpoint
-- a rollout moved to another generation (no code path does it today): its document leaves the old partition and
-- the indexer writes it again in the new one
CREATE OR REPLACE FUNCTION envforge_search_move_generation() RETURNS trigger AS $$
BEGIN
  DELETE FROM rollout_search WHERE rollout_id = OLD.id AND generation_id = OLD.generation_id;
  INSERT INTO rollout_search_pending (rollout_id, project_id) VALUES (NEW.id, NEW.project_id) ON CONFLICT (rollout_id) DO NOTHING;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER rollouts_search_generation_update AFTER UPDATE OF generation_id ON rollouts FOR EACH ROW
  WHEN (OLD.generation_id IS DISTINCT FROM NEW.generation_id)
  EXECUTE FUNCTION envforge_search_move_generation();

-- Ingest writes a batch's payloads (and trajectory pages) before its rollouts (lib/ingest/store.ts): the rollouts insert
-- fires the aggregate triggers, which lock rows every concurrent batch of the same generation and policy shares, so it
-- goes last and holds those locks only until the commit instead of through the payloads' megabytes of JSON. The
-- rollout each payload and page points at exists by the commit; the check waits until then.
ALTER TABLE "rollout_payloads" ALTER CONSTRAINT "rollout_payloads_rollout_id_rollouts_id_fk" DEFERRABLE INITIALLY IMMEDIATE;
--> statement-breakpoint
ALTER TABLE "trajectory_pages" ALTER CONSTRAINT "trajectory_pages_rollout_id_rollouts_id_fk" DEFERRABLE INITIALLY IMMEDIATE;

-- pg_trgm ships with Postgres (contrib; trusted since 13) and with embedded-postgres: trigram indexes for substring search
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE TABLE "rollout_search" (
	"rollout_id" bigint PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"body" text NOT NULL,
	"tsv" "tsvector" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "saved_views" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"owner" text NOT NULL,
	"name" text NOT NULL,
	"query" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "rollout_search" ADD CONSTRAINT "rollout_search_rollout_id_rollouts_id_fk" FOREIGN KEY ("rollout_id") REFERENCES "public"."rollouts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_views" ADD CONSTRAINT "saved_views_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "rollout_search_tsv_idx" ON "rollout_search" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "rollout_search_body_trgm_idx" ON "rollout_search" USING gin ("body" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "saved_views_owner_name_uq" ON "saved_views" USING btree ("project_id","owner","name");--> statement-breakpoint
CREATE INDEX "rollouts_project_id_idx" ON "rollouts" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "rollouts_project_reward_idx" ON "rollouts" USING btree ("project_id",coalesce("reward", '-Infinity'::float8),"id");--> statement-breakpoint
CREATE INDEX "rollouts_project_turns_idx" ON "rollouts" USING btree ("project_id",coalesce("turns", -1),"id");--> statement-breakpoint
CREATE INDEX "rollouts_project_tokens_idx" ON "rollouts" USING btree ("project_id",(coalesce("input_tokens", 0) + coalesce("output_tokens", 0)),"id");--> statement-breakpoint
CREATE INDEX "rollouts_project_duration_idx" ON "rollouts" USING btree ("project_id",coalesce(extract(epoch from ("finished_at" - "started_at")), -1::numeric),"id");--> statement-breakpoint
CREATE INDEX "rollouts_behaviours_idx" ON "rollouts" USING gin ("behaviours");
--> statement-breakpoint
-- Search documents (hand-written below the generated part): every string of a trajectory (messages,
-- tool calls, tool outputs), in document order, as text.
CREATE OR REPLACE FUNCTION envforge_trajectory_text(trajectory jsonb) RETURNS text AS $$
  SELECT coalesce(string_agg(v #>> '{}', E'\n'), '')
  FROM jsonb_path_query(trajectory, 'strict $.**') AS v
  WHERE jsonb_typeof(v) = 'string'
$$ LANGUAGE sql IMMUTABLE PARALLEL SAFE;
--> statement-breakpoint
-- The searchable text of one rollout, capped at 256 KiB characters; \x01 and \x02 are freed for snippet marks.
CREATE OR REPLACE FUNCTION envforge_search_document(external_id text, trial_name text, environment_key text, error_type text,
  error_message text, trajectory jsonb, verifier_output text) RETURNS text AS $$
  SELECT left(translate(concat_ws(E'\n', external_id, trial_name, environment_key, error_type, error_message,
    envforge_trajectory_text(trajectory), verifier_output), E'\x01\x02', '  '), 262144)
$$ LANGUAGE sql IMMUTABLE PARALLEL SAFE;
--> statement-breakpoint
-- English full-text vector; a body whose lexemes pass tsvector's 1 MB limit is indexed by its first 32 KiB.
CREATE OR REPLACE FUNCTION envforge_search_tsvector(body text) RETURNS tsvector AS $$
BEGIN
  RETURN to_tsvector('english', body);
EXCEPTION WHEN program_limit_exceeded THEN
  RETURN to_tsvector('english', left(body, 32768));
END;
$$ LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION envforge_rollout_search_from_rollouts() RETURNS trigger AS $$
BEGIN
  INSERT INTO rollout_search (rollout_id, project_id, body, tsv)
  SELECT d.id, d.project_id, d.body, envforge_search_tsvector(d.body)
  FROM (SELECT n.id, n.project_id,
          envforge_search_document(n.external_id, n.trial_name, e.key, n.error_type, n.error_message, NULL, NULL) AS body
        FROM new_rows n JOIN environments e ON e.id = n.environment_id) d
  ON CONFLICT (rollout_id) DO NOTHING;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION envforge_rollout_search_from_payloads() RETURNS trigger AS $$
BEGIN
  INSERT INTO rollout_search AS s (rollout_id, project_id, body, tsv)
  SELECT d.id, d.project_id, d.body, envforge_search_tsvector(d.body)
  FROM (SELECT r.id, r.project_id,
          envforge_search_document(r.external_id, r.trial_name, e.key, r.error_type, r.error_message, p.trajectory, p.verifier_output) AS body
        FROM new_rows p JOIN rollouts r ON r.id = p.rollout_id JOIN environments e ON e.id = r.environment_id) d
  ON CONFLICT (rollout_id) DO UPDATE SET body = excluded.body, tsv = excluded.tsv;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER rollouts_search_insert AFTER INSERT ON rollouts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollout_search_from_rollouts();
--> statement-breakpoint
CREATE TRIGGER rollout_payloads_search_insert AFTER INSERT ON rollout_payloads REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollout_search_from_payloads();
--> statement-breakpoint
CREATE TRIGGER rollout_payloads_search_update AFTER UPDATE ON rollout_payloads REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_rollout_search_from_payloads();
--> statement-breakpoint
-- rollouts stored before this migration
INSERT INTO rollout_search (rollout_id, project_id, body, tsv)
SELECT d.id, d.project_id, d.body, envforge_search_tsvector(d.body)
FROM (SELECT r.id, r.project_id,
        envforge_search_document(r.external_id, r.trial_name, e.key, r.error_type, r.error_message, p.trajectory, p.verifier_output) AS body
      FROM rollouts r JOIN environments e ON e.id = r.environment_id LEFT JOIN rollout_payloads p ON p.rollout_id = r.id) d
ON CONFLICT (rollout_id) DO NOTHING;

CREATE TABLE "trajectory_pages" (
	"rollout_id" bigint NOT NULL,
	"page" integer NOT NULL,
	"message_count" integer NOT NULL,
	"messages" jsonb NOT NULL,
	"steps" jsonb NOT NULL,
	CONSTRAINT "trajectory_pages_rollout_id_page_pk" PRIMARY KEY("rollout_id","page")
);
--> statement-breakpoint
ALTER TABLE "trajectory_pages" ADD CONSTRAINT "trajectory_pages_rollout_id_rollouts_id_fk" FOREIGN KEY ("rollout_id") REFERENCES "public"."rollouts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Pages of the given rollouts' trajectories (hand-written below the generated part): messages in order,
-- page_size a row, with each page's timed steps (index, role, timestamp, usage) for the timeline.
CREATE OR REPLACE FUNCTION envforge_page_trajectories(ids bigint[], page_size integer) RETURNS void AS $$
  INSERT INTO trajectory_pages (rollout_id, page, message_count, messages, steps)
  SELECT p.rollout_id, ((e.ord - 1) / page_size)::int, count(*)::int, jsonb_agg(e.m ORDER BY e.ord),
         coalesce(jsonb_agg(jsonb_build_object('i', e.ord - 1, 'role', e.m -> 'role', 'at', e.m -> 'timestamp', 'usage', e.m -> 'usage')
                            ORDER BY e.ord) FILTER (WHERE e.m ? 'timestamp' OR e.m ? 'usage'), '[]'::jsonb)
  FROM rollout_payloads p CROSS JOIN LATERAL jsonb_array_elements(p.trajectory) WITH ORDINALITY AS e(m, ord)
  WHERE p.rollout_id = ANY(ids) AND jsonb_typeof(p.trajectory) = 'array'
  GROUP BY p.rollout_id, ((e.ord - 1) / page_size)::int
  ON CONFLICT (rollout_id, page) DO NOTHING
$$ LANGUAGE sql;
--> statement-breakpoint
-- long trajectories stored before this migration (over 1 MB of JSON; a stored (compressed) size over 32 KB filters first, without reading the values)
SELECT envforge_page_trajectories(coalesce(array_agg(rollout_id), '{}'), 100) FROM rollout_payloads
WHERE pg_column_size(trajectory) > 32768 AND octet_length(trajectory::text) > 1000000;

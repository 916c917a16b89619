CREATE TABLE "failure_cluster_aggregates" (
	"generation_id" integer NOT NULL,
	"policy_id" integer NOT NULL,
	"category" text NOT NULL,
	"signature" text NOT NULL,
	"n" integer NOT NULL,
	"environments" integer NOT NULL,
	CONSTRAINT "failure_cluster_aggregates_generation_id_policy_id_category_signature_pk" PRIMARY KEY("generation_id","policy_id","category","signature")
);
--> statement-breakpoint
ALTER TABLE "failure_cluster_aggregates" ADD CONSTRAINT "failure_cluster_aggregates_generation_id_generations_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The changes of one statement on failure_aggregates as signed rows: n and presence (n > 0) of each new row, minus those of each old row.
CREATE OR REPLACE FUNCTION envforge_failure_cluster_changes_sql(op text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT concat_ws(' UNION ALL ',
    CASE WHEN op IN ('INSERT', 'UPDATE') THEN
      'SELECT generation_id, environment_id, policy_id, category, signature, n AS dn, (n > 0)::int AS de FROM new_rows' END,
    CASE WHEN op IN ('DELETE', 'UPDATE') THEN
      'SELECT generation_id, environment_id, policy_id, category, signature, -n AS dn, -((n > 0)::int) AS de FROM old_rows' END)
$fn$;
--> statement-breakpoint
-- Keeps failure_cluster_aggregates equal to failure_aggregates summed per cluster (policy 0: over every policy). Cascades that
-- remove failure_aggregates rows come through here too. Rows are only inserted for growing clusters (a shrinking one whose
-- generation is being deleted may already be gone), updated in key order, and removed when their n reaches 0.
CREATE OR REPLACE FUNCTION envforge_failure_clusters_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  changes text := envforge_failure_cluster_changes_sql(TG_OP);
  per_policy text := format($q$
    SELECT generation_id, policy_id, category, signature, sum(dn)::int AS n, sum(de)::int AS environments
    FROM (%s) x GROUP BY 1, 2, 3, 4$q$, changes);
  all_policies text := format($q$
    SELECT generation_id, 0 AS policy_id, category, signature, sum(dn)::int AS n, 0 AS environments
    FROM (%s) x GROUP BY 1, 2, 3, 4$q$, changes);
  delta text;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM failure_cluster_aggregates;
    RETURN NULL;
  END IF;
  -- One writer of a project's clusters at a time, until it commits: an upsert of failure_aggregates fires this trigger twice
  -- (its inserted rows, then its updated ones, each possibly of other generations), so row locks taken in key order per call
  -- could still cross between two transactions and deadlock. Ingest inserts rollouts last in its transaction, so the wait is
  -- the rest of one commit. (A generation being deleted has no row left to name its project: nothing else writes it then.)
  EXECUTE format($q$
    SELECT pg_advisory_xact_lock(1717, p.project_id) FROM (
      SELECT DISTINCT g.project_id FROM generations g WHERE g.id IN (SELECT generation_id FROM (%s) x) ORDER BY 1) p$q$, changes);
  FOREACH delta IN ARRAY ARRAY[per_policy, all_policies] LOOP
    EXECUTE format($q$
      INSERT INTO failure_cluster_aggregates AS c (generation_id, policy_id, category, signature, n, environments)
      SELECT * FROM (%s) d WHERE d.n > 0 ORDER BY 1, 2, 3, 4
      ON CONFLICT (generation_id, policy_id, category, signature) DO UPDATE SET
        n = c.n + excluded.n, environments = c.environments + excluded.environments$q$, delta);
    EXECUTE format($q$
      UPDATE failure_cluster_aggregates c SET n = c.n + d.n, environments = c.environments + d.environments
      FROM (SELECT * FROM (%s) d0 WHERE d0.n <= 0 ORDER BY 1, 2, 3, 4) d
      WHERE c.generation_id = d.generation_id AND c.policy_id = d.policy_id AND c.category = d.category AND c.signature = d.signature$q$,
      delta);
  END LOOP;
  -- Environments over every policy: an environment enters a cluster when its first policy row appears, leaves when its last goes.
  -- Counted after the lock above, in a new snapshot: a concurrent transaction adding another policy's row for the same
  -- environment has committed by now, so the environment is counted once.
  EXECUTE format($q$
    UPDATE failure_cluster_aggregates c SET environments = c.environments + v.de
    FROM (
      SELECT k.generation_id, k.category, k.signature, sum((p.now > 0)::int - (p.now - k.changed > 0)::int)::int AS de
      FROM (SELECT generation_id, environment_id, category, signature, sum(de)::int AS changed
            FROM (%s) x GROUP BY 1, 2, 3, 4 HAVING sum(de) <> 0) k
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS now FROM failure_aggregates f
        WHERE f.generation_id = k.generation_id AND f.environment_id = k.environment_id
          AND f.category = k.category AND f.signature = k.signature AND f.n > 0) p
      GROUP BY 1, 2, 3) v
    WHERE c.generation_id = v.generation_id AND c.policy_id = 0 AND c.category = v.category AND c.signature = v.signature
      AND v.de <> 0$q$, changes);
  EXECUTE format($q$
    DELETE FROM failure_cluster_aggregates c USING (SELECT DISTINCT generation_id, category, signature FROM (%s) x) k
    WHERE c.n <= 0 AND c.generation_id = k.generation_id AND c.category = k.category AND c.signature = k.signature$q$, changes);
  RETURN NULL;
END;
$fn$;
--> statement-breakpoint
CREATE TRIGGER failure_aggregates_clusters_insert AFTER INSERT ON failure_aggregates REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_failure_clusters_trigger();
--> statement-breakpoint
CREATE TRIGGER failure_aggregates_clusters_delete AFTER DELETE ON failure_aggregates REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_failure_clusters_trigger();
--> statement-breakpoint
CREATE TRIGGER failure_aggregates_clusters_update AFTER UPDATE ON failure_aggregates REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_failure_clusters_trigger();
--> statement-breakpoint
CREATE TRIGGER failure_aggregates_clusters_truncate AFTER TRUNCATE ON failure_aggregates
  FOR EACH STATEMENT EXECUTE FUNCTION envforge_failure_clusters_trigger();
--> statement-breakpoint
-- The clusters of failure_aggregates as stored: one definition for the backfill and the tests.
CREATE OR REPLACE FUNCTION envforge_failure_clusters_backfill() RETURNS void LANGUAGE sql AS $fn$
  INSERT INTO failure_cluster_aggregates (generation_id, policy_id, category, signature, n, environments)
  SELECT generation_id, policy_id, category, signature, sum(n)::int, count(*)::int
  FROM failure_aggregates WHERE n > 0 GROUP BY 1, 2, 3, 4
  UNION ALL
  SELECT generation_id, 0, category, signature, sum(n)::int, count(DISTINCT environment_id)::int
  FROM failure_aggregates WHERE n > 0 GROUP BY 1, 3, 4
  ORDER BY 1, 2, 3, 4
$fn$;
--> statement-breakpoint
-- Backfill after the triggers exist: creating them locked failure_aggregates against writes until this commits.
SELECT envforge_failure_clusters_backfill();

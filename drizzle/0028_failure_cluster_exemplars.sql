ALTER TABLE "failure_cluster_aggregates" ADD COLUMN "exemplar_first_ids" bigint[];--> statement-breakpoint
ALTER TABLE "failure_cluster_aggregates" ADD COLUMN "exemplar_some_ids" bigint[];--> statement-breakpoint
-- The failures view stores each cluster's exemplars the first time it reads them (lib/generations/analytics-repository.ts,
-- storedClusters). Any update of a cluster row but that write-back (the ingest triggers of 0024 change n and environments)
-- makes them stale: they are set back to NULL in the same statement, so a stored value always belongs to the row's counts.
-- Rows whose exemplars are already NULL skip the function (the WHEN clause), which is every row while nothing reads them.
CREATE OR REPLACE FUNCTION envforge_failure_cluster_exemplars_stale() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.exemplar_first_ids := NULL;
  NEW.exemplar_some_ids := NULL;
  RETURN NEW;
END;
$fn$;
--> statement-breakpoint
CREATE TRIGGER failure_cluster_aggregates_exemplars_stale BEFORE UPDATE ON failure_cluster_aggregates FOR EACH ROW
  WHEN (OLD.exemplar_first_ids IS NOT NULL AND NEW.exemplar_first_ids IS NOT DISTINCT FROM OLD.exemplar_first_ids)
  EXECUTE FUNCTION envforge_failure_cluster_exemplars_stale();

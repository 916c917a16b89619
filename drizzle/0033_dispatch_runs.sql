-- A dispatch's run: 1, one more per retry. A retry of a dispatch whose Ray job or Kubernetes Job ended starts a job of
-- its own (submission_id / Job name carry the run from 2 on); Ray and Kubernetes refuse a reused id or name.
ALTER TABLE "dispatches" ADD COLUMN "run" integer DEFAULT 1 NOT NULL;

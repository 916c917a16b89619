CREATE TABLE "annotation_locks" (
	"rollout_id" bigint PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"owner" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "annotation_locks" ADD CONSTRAINT "annotation_locks_rollout_id_rollouts_id_fk" FOREIGN KEY ("rollout_id") REFERENCES "public"."rollouts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "annotation_locks" ADD CONSTRAINT "annotation_locks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "annotation_locks_project_idx" ON "annotation_locks" USING btree ("project_id","expires_at");
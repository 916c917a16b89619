ALTER TABLE "proposal_items" ADD COLUMN "task_edits" jsonb;--> statement-breakpoint
ALTER TABLE "proposal_items" ADD COLUMN "edited_task_edits" jsonb;
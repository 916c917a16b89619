ALTER TABLE "rollouts" ADD COLUMN "tests_passed" integer;--> statement-breakpoint
ALTER TABLE "rollouts" ADD COLUMN "tests_failed" integer;--> statement-breakpoint
ALTER TABLE "rollouts" ADD COLUMN "behaviours" text[];--> statement-breakpoint
ALTER TABLE "rollouts" ADD COLUMN "trial_name" text;
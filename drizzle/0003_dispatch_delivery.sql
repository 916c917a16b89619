ALTER TABLE "dispatch_targets" ADD COLUMN "secret_env" text;--> statement-breakpoint
ALTER TABLE "dispatch_targets" ADD COLUMN "created_by" text;--> statement-breakpoint
ALTER TABLE "dispatches" ADD COLUMN "payload" jsonb;--> statement-breakpoint
ALTER TABLE "dispatches" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "dispatches" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dispatches" ADD COLUMN "next_attempt_at" timestamp with time zone;
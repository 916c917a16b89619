ALTER TABLE "api_keys" ADD COLUMN "dispatch_id" uuid;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "generation_index" integer;--> statement-breakpoint
ALTER TABLE "dispatches" ADD COLUMN "callback_key_ciphertext" text;--> statement-breakpoint
CREATE INDEX "api_keys_dispatch_idx" ON "api_keys" USING btree ("dispatch_id");
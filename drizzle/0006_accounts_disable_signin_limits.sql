CREATE TABLE "signin_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"address" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "signin_attempts_email_idx" ON "signin_attempts" USING btree ("email","at");--> statement-breakpoint
CREATE INDEX "signin_attempts_address_idx" ON "signin_attempts" USING btree ("address","at");
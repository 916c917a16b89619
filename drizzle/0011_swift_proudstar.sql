CREATE TABLE "proposal_item_events" (
	"id" serial PRIMARY KEY NOT NULL,
	"proposal_id" uuid NOT NULL,
	"item_id" uuid NOT NULL,
	"batch_id" uuid NOT NULL,
	"action" text NOT NULL,
	"actor" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"before" jsonb NOT NULL,
	"after" jsonb NOT NULL,
	"reverts_event_id" integer,
	"undone_at" timestamp with time zone,
	"undone_by" text
);
--> statement-breakpoint
ALTER TABLE "proposal_item_events" ADD CONSTRAINT "proposal_item_events_proposal_id_proposals_id_fk" FOREIGN KEY ("proposal_id") REFERENCES "public"."proposals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposal_item_events" ADD CONSTRAINT "proposal_item_events_item_id_proposal_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."proposal_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "proposal_item_events_item_idx" ON "proposal_item_events" USING btree ("item_id","id");--> statement-breakpoint
CREATE INDEX "proposal_item_events_proposal_idx" ON "proposal_item_events" USING btree ("proposal_id","id");
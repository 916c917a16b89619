ALTER TABLE "rollouts" ADD COLUMN "cost_usd" double precision;--> statement-breakpoint
CREATE INDEX "rollouts_generation_cost_idx" ON "rollouts" USING btree ("generation_id","policy_id","cost_usd") WHERE "rollouts"."cost_usd" is not null;
--> statement-breakpoint
-- rollouts stored before this migration: the source's own total (metadata.costUsd, as lib/rollouts/cost.ts). Their per-message
-- costs are not summed here: that would read every stored trajectory once; such rollouts stay unknown.
UPDATE "rollouts" r SET "cost_usd" = (p.metadata ->> 'costUsd')::float8
FROM "rollout_payloads" p
WHERE p.rollout_id = r.id AND jsonb_typeof(p.metadata -> 'costUsd') = 'number' AND (p.metadata ->> 'costUsd')::float8 >= 0;

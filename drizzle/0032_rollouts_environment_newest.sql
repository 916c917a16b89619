-- An environment's rollouts newest first: its attempts, the explorer's environment filter, its newest pass and fail.
-- (environment_id, policy_id) made each of those read every rollout of the environment and sort them: 2.4 s for an
-- environment with 585,598 of 10,000,000 rollouts. INCLUDE (policy_id, success), which the Drizzle schema cannot
-- say: a policy's or an outcome's newest rollouts are found in the index alone.
DROP INDEX "rollouts_environment_idx";--> statement-breakpoint
CREATE INDEX "rollouts_environment_idx" ON "rollouts" USING btree ("environment_id","id") INCLUDE ("policy_id","success");

/**
 * The Agent Lightning 1.0 part of the export: one `RolloutCreate` per environment (the body of
 * 1.0's `POST /api/rollouts`, agentlightning/schemas.py at v1.0.0: { rollout_id?, input, is_train,
 * config?, metadata? }), keyed so that a synced rollout lands on its environment: the environment
 * key is the input's `data_id` (what 1.0's terminal page reports) and `metadata.environment_key`.
 */
import { renderTaskInstance } from "@/lib/families/tasks";
import type { GenerationPayload } from "../../types";

/** 1.0 RolloutCreate bodies for a dispatch; rollout ids are stable per dispatch and environment, so a re-POST is idempotent. */
export function agentLightningRolloutCreates(payload: GenerationPayload): Record<string, unknown>[] {
  const family = payload.project.family;
  return payload.environments.map((env) => {
    let prompt = null;
    try {
      prompt = renderTaskInstance(family, env.config)?.messages ?? null;
    } catch {
      prompt = null;
    }
    return {
      rollout_id: `envforge-${payload.dispatchId.slice(0, 8)}-${env.key}`,
      input: { data_id: env.key, environment_key: env.key, family, config: env.config, prompt },
      is_train: true,
      metadata: {
        environment_key: env.key,
        generation: payload.generation.index,
        weight: env.weight,
        family,
        project: payload.project.slug,
        dispatch_id: payload.dispatchId,
      },
    };
  });
}

/**
 * The same rows for an Agent Lightning 0.3 store: the body of its `POST /v1/agl/queues/rollouts/enqueue`
 * (agentlightning/store/client_server.py at v0.3.0: { rollouts: [EnqueueRolloutRequest { input, mode,
 * resources_id?, config?, metadata? }] }); 0.3 assigns the rollout ids, so the environment rides in
 * `input.environment_key` and `metadata.environment_key`.
 */
export function agentLightningEnqueueRequest(payload: GenerationPayload): { rollouts: Record<string, unknown>[] } {
  return {
    rollouts: agentLightningRolloutCreates(payload).map((row) => ({ input: row.input, mode: "train", metadata: row.metadata })),
  };
}

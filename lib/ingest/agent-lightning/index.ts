/**
 * Agent Lightning (microsoft/agent-lightning) LightningStore -> normalized rollouts
 * (`envforge sync agent-lightning --url <store-url> --project <slug>`): client.ts talks HTTP,
 * dialects.ts reads both wire shapes (our contract and the real store's spans), conversion.ts
 * builds one rollout, sync.ts pages through a store after a cursor.
 */
export {
  aglAttemptSchema,
  aglEventSchema,
  aglRolloutSchema,
  eventListSchema,
  rolloutPageSchema,
  parseEventList,
  parseRolloutPage,
  AgentLightningFormatError,
  type AgentLightningAttempt,
  type AgentLightningEvent,
  type AgentLightningPage,
  type AgentLightningRollout,
} from "./dialects";
export { TRAJECTORY_UNREADABLE_FLAG, toNormalizedRollout, type ToNormalizedOptions } from "./conversion";
export { AgentLightningClient, AgentLightningError, type AgentLightningClientOptions } from "./client";
export { readSyncCursor, syncCursor, syncPages, type SyncOptions, type SyncPage } from "./sync";

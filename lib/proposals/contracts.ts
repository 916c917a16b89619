/**
 * What a proposal request, its job and its progress look like: zod schemas and types only, no
 * database, so the propose form validates with the same schema as the server.
 */
import { z } from "zod";

export const proposalOptionsSchema = z.strictObject({
  seed: z.number().int().optional(),
  populationSize: z.number().int().min(1).max(100_000).optional(),
  keepShare: z.number().min(0, "is a share between 0 and 1").max(1, "is a share between 0 and 1").optional(),
  addShare: z.number().min(0, "is a share between 0 and 1").max(1, "is a share between 0 and 1").optional(),
  groupSize: z.number().int().min(2).max(1024).optional(),
  /** the policy whose results the engineer reads; all policies when absent */
  policy: z.string().min(1).optional(),
  /** token budget of the structured summary */
  summaryTokens: z.number().int().min(500).max(100_000).optional(),
});

/** The body of POST .../generations/{index}/proposals. */
export const createProposalSchema = z.strictObject({
  engineer: z.enum(["heuristic", "llm"]),
  options: proposalOptionsSchema.optional(),
});

export type ProposalOptions = z.output<typeof proposalOptionsSchema>;
export type CreateProposalBody = z.output<typeof createProposalSchema>;

/** The data of an `envforge.proposal` job. */
export const proposalJobSchema = z.object({ proposalId: z.uuid() });

/** Progress of a run as the proposal page shows it. */
export interface ProposalProgress {
  stage: "queued" | "summary" | "engineer" | "validating" | "ready" | "failed";
  message: string;
  at: string;
  /** once ready: children the engineer dropped (invalid, duplicate…) and its notes */
  dropped?: { reason: string; count: number }[];
  notes?: string[];
  /**
   * once ready: how long each stage of the worker's job took, in milliseconds (summary: reading the rollouts and
   * failures; engineer: the heuristic or the LLM; validating: the family's check of every item; storing: the items
   * written with the run record, up to the commit). The wait in the queue before the job started is not in them.
   */
  stageMs?: { summary: number; engineer: number; validating: number; storing: number };
}

/** A progress record of `stage`, stamped now. */
export const progress = (stage: ProposalProgress["stage"], message: string): ProposalProgress => ({
  stage,
  message,
  at: new Date().toISOString(),
});

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

/** At most this many items in full by id in one request (`?ids=`): a page of the review list, and 7.4 KB of URL (Node refuses headers over 16 KB). */
export const MAX_ITEM_IDS = 200;

/**
 * GET /proposals/{id}'s query, beyond API.md: `items=index` sends every item as an index entry (`detail: false`: no
 * configs, rationale or evidence), `ids=<uuid>,<uuid>,...` sends only those items, in full.
 */
export const proposalReadQuerySchema = z
  .object({
    items: z.enum(["all", "index"]).optional(),
    ids: z
      .string()
      .transform((s) => s.split(",").filter((x) => x !== ""))
      .pipe(
        z
          .array(z.uuid("is not an item id"))
          .min(1, "names no item")
          .max(MAX_ITEM_IDS, `names more than ${MAX_ITEM_IDS} items; ask in pages`),
      )
      .optional(),
  })
  .refine((q) => !(q.items === "index" && q.ids), { message: "ask for items=index or for ids, not both", path: ["ids"] });
export type ProposalReadQuery = z.output<typeof proposalReadQuerySchema>;

/**
 * POST /proposals/{id}/review and /undo: `items=changed` answers with only the items the request changed (in full),
 * `items=index` with every item as an index entry (a bulk decision on thousands of items).
 */
export const proposalChangeQuerySchema = z.object({ items: z.enum(["all", "changed", "index"]).optional() });
export type ProposalChangeQuery = z.output<typeof proposalChangeQuerySchema>;

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

/**
 * Proposals of the next generation: contracts.ts (zod schemas and types, no database: the propose
 * form imports them), repository.ts (queries), service.ts (create, list), job.ts (the worker's
 * engineer run), view.ts (one proposal as the API and page show it).
 */
export {
  createProposalSchema,
  MAX_ITEM_IDS,
  proposalChangeQuerySchema,
  proposalReadQuerySchema,
  type ProposalChangeQuery,
  type ProposalReadQuery,
  proposalJobSchema,
  proposalOptionsSchema,
  type CreateProposalBody,
  type ProposalOptions,
  type ProposalProgress,
} from "./contracts";
export { createProposal, listProposals, llmEngineerAvailable } from "./service";
export { runProposal } from "./job";
export {
  changedItemsView,
  getProposal,
  getProposalView,
  type ProposalItem,
  type ProposalItemFull,
  type ProposalItemIndex,
  type ProposalItemsView,
} from "./view";

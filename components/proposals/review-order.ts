/**
 * The review list's order and filters, and how the page's copy of a proposal takes in what the API sends: shared by the
 * page's server component (which items to send in full) and the client components. No "use client": no hooks here.
 */
import type { ProposalItem, ProposalItemFull } from "@/lib/proposals/view";

export const OPS = ["keep", "mutate", "add", "retire"] as const;

/**
 * Items rendered at first, and added each time the reader nears the end of the list: a 10,000-environment proposal has
 * 15,000 items, and rendering them all took the page 36-41 s to become interactive and a key 4 s to answer (issue 19).
 * The page receives these in full and the others as index entries, whose details it reads a page at a time.
 */
export const ITEMS_PAGE = 200;

/** Which items the review list shows; kept in the URL so a reload (or a shared link) keeps them. */
export interface ReviewFilters {
  op: string;
  decision: string;
  direction: string;
  changedOnly: boolean;
}

/** The filters from a query string (?op=&decision=&direction=&fields=all). */
export function filtersFromParams(get: (key: string) => string | null | undefined): ReviewFilters {
  return {
    op: get("op") ?? "all",
    decision: get("decision") ?? "all",
    direction: get("direction") ?? "all",
    changedOnly: get("fields") !== "all",
  };
}

type Filterable = Pick<ProposalItem, "op" | "decision" | "direction">;

/** Whether an item passes the filters. */
export function matchesFilters(item: Filterable, f: ReviewFilters): boolean {
  return (
    (f.op === "all" || item.op === f.op) &&
    (f.decision === "all" || item.decision === f.decision) &&
    (f.direction === "all" || item.direction === f.direction)
  );
}

/** The items the list shows, in its order: by op (keep, mutate, add, retire), then as the engineer proposed them. */
export function reviewOrder<T extends Filterable>(items: readonly T[], f: ReviewFilters): T[] {
  return OPS.flatMap((op) => items.filter((i) => i.op === op && matchesFilters(i, f)));
}

/** Whether an item came in full (not as an index entry, `detail: false`). */
export function isFullItem(item: ProposalItem): item is ProposalItemFull {
  return !("detail" in item);
}

/**
 * What the page keeps of an item when the API sends it again. `changes` counts the item's review events and only grows,
 * so an answer older than what the page holds (a page of details asked before a key press was answered) loses; an
 * index entry keeps the details the page has of the same version.
 */
export function mergeItem(held: ProposalItem | undefined, sent: ProposalItem): ProposalItem {
  if (!held || sent.changes > held.changes) return sent;
  if (sent.changes < held.changes) return held;
  if (isFullItem(sent) || !isFullItem(held)) return sent;
  return { ...held, decision: sent.decision, decidedBy: sent.decidedBy, commentCount: sent.commentCount };
}

interface ItemsOf {
  items: ProposalItem[];
}

/**
 * The page's proposal after an answer of the API: everything but the items from the answer; its items merged into the
 * page's by id. An answer with every item (a refetch of the index) sets the list; one with some items (a review's
 * `?items=changed`, a page of details) changes only those.
 */
export function mergeProposal<P extends ItemsOf & { itemCount: number }>(held: P | undefined, sent: P): P {
  if (!held) return sent;
  const heldById = new Map(held.items.map((i) => [i.id, i]));
  if (sent.items.length === sent.itemCount) return { ...sent, items: sent.items.map((i) => mergeItem(heldById.get(i.id), i)) };
  const sentById = new Map(sent.items.map((i) => [i.id, i]));
  return { ...sent, items: held.items.map((i) => (sentById.has(i.id) ? mergeItem(i, sentById.get(i.id)!) : i)) };
}

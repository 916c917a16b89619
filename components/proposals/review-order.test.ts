/**
 * The review list's order and how the page's copy of a proposal takes in the API's answers: a stale answer never
 * overwrites a newer item, an index entry keeps the details of the same version and drops them of an older one, an
 * answer with some items changes only those.
 */
import { describe, expect, it } from "vitest";
import type { ProposalItem, ProposalItemFull, ProposalItemIndex } from "@/lib/proposals/view";
import { filtersFromParams, isFullItem, mergeItem, mergeProposal, reviewOrder } from "./review-order";

function full(id: string, changes: number, extra: Partial<ProposalItemFull> = {}): ProposalItemFull {
  return {
    id,
    op: "mutate",
    environmentKey: `k-${id}`,
    parentKey: undefined,
    parentConfig: null,
    config: { seed: 1 },
    direction: "harder",
    rationale: `why ${id}`,
    evidence: [],
    predictedSuccess: 0.5,
    proposer: "heuristic",
    flags: [],
    decision: changes % 2 ? "approved" : "pending",
    decidedBy: undefined,
    editedConfig: undefined,
    rationaleStale: false,
    changes,
    commentCount: 0,
    ...extra,
  };
}
function entry(id: string, changes: number, extra: Partial<ProposalItemIndex> = {}): ProposalItemIndex {
  return {
    id,
    op: "mutate",
    direction: "harder",
    decision: changes % 2 ? "approved" : "pending",
    changes,
    commentCount: 0,
    detail: false,
    ...extra,
  };
}
const proposal = (items: ProposalItem[], itemCount = items.length) => ({ id: "p", status: "ready", itemCount, items });

describe("mergeItem", () => {
  it("an answer about an older version of the item loses to what the page holds", () => {
    const held = full("a", 3);
    expect(mergeItem(held, full("a", 2))).toBe(held);
    expect(mergeItem(held, entry("a", 2))).toBe(held);
  });
  it("a newer version wins, in full or as an index entry (whose missing details are then read again)", () => {
    const sent = full("a", 4, { rationale: "new" });
    expect(mergeItem(full("a", 3), sent)).toBe(sent);
    const newer = entry("a", 4);
    expect(mergeItem(full("a", 3), newer)).toBe(newer);
  });
  it("an index entry of the same version keeps the details the page has, with the entry's comment count", () => {
    const held = full("a", 2);
    const merged = mergeItem(held, entry("a", 2, { commentCount: 3 }));
    expect(isFullItem(merged)).toBe(true);
    expect(merged).toEqual({ ...held, commentCount: 3 });
  });
  it("the same version in full replaces what the page has; anything replaces nothing", () => {
    const sent = full("a", 2, { rationale: "again" });
    expect(mergeItem(full("a", 2), sent)).toBe(sent);
    expect(mergeItem(entry("a", 2), sent)).toBe(sent);
    expect(mergeItem(undefined, entry("a", 0))).toEqual(entry("a", 0));
  });
});

describe("mergeProposal", () => {
  it("an answer with some items changes only those, in the page's order, and takes the rest of the proposal from the answer", () => {
    const held = proposal([full("a", 0), entry("b", 0), full("c", 0)]);
    const sent = { ...proposal([full("c", 1, { decision: "approved" })], 3), status: "partially_approved" };
    const merged = mergeProposal(held, sent);
    expect(merged.status).toBe("partially_approved");
    expect(merged.items.map((i) => [i.id, i.changes])).toEqual([
      ["a", 0],
      ["b", 0],
      ["c", 1],
    ]);
    expect(merged.items[0]).toBe(held.items[0]);
  });
  it("an answer with every item sets the list (a proposal that became ready, an index refetch) and keeps current details", () => {
    const held = proposal([full("a", 1), full("b", 1)]);
    const sent = proposal([entry("b", 1), entry("a", 2), entry("n", 0)]);
    const merged = mergeProposal(held, sent);
    expect(merged.items.map((i) => [i.id, isFullItem(i)])).toEqual([
      ["b", true],
      ["a", false],
      ["n", false],
    ]);
    expect(mergeProposal(undefined, sent)).toBe(sent);
  });
});

describe("reviewOrder", () => {
  it("lists keep, mutate, add, retire, each in the proposal's order, within the filters", () => {
    const items = [
      entry("1", 0, { op: "add" }),
      entry("2", 0, { op: "keep", direction: undefined }),
      entry("3", 0, { op: "mutate", direction: "easier" }),
      entry("4", 0, { op: "retire", direction: undefined }),
      entry("5", 0, { op: "keep", direction: undefined }),
      entry("6", 1, { op: "mutate" }),
    ];
    expect(
      reviewOrder(
        items,
        filtersFromParams(() => null),
      ).map((i) => i.id),
    ).toEqual(["2", "5", "3", "6", "1", "4"]);
    const params = new URLSearchParams("op=mutate&direction=harder");
    expect(
      reviewOrder(
        items,
        filtersFromParams((k) => params.get(k)),
      ).map((i) => i.id),
    ).toEqual(["6"]);
    const approved = new URLSearchParams("decision=approved");
    expect(
      reviewOrder(
        items,
        filtersFromParams((k) => approved.get(k)),
      ).map((i) => i.id),
    ).toEqual(["6"]);
  });
});

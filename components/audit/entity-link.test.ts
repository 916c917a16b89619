import { describe, expect, it } from "vitest";
import { auditEntityHref, type AuditEventView } from "@/components/audit/entity-link";

const event = (entity: string, entityId: string, state: Partial<Pick<AuditEventView, "before" | "after">> = {}): AuditEventView => ({
  id: 1,
  at: "2026-11-30T23:00:00.000Z",
  actor: "user:ada@example.org",
  action: "x",
  entity,
  entityId,
  ...state,
});

describe("audit entity links", () => {
  it("each entity opens its own page in the project", () => {
    expect(auditEntityHref("demo", event("generation", "3"))).toBe("/projects/demo/generations/3");
    expect(auditEntityHref("demo", event("rollout", "42"))).toBe("/projects/demo/rollouts/42");
    expect(auditEntityHref("demo", event("proposal", "p-1"))).toBe("/projects/demo/proposals/p-1");
    expect(auditEntityHref("demo", event("dispatch", "d-1"))).toBe("/projects/demo/dispatches/d-1");
    expect(auditEntityHref("demo", event("environment", "a/b c"))).toBe("/projects/demo/environments/a%2Fb%20c");
    expect(auditEntityHref("demo", event("family", "gridworld"))).toBe("/families/gridworld");
  });

  it("a proposal item or comment opens its proposal, named in its state", () => {
    expect(auditEntityHref("demo", event("proposal_item", "9", { after: { proposalId: "p-7", decision: "approved" } }))).toBe(
      "/projects/demo/proposals/p-7",
    );
    expect(auditEntityHref("demo", event("comment", "5", { before: { proposalId: "p-8" } }))).toBe("/projects/demo/proposals/p-8");
    expect(auditEntityHref("demo", event("proposal_item", "9"))).toBeNull();
  });

  it("an entity without a page has no link", () => {
    expect(auditEntityHref("demo", event("label", "1"))).toBeNull();
  });
});

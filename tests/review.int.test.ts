/**
 * Review and materialization over HTTP on a real Postgres: decisions, edits validated against the
 * family, undo, comments, roles, the audit trail, and the next generation with its lineage.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import { runProposal } from "@/lib/proposals";
import { EnvForgeClient } from "@/cli/client";
import { apiFailure } from "./api-waits";
import { startApi, stopApi, clientWithRole, createProjectWith, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-review-0123";
let db: TestDb;
let server: TestServer;
let admin: EnvForgeClient;
let reviewer: EnvForgeClient;
let viewer: EnvForgeClient;

type Item = {
  id: string;
  op: string;
  environmentKey: string;
  parentKey?: string;
  config: Record<string, unknown>;
  direction?: string;
  decision: string;
  decidedBy?: string;
  editedConfig?: Record<string, unknown>;
};
type Proposal = {
  id: string;
  status: string;
  items: Item[];
  materializedGeneration: number | null;
  comments: { body: string; itemId: string | null; author: string }[];
};

const family = getBuiltinFamily("frozenlake-mapf")!;
const configs = Array.from({ length: 8 }, (_, i) => family.sample(createRng(500 + i)));

const fail = apiFailure;

async function newProposal(): Promise<Proposal> {
  const { proposalId } = await admin.request<{ proposalId: string }>("POST", "/api/v1/projects/rev/generations/0/proposals", {
    json: { engineer: "heuristic", options: { seed: 3 } },
  });
  await runProposal(db.db, { proposalId }); // the worker's job, run here
  const p = await admin.request<Proposal>("GET", `/api/v1/proposals/${proposalId}`);
  expect(p.status).toBe("ready");
  return p;
}

beforeAll(async () => {
  ({ db, server, admin } = await startApi(TOKEN));
  reviewer = await clientWithRole(db, server, "reviewer", { name: "r" });
  viewer = await clientWithRole(db, server, "viewer", { name: "v" });
  await createProjectWith(admin, { slug: "rev", name: "Review" }, { environments: configs.map((config, i) => ({ key: `e${i}`, config })) });
  const lines = configs.flatMap((_, i) =>
    Array.from({ length: 6 }, (_, a) =>
      JSON.stringify({
        externalId: `r${i}-${a}`,
        environmentKey: `e${i}`,
        policy: "p",
        reward: a < i ? 1 : 0,
        verifierOutput: a < i ? "ok" : "FAILED test_goals::agent_0_reaches_goal",
      }),
    ),
  );
  await admin.request("POST", "/api/v1/projects/rev/rollouts", { raw: lines.join("\n"), contentType: "application/x-ndjson" });
});
afterAll(async () => {
  await stopApi({ server, db }, { queue: true });
});

describe("review", () => {
  it("takes decisions, edits and undo from a reviewer, refuses a viewer, and validates edits by field path", async () => {
    const p = await newProposal();
    const child = p.items.find((i) => i.op === "mutate" || i.op === "add")!;
    const keep = p.items.find((i) => i.op === "keep" || i.op === "retire")!;

    expect(
      (
        await fail(
          viewer.request("POST", `/api/v1/proposals/${p.id}/review`, { json: { decisions: [{ itemId: keep.id, decision: "approve" }] } }),
        )
      ).status,
    ).toBe(403);

    const bad = await fail(
      reviewer.request("POST", `/api/v1/proposals/${p.id}/review`, {
        json: { decisions: [{ itemId: child.id, decision: "approve", config: { ...child.config, size: 999 } }] },
      }),
    );
    expect(bad.status).toBe(422);
    expect(bad.message).toMatch(/decisions\.0\.config\.size/);
    expect(
      (
        await fail(
          reviewer.request("POST", `/api/v1/proposals/${p.id}/review`, {
            json: { decisions: [{ itemId: keep.id, decision: "approve", config: keep.config }] },
          }),
        )
      ).status,
    ).toBe(422);
    const unknown = await fail(
      reviewer.request("POST", `/api/v1/proposals/${p.id}/review`, {
        json: { decisions: [{ itemId: "00000000-0000-4000-8000-000000000000", decision: "approve" }] },
      }),
    );
    expect(unknown.message).toMatch(/decisions\.0\.itemId/);
    // an edit that is some environment's config already: duplicates never enter twice
    const dup = await fail(
      reviewer.request("POST", `/api/v1/proposals/${p.id}/review`, {
        json: { decisions: [{ itemId: child.id, decision: "approve", config: configs[0] }] },
      }),
    );
    expect(dup.message).toMatch(/duplicates|already/);

    const edited = { ...child.config, seed: 424242 };
    let after = await reviewer.request<Proposal>("POST", `/api/v1/proposals/${p.id}/review`, {
      json: {
        decisions: [
          { itemId: child.id, decision: "approve", config: edited },
          { itemId: keep.id, decision: "reject" },
        ],
        comment: "seed changed for coverage",
      },
    });
    const c = after.items.find((i) => i.id === child.id)!;
    expect(c).toMatchObject({ decision: "approved", decidedBy: expect.stringContaining("r"), editedConfig: edited });
    expect(after.items.find((i) => i.id === keep.id)!.decision).toBe("rejected");
    expect(after.comments.map((x) => x.body)).toContain("seed changed for coverage");
    // undo: back to pending
    after = await reviewer.request<Proposal>("POST", `/api/v1/proposals/${p.id}/review`, {
      json: { decisions: [{ itemId: keep.id, decision: "pending" }] },
    });
    expect(after.items.find((i) => i.id === keep.id)!.decision).toBe("pending");
    expect(after.status).toBe("ready");

    await reviewer.request("POST", `/api/v1/proposals/${p.id}/comments`, { json: { body: "why this parent?", itemId: child.id } });
    expect((await fail(reviewer.request("POST", `/api/v1/proposals/${p.id}/comments`, { json: { body: "  " } }))).status).toBe(422);
    const withComments = await admin.request<Proposal>("GET", `/api/v1/proposals/${p.id}`);
    expect(withComments.comments.find((x) => x.itemId === child.id)?.body).toBe("why this parent?");
  });

  it("materializes only a fully decided proposal into the next generation with lineage, once", async () => {
    const p = await newProposal();
    expect((await fail(reviewer.request("POST", `/api/v1/proposals/${p.id}/materialize`))).status).toBe(409); // all pending
    const decisions = p.items.map((i, n) => ({ itemId: i.id, decision: i.op === "retire" || n % 5 !== 4 ? "approve" : "reject" }));
    const decided = await reviewer.request<Proposal>("POST", `/api/v1/proposals/${p.id}/review`, { json: { decisions } });
    expect(decided.status).toBe(decisions.every((d) => d.decision === "approve") ? "approved" : "partially_approved");

    const made = await reviewer.request<{ generation: number; keep: number; mutate: number; add: number }>(
      "POST",
      `/api/v1/proposals/${p.id}/materialize`,
      { json: { trainingSteps: 200, mixWeight: 0.5 } },
    );
    const approved = decided.items.filter((i) => i.decision === "approved" && i.op !== "retire");
    expect(made.keep + made.mutate + made.add).toBe(approved.length);
    expect((await fail(reviewer.request("POST", `/api/v1/proposals/${p.id}/materialize`))).status).toBe(409);
    expect(
      (
        await fail(
          reviewer.request("POST", `/api/v1/proposals/${p.id}/review`, {
            json: { decisions: [{ itemId: p.items[0].id, decision: "reject" }] },
          }),
        )
      ).status,
    ).toBe(409);

    const gen = await admin.request<{ status: string; trainingSteps: number; mixWeight: number; parentIndex: number }>(
      "GET",
      `/api/v1/projects/rev/generations/${made.generation}`,
    );
    expect(gen).toMatchObject({ status: "materialized", trainingSteps: 200, mixWeight: 0.5, parentIndex: 0 });
    const envs = await admin.request<{
      items: { key: string; op: string; parentKey: string | null; direction: string | null; config: unknown }[];
    }>("GET", `/api/v1/projects/rev/generations/${made.generation}/environments?limit=1000`);
    expect(envs.items.map((e) => e.key).sort()).toEqual(approved.map((i) => i.environmentKey).sort());
    for (const item of approved) {
      const e = envs.items.find((x) => x.key === item.environmentKey)!;
      expect(e.op).toBe(item.op);
      if (item.op === "keep") expect(e.config).toEqual(configs[Number(item.environmentKey.slice(1))]); // the same environment
      if (item.op === "mutate") {
        expect(e.parentKey).toBe(item.parentKey);
        const detail = await admin.request<{ lineage: { key: string }[] }>("GET", `/api/v1/projects/rev/environments/${e.key}`);
        expect(detail.lineage[0].key).toBe(item.parentKey);
      }
    }
    // the audit log has every decision with its actor, before and after, and the materialization
    const audit = await admin.request<{
      events: { actor: string; action: string; before?: { decision: string }; after?: { decision?: string; generation?: number } }[];
    }>("GET", "/api/v1/projects/rev/audit");
    const decisionsLogged = audit.events.filter((e) => e.action === "proposal_item.approve" || e.action === "proposal_item.reject");
    expect(decisionsLogged.length).toBeGreaterThanOrEqual(decisions.length);
    expect(decisionsLogged[0]).toMatchObject({ actor: expect.stringContaining("r"), before: { decision: "pending" } });
    expect(audit.events.find((e) => e.action === "proposal.materialize")?.after?.generation).toBe(made.generation);
    // a materialized proposal says so, in its view and in the project's list, with the generation it became
    const final = await admin.request<Proposal>("GET", `/api/v1/proposals/${p.id}`);
    expect(final).toMatchObject({ status: "materialized", materializedGeneration: made.generation });
    const list = await admin.request<{ proposals: { id: string; status: string; materializedGeneration: number | null }[] }>(
      "GET",
      "/api/v1/projects/rev/proposals",
    );
    expect(list.proposals.find((x) => x.id === p.id)).toMatchObject({ status: "materialized", materializedGeneration: made.generation });
  });

  it("materializes the approved items and rejects the pending ones only when asked (rejectPending), each rejection audited", async () => {
    const p = await newProposal();
    const kept = p.items.filter((i) => i.op !== "retire").slice(0, 2);
    expect(kept.length).toBe(2);
    await reviewer.request("POST", `/api/v1/proposals/${p.id}/review`, {
      json: { decisions: kept.map((i) => ({ itemId: i.id, decision: "approve" })) },
    });
    const pendingIds = p.items.filter((i) => !kept.includes(i)).map((i) => i.id);
    expect(pendingIds.length).toBeGreaterThan(0);
    const refused = await fail(reviewer.request("POST", `/api/v1/proposals/${p.id}/materialize`, { json: { rejectPending: false } }));
    expect(refused.status).toBe(409);
    expect(refused.message).toMatch(/still pending/);
    expect((await fail(viewer.request("POST", `/api/v1/proposals/${p.id}/materialize`, { json: { rejectPending: true } }))).status).toBe(
      403,
    );

    const made = await reviewer.request<{ generation: number; keep: number; mutate: number; add: number; rejected: number }>(
      "POST",
      `/api/v1/proposals/${p.id}/materialize`,
      { json: { rejectPending: true } },
    );
    expect(made.keep + made.mutate + made.add).toBe(2);
    expect(made.rejected).toBe(pendingIds.length);
    const after = await admin.request<Proposal>("GET", `/api/v1/proposals/${p.id}`);
    expect(after.status).toBe("materialized");
    for (const id of pendingIds) expect(after.items.find((i) => i.id === id)!.decision).toBe("rejected");
    const envs = await admin.request<{ items: { key: string }[] }>(
      "GET",
      `/api/v1/projects/rev/generations/${made.generation}/environments?limit=1000`,
    );
    expect(envs.items.map((e) => e.key).sort()).toEqual(kept.map((i) => i.environmentKey).sort());
    const audit = await admin.request<{ events: { action: string; entityId: string; after?: { reason?: string } }[] }>(
      "GET",
      "/api/v1/projects/rev/audit",
    );
    const auto = audit.events.filter((e) => e.action === "proposal_item.reject" && pendingIds.includes(e.entityId));
    expect(auto).toHaveLength(pendingIds.length);
    expect(auto[0].after?.reason).toMatch(/pending when materializing/);
  });
});

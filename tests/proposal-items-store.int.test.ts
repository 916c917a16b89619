/**
 * insertProposalItems stores a proposal's items with one COPY inside a transaction on one connection
 * (transactionOnConnection): every column must come back as the engineer made it (floats bit for bit,
 * nulls, jsonb, order, COPY's special characters), a lone surrogate must be stored as U+FFFD (as a bound
 * text parameter is) rather than fail the proposal, and a transaction that throws stores nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import { environments, projects, proposalItems } from "@/lib/db/schema";
import { transactionOnConnection, type Db } from "@/lib/db/client";
import { configsByKey, insertProposal, insertProposalItems, proposalItemRows, type NewProposalItem } from "@/lib/proposals/repository";
import { freshDatabase } from "./db";

let handle: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  handle = await freshDatabase();
});
afterAll(async () => {
  await handle?.drop();
});

function item(i: number): NewProposalItem {
  const child = i % 3 === 0;
  return {
    position: i,
    op: child ? "mutate" : i % 3 === 1 ? "keep" : "retire",
    environment_key: `env-${i}`,
    parent_key: child ? `parent-${i}` : null,
    config: { size: 4 + (i % 9), slip_probability: (i * 0.1) / 7, nested: { list: [i, null, "x\t\\y\n"] }, tiny: 1e-7 * i },
    direction: child ? "horizon" : null,
    rationale: `item ${i}: "quoted", back\\slash, ünïcode 🧊, tab\there, new\nline, cr\rhere, \\N, \\.`,
    evidence: i % 5 === 0 ? [] : [{ kind: "stat", ref: `env:${i}`, note: "n=8" }],
    predicted_success: child ? Math.PI / (i + 1) : i % 3 === 1 ? 0.1 + 0.2 : null,
    proposer: "heuristic",
    task_edits: i === 4 ? { files: [{ path: "a.py", text: "print(1)\n" }] } : null,
    flags: { flags: i % 2 ? ["crossover"] : [], ...(i === 7 ? { weight: 0.25 } : {}) },
  };
}

/** insertProposalItems in a transaction of its own, as the job runs it. */
const store = (id: string, rows: NewProposalItem[]) =>
  transactionOnConnection(handle.db as Db, (_tx, connection) => insertProposalItems(connection, id, rows));

describe("insertProposalItems", () => {
  it("stores every column as given, in position order, across COPY chunks", async () => {
    const [project] = await handle.db.insert(projects).values({ slug: "store", name: "Store", familyId: "frozenlake-mapf" }).returning();
    const { id } = await insertProposal(handle.db, { projectId: project.id, baseGeneration: 0, engineer: "heuristic" });
    const rows = Array.from({ length: 2503 }, (_, i) => item(i));
    await store(id, rows);
    const stored = await handle.db
      .select()
      .from(proposalItems)
      .where(eq(proposalItems.proposalId, id))
      .orderBy(asc(proposalItems.position));
    expect(stored).toHaveLength(rows.length);
    stored.forEach((s, i) => {
      const r = rows[i];
      expect({
        position: s.position,
        op: s.op,
        environment_key: s.environmentKey,
        parent_key: s.parentKey,
        config: s.config,
        direction: s.direction,
        rationale: s.rationale,
        evidence: s.evidence,
        predicted_success: s.predictedSuccess,
        proposer: s.proposer,
        task_edits: s.taskEdits,
        flags: s.flags,
      }).toStrictEqual(r);
      expect(s.decision).toBe("pending");
      expect(s.editedConfig).toBeNull();
    });
    // floats bit for bit (toStrictEqual compares with Object.is, but say it plainly)
    expect(stored[3].predictedSuccess).toBe(Math.PI / 4);
    expect(stored[1].predictedSuccess).toBe(0.1 + 0.2);
  });

  it("gives the items time-ordered ids: a later batch sorts after every earlier one, each in position order", async () => {
    // random ids put each new item on a random leaf of the primary key, so storing a proposal dirtied the whole index
    // of every proposal before it (docs/BENCHMARKS.md, "## Engineer", 2026-12-03); ordered ids append at its right edge
    const [project] = await handle.db.insert(projects).values({ slug: "order", name: "Order", familyId: "frozenlake-mapf" }).returning();
    const first = await insertProposal(handle.db, { projectId: project.id, baseGeneration: 0, engineer: "heuristic" });
    const second = await insertProposal(handle.db, { projectId: project.id, baseGeneration: 0, engineer: "heuristic" });
    await store(
      first.id,
      Array.from({ length: 1500 }, (_, i) => item(i)),
    );
    await store(
      second.id,
      Array.from({ length: 1500 }, (_, i) => item(i)),
    );
    const { rows } = await handle.pool.query<{ proposal_id: string; position: number; v: string }>(
      `select proposal_id, position, substr(id::text, 15, 1) as v from proposal_items where proposal_id in ($1, $2) order by id`,
      [first.id, second.id],
    );
    expect(rows).toHaveLength(3000);
    expect(rows.map((r) => `${r.proposal_id === first.id ? "a" : "b"}${r.position}`)).toStrictEqual([
      ...Array.from({ length: 1500 }, (_, i) => `a${i}`),
      ...Array.from({ length: 1500 }, (_, i) => `b${i}`),
    ]);
    expect(new Set(rows.map((r) => r.v))).toStrictEqual(new Set(["7"]));
  });

  it("stores a lone surrogate as U+FFFD instead of failing", async () => {
    const [project] = await handle.db.insert(projects).values({ slug: "lone", name: "Lone", familyId: "frozenlake-mapf" }).returning();
    const { id } = await insertProposal(handle.db, { projectId: project.id, baseGeneration: 0, engineer: "llm" });
    await store(id, [{ ...item(1), rationale: "cut \ud83e here", config: { note: "end \udc00" } }]);
    const [s] = await handle.db.select().from(proposalItems).where(eq(proposalItems.proposalId, id));
    expect(s.rationale).toBe("cut \ufffd here");
    expect(s.config).toStrictEqual({ note: "end \ufffd" });
  });
});

describe("transactionOnConnection", () => {
  it("stores nothing when the transaction throws after the COPY, and gives the connection back", async () => {
    const [project] = await handle.db.insert(projects).values({ slug: "undo", name: "Undo", familyId: "frozenlake-mapf" }).returning();
    const { id } = await insertProposal(handle.db, { projectId: project.id, baseGeneration: 0, engineer: "heuristic" });
    await expect(
      transactionOnConnection(handle.db as Db, async (_tx, connection) => {
        await insertProposalItems(connection, id, [item(0), item(1)]);
        throw new Error("after the items");
      }),
    ).rejects.toThrow("after the items");
    expect(await handle.db.select().from(proposalItems).where(eq(proposalItems.proposalId, id))).toEqual([]);
    // the Drizzle instance it gives runs on the same connection: its writes commit with the COPY
    await transactionOnConnection(handle.db as Db, async (tx, connection) => {
      await insertProposalItems(connection, id, [item(0)]);
      expect(await tx.select({ id: proposalItems.id }).from(proposalItems).where(eq(proposalItems.proposalId, id))).toHaveLength(1);
    });
    expect(await handle.db.select().from(proposalItems).where(eq(proposalItems.proposalId, id))).toHaveLength(1);
  });

  it("stores a predicted success that is not a number as NULL, as the JSON it replaced did", async () => {
    const [project] = await handle.db.insert(projects).values({ slug: "nan", name: "NaN", familyId: "frozenlake-mapf" }).returning();
    const { id } = await insertProposal(handle.db, { projectId: project.id, baseGeneration: 0, engineer: "heuristic" });
    await store(id, [
      { ...item(0), predicted_success: Number.NaN },
      { ...item(1), position: 1, predicted_success: Number.POSITIVE_INFINITY, evidence: undefined },
    ]);
    const stored = await handle.db
      .select()
      .from(proposalItems)
      .where(eq(proposalItems.proposalId, id))
      .orderBy(asc(proposalItems.position));
    expect(stored.map((s) => s.predictedSuccess)).toStrictEqual([null, null]);
    expect(stored[1].evidence).toStrictEqual([]);
  });
});

describe("proposalItemRows", () => {
  it("gives the rows the ORM's select gave (every column, types, nulls, decisions and edits, position order)", async () => {
    const [project] = await handle.db.insert(projects).values({ slug: "rows", name: "Rows", familyId: "frozenlake-mapf" }).returning();
    const { id } = await insertProposal(handle.db, { projectId: project.id, baseGeneration: 0, engineer: "heuristic" });
    // positions stored out of order, so the order comes from the query, not from the insert
    const rows = Array.from({ length: 1201 }, (_, i) => item(i)).reverse();
    await store(id, rows);
    await handle.db
      .update(proposalItems)
      .set({ decision: "approved", decidedBy: "reviewer@x", editedConfig: { size: 9, slip_probability: 0.1 + 0.2 } })
      .where(eq(proposalItems.position, 6));
    await handle.db.update(proposalItems).set({ decision: "rejected", decidedBy: "r2" }).where(eq(proposalItems.position, 7));
    // the select it replaced (lib/proposals/repository.ts before issue 19), as the reference
    const reference = await handle.db
      .select({
        id: proposalItems.id,
        op: proposalItems.op,
        environmentKey: proposalItems.environmentKey,
        parentKey: proposalItems.parentKey,
        config: proposalItems.config,
        direction: proposalItems.direction,
        rationale: proposalItems.rationale,
        evidence: proposalItems.evidence,
        predictedSuccess: proposalItems.predictedSuccess,
        proposer: proposalItems.proposer,
        flags: proposalItems.flags,
        decision: proposalItems.decision,
        decidedBy: proposalItems.decidedBy,
        editedConfig: proposalItems.editedConfig,
      })
      .from(proposalItems)
      .where(eq(proposalItems.proposalId, id))
      .orderBy(asc(proposalItems.position));
    const got = await proposalItemRows(handle.db, id);
    expect(got).toHaveLength(1201);
    expect(got.map((r) => ({ ...r }))).toStrictEqual(reference);
    expect(got[3].predictedSuccess).toBe(Math.PI / 4);
    expect(got[6]).toMatchObject({ decision: "approved", decidedBy: "reviewer@x", editedConfig: { size: 9, slip_probability: 0.1 + 0.2 } });
    expect(got[7]).toMatchObject({ decision: "rejected", decidedBy: "r2", editedConfig: null });
  });
});

describe("configsByKey", () => {
  it("returns the configs of exactly the keys asked for, in the project asked for", async () => {
    const [a] = await handle.db.insert(projects).values({ slug: "keys-a", name: "A", familyId: "frozenlake-mapf" }).returning();
    const [b] = await handle.db.insert(projects).values({ slug: "keys-b", name: "B", familyId: "frozenlake-mapf" }).returning();
    const keys = ["plain", 'comma,quote"s', "back\\slash", "ünï 🧊", "other"];
    await handle.db.insert(environments).values(keys.map((key, i) => ({ projectId: a.id, key, config: { i }, configHash: `h${i}` })));
    await handle.db.insert(environments).values({ projectId: b.id, key: "plain", config: { i: 99 }, configHash: "hb" });
    const got = await configsByKey(handle.db, a.id, [keys[0], keys[1], keys[2], keys[3], "missing"]);
    expect([...got.entries()].sort()).toStrictEqual(
      [
        [keys[0], { i: 0 }],
        [keys[1], { i: 1 }],
        [keys[2], { i: 2 }],
        [keys[3], { i: 3 }],
      ].sort(),
    );
    expect(await configsByKey(handle.db, a.id, [])).toStrictEqual(new Map());
  });
});

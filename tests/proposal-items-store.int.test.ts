/**
 * insertProposalItems stores a proposal's items through one JSON parameter per 5,000 rows: every
 * column must come back as the engineer made it (floats bit for bit, nulls, jsonb, order), across a
 * statement boundary, and a lone surrogate must be stored as U+FFFD (as a bound text parameter is),
 * not fail the proposal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import { environments, projects, proposalItems } from "@/lib/db/schema";
import { configsByKey, insertProposal, insertProposalItems, type NewProposalItem } from "@/lib/proposals/repository";
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
    config: { size: 4 + (i % 9), slip_probability: (i * 0.1) / 7, nested: { list: [i, null, "x"] }, tiny: 1e-7 * i },
    direction: child ? "horizon" : null,
    rationale: `item ${i}: "quoted", back\\slash, ünïcode 🧊`,
    evidence: i % 5 === 0 ? [] : [{ kind: "stat", ref: `env:${i}`, note: "n=8" }],
    predicted_success: child ? Math.PI / (i + 1) : i % 3 === 1 ? 0.1 + 0.2 : null,
    proposer: "heuristic",
    task_edits: i === 4 ? { files: [{ path: "a.py", text: "print(1)\n" }] } : null,
    flags: { flags: i % 2 ? ["crossover"] : [], ...(i === 7 ? { weight: 0.25 } : {}) },
  };
}

describe("insertProposalItems", () => {
  it("stores every column as given, in position order, across statements of 5,000 rows", async () => {
    const [project] = await handle.db.insert(projects).values({ slug: "store", name: "Store", familyId: "frozenlake-mapf" }).returning();
    const { id } = await insertProposal(handle.db, { projectId: project.id, baseGeneration: 0, engineer: "heuristic" });
    const rows = Array.from({ length: 5003 }, (_, i) => item(i));
    await insertProposalItems(handle.db, id, rows);
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

  it("stores a lone surrogate as U+FFFD instead of failing", async () => {
    const [project] = await handle.db.insert(projects).values({ slug: "lone", name: "Lone", familyId: "frozenlake-mapf" }).returning();
    const { id } = await insertProposal(handle.db, { projectId: project.id, baseGeneration: 0, engineer: "llm" });
    await insertProposalItems(handle.db, id, [{ ...item(1), rationale: "cut \ud83e here", config: { note: "end \udc00" } }]);
    const [s] = await handle.db.select().from(proposalItems).where(eq(proposalItems.proposalId, id));
    expect(s.rationale).toBe("cut \ufffd here");
    expect(s.config).toStrictEqual({ note: "end \ufffd" });
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

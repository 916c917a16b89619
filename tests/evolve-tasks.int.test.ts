/**
 * Evolving imported Harbor tasks by their files with the LLM engineer (issue 14, point 3): the
 * loopback OpenAI-compatible fake (a real HTTP server) answers with file edits and task.toml
 * changes; edits that do not apply go back as a repair turn quoting the error; the approved child
 * is materialized as its parent's files plus the edits (new blobs only for the changed files).
 */
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { startFakeOpenAI } from "./fakes/openai-server";
import { blobs, engineerRuns, environments, projects, proposalItems, proposals } from "@/lib/db/schema";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { getFamily } from "@/lib/family-store";
import { importTaskFolders } from "@/lib/tasks/store";
import { parentTaskFiles } from "@/lib/tasks/evolve";
import { runProposal } from "@/lib/proposals";
import { materializeProposal, reviewProposal } from "@/lib/review/decisions";
import { createProject } from "@/lib/projects/service";
import type { Principal } from "@/lib/auth/principal";

const fixtures = fixturesDir();
if (!fixtures && process.env.CI === "true")
  throw new Error("tests/evolve-tasks.int.test.ts needs ../shared/fixtures/harbor-tasks: set ENVFORGE_FIXTURES");
const TASKS = fixtures ? path.join(fixtures, "harbor-tasks", "tasks") : "";
const admin = { kind: "user", id: 1, actor: "user:admin@test", role: "admin", projectId: null, name: "admin" } as Principal;

let db: Awaited<ReturnType<typeof freshDatabase>>;
let projectId = 0;
let keys: string[] = [];

const keepAll = () =>
  keys.map((k) => ({ op: "keep", environmentKey: k, rationale: `Keep ${k}.`, evidence: [{ kind: "stat", ref: "behaviour.successRate" }] }));
const INSTRUCTION_SEARCH = 'with "Hello, world!" as the content.';
const goodChild = {
  op: "mutate",
  parentKey: "hello-world",
  direction: "precision",
  fileEdits: [
    { path: "instruction.md", search: INSTRUCTION_SEARCH, replace: 'with exactly "Hello, world!" and no trailing newline as the content.' },
    { path: "tests/test_state.py", search: "content = hello_path.read_text().strip()", replace: "content = hello_path.read_text()" },
  ],
  taskToml: { "agent.timeout_sec": 60 },
  rationale: "Solved easily: demand the exact bytes in less time.",
  evidence: [{ kind: "stat", ref: "behaviour.successRate" }],
  predictedSuccess: 0.6,
};

async function propose(script: { content: string }[]) {
  const fake = await startFakeOpenAI(script);
  const [row] = await db.db
    .insert(proposals)
    .values({ projectId, baseGeneration: 0, engineer: "llm", status: "queued", options: {} })
    .returning();
  try {
    await runProposal(
      db.db,
      { proposalId: row.id },
      { llmConfig: { baseURL: fake.url, apiKey: null, model: "fake-model", timeoutMs: 5000, discoverContext: false } },
    );
  } finally {
    await fake.close();
  }
  const [p] = await db.db.select().from(proposals).where(eq(proposals.id, row.id));
  const items = await db.db.select().from(proposalItems).where(eq(proposalItems.proposalId, row.id)).orderBy(proposalItems.position);
  const [run] = await db.db.select().from(engineerRuns).where(eq(engineerRuns.proposalId, row.id));
  return { p, items, run, requests: fake.requests };
}

beforeAll(async () => {
  if (!fixtures) return; // its tests are skipped (CI=true fails above instead)
  db = await freshDatabase();
  const project = await createProject(db.db, { slug: "ev", name: "ev", family: "terminal-task" }, admin);
  projectId = project.id;
  const [row] = await db.db.select().from(projects).where(eq(projects.id, projectId));
  const summary = await importTaskFolders(db.db, row, await getFamily(db.db, "terminal-task"), TASKS, { generation: 0, actor: "test" });
  keys = summary.created.sort();
});
afterAll(async () => {
  await db?.drop();
});

describe.skipIf(!fixtures)("the LLM engineer evolves imported tasks by their files", () => {
  it("sends the parent's instruction and tests, stores good edits with the item, and materializes the child content-addressed", async () => {
    const { p, items, requests } = await propose([{ content: JSON.stringify({ items: [...keepAll(), goodChild] }) }]);
    expect(p.status, p.error ?? "").toBe("ready");
    const prompt = JSON.stringify(requests[0].body);
    expect(prompt).toContain("Create a file called hello.txt"); // the instruction
    expect(prompt).toContain("def test_hello_file_contents"); // the tests
    expect(prompt).toContain("fileEdits");
    const child = items.find((i) => i.op === "mutate")!;
    expect(child.parentKey).toBe("hello-world");
    expect(child.taskEdits).toEqual({ files: goodChild.fileEdits, taskToml: goodChild.taskToml });
    expect(child.config).toMatchObject({
      task_name: "hello-world",
      agent_timeout_sec: 60,
      files_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    const before = Number((await db.db.select({ n: sql<number>`count(*)` }).from(blobs))[0].n);
    await reviewProposal(db.db, p.id, { decisions: items.map((i) => ({ itemId: i.id, decision: "approve" })) }, admin);
    const m = await materializeProposal(db.db, p.id, {}, admin);
    expect(m.mutate).toBe(1);
    const after = Number((await db.db.select({ n: sql<number>`count(*)` }).from(blobs))[0].n);
    expect(after - before).toBe(3); // instruction.md, tests/test_state.py, task.toml: nothing else is stored again

    const [parentRow] = await db.db
      .select()
      .from(environments)
      .where(and(eq(environments.projectId, projectId), eq(environments.key, "hello-world")));
    const [childRow] = await db.db
      .select()
      .from(environments)
      .where(and(eq(environments.projectId, projectId), eq(environments.key, child.environmentKey!)));
    const parentFiles = await parentTaskFiles(db.db, parentRow.id);
    const childFiles = await parentTaskFiles(db.db, childRow.id);
    expect(childFiles.map((f) => f.path)).toEqual(parentFiles.map((f) => f.path));
    const text = (files: typeof childFiles, p: string) => files.find((f) => f.path === p)!.text!;
    expect(text(childFiles, "instruction.md")).toBe(
      text(parentFiles, "instruction.md").replace(INSTRUCTION_SEARCH, goodChild.fileEdits[0].replace),
    );
    expect(text(childFiles, "tests/test_state.py")).not.toContain(".strip()");
    expect(text(childFiles, "task.toml")).toMatch(/\[agent\]\ntimeout_sec = 60\n/);
    for (const f of childFiles.filter((f) => !["instruction.md", "tests/test_state.py", "task.toml"].includes(f.path)))
      expect(f.sha256).toBe(parentFiles.find((pf) => pf.path === f.path)!.sha256);
    expect(childFiles.find((f) => f.path === "tests/test.sh")!.executable).toBe(true);
  });

  it("quotes an edit that does not apply back to the model and takes the repaired answer", async () => {
    const broken = {
      ...goodChild,
      fileEdits: [{ path: "instruction.md", search: "Create a file named hello.txt", replace: "x" }],
      taskToml: { "agent.timeout_sec": 45 },
    };
    const repaired = { ...goodChild, taskToml: { "agent.timeout_sec": 45 } };
    const { p, items, requests } = await propose([
      { content: JSON.stringify({ items: [...keepAll(), broken] }) },
      { content: JSON.stringify({ items: [...keepAll(), repaired] }) },
    ]);
    expect(p.status, p.error ?? "").toBe("ready");
    expect(requests).toHaveLength(2);
    const messages = requests[1].body!.messages as { role: string; content: string }[];
    const repair = messages[messages.length - 1].content;
    expect(repair).toMatch(/items\.7\.fileEdits\.0\.search: the search text was not found in instruction\.md/);
    expect(items.find((i) => i.op === "mutate")!.config).toMatchObject({ agent_timeout_sec: 45 });
  });

  it("fails with the raw output saved when the edits still do not apply after the repair turns", async () => {
    const bad = JSON.stringify({ items: [...keepAll(), { ...goodChild, taskToml: { "agent.timeout_sec": -1 } }] });
    const { p, items, run, requests } = await propose([{ content: bad }, { content: bad }, { content: bad }]);
    expect(requests).toHaveLength(3);
    expect(p.status).toBe("failed");
    expect(p.error).toMatch(/still invalid after 2 repair turns/);
    expect(p.error).toMatch(/taskToml\.agent\.timeout_sec/);
    expect(items).toHaveLength(0);
    expect(run.rawOutput).toBe(bad);
  });
});

describe.skipIf(!fixtures)("the heuristic engineer schedules terminal tasks from the pool of imported tasks", () => {
  it("adds unused imported tasks (never a synthetic one) with weights, and materializes them as the same environments", async () => {
    const project = await createProject(db.db, { slug: "pool", name: "pool", family: "terminal-task" }, admin);
    const [row] = await db.db.select().from(projects).where(eq(projects.id, project.id));
    const family = await getFamily(db.db, "terminal-task");
    await importTaskFolders(db.db, row, family, path.join(TASKS, "hello-world"), { generation: 0, actor: "test" });
    await importTaskFolders(db.db, row, family, TASKS, { actor: "test" }); // the rest join the pool only
    const [p] = await db.db
      .insert(proposals)
      .values({
        projectId: project.id,
        baseGeneration: 0,
        engineer: "heuristic",
        status: "queued",
        options: { populationSize: 4, addShare: 0.5, seed: 3 },
      })
      .returning();
    await runProposal(db.db, { proposalId: p.id });
    const [done] = await db.db.select().from(proposals).where(eq(proposals.id, p.id));
    expect(done.status, done.error ?? "").toBe("ready");
    const items = await db.db.select().from(proposalItems).where(eq(proposalItems.proposalId, p.id));
    const poolKeys = keys.filter((k) => k !== "hello-world");
    const adds = items.filter((i) => i.op === "add");
    expect(adds.length).toBeGreaterThan(0);
    for (const a of adds) expect(poolKeys).toContain(a.environmentKey);
    for (const i of items) expect(String((i.config as { task_name: string }).task_name)).not.toMatch(/^synthetic-/);
    for (const i of items.filter((i) => i.op !== "retire")) expect((i.flags as { weight?: number }).weight).toBeGreaterThan(0);
    await reviewProposal(db.db, p.id, { decisions: items.map((i) => ({ itemId: i.id, decision: "approve" })) }, admin);
    await materializeProposal(db.db, p.id, {}, admin);
    const envCount = await db.db
      .select({ n: sql<number>`count(*)::int` })
      .from(environments)
      .where(eq(environments.projectId, project.id));
    // the pool tasks joined as themselves: only mutated children are new rows
    expect(envCount[0].n).toBe(keys.length + items.filter((i) => i.op === "mutate").length);
  });
});

/**
 * Issue 14, "Done means": import the fixture tasks, run a proposal with the loopback LLM fake that
 * returns file edits, review the diff and edit a file inline (validated, audited, undone, edited
 * again), approve, materialize, export; then tests/harbor_export_check.py (stdlib Python) checks
 * every task folder (task.toml, instruction.md, tests/), the job config against Harbor's JobConfig
 * field rules, and that each evolved task differs from its parent exactly by the approved edits.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { startFakeOpenAI } from "./fakes/openai-server";
import { auditEvents, generations, projects, proposalItems, proposals } from "@/lib/db/schema";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { getFamily } from "@/lib/family-store";
import { importTaskFolders } from "@/lib/tasks/store";
import { readBlob } from "@/lib/tasks/materialize";
import { runProposal } from "@/lib/proposals";
import { materializeProposal, reviewProposal } from "@/lib/review/decisions";
import { editItemTaskFiles, itemTaskDiff, revertItemTaskFiles } from "@/lib/review/task-files";
import { createProject } from "@/lib/projects/service";
import { buildPayload } from "@/lib/dispatch/service";
import { exportAdapter } from "@/lib/dispatch/adapters/export";
import type { Principal } from "@/lib/auth/principal";

const fixtures = fixturesDir();
if (!fixtures && process.env.CI === "true")
  throw new Error("tests/evolve-export.int.test.ts needs ../shared/fixtures/harbor-tasks: set ENVFORGE_FIXTURES");
const TASKS = fixtures ? path.join(fixtures, "harbor-tasks", "tasks") : "";
const CHECKER = path.join(import.meta.dirname, "harbor_export_check.py");
const admin = { kind: "user", id: 1, actor: "user:admin@test", role: "admin", projectId: null, name: "admin" } as Principal;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ef-evolve-export-"));
process.env.ENVFORGE_EXPORT_DIR = tmp;
let db: Awaited<ReturnType<typeof freshDatabase>>;

function check(folder: string, expectations: unknown): { code: number; out: string } {
  const file = path.join(tmp, `exp-${Math.random().toString(16).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(expectations));
  try {
    return { code: 0, out: execFileSync("python3", [CHECKER, folder, file], { encoding: "utf8" }) };
  } catch (e) {
    const err = e as { status: number; stdout: string };
    return { code: err.status, out: err.stdout };
  }
}

beforeAll(async () => {
  if (!fixtures) return; // its tests are skipped (CI=true fails above instead)
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!fixtures)("import, evolve with the LLM, review the diff, approve, materialize, export: Harbor reads it", () => {
  it("exports complete task folders whose evolved tasks differ from their parents exactly by the approved edits", async () => {
    const created = await createProject(db.db, { slug: "done", name: "done", family: "terminal-task" }, admin);
    const [project] = await db.db.select().from(projects).where(eq(projects.id, created.id));
    const imported = await importTaskFolders(db.db, project, await getFamily(db.db, "terminal-task"), TASKS, {
      generation: 0,
      actor: "test",
    });
    const keys = imported.created.sort();
    const evidence = [{ kind: "stat", ref: "behaviour.successRate" }];
    const answer = {
      items: [
        ...keys.map((k) => ({ op: "keep", environmentKey: k, rationale: `Keep ${k}.`, evidence })),
        {
          op: "mutate",
          parentKey: "hello-world",
          direction: "precision",
          fileEdits: [{ path: "instruction.md", search: "as the content.", replace: "as the content, and nothing else." }],
          taskToml: { "agent.timeout_sec": 60 },
          rationale: "Tighter instruction and less time.",
          evidence,
        },
        {
          op: "mutate",
          parentKey: "hello-alpine",
          direction: "uncertainty",
          fileEdits: [{ path: "environment/NOTES.md", content: "A distractor: the file name in the old docs was greeting.txt.\n" }],
          rationale: "A distractor file.",
          evidence,
        },
      ],
    };
    const fake = await startFakeOpenAI([{ content: JSON.stringify(answer) }]);
    const [row] = await db.db
      .insert(proposals)
      .values({ projectId: project.id, baseGeneration: 0, engineer: "llm", status: "queued", options: {} })
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
    const items = await db.db.select().from(proposalItems).where(eq(proposalItems.proposalId, row.id));
    expect(items).toHaveLength(keys.length + 2);
    const hello = items.find((i) => i.parentKey === "hello-world")!;
    const alpine = items.find((i) => i.parentKey === "hello-alpine")!;

    // the review: the diff and the task.toml changes
    const diff = await itemTaskDiff(db.db, row.id, hello.id, admin);
    expect(diff.source).toBe("engineer");
    expect(diff.files.map((f) => f.path)).toEqual(["instruction.md", "task.toml"]);
    expect(diff.taskToml).toEqual([{ key: "agent.timeout_sec", before: 120, after: 60 }]);
    // an inline edit that empties the tests is refused and changes nothing
    await expect(
      editItemTaskFiles(
        db.db,
        row.id,
        hello.id,
        {
          files: [
            { path: "tests/test.sh", content: "" },
            { path: "tests/test_state.py", content: "" },
          ],
        },
        admin,
      ),
    ).rejects.toThrow(/tests\/ must still hold/);
    const instruction = 'Create a file called hello.txt with "Hello, world!" as its only line.\n';
    const edited = await editItemTaskFiles(db.db, row.id, hello.id, { files: [{ path: "instruction.md", content: instruction }] }, admin);
    expect(edited.source).toBe("reviewer");
    expect(edited.files.find((f) => f.path === "instruction.md")!.after).toBe(instruction);
    const undone = await revertItemTaskFiles(db.db, row.id, hello.id, admin);
    expect(undone.source).toBe("engineer");
    await editItemTaskFiles(db.db, row.id, hello.id, { files: [{ path: "instruction.md", content: instruction }] }, admin);
    const audit = await db.db.select().from(auditEvents).where(eq(auditEvents.entityId, hello.id));
    expect(audit.map((a) => a.action)).toEqual(["proposal_item.edit_files", "proposal_item.revert_files", "proposal_item.edit_files"]);

    await reviewProposal(db.db, row.id, { decisions: items.map((i) => ({ itemId: i.id, decision: "approve" })) }, admin);
    const m = await materializeProposal(db.db, row.id, {}, admin);
    const [g1] = await db.db
      .select()
      .from(generations)
      .where(and(eq(generations.projectId, project.id), eq(generations.index, m.generation)));
    const payload = await buildPayload(db.db, project, g1, { name: "out", kind: "trainer" }, "abcdef1234567890", "http://127.0.0.1:3000");
    const result = await exportAdapter.deliver({
      payload,
      config: {
        directory: path.join(tmp, "exports"),
        harbor: { nAttempts: 1, agents: [{ name: "terminus-2", model_name: "hosted_vllm/m" }] },
      },
      secret: null,
      attempt: 1,
      readBlob: (sha) => readBlob(db.db, sha),
    });
    expect(result.status).toBe("succeeded");
    const folder = result.externalId!;
    expect(fs.readdirSync(path.join(folder, "harbor-dataset")).sort()).toEqual(
      [...keys, hello.environmentKey, alpine.environmentKey].sort(),
    );

    const expectations = [
      {
        task: hello.environmentKey,
        parent_dir: path.join(TASKS, "hello-world"),
        files: { "instruction.md": instruction },
        // named for itself: Harbor reports a trial by [task].name, and a run of the child must not count as the parent's
        toml: { "agent.timeout_sec": 60, "task.name": `harbor/${hello.environmentKey}` },
      },
      {
        task: alpine.environmentKey,
        parent_dir: path.join(TASKS, "hello-alpine"),
        files: { "environment/NOTES.md": "A distractor: the file name in the old docs was greeting.txt.\n" },
        toml: { "task.name": `harbor/${alpine.environmentKey}` },
      },
    ];
    expect(check(folder, expectations)).toEqual({ code: 0, out: "ok\n" });
    // it bites: the engineer's edit instead of the reviewer's, or a missing distractor, is not what was approved
    const wrong = [
      { ...expectations[0], files: { "instruction.md": "something else\n" } },
      { ...expectations[1], files: {} },
    ];
    const out = check(folder, wrong).out;
    expect(out).toMatch(new RegExp(`${hello.environmentKey}: instruction.md is not the approved edit`));
    expect(out).toMatch(new RegExp(`${alpine.environmentKey}: environment/NOTES.md differs from the parent but no edit was approved`));
  });
});

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { call } from "./http";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { environments, generationEnvironments, generations, projects } from "@/lib/db/schema";
import { configHash } from "@/lib/families/hash";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { getFamily } from "@/lib/family-store";
import { buildPayload } from "@/lib/dispatch/service";
import { exportAdapter } from "@/lib/dispatch/adapters/export";
import { readBlob } from "@/lib/tasks/materialize";
import { harborRolloutInput, readHarborJob } from "@/lib/ingest/harbor";
import { ingestRollouts } from "@/lib/ingest/store";
import { createDispatch, createTarget } from "@/lib/dispatch/service";
import { getBoss, startBoss } from "@/lib/queue/boss";
import type { Principal } from "@/lib/auth/principal";
import { importTaskFolders } from "@/lib/tasks/store";
import * as projectsRoute from "@/app/api/v1/projects/route";

const TOKEN = "test-bootstrap-token-hexport-0123";
const fixtures = fixturesDir();
if (!fixtures && process.env.CI === "true")
  throw new Error("tests/harbor-export.int.test.ts needs ../shared/fixtures/harbor-tasks: set ENVFORGE_FIXTURES");
const TASKS = fixtures ? path.join(fixtures, "harbor-tasks", "tasks") : "";
const CHECKER = path.join(import.meta.dirname, "harbor_export_check.py");
let db: Awaited<ReturnType<typeof freshDatabase>>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ef-hexport-"));
// export targets write under one folder: this test's
process.env.ENVFORGE_EXPORT_DIR = tmp;

/** Harbor's own reading, by the stdlib checker: exit code and output. */
function check(folder: string, expectations?: unknown): { code: number; out: string } {
  const args = [CHECKER, folder];
  if (expectations) {
    const file = path.join(tmp, `exp-${Math.random().toString(16).slice(2)}.json`);
    fs.writeFileSync(file, JSON.stringify(expectations));
    args.push(file);
  }
  try {
    return { code: 0, out: execFileSync("python3", args, { encoding: "utf8" }) };
  } catch (e) {
    const err = e as { status: number; stdout: string };
    return { code: err.status, out: err.stdout };
  }
}

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, TOKEN);
  await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
    token: TOKEN,
    body: { slug: "hx", name: "hx", family: "terminal-task" },
  });
});
afterAll(async () => {
  await (await getBoss().catch(() => null))?.stop({ graceful: false, wait: true });
  await db?.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!fixtures)("export: harbor-dataset/ and harbor-job.json that Harbor runs", () => {
  it("writes complete task folders (an evolved one materialized), weights as repeats, pinned git tasks, and a JobConfig Harbor's rules accept", async () => {
    const [project] = await db.db.select().from(projects).where(eq(projects.slug, "hx"));
    const family = await getFamily(db.db, "terminal-task");
    const summary = await importTaskFolders(db.db, project, family, TASKS, { generation: 0, actor: "test" });
    expect(summary.created).toHaveLength(7);
    const [hello] = await db.db
      .select()
      .from(environments)
      .where(and(eq(environments.projectId, project.id), eq(environments.key, "hello-world")));
    // an evolved task along precision (less time) without files of its own, and a TB2 task known by its git commit only
    const evolvedConfig = { ...(hello.config as Record<string, unknown>), agent_timeout_sec: 60 };
    const [evolved] = await db.db
      .insert(environments)
      .values({
        projectId: project.id,
        key: "hello-world-p1",
        config: evolvedConfig,
        configHash: configHash(evolvedConfig),
        parentId: hello.id,
        op: "mutate",
        direction: "precision",
      })
      .returning();
    const pinnedConfig = {
      task_name: "fix-git",
      source: "terminal-bench",
      git_url: "https://github.com/laude-institute/terminal-bench-2.git",
      git_commit: "69671fbaac6d67a7ef0dfec016cc38a64ef7a77c",
    };
    const [pinned] = await db.db
      .insert(environments)
      .values({ projectId: project.id, key: "fix-git", config: pinnedConfig, configHash: configHash(pinnedConfig), op: "import" })
      .returning();
    const [g1] = await db.db
      .insert(generations)
      .values({ projectId: project.id, index: 1, status: "approved", source: "proposal", parentIndex: 0 })
      .returning();
    const all = await db.db.select().from(environments).where(eq(environments.projectId, project.id));
    const weight = (key: string) => (key === "hello-world-p1" ? 0.3 : key === "fix-git" ? 0.2 : 0.1);
    await db.db
      .insert(generationEnvironments)
      .values(
        all.map((e) => ({ generationId: g1.id, environmentId: e.id, weight: weight(e.key), op: e.id === evolved.id ? "mutate" : "keep" })),
      );

    const payload = await buildPayload(db.db, project, g1, { name: "out", kind: "trainer" }, "1234567890abcdef", "http://127.0.0.1:3000");
    expect(payload.environments.find((e) => e.key === "hello-world-p1")!.files!.map((f) => f.path)).toEqual(
      payload.environments.find((e) => e.key === "hello-world")!.files!.map((f) => f.path),
    );
    const directory = path.join(tmp, "exports");
    const agents = [{ name: "terminus-2", model_name: "hosted_vllm/tmax-9b" }];
    const result = await exportAdapter.deliver({
      payload,
      config: { directory, harbor: { nAttempts: 2, agents } },
      secret: null,
      attempt: 1,
      readBlob: (sha) => readBlob(db.db, sha),
    });
    expect(result.status).toBe("succeeded");
    const folder = result.externalId!;

    const dataset = fs.readdirSync(path.join(folder, "harbor-dataset")).sort();
    expect(dataset).toEqual([...fs.readdirSync(TASKS), "hello-world-p1"].sort());
    expect(fs.statSync(path.join(folder, "harbor-dataset", "hello-world", "tests", "test.sh")).mode & 0o111).not.toBe(0);
    const job = JSON.parse(fs.readFileSync(path.join(folder, "harbor-job.json"), "utf8"));
    expect(job.agents).toEqual(agents);
    expect(job.n_attempts).toBe(2);
    expect(job.datasets).toEqual([]);
    const count = (p: string) => job.tasks.filter((t: { path: string }) => t.path === p).length;
    expect(count("harbor-dataset/hello-world")).toBe(1);
    expect(count("harbor-dataset/hello-world-p1")).toBe(3); // weight 0.3 against the lightest 0.1
    expect(job.tasks.filter((t: { git_url: string | null }) => t.git_url)).toEqual([
      expect.objectContaining({ path: "fix-git", git_url: pinnedConfig.git_url, git_commit_id: pinnedConfig.git_commit }),
      expect.objectContaining({ path: "fix-git" }),
    ]);
    expect(pinned.id).toBeGreaterThan(0);

    const expectations = [
      // the evolved task is named for itself (harbor/hello-world-p1): Harbor reports its trials under [task].name
      {
        task: "hello-world-p1",
        parent_dir: path.join(TASKS, "hello-world"),
        files: {},
        toml: { "agent.timeout_sec": 60, "task.name": "harbor/hello-world-p1" },
      },
    ];
    expect(check(folder, expectations)).toEqual({ code: 0, out: "ok\n" });
    // the checker bites: a wrong expectation, a broken job config and a task without tests fail
    expect(check(folder, [{ ...expectations[0], toml: { ...expectations[0].toml, "agent.timeout_sec": 61 } }]).out).toMatch(
      /hello-world-p1: task.toml agent.timeout_sec is 60, expected 61/,
    );
    fs.writeFileSync(path.join(folder, "harbor-dataset", "hello-world-p1", "instruction.md"), "tampered\n");
    expect(check(folder, expectations).out).toMatch(/hello-world-p1: instruction.md differs from the parent/);
    const broken = {
      ...job,
      agents: [],
      datasets: [
        { path: "x", name: "y" },
        { path: null, name: "o/d", version: "1", task_names: ["t"] },
      ],
      tasks: [{ path: "a", name: "o/b", git_commit_id: "c" }],
      environment: { ...job.environment, type: "podman" },
    };
    fs.writeFileSync(path.join(folder, "harbor-job.json"), JSON.stringify(broken));
    fs.rmSync(path.join(folder, "harbor-dataset", "hello-alpine", "tests"), { recursive: true });
    // Harbor skips a folder without environment/ and refuses one without tests/test.sh (task.py)
    fs.rmSync(path.join(folder, "harbor-dataset", "describe-image", "environment"), { recursive: true });
    fs.rmSync(path.join(folder, "harbor-dataset", "llm-judge-example", "tests", "test.sh"));
    const out = check(folder).out;
    for (const m of [
      /agents must be a non-empty list/,
      /datasets\[0\] sets both path and name/,
      /tasks\[0\] sets both path and name/,
      /tasks\[0\] sets git_commit_id without git_url/,
      /hello-alpine: tests\/test.sh missing/,
      /environment.type 'podman' is not a Harbor environment type/,
      /datasets\[1\] is a package \(org\/name\): Harbor ignores version, set ref/,
      /datasets\[1\].task_names 't' cannot match a package task's org\/name/,
      /describe-image: environment\/ missing/,
      /llm-judge-example: tests\/test.sh missing/,
    ])
      expect(out).toMatch(m);
  });

  it("a Harbor job run by the oracle agent marks environments valid or invalid; a trainer dispatch asks about the invalid ones", async () => {
    const [project] = await db.db.select().from(projects).where(eq(projects.slug, "hx"));
    const family = await getFamily(db.db, "terminal-task");
    const job = path.join(tmp, "oracle-job");
    const trial = (task: string, reward: number, stdout: string) => {
      const dir = path.join(job, `${task}__abc${reward}`);
      fs.mkdirSync(path.join(dir, "verifier"), { recursive: true });
      const config = { task: { path: `harbor-dataset/${task}` }, trial_name: path.basename(dir), agent: { name: "oracle" } };
      fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify(config));
      fs.writeFileSync(
        path.join(dir, "result.json"),
        JSON.stringify({
          id: `oracle-${task}`,
          task_name: task,
          trial_name: path.basename(dir),
          config,
          agent_info: { name: "oracle", version: "1" },
          verifier_result: { rewards: { reward } },
          started_at: "2026-11-30T10:00:00Z",
          finished_at: "2026-11-30T10:01:00Z",
        }),
      );
      fs.writeFileSync(path.join(dir, "verifier", "test-stdout.txt"), stdout);
    };
    trial("hello-world", 1, "1 passed\n");
    trial("hello-alpine", 0, "FAILED tests/test_state.py::test_hello - AssertionError: expected 'Hello, world!'\n");
    const read = await readHarborJob(job);
    expect(read.trials).toHaveLength(2);
    const s = await ingestRollouts(
      db.db,
      project,
      family,
      read.trials.map((t, i) => ({ line: i + 1, value: harborRolloutInput(t, { generation: 1 }) })),
      { createEnvironments: true },
    );
    expect(s.rejected).toEqual([]);
    const state = async (key: string) =>
      (
        await db.db
          .select()
          .from(environments)
          .where(and(eq(environments.projectId, project.id), eq(environments.key, key)))
      )[0];
    expect((await state("hello-world")).validationState).toBe("valid");
    const bad = await state("hello-alpine");
    expect(bad.validationState).toBe("invalid");
    expect(bad.validationDetails).toMatchObject({
      by: "harbor-oracle",
      reward: 0,
      verifierOutput: expect.stringContaining("AssertionError"),
    });
    expect((await state("hello-alpine")).config).toMatchObject({ package_name: "harbor/hello-alpine" }); // the same environment, not a new one

    await startBoss(process.env.DATABASE_URL!, { worker: false });
    const admin = { kind: "user", id: 1, actor: "user:admin@test", role: "admin", projectId: null, name: "admin" } as Principal;
    await createTarget(
      db.db,
      project,
      { name: "trainer", kind: "trainer", adapter: "export", config: { directory: path.join(tmp, "t") } },
      admin,
    );
    const [g1] = await db.db
      .select()
      .from(generations)
      .where(and(eq(generations.projectId, project.id), eq(generations.index, 1)));
    await expect(createDispatch(db.db, project, g1, { target: "trainer" }, admin, "http://127.0.0.1")).rejects.toThrow(
      /1 environment\(s\) the oracle marked invalid \(hello-alpine\)/,
    );
    const sent = await createDispatch(db.db, project, g1, { target: "trainer", invalidEnvironments: "exclude" }, admin, "http://127.0.0.1");
    const row = await db.pool.query("select payload from dispatches where id = $1", [sent.dispatchId]);
    const keys = row.rows[0].payload.environments.map((e: { key: string }) => e.key);
    expect(keys).not.toContain("hello-alpine");
    expect(keys).toContain("hello-world");
    const included = await createDispatch(
      db.db,
      project,
      g1,
      { target: "trainer", invalidEnvironments: "include" },
      admin,
      "http://127.0.0.1",
    );
    expect(
      (await db.pool.query("select payload from dispatches where id = $1", [included.dispatchId])).rows[0].payload.environments.map(
        (e: { key: string }) => e.key,
      ),
    ).toContain("hello-alpine");
  });
});

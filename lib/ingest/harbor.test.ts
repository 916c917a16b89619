import { existsSync } from "node:fs";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifyRollout, failureSignature } from "@/lib/analytics/failures";
import { aggregateByEnvironment, meanReward, passAtK, passAtKCurve } from "@/lib/analytics/metrics";
import { fixturesDir } from "./fixtures-path";
import { harborJobFigures, readHarborJob, readHarborTrial, readHarborTrials, type HarborJob } from "./harbor";
import { SafeTree } from "./safe-tree";
import { failureInputFromRollout, rolloutFlags, NO_REWARD_FLAG } from "./normalized";

describe("harborJobFigures", () => {
  it("reads mean, pass@k, reward and exception buckets", () => {
    const f = harborJobFigures({
      id: "job-1",
      n_total_trials: 4,
      stats: {
        n_completed_trials: 4,
        n_errored_trials: 1,
        evals: {
          agent__model__ds: {
            n_trials: 3,
            n_errors: 1,
            metrics: [{ mean: 0.25 }],
            pass_at_k: { "2": 0.5 },
            reward_stats: { reward: { "0.0": ["a__1", "a__2"], "1.0": ["b__1"] } },
            exception_stats: { AgentTimeoutError: ["a__2"] },
          },
        },
      },
    });
    expect(f).toMatchObject({
      jobId: "job-1",
      nTotalTrials: 4,
      nErroredTrials: 1,
      mean: 0.25,
      passAtK: { "2": 0.5 },
      exceptionCounts: { AgentTimeoutError: 1 },
    });
    expect(f.evals[0].rewardCounts).toEqual({ "0.0": 2, "1.0": 1 });
  });
});

describe("readHarborTrial (synthetic)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "envforge-harbor-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("maps a trial without verdict to reward 0 flagged no_reward", async () => {
    const trial = path.join(dir, "fix-git__abc1234");
    await mkdir(path.join(trial, "agent"), { recursive: true });
    await writeFile(
      path.join(trial, "result.json"),
      JSON.stringify({
        id: "0b7f0c1e-1111-4222-8333-444455556666",
        task_name: "fix-git",
        trial_name: "fix-git__abc1234",
        source: "terminal-bench",
        task_id: { git_commit_id: "deadbeef" },
        config: {
          agent: { override_timeout_sec: 600 },
          agent_timeout_multiplier: 2,
          environment: { override_cpus: 2, override_memory_mb: null },
        },
        agent_info: { name: "a", model_info: { name: "pol", provider: "openai" } },
        agent_result: { n_input_tokens: 100, n_output_tokens: 7 },
        verifier_result: null,
        exception_info: null,
        started_at: "2026-06-09T22:02:53.550367Z",
        finished_at: "2026-06-09T22:13:53.727200Z",
        agent_execution: { started_at: "2026-06-09T22:02:57Z", finished_at: "2026-06-09T22:03:57Z" },
      }),
    );
    await writeFile(
      path.join(trial, "agent", "trajectory.json"),
      JSON.stringify([
        { role: "system", content: "s" },
        { role: "assistant", content: "t", tool_calls: [{ id: "c", function: { name: "bash", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c", content: "out" },
      ]),
    );
    const t = await readHarborTrial(trial);
    expect(t.flags).toEqual(["no_reward", "no_verifier_output"]);
    expect(t.rollout).toMatchObject({
      externalId: "0b7f0c1e-1111-4222-8333-444455556666",
      environmentKey: "fix-git",
      policy: "pol",
      reward: 0,
      status: "completed",
      inputTokens: 100,
      outputTokens: 7,
      turns: 1,
    });
    expect(t.rollout.metadata?.phases).toEqual({
      agentExecution: { startedAt: "2026-06-09T22:02:57Z", finishedAt: "2026-06-09T22:03:57Z", durationSec: 60 },
    });
    expect(t.environment).toEqual({
      key: "fix-git",
      config: { task_name: "fix-git", source: "terminal-bench", git_commit: "deadbeef", agent_timeout_sec: 1200, cpus: 2 },
    });
    expect(classifyRollout(failureInputFromRollout(t.rollout))).toBe("infra_error");
  });

  it("lists folders it cannot read instead of dropping them", async () => {
    const job = path.join(dir, "job");
    await mkdir(path.join(job, "broken__1"), { recursive: true });
    await writeFile(path.join(job, "broken__1", "config.json"), "{}");
    const r = await readHarborJob(job);
    expect(r.trials).toHaveLength(0);
    expect(r.unreadable).toHaveLength(1);
    expect(r.unreadable[0].reason).toMatch(/result\.json: missing/);
  });

  it("hands trials out in folder order as they are read, never reading more than `concurrency` ahead", async () => {
    const job = path.join(dir, "streamed");
    const names = ["t__1", "t__2", "t__3", "t__4", "t__5", "t__6"];
    for (const name of names) {
      await mkdir(path.join(job, name), { recursive: true });
      const result = { id: `id-${name}`, task_name: "t", trial_name: name, agent_info: { model_info: { name: "m" } } };
      await writeFile(path.join(job, name, "result.json"), JSON.stringify(result));
    }
    const reads = [];
    for await (const read of readHarborTrials(
      names.map((n) => path.join(job, n)),
      { concurrency: 2 },
    )) {
      // once the first trial is out, the last one has not been read yet: what it holds now is what is read
      if (reads.length === 0) await rm(path.join(job, "t__6", "result.json"));
      reads.push(read);
    }
    expect(reads.map((r) => path.basename(r.trialDir))).toEqual(names);
    expect(reads.slice(0, 5).map((r) => ("trial" in r ? r.trial.rollout.externalId : r.reason))).toEqual(
      names.slice(0, 5).map((n) => `id-${n}`),
    );
    expect("reason" in reads[5] && reads[5].reason).toMatch(/t__6.*result\.json: missing/);
  });

  it("reads a job named by a relative path through `..`, as `envforge import harbor ../jobs/x` does", async () => {
    // deeper than the working directory, so that resolving against the wrong base cannot land on it by chance
    const job = path.join(dir, "a", "b", "c", "d", "e", "job");
    await mkdir(path.join(job, "broken__1"), { recursive: true });
    await writeFile(path.join(job, "broken__1", "config.json"), "{}");
    const relative = path.relative(process.cwd(), job);
    expect(relative.startsWith("..")).toBe(true);
    const tree = await SafeTree.open(relative);
    const r = await readHarborJob(relative, { tree });
    expect(r.unreadable.map((u) => u.reason)).toEqual([expect.stringMatching(/broken__1.*result\.json: missing/)]);
  });
});

const root = fixturesDir();
// Every trial we call infrastructure on the real jobs, and why (studied by hand: the verifier never
// ran and Harbor recorded no exception; or it could not reach the network or take the dpkg lock
// while the agent had touched no package manager). A change in classification fails here.
const TMAX_INFRA: Record<string, string> = {
  "large-scale-text-editing__2MKkugs": "no verifier verdict (verifier did not run)",
  "large-scale-text-editing__bJywtzj": "no verifier verdict (verifier did not run)",
  "large-scale-text-editing__noNiktD": "no verifier verdict (verifier did not run)",
  "large-scale-text-editing__pzrPXMV": "no verifier verdict (verifier did not run)",
  "write-compressor__QCYrS6R": "verifier setup: curl: command not found (apt: dpkg lock held by another process)",
  "write-compressor__pfgE6CB": "no verifier verdict (verifier did not run)",
};
const QWEN_INFRA: Record<string, string> = {
  "constraints-scheduling__SNJmTiG": "verifier setup: uvx: command not found (network unreachable)",
  "extract-elf__s8mhqWW": "no verifier verdict (verifier did not run)",
};
const jobs = [
  { folder: "tmax-9b/terminal-bench-2-0", mean: 0.2719, pass5: 0.4045, infra: TMAX_INFRA, brokenByAgent: 32 },
  { folder: "Qwen3.5-9B/terminal-bench-2-0", mean: 0.2112, pass5: 0.3371, infra: QWEN_INFRA, brokenByAgent: 22 },
].map((j) => ({ ...j, dir: root ? path.join(root, "harbor-tb2", j.folder) : "" }));
const haveFixtures = jobs.every((j) => j.dir && existsSync(j.dir));
if (!haveFixtures && process.env.CI === "true")
  throw new Error("shared/fixtures/harbor-tb2 is missing: set ENVFORGE_FIXTURES to the fixtures folder");
if (!haveFixtures) {
  console.warn("Skipping Harbor fixture tests: shared/fixtures/harbor-tb2 not found (set ENVFORGE_FIXTURES to the fixtures folder).");
}

describe.skipIf(!haveFixtures)("readHarborJob on shared/fixtures/harbor-tb2 (real data)", () => {
  describe.each(jobs)("$folder", ({ dir, mean, pass5, infra, brokenByAgent }) => {
    let read: HarborJob;
    beforeAll(async () => {
      read = await readHarborJob(dir);
    }, 120_000);

    it("reads all 445 trials, each accounted for", () => {
      expect(read.unreadable).toEqual([]);
      expect(read.trials).toHaveLength(445);
      expect(read.job.figures?.nTotalTrials).toBe(445);
      expect(new Set(read.trials.map((t) => t.rollout.externalId)).size).toBe(445);
      expect(new Set(read.trials.map((t) => t.taskName)).size).toBe(89);

      // Harbor's reward buckets name exactly the trials that have a verdict.
      const figures = read.job.figures!;
      const ev = (read.job.result as { stats: { evals: Record<string, { reward_stats: { reward: Record<string, string[]> } }> } }).stats
        .evals;
      const rewarded = new Set(Object.values(Object.values(ev)[0].reward_stats.reward).flat());
      const withVerdict = read.trials.filter((t) => !t.flags.includes(NO_REWARD_FLAG)).map((t) => t.trialName);
      expect(new Set(withVerdict)).toEqual(rewarded);
      expect(withVerdict.length).toBe(figures.evals[0].nTrials);
    });

    it("maps policy, tokens, trajectory and environment config", () => {
      const policies = new Set(read.trials.map((t) => t.rollout.policy));
      expect(policies.size).toBe(1);
      for (const t of read.trials) {
        expect(t.environment.key).toBe(t.taskName);
        expect(t.environment.config.task_name).toBe(t.taskName);
        expect(
          Object.keys(t.environment.config).every((k) =>
            [
              "task_name",
              "source",
              "git_commit",
              "git_url",
              "git_path",
              "agent_timeout_sec",
              "cpus",
              "memory_mb",
              "allow_internet",
            ].includes(k),
          ),
        ).toBe(true);
      }
      // One config per task across its trials, so an import never conflicts with itself.
      const byTask = new Map<string, string>();
      for (const t of read.trials) {
        const c = JSON.stringify(t.environment.config);
        expect(byTask.get(t.taskName) ?? c).toBe(c);
        byTask.set(t.taskName, c);
      }
      const withTrajectory = read.trials.filter((t) => t.rollout.trajectory);
      expect(withTrajectory.length).toBeGreaterThanOrEqual(444);
      expect(withTrajectory.every((t) => (t.rollout.turns ?? 0) > 0 && (t.rollout.inputTokens ?? 0) > 0)).toBe(true);
    });

    it(`reproduces Harbor's mean (${mean}) and pass@k (pass@5 ${pass5})`, () => {
      const envs = aggregateByEnvironment(
        read.trials.map((t) => ({
          environmentKey: t.rollout.environmentKey,
          reward: t.rollout.reward,
          unrewarded: rolloutFlags(t.rollout).includes(NO_REWARD_FLAG),
        })),
      );
      const figures = read.job.figures!;
      expect(meanReward(envs.values())!.toFixed(4)).toBe(mean.toFixed(4));
      expect(meanReward(envs.values())!.toFixed(4)).toBe(figures.mean!.toFixed(4));
      expect(passAtK(envs.values(), 5)!.toFixed(4)).toBe(pass5.toFixed(4));
      const curve = passAtKCurve(envs.values());
      for (const [k, v] of Object.entries(figures.passAtK)) expect(curve[k].toFixed(4)).toBe(v.toFixed(4));
      expect(curve["1"].toFixed(4)).toBe(figures.mean!.toFixed(4));
    });

    it("classifies every AgentTimeoutError Harbor counted as agent_timeout unless it passed", () => {
      const figures = read.job.figures!;
      const timedOut = read.trials.filter((t) => t.rollout.error?.type === "AgentTimeoutError");
      expect(timedOut.length).toBe(figures.exceptionCounts.AgentTimeoutError);
      const passed = timedOut.filter((t) => classifyRollout(failureInputFromRollout(t.rollout)) === null);
      const agentTimeout = read.trials.filter((t) => classifyRollout(failureInputFromRollout(t.rollout)) === "agent_timeout");
      expect(agentTimeout.length + passed.length).toBe(figures.exceptionCounts.AgentTimeoutError);
      expect(passed.every((t) => (t.rollout.reward ?? 0) >= 1 && t.flags.includes("rewarded_despite_exception"))).toBe(true);
    });

    it("calls infrastructure only the trials listed, and blames the agent for the sandboxes it broke", () => {
      const got: Record<string, string> = {};
      const blamed: string[] = [];
      for (const t of read.trials) {
        const input = failureInputFromRollout(t.rollout);
        const category = classifyRollout(input);
        if (category === "infra_error") got[t.trialName] = failureSignature(input, category);
        if (category === "environment_broken_by_agent") {
          blamed.push(t.trialName);
          // the evidence: the agent's own step and exit code
          const damage = t.rollout.metadata?.environmentDamage as { step: number; exitCode: number | null; kind: string }[];
          expect(damage.length, t.trialName).toBeGreaterThan(0);
          expect(damage[0].step).toBeGreaterThan(0);
        }
      }
      expect(got).toEqual(infra);
      expect(blamed.length).toBe(brokenByAgent);
      // regex-log's agents all ran `apt-get install python3`, which timed out at step 4-7 and left dpkg locked
      for (const name of blamed.filter((n) => n.startsWith("regex-log__"))) {
        const t = read.trials.find((x) => x.trialName === name)!;
        const [first] = t.rollout.metadata?.environmentDamage as { step: number; exitCode: number; kind: string; command: string }[];
        expect(first).toMatchObject({ kind: "package_manager_timed_out", exitCode: 124 });
        expect(first.command).toMatch(/apt-get/);
      }
    });

    // clusters and category counts are SQL's (tests/analytics.int.test.ts on these jobs)
    it("finds infrastructure failures", () => {
      const infra = read.trials.filter((t) => classifyRollout(failureInputFromRollout(t.rollout)) === "infra_error");
      expect(infra.length).toBeGreaterThanOrEqual(1);
    });
  });
});

describe("readHarborTrial: agents, rewards and steps as Harbor writes them", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "envforge-harbor-read-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const resultJson = (name: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: `id-${name}`,
      task_name: "hello",
      trial_name: name,
      agent_info: { name: "terminus-2", version: "2.0.0", model_info: { name: "gpt-4o" } },
      exception_info: null,
      ...extra,
    });
  async function trial(name: string, files: Record<string, string>): Promise<string> {
    const t = path.join(dir, name);
    for (const [rel, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(t, rel)), { recursive: true });
      await writeFile(path.join(t, rel), content);
    }
    return t;
  }
  const atif = (steps: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({ schema_version: "ATIF-v1.6", session_id: "s", agent: { name: "terminus-2", version: "2" }, steps, ...extra });
  const agentStep = (id: number, cmd: string, out: string) => ({
    step_id: id,
    source: "agent",
    message: `run ${cmd}`,
    reasoning_content: "thinking",
    tool_calls: [{ tool_call_id: `c${id}`, function_name: "bash", arguments: { command: cmd } }],
    observation: { results: [{ source_call_id: `c${id}`, content: out }] },
    metrics: { prompt_tokens: 100, completion_tokens: 10, cost_usd: 0.01 },
  });

  it("keeps a git task's folder in its repository (task_id.path), which Harbor checks out to run it again", async () => {
    const t = await trial("git__1", {
      "agent/trajectory.json": "[]",
      "result.json": resultJson("git__1", {
        task_name: "fix-git",
        task_id: { git_url: "https://example.com/tasks.git", git_commit_id: "abc", path: "tasks/terminal/fix-git" },
      }),
    });
    expect((await readHarborTrial(t)).environment.config).toMatchObject({
      task_name: "fix-git",
      git_url: "https://example.com/tasks.git",
      git_commit: "abc",
      git_path: "tasks/terminal/fix-git",
    });
  });

  it("keys a task Harbor reports by its [task].name (org/name) by its folder, the key a task import gives it", async () => {
    const agent = { "agent/trajectory.json": "[]" };
    // a task folder whose [task].name differs from the folder name (as in the harbor-tasks fixtures)
    const local = await trial("named__1", {
      ...agent,
      "result.json": resultJson("named__1", {
        task_name: "harbor/recall-load-atif-trajectory-task-level",
        task_id: { path: "/data/tasks/hello-load-atif-trajectory-task-level" },
      }),
    });
    expect((await readHarborTrial(local)).rollout.environmentKey).toBe("hello-load-atif-trajectory-task-level");
    // an exported evolved task: harbor-dataset/<key>/ carrying harbor/<key>, no task_id (older Harbor): the config's path
    const exported = await trial("child__1", {
      ...agent,
      "result.json": resultJson("child__1", {
        task_name: "harbor/hello-world-m1",
        config: { task: { path: "harbor-dataset/hello-world-m1/" } },
      }),
    });
    expect((await readHarborTrial(exported)).environment.key).toBe("hello-world-m1");
    // a registry package (no path): the name after the org
    const pkg = await trial("pkg__1", {
      ...agent,
      "result.json": resultJson("pkg__1", {
        task_name: "harbor/hello-world",
        task_id: { org: "harbor", name: "hello-world", ref: "sha256:ab" },
      }),
    });
    const pkgTrial = await readHarborTrial(pkg);
    expect(pkgTrial.rollout.environmentKey).toBe("hello-world");
    expect(pkgTrial.environment.config.package_name).toBe("harbor/hello-world"); // how a package dataset names it
  });

  it("reads an ATIF trajectory (Harbor's built-in agents) with its continuation file", async () => {
    const t = await trial("atif__1", {
      "result.json": resultJson("atif__1", { verifier_result: { rewards: { reward: 1 } } }),
      "agent/trajectory.json": atif([{ step_id: 1, source: "user", message: "task" }, agentStep(2, "ls", "a\n(exit_code=0)")], {
        continued_trajectory_ref: "trajectory.cont-1.json",
        final_metrics: { total_prompt_tokens: 300, total_completion_tokens: 30, total_cost_usd: 0.5 },
      }),
      "agent/trajectory.cont-1.json": atif([agentStep(1, "cat a", "b")]),
      "verifier/test-stdout.txt": "============ 3 passed in 0.10s ============\n",
    });
    const r = await readHarborTrial(t);
    expect(r.flags).toEqual([]);
    expect(r.rollout.turns).toBe(2);
    expect(r.rollout.trajectory!.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
    expect(r.rollout.trajectory![1]).toMatchObject({
      reasoning: "thinking",
      usage: { promptTokens: 100, completionTokens: 10, costUsd: 0.01 },
    });
    expect(r.rollout.trajectory![2].toolCallId).toBe("c2");
    // tokens and cost from the trajectory's final metrics when result.json has none
    expect(r.rollout).toMatchObject({ inputTokens: 300, outputTokens: 30, reward: 1 });
    expect(r.rollout.metadata).toMatchObject({ trajectoryFormat: "atif", costUsd: 0.5, tests: { passed: 3, failed: 0 } });
  });

  it("blames codex and claude-code for the dpkg lock their timed-out apt-get left (argv commands, exit codes in extra and [exit_code])", async () => {
    const apt = Array.from({ length: 40 }, (_, i) => `Get:${i} http://archive.ubuntu.com/ubuntu noble/main amd64 pkg${i} [100 kB]`).join(
      "\n",
    );
    const brokenVerifier = [
      "+ apt-get install -y curl",
      "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 77 (apt-get)",
      "/tests/test.sh: line 5: curl: command not found",
      "",
    ].join("\n");
    const agentTrial = (agent: string, call: Record<string, unknown>, content: string, extra?: Record<string, unknown>) => ({
      "result.json": resultJson(`${agent}__1`, {
        agent_info: { name: agent, version: "1", model_info: { name: "m", provider: "p" } },
        verifier_result: { rewards: { reward: 0 } },
      }),
      "agent/trajectory.json": JSON.stringify({
        schema_version: "ATIF-v1.7",
        session_id: "s",
        agent: { name: agent, version: "1" },
        steps: [
          { step_id: 1, source: "user", message: "install curl" },
          {
            step_id: 2,
            source: "agent",
            message: "",
            llm_call_count: 1,
            tool_calls: [{ tool_call_id: "c1", ...call }],
            observation: { results: [{ source_call_id: "c1", content }] },
            ...(extra ? { extra } : {}),
          },
        ],
      }),
      "verifier/test-stdout.txt": brokenVerifier,
    });
    const codexExtra = { tool_metadata: { exit_code: 124, duration_seconds: 600.0 } };
    const trials = {
      "codex-shell-array": agentTrial(
        "codex",
        { function_name: "shell", arguments: { command: ["bash", "-lc", "apt-get install -y curl"], timeout_ms: 600000 } },
        apt,
        codexExtra,
      ),
      "codex-shell-string": agentTrial(
        "codex",
        { function_name: "shell_command", arguments: { command: "apt-get install -y curl" } },
        apt,
        codexExtra,
      ),
      "claude-exitcode": agentTrial(
        "claude-code",
        { function_name: "Bash", arguments: { command: "apt-get install -y curl" } },
        `[stdout]\n${apt}\n[exit_code] 124`,
      ),
    };
    for (const [name, files] of Object.entries(trials)) {
      const r = await readHarborTrial(await trial(name, files));
      expect(classifyRollout(failureInputFromRollout(r.rollout)), name).toBe("environment_broken_by_agent");
      expect(r.rollout.metadata?.environmentDamage, name).toEqual([
        { kind: "package_manager_timed_out", step: 1, message: 1, exitCode: 124, command: "apt-get install -y curl" },
      ]);
    }
  });

  it("counts a continued terminus-2 run's turns once and takes its tokens from the last segment", async () => {
    // terminus-2 with linear_history (harbor agents/terminus_2/terminus_2.py, _split_trajectory_on_summarization and
    // _dump_trajectory_with_continuation_index): each trajectory.cont-N.json starts with the earlier chat marked
    // is_copied_context, and every segment's final_metrics are the run's running totals
    const copied = (step: Record<string, unknown>) => ({ ...step, is_copied_context: true });
    const t = await trial("cont__1", {
      "result.json": resultJson("cont__1", { verifier_result: { rewards: { reward: 1 } } }),
      "agent/trajectory.json": atif(
        [{ step_id: 1, source: "user", message: "task" }, agentStep(2, "ls", "a"), agentStep(3, "cat a", "b"), agentStep(4, "wc a", "1")],
        {
          continued_trajectory_ref: "trajectory.cont-1.json",
          final_metrics: { total_prompt_tokens: 300, total_completion_tokens: 30, total_cached_tokens: 0, total_cost_usd: 0.03 },
        },
      ),
      "agent/trajectory.cont-1.json": atif(
        [
          copied({ step_id: 1, source: "user", message: "task" }),
          copied({ step_id: 2, source: "user", message: "summary of the work so far" }),
          copied({ step_id: 3, source: "agent", message: "questions answered" }),
          copied({ step_id: 4, source: "user", message: "go on" }),
          agentStep(5, "echo hi > b", ""),
          agentStep(6, "cat b", "hi"),
        ],
        { final_metrics: { total_prompt_tokens: 700, total_completion_tokens: 70, total_cached_tokens: 5, total_cost_usd: 0.07 } },
      ),
    });
    const r = await readHarborTrial(t);
    expect(r.rollout.turns).toBe(5);
    expect(r.rollout.trajectory!.filter((m) => m.copiedContext)).toHaveLength(4);
    expect(r.rollout).toMatchObject({ inputTokens: 700, outputTokens: 70 });
    expect(r.rollout.metadata).toMatchObject({ costUsd: 0.07 });
    // result.json's agent_result, when there, is still the figure taken
    const withResult = await trial("cont__2", {
      "result.json": resultJson("cont__2", {
        verifier_result: { rewards: { reward: 1 } },
        agent_result: { n_input_tokens: 800, n_output_tokens: 80, n_cache_tokens: 0, cost_usd: 0.08 },
      }),
      "agent/trajectory.json": atif([agentStep(1, "ls", "a")], {
        continued_trajectory_ref: "trajectory.cont-1.json",
        final_metrics: { total_prompt_tokens: 300, total_completion_tokens: 30 },
      }),
      "agent/trajectory.cont-1.json": atif([agentStep(1, "cat a", "b")], {
        final_metrics: { total_prompt_tokens: 700, total_completion_tokens: 70 },
      }),
    });
    expect((await readHarborTrial(withResult)).rollout).toMatchObject({ inputTokens: 800, outputTokens: 80 });
  });

  it("counts only the main agent's turns of a claude-code run whose subagent steps Harbor merged in", async () => {
    // harbor agents/installed/claude_code.py (_convert_events_to_trajectory): subagents/*.jsonl merged into the main steps by
    // timestamp, each step marked extra.is_sidechain (agent steps also extra.agent_id)
    const side = { is_sidechain: true, agent_id: "a1" };
    const t = await trial("side__1", {
      "result.json": resultJson("side__1", {
        agent_info: { name: "claude-code", version: "2.1", model_info: { name: "claude-opus-4-6" } },
        verifier_result: { rewards: { reward: 0 } },
      }),
      "agent/trajectory.json": atif([
        { step_id: 1, source: "user", message: "fix the bug", extra: { is_sidechain: false } },
        {
          step_id: 2,
          source: "agent",
          message: "delegating",
          tool_calls: [{ tool_call_id: "toolu_T", function_name: "Task", arguments: { prompt: "investigate" } }],
          extra: { is_sidechain: false },
        },
        { step_id: 3, source: "user", message: "investigate", extra: { is_sidechain: true } },
        { ...agentStep(4, "grep -r bug .", "x.py"), extra: side },
        { step_id: 5, source: "agent", message: "done investigating", extra: side },
        { ...agentStep(6, "cat x.py", "..."), extra: { is_sidechain: false } },
      ]),
    });
    const r = await readHarborTrial(t);
    expect(r.rollout.turns).toBe(2);
    const prompts = r.rollout.trajectory!.filter((m) => m.role === "user");
    expect(prompts.map((m) => [m.content, m.sidechain])).toEqual([
      ["fix the bug", undefined],
      ["investigate", {}],
    ]);
  });

  it("counts a turn per agent step, not per model call: a junie step of several LLM calls is one turn", async () => {
    // harbor agents/installed/junie.py: one step aggregates len(usages) calls as llm_call_count, helper lanes (router,
    // tool-output summarizers) included; a turn is one action of the agent on the environment (PRODUCT.md, horizon)
    const t = await trial("junie__1", {
      "result.json": resultJson("junie__1", { agent_info: { name: "junie", version: "1", model_info: { name: "m" } } }),
      "agent/trajectory.json": atif([
        { step_id: 1, source: "user", message: "task" },
        { step_id: 2, source: "agent", message: "a", llm_call_count: 3 },
        { step_id: 3, source: "agent", message: "b", llm_call_count: 4 },
      ]),
    });
    expect((await readHarborTrial(t)).rollout.turns).toBe(2);
  });

  it("keeps the own log of an agent that writes no trajectory.json as its trajectory, turns unknown", async () => {
    // harbor agents/installed/aider.py tees aider's console to /logs/agent/aider.txt and writes no ATIF; kimi_code.py,
    // pi.py, langgraph.py, mcode.py, deerflow.py and fx.py likewise keep only their own log
    const log = "Aider v0.86.1\nMain model: openai/m\n> Add the missing import\nApplied edit to app.py\n";
    const t = await trial("aider__1", {
      "result.json": resultJson("aider__1", { agent_info: { name: "aider", version: "0.86.1", model_info: { name: "m" } } }),
      "agent/aider.txt": log,
      "agent/aider.chat.history.md": "# aider chat started\n",
    });
    const r = await readHarborTrial(t);
    expect(r.flags).toContain("agent_log");
    expect(r.flags).not.toContain("no_trajectory");
    expect(r.rollout.trajectory).toHaveLength(1);
    expect(r.rollout.trajectory![0]).toMatchObject({ role: "tool" });
    expect(r.rollout.trajectory![0].content).toBe(
      `[aider.txt: aider's own log; Harbor recorded no structured trajectory for this agent]\n${log}`,
    );
    // a console log has no turns to count: unknown, not 0
    expect(r.rollout.turns).toBeUndefined();

    // an agent of another name: its <name>.txt; none there (or an unsafe name): no trajectory, as before
    const other = await trial("newagent__1", {
      "result.json": resultJson("newagent__1", { agent_info: { name: "new-agent", version: "1", model_info: { name: "m" } } }),
      "agent/new-agent.txt": "ran\n",
    });
    expect((await readHarborTrial(other)).rollout.trajectory![0].content).toMatch(/^\[new-agent\.txt: new-agent's own log/);
    const none = await trial("none__1", {
      "result.json": resultJson("none__1", { agent_info: { name: "../x", version: "1", model_info: { name: "m" } } }),
      "agent/x.txt": "not read\n",
    });
    const n = await readHarborTrial(none);
    expect(n.flags).toContain("no_trajectory");
    expect(n.rollout.trajectory).toBeUndefined();
  });

  it("puts terminus-2's context summarization files after the step that points to them, as the subagent's", async () => {
    // harbor agents/terminus_2/terminus_2.py (_summarize): the summary, questions and answers calls are written as
    // trajectory.summarization-N-{summary,questions,answers}.json beside the trajectory, pointed to by the step's
    // observation results' subagent_trajectory_ref (trajectory_path); Harbor's golden
    // tests/golden/terminus_2/hello-world-context-summarization.trajectory.json has this shape
    const ref = (kind: string) => ({ session_id: `s-summarization-1-${kind}`, trajectory_path: `trajectory.summarization-1-${kind}.json` });
    const t = await trial("sum__1", {
      "result.json": resultJson("sum__1"),
      "agent/trajectory.json": atif([
        { step_id: 1, source: "user", message: "Create hello.txt" },
        agentStep(2, "ls", "(empty)"),
        {
          step_id: 3,
          source: "system",
          message: "Performed context summarization.",
          observation: {
            results: [{ subagent_trajectory_ref: [ref("summary"), ref("questions"), { trajectory_path: "../outside.json" }] }],
          },
        },
        agentStep(4, "echo hi > hello.txt", ""),
      ]),
      "agent/trajectory.summarization-1-summary.json": atif([
        { step_id: 1, source: "user", message: "Summarize what you did." },
        { step_id: 2, source: "agent", message: "I listed the folder; it was empty." },
      ]),
      "agent/trajectory.summarization-1-questions.json": atif([
        { step_id: 1, source: "user", message: "What do you need to know?" },
        { step_id: 2, source: "agent", message: "Where should hello.txt go?" },
      ]),
      "outside.json": atif([{ step_id: 1, source: "user", message: "never read" }]),
    });
    const r = await readHarborTrial(t);
    const m = r.rollout.trajectory!;
    const at = m.findIndex((x) => x.subagentRefs);
    expect(m.slice(at + 1, at + 5).map((x) => [x.role, x.content, x.sidechain?.agentId])).toEqual([
      ["user", "Summarize what you did.", "s-summarization-1-summary"],
      ["assistant", "I listed the folder; it was empty.", "s-summarization-1-summary"],
      ["user", "What do you need to know?", "s-summarization-1-questions"],
      ["assistant", "Where should hello.txt go?", "s-summarization-1-questions"],
    ]);
    expect(m.some((x) => x.content === "never read")).toBe(false);
    // the summarizer's answers are not the agent's turns
    expect(r.rollout.turns).toBe(2);
    expect(r.flags).not.toContain("unreadable_trajectory");
  });

  it("prefers a trajectory.json to the agent's own log", async () => {
    const t = await trial("both__1", {
      "result.json": resultJson("both__1", { agent_info: { name: "aider", version: "1", model_info: { name: "m" } } }),
      "agent/aider.txt": "console\n",
      "agent/trajectory.json": atif([
        { step_id: 1, source: "user", message: "task" },
        { step_id: 2, source: "agent", message: "done" },
      ]),
    });
    const r = await readHarborTrial(t);
    expect(r.flags).not.toContain("agent_log");
    expect(r.rollout.turns).toBe(1);
  });

  it("flags a trajectory it cannot read with the reason, never an empty one", async () => {
    const t = await trial("odd__1", {
      "result.json": resultJson("odd__1", { verifier_result: { rewards: { reward: 0 } } }),
      "agent/trajectory.json": JSON.stringify({ events: [1, 2] }),
    });
    const r = await readHarborTrial(t);
    expect(r.flags).toContain("unreadable_trajectory");
    expect(r.rollout.trajectory).toBeUndefined();
    expect((r.rollout.metadata?.problems as string[])[0]).toMatch(/unknown trajectory format: an object with keys events/);
  });

  it("takes a single reward whatever its name, keeps every key of several, and follows --reward-key", async () => {
    const one = await trial("one__1", { "result.json": resultJson("one__1"), "verifier/reward.json": JSON.stringify({ accuracy: 0.75 }) });
    const r1 = await readHarborTrial(one);
    expect(r1.rollout.reward).toBe(0.75);
    expect(r1.rollout.metadata).toMatchObject({ rewards: { accuracy: 0.75 }, rewardKey: "accuracy" });
    expect(r1.flags).not.toContain("no_reward");

    const txt = await trial("txt__1", { "result.json": resultJson("txt__1"), "verifier/reward.txt": "0.5\n" });
    expect((await readHarborTrial(txt)).rollout.reward).toBe(0.5);

    const many = await trial("many__1", {
      "result.json": resultJson("many__1", { verifier_result: { rewards: { style: 0.2, correctness: 1, reward: 0.6 } } }),
    });
    const r2 = await readHarborTrial(many);
    expect(r2.rollout.reward).toBe(0.6);
    expect(r2.rollout.metadata?.rewards).toEqual({ style: 0.2, correctness: 1, reward: 0.6 });
    expect((await readHarborTrial(many, { rewardKey: "correctness" })).rollout.reward).toBe(1);
    const missing = await readHarborTrial(many, { rewardKey: "speed" });
    expect(missing.flags).toContain("no_reward");
    expect((missing.rollout.metadata?.problems as string[]).join()).toMatch(/no reward named "speed"/);

    const unnamed = await trial("unnamed__1", {
      "result.json": resultJson("unnamed__1", { verifier_result: { rewards: { b: 1, a: 0.25 } } }),
    });
    const r3 = await readHarborTrial(unnamed);
    expect(r3.rollout.reward).toBe(0.25); // Harbor orders keys: the first is "a"
    expect(r3.flags).toContain("multiple_rewards");
  });

  it("reads a multi-step trial (steps/<name>/agent|verifier, step_results) without flagging it", async () => {
    const t = await trial("multi__1", {
      "result.json": resultJson("multi__1", {
        agent_result: null,
        verifier_result: null,
        step_results: [
          {
            step_name: "setup",
            agent_result: { n_input_tokens: 10, n_output_tokens: 1, cost_usd: 0.1 },
            verifier_result: { rewards: { reward: 1 } },
          },
          {
            step_name: "solve",
            agent_result: { n_input_tokens: 20, n_output_tokens: 2, cost_usd: 0.2 },
            verifier_result: { rewards: { reward: 0.5 } },
          },
        ],
      }),
      "steps/setup/agent/trajectory.json": JSON.stringify([{ role: "assistant", content: "set up" }]),
      "steps/setup/verifier/test-stdout.txt": "===== 2 passed in 0.1s =====\n",
      "steps/solve/agent/trajectory.json": atif([agentStep(1, "make", "ok")]),
      "steps/solve/verifier/test-stdout.txt": "===== 1 failed, 3 passed in 0.1s =====\n",
    });
    const r = await readHarborTrial(t);
    expect(r.flags).toEqual([]);
    expect(r.rollout).toMatchObject({ reward: 0.5, inputTokens: 30, outputTokens: 3, turns: 2 });
    expect(r.rollout.trajectory!.map((m) => m.step)).toEqual(["setup", "solve", "solve"]);
    expect(r.rollout.verifierOutput).toMatch(/=== step setup ===[\s\S]*=== step solve ===/);
    const steps = r.rollout.metadata?.steps as { name: string; reward: number; inputTokens: number; tests: unknown }[];
    expect(steps.map((s) => [s.name, s.reward, s.inputTokens])).toEqual([
      ["setup", 1, 10],
      ["solve", 0.5, 20],
    ]);
    expect(steps[1].tests).toEqual({ passed: 3, failed: 1 });
    expect(r.rollout.metadata?.tests).toEqual({ passed: 5, failed: 1 });
    expect(r.rollout.metadata?.costUsd).toBeCloseTo(0.3);
  });

  it("prefers the CTRF report's counts to pytest's console", async () => {
    const t = await trial("ctrf__1", {
      "result.json": resultJson("ctrf__1", { verifier_result: { rewards: { reward: 0 } } }),
      "verifier/test-stdout.txt": "===== 1 passed in 0.1s =====\n",
      "verifier/ctrf.json": JSON.stringify({ results: { summary: { tests: 7, passed: 4, failed: 3, skipped: 0 } } }),
    });
    expect((await readHarborTrial(t)).rollout.metadata?.tests).toEqual({ passed: 4, failed: 3 });
  });
});

import { existsSync } from "node:fs";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifyRollout, clusterFailures, failureCategoryCounts, failureSignature, type FailureRow } from "@/lib/analytics/failures";
import { aggregateByEnvironment, meanReward, passAtK, passAtKCurve } from "@/lib/analytics/metrics";
import { fixturesDir } from "./fixtures-path";
import { harborJobFigures, readHarborJob, readHarborTrial, type HarborJob } from "./harbor";
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
          "agent__model__ds": {
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
        config: { agent: { override_timeout_sec: 600 }, agent_timeout_multiplier: 2, environment: { override_cpus: 2, override_memory_mb: null } },
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
});

const root = fixturesDir();
const jobs = [
  { folder: "tmax-9b/terminal-bench-2-0", mean: 0.2719, pass5: 0.4045 },
  { folder: "Qwen3.5-9B/terminal-bench-2-0", mean: 0.2112, pass5: 0.3371 },
].map((j) => ({ ...j, dir: root ? path.join(root, "harbor-tb2", j.folder) : "" }));
const haveFixtures = jobs.every((j) => j.dir && existsSync(j.dir));
if (!haveFixtures) {
  console.warn("Skipping Harbor fixture tests: shared/fixtures/harbor-tb2 not found (set ENVFORGE_FIXTURES to the fixtures folder).");
}

describe.skipIf(!haveFixtures)("readHarborJob on shared/fixtures/harbor-tb2 (real data)", () => {
  describe.each(jobs)("$folder", ({ folder, dir, mean, pass5 }) => {
    let read: HarborJob;
    beforeAll(async () => {
      const t0 = performance.now();
      read = await readHarborJob(dir);
      const ms = performance.now() - t0;
      console.log(`[harbor] ${folder}: read ${read.trials.length} trials in ${ms.toFixed(0)} ms`);
    }, 120_000);

    it("reads all 445 trials, each accounted for", () => {
      expect(read.unreadable).toEqual([]);
      expect(read.trials).toHaveLength(445);
      expect(read.job.figures?.nTotalTrials).toBe(445);
      expect(new Set(read.trials.map((t) => t.rollout.externalId)).size).toBe(445);
      expect(new Set(read.trials.map((t) => t.taskName)).size).toBe(89);

      // Harbor's reward buckets name exactly the trials that have a verdict.
      const figures = read.job.figures!;
      const ev = (read.job.result as { stats: { evals: Record<string, { reward_stats: { reward: Record<string, string[]> } }> } }).stats.evals;
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
        expect(Object.keys(t.environment.config).every((k) => ["task_name", "source", "git_commit", "agent_timeout_sec", "cpus", "memory_mb", "allow_internet"].includes(k))).toBe(true);
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
        read.trials.map((t) => ({ environmentKey: t.rollout.environmentKey, reward: t.rollout.reward, unrewarded: rolloutFlags(t.rollout).includes(NO_REWARD_FLAG) })),
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
      console.log(`[harbor] ${folder}: ${timedOut.length} AgentTimeoutError = ${agentTimeout.length} agent_timeout + ${passed.length} passed anyway`);
    });

    it("finds infrastructure failures and clusters the rest", () => {
      const rows: FailureRow[] = [];
      for (const t of read.trials) {
        const input = failureInputFromRollout(t.rollout);
        const category = classifyRollout(input);
        if (!category) continue;
        rows.push({ rolloutId: t.rollout.externalId, environmentKey: t.taskName, category, signature: failureSignature(input, category) });
      }
      const categories = failureCategoryCounts(rows);
      const infra = categories.find((c) => c.category === "infra_error")?.count ?? 0;
      expect(infra).toBeGreaterThanOrEqual(1);
      const clusters = clusterFailures(rows);
      expect(clusters.reduce((n, c) => n + c.count, 0)).toBe(rows.length);
      console.log(`[harbor] ${folder}: ${JSON.stringify(categories)}`);
      for (const c of clusters.filter((x) => x.category === "infra_error")) {
        console.log(`[harbor]   infra ${c.count}x in ${c.environments} envs: ${c.signature}`);
      }
      for (const c of clusters.filter((x) => x.category !== "infra_error").slice(0, 5)) {
        console.log(`[harbor]   ${c.category} ${c.count}x: ${c.signature.slice(0, 100)}`);
      }
    });
  });
});

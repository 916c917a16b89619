import { describe, expect, it } from "vitest";
import { configHash } from "@/lib/families/hash";
import { builtinFamilies } from "@/lib/families/registry";
import { heuristicEngineer } from ".";
import type { EngineerInput, PopulationMember, StructuredSummary } from "../types";
import { learnability } from "@/lib/analytics/metrics";
import { POOL_MIN_LEARNABILITY, poolAddItems, rankPool } from "./task-pool";

const family = builtinFamilies["terminal-task"];

function task(key: string, n: number, s: number, extra: Record<string, unknown> = {}): PopulationMember {
  const config = { task_name: key, source: "local", difficulty: "medium", cpus: 1, memory_mb: 2048, ...extra };
  return {
    key,
    config,
    configHash: configHash(config),
    parentKey: null,
    op: "import",
    direction: null,
    validation: { state: "valid", pMax: null },
    n,
    s,
    age: 1,
    history: [],
    clusterIds: [],
  };
}

function summary(population: PopulationMember[], mediumRate: number | null): StructuredSummary {
  const rollouts = population.reduce((a, m) => a + m.n, 0);
  return {
    project: "tasks",
    family: family.id,
    generation: 0,
    policy: null,
    successThreshold: 1,
    behaviour: {
      rollouts,
      environments: population.length,
      successRate: rollouts ? population.reduce((a, m) => a + m.s, 0) / rollouts : null,
      meanReward: null,
      passAtK: {},
      turns: { median: null, p90: null },
      outputTokens: { median: null, p90: null },
      infraErrorRate: 0,
      zeroSignalFraction: null,
      learnability: null,
      tiers: { frontier: 0, advanced: 0, core: 0, solved: 0 },
    },
    failures: { categories: [], clusters: [] },
    environments: {
      fields:
        mediumRate === null
          ? []
          : [
              {
                path: "difficulty",
                kind: "nominal",
                direction: null,
                difficulty: null,
                buckets: [
                  { label: "medium", environments: 2, rollouts: 16, successRate: mediumRate },
                  { label: "hard", environments: 1, rollouts: 8, successRate: 0.05 },
                ],
              },
            ],
      solved: [],
      frontier: [],
      hopeless: [],
      unvalidated: [],
      unsolvable: [],
    },
    history: { proposals: [], predictions: [] },
    tokenEstimate: 0,
    truncated: [],
  };
}

// Three tasks in the base generation: one solved with a real agent timeout, one solved without one, one frontier.
const population = [
  task("solved-timed", 8, 8, { agent_timeout_sec: 120 }),
  task("solved-untimed", 8, 8),
  task("frontier", 8, 4, { agent_timeout_sec: 600 }),
];
const pool = [
  task("pool-measured", 4, 2, { agent_timeout_sec: 300 }),
  task("pool-medium", 0, 0),
  task("pool-hard", 0, 0, { difficulty: "hard" }),
  task("pool-solved", 8, 8),
  { ...task("pool-invalid", 0, 0), validation: { state: "invalid", pMax: null } },
];

function input(withPool: boolean, populationSize = 6): EngineerInput {
  return {
    family,
    summary: summary(population, 0.45),
    population,
    options: { seed: 7, populationSize, addShare: 0.5 },
    knownHashes: new Set([...population, ...pool].map((m) => m.configHash)),
    keyPrefix: "g1-",
    ...(withPool ? { taskPool: pool } : {}),
  };
}

describe("heuristic on terminal tasks: scheduling from the pool of imported tasks", () => {
  it("never invents a task: adds are unused imported tasks, most learnable first, solved and invalid ones left out", () => {
    const out = heuristicEngineer(input(true));
    const names = out.items.map((i) => String(i.config.task_name));
    expect(names.filter((n) => n.startsWith("synthetic-"))).toEqual([]);
    const known = new Set([...population, ...pool].map((m) => m.key));
    for (const i of out.items) expect(known.has(String(i.config.task_name))).toBe(true);
    const adds = out.items.filter((i) => i.op === "add");
    expect(adds.length).toBeGreaterThan(0);
    expect(adds.map((i) => i.environmentKey)).toEqual(
      rankPool(input(true))
        .slice(0, adds.length)
        .map((x) => x.member.key),
    );
    for (const a of adds) expect(a.config).toEqual(pool.find((m) => m.key === a.environmentKey)!.config);
    expect(adds.map((i) => i.environmentKey)).not.toContain("pool-solved");
    expect(adds.map((i) => i.environmentKey)).not.toContain("pool-invalid");
    // the untested medium task (medium tasks succeed 45%) teaches more than the untested hard one (5%)
    const ranked = rankPool(input(true)).map((x) => x.member.key);
    expect(ranked.indexOf("pool-medium")).toBeLessThan(ranked.indexOf("pool-hard"));
    expect(ranked[0]).toBe("pool-measured");
    // the rule inverted (no pool): the old path samples synthetic tasks
    const legacy = heuristicEngineer(input(false));
    expect(legacy.items.some((i) => String(i.config.task_name).startsWith("synthetic-"))).toBe(true);
  });

  it("edits only honoured task.toml fields, from the task's real value, and never starts an unset agent timeout", () => {
    const out = heuristicEngineer(input(true, 8));
    const children = out.items.filter((i) => i.op === "mutate");
    expect(children.length).toBeGreaterThan(0);
    const honoured = new Set(["agent_timeout_sec", "cpus", "memory_mb", "allow_internet"]);
    for (const c of children) {
      const parent = population.find((m) => m.key === c.parentKey)!;
      const changed = Object.keys({ ...parent.config, ...c.config }).filter(
        (k) => JSON.stringify(parent.config[k]) !== JSON.stringify(c.config[k]),
      );
      for (const k of changed) expect(honoured.has(k), `${c.environmentKey} changed ${k}`).toBe(true);
      if (parent.config.agent_timeout_sec === undefined) expect(c.config.agent_timeout_sec).toBeUndefined();
    }
    const harder = children.find((c) => c.parentKey === "solved-timed" && c.direction === "precision");
    expect(harder, "the solved task with a 120 s budget gets less time").toBeDefined();
    expect(harder!.config.agent_timeout_sec as number).toBeLessThan(120);
    expect(harder!.config.agent_timeout_sec as number).toBeGreaterThan(60);
  });

  it("weights every scheduled item by predicted learnability", () => {
    const out = heuristicEngineer(input(true));
    for (const i of out.items) {
      if (i.op === "retire") expect(i.weight).toBeUndefined();
      else expect(i.weight).toBeCloseTo(Math.max(0.1, Math.round(400 * i.predictedSuccess! * (1 - i.predictedSuccess!)) / 100), 5);
    }
    const weights = out.items.filter((i) => i.op !== "retire").map((i) => i.weight!);
    expect(new Set(weights).size).toBeGreaterThan(1);
  });

  it("notes how many imported tasks the pool held and how many joined; no such note without a pool", () => {
    const poolNote = /^Terminal tasks scheduled from the project's (\d+) unused imported (tasks?): (\d+) joined by predicted learnability/;
    const out = heuristicEngineer(input(true));
    const m = out.notes.map((n) => poolNote.exec(n)).find((x) => x !== null);
    expect(m, out.notes.join("\n")).toBeDefined();
    expect(m!.slice(1)).toEqual([String(pool.length), "tasks", String(out.items.filter((i) => i.op === "add").length)]);
    const one = heuristicEngineer({ ...input(true), taskPool: [pool[0]] });
    const m1 = one.notes.map((n) => poolNote.exec(n)).find((x) => x !== null);
    expect(m1!.slice(1)).toEqual(["1", "task", "1"]);
    expect(heuristicEngineer(input(false)).notes.some((n) => n.startsWith("Terminal tasks scheduled"))).toBe(false);
  });
});

describe("rankPool and poolAddItems: what an imported task is predicted to teach", () => {
  const withPool = (taskPool: PopulationMember[], mediumRate: number | null = 0.45, extra: Partial<StructuredSummary> = {}) => ({
    ...input(false),
    summary: { ...summary(population, mediumRate), ...extra },
    taskPool,
  });
  // untested tasks: a Beta(1 + 4p, 1 + 4(1 - p)) prior around the success rate p they are predicted
  const prior = (p: number) => {
    const a = 1 + 4 * p;
    const b = 1 + 4 * (1 - p);
    return (a * b) / ((a + b) * (a + b + 1));
  };

  it("ranks by learnability, most first, ties by key, whatever the pool's order", () => {
    const tasks = [task("t-b", 8, 4), task("t-weak", 8, 1), task("t-a", 8, 4), task("t-mid", 8, 2)];
    const ranked = rankPool(withPool(tasks));
    expect(ranked.map((x) => x.member.key)).toEqual(["t-a", "t-b", "t-mid", "t-weak"]);
    expect(rankPool(withPool([...tasks].reverse())).map((x) => x.member.key)).toEqual(["t-a", "t-b", "t-mid", "t-weak"]);
    for (const x of ranked) {
      expect(x.success).toBeCloseTo((x.member.s + 1) / (x.member.n + 2), 12);
      expect(x.learnability).toBeCloseTo(learnability(x.member.n, x.member.s), 12);
      expect(x.basis).toBe(`${x.member.s}/${x.member.n} successes in earlier generations`);
    }
  });

  it("leaves out unsolvable tasks, tasks with p_max 0, solved and hopeless ones and those below the learnability floor", () => {
    const keys = (tasks: PopulationMember[]) => rankPool(withPool(tasks)).map((x) => x.member.key);
    const ok = task("ok", 8, 4);
    expect(keys([ok, { ...task("unsolvable", 8, 4), validation: { state: "unsolvable", pMax: 0.5 } }])).toEqual(["ok"]);
    expect(keys([ok, { ...task("pmax0", 8, 4), validation: { state: "valid", pMax: 0 } }])).toEqual(["ok"]);
    // 8 of 8 and 0 of 4 are solved and hopeless though their learnability (0.082, 0.119) passes the floor
    expect(keys([ok, task("solved", 8, 8), task("hopeless", 4, 0)])).toEqual(["ok"]);
    // 1 of 40 passes no rule but the floor
    expect(learnability(40, 1)).toBeLessThan(POOL_MIN_LEARNABILITY);
    expect(keys([ok, task("floor", 40, 1)])).toEqual(["ok"]);
  });

  it("predicts an untested task from its difficulty label's bucket, else the population's rate, else 0.5", () => {
    const untested = [task("u-medium", 0, 0), task("u-hard", 0, 0, { difficulty: "hard" }), task("u-easy", 0, 0, { difficulty: "easy" })];
    const byKey = (xs: ReturnType<typeof rankPool>) => new Map(xs.map((x) => [x.member.key, x]));
    const ranked = byKey(rankPool(withPool(untested)));
    expect(ranked.get("u-medium")?.success).toBeCloseTo(0.45, 12);
    expect(ranked.get("u-medium")?.learnability).toBeCloseTo(prior(0.45), 12);
    expect(ranked.get("u-medium")?.basis).toBe("untested; tasks labelled medium succeed 45%");
    expect(ranked.get("u-hard")?.success).toBeCloseTo(0.05, 12);
    expect(ranked.get("u-hard")?.learnability).toBeCloseTo(prior(0.05), 12);
    // no "easy" bucket: the population's rate (20 of 24)
    const overall = 20 / 24;
    expect(ranked.get("u-easy")?.success).toBeCloseTo(overall, 12);
    expect(ranked.get("u-easy")?.basis).toBe(`untested; the population succeeds ${Math.round(overall * 100)}%`);
    // a bucket without rollouts says nothing, and only the field at path "difficulty" holds the labels
    const base = summary(population, 0.45);
    const emptyBucket = base.environments.fields.map((f) => ({ ...f, buckets: f.buckets.map((b) => ({ ...b, rollouts: 0 })) }));
    const decoy = {
      ...base.environments.fields[0],
      path: "source",
      buckets: [{ label: "medium", environments: 1, rollouts: 8, successRate: 0.9 }],
    };
    const env = (fields: typeof base.environments.fields) => ({ environments: { ...base.environments, fields } });
    expect(rankPool(withPool([untested[0]], 0.45, env(emptyBucket)))[0].success).toBeCloseTo(overall, 12);
    expect(rankPool(withPool([untested[0]], 0.45, env([decoy, ...base.environments.fields])))[0].success).toBeCloseTo(0.45, 12);
    // a bucket with rollouts but no success rate says nothing either: the basis is the population's
    const noRate = base.environments.fields.map((f) => ({ ...f, buckets: f.buckets.map((b) => ({ ...b, successRate: null })) }));
    expect(rankPool(withPool([untested[0]], 0.45, env(noRate)))[0].basis).toBe(
      `untested; the population succeeds ${Math.round(overall * 100)}%`,
    );
    expect(rankPool(input(false))).toEqual([]);
    const nothing = rankPool(withPool([untested[0]], null, { behaviour: { ...base.behaviour, successRate: null } }))[0];
    expect(nothing.success).toBe(0.5);
    expect(nothing.basis).toBe("untested; nothing measured yet");
  });

  it("adds the `want` best as items that cite their basis, predicted success to 3 decimals, flagged pool", () => {
    const tasks = [task("m-1", 7, 3), task("m-2", 8, 4), task("u-1", 0, 0)];
    const i = withPool(tasks);
    expect(poolAddItems(i, -1)).toEqual([]);
    const items = poolAddItems(i, 2);
    expect(items.map((x) => x.environmentKey)).toEqual(
      rankPool(i)
        .slice(0, 2)
        .map((x) => x.member.key),
    );
    for (const item of poolAddItems(i, 3)) {
      const x = rankPool(i).find((r) => r.member.key === item.environmentKey)!;
      expect(item).toMatchObject({
        op: "add",
        config: x.member.config,
        flags: ["pool"],
        predictedSuccess: Math.round(x.success * 1000) / 1000,
      });
      expect(item.evidence).toEqual([
        x.member.n > 0
          ? { kind: "stat", ref: `env:${x.member.key}`, note: x.basis }
          : { kind: "stat", ref: "environments.fields.difficulty", note: x.basis },
      ]);
      expect(item.rationale).toContain(x.basis);
    }
    expect(poolAddItems(i, 3).find((x) => x.environmentKey === "m-1")?.predictedSuccess).toBe(0.444);
  });
});

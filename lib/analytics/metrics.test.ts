import { describe, expect, it } from "vitest";
import {
  aggregateByEnvironment,
  difficultyTier,
  emptyAggregate,
  environmentTier,
  fieldBreakdown,
  groupLearnability,
  infraErrorRate,
  isZeroSignal,
  learnability,
  meanLearnability,
  meanReward,
  passAtK,
  passAtKChartPoints,
  passAtKCurve,
  passAtKForEnvironment,
  passAtKSeries,
  populationMetrics,
  seriesChartPoints,
  rolloutOutcome,
  successRate,
  tierHistogram,
  zeroSignalFraction,
  type EnvironmentAggregate,
} from "./metrics";

const env = (n: number, s: number, extra: Partial<EnvironmentAggregate> = {}): EnvironmentAggregate => ({
  ...emptyAggregate(),
  n,
  s,
  rewardSum: s,
  ...extra,
});

describe("rolloutOutcome", () => {
  it("counts a missing reward as 0 and flags it", () => {
    expect(rolloutOutcome({})).toEqual({ reward: 0, success: false, unrewarded: true });
    expect(rolloutOutcome({ reward: null })).toEqual({ reward: 0, success: false, unrewarded: true });
  });
  it("applies the threshold", () => {
    expect(rolloutOutcome({ reward: 1 }).success).toBe(true);
    expect(rolloutOutcome({ reward: 0.99 }).success).toBe(false);
    expect(rolloutOutcome({ reward: 0.5 }, 0.5).success).toBe(true);
  });
  it("keeps a stand-in reward flagged", () => {
    expect(rolloutOutcome({ reward: 0, unrewarded: true })).toEqual({ reward: 0, success: false, unrewarded: true });
  });
});

describe("pass@k", () => {
  it("matches hand-computed values of 1 - C(n-c,k)/C(n,k)", () => {
    expect(passAtKForEnvironment(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passAtKForEnvironment(5, 2, 2)).toBeCloseTo(1 - 3 / 10, 12);
    expect(passAtKForEnvironment(5, 2, 3)).toBeCloseTo(1 - 1 / 10, 12);
    expect(passAtKForEnvironment(5, 2, 4)).toBe(1);
    expect(passAtKForEnvironment(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 12);
    expect(passAtKForEnvironment(5, 0, 5)).toBe(0);
    expect(passAtKForEnvironment(5, 5, 1)).toBe(1);
  });
  it("is undefined (null) for fewer attempts than k", () => {
    expect(passAtKForEnvironment(4, 1, 5)).toBeNull();
  });
  it("stays finite where factorials would overflow", () => {
    // C(999,500)/C(1000,500) = 500/1000
    expect(passAtKForEnvironment(1000, 1, 500)).toBeCloseTo(0.5, 12);
    const v = passAtKForEnvironment(5000, 10, 2500)!;
    expect(Number.isFinite(v)).toBe(true);
    expect(v).toBeGreaterThan(0.99);
  });
  it("rejects a non-positive k", () => {
    expect(() => passAtKForEnvironment(5, 1, 0)).toThrow(RangeError);
  });
  it("averages over environments with at least k attempts", () => {
    const envs = [env(5, 2), env(5, 0), env(3, 3)];
    expect(passAtK(envs, 1)).toBeCloseTo((0.4 + 0 + 1) / 3, 12);
    expect(passAtK(envs, 4)).toBeCloseTo((1 + 0) / 2, 12);
    expect(passAtK(envs, 6)).toBeNull();
    const curve = passAtKCurve(envs);
    expect(Object.keys(curve)).toEqual(["1", "2", "3", "4", "5"]);
    expect(curve["2"]).toBeCloseTo((0.7 + 0 + 1) / 3, 12);
  });
  it("gives the curve equal to pass@k asked for each k, on skewed environments with repeated (n, c)", () => {
    // sizes from 1 to 400 attempts, successes anywhere from none to all; every environment twice (a shared term)
    const base = Array.from({ length: 60 }, (_, i) => env(1 + ((i * i * 37) % 400), 0)).map((e, i) => ({ ...e, s: (i * 53) % (e.n + 1) }));
    const envs = [...base, ...base.slice(0, 30)];
    const curve = passAtKCurve(envs);
    const maxN = Math.max(...envs.map((e) => e.n));
    expect(Object.keys(curve)).toHaveLength(maxN);
    // equal up to the order of float additions
    for (let k = 1; k <= maxN; k++) expect(curve[String(k)]).toBeCloseTo(passAtK(envs, k)!, 13);
  });
  it("gives the tail of an environment with tens of thousands of attempts exactly (terms that round to 1)", () => {
    // 58,000 attempts with 1% success: from some k on every term is 1 in floating point
    const envs = [env(58_000, 580), env(1000, 0), env(1000, 1000), env(300, 7)];
    const curve = passAtKCurve(envs);
    expect(Object.keys(curve)).toHaveLength(58_000);
    for (const k of [1, 2, 10, 299, 300, 301, 999, 1000, 1001, 3000, 4000, 10_000, 57_420, 57_421, 58_000])
      expect(curve[String(k)]).toBeCloseTo(passAtK(envs, k)!, 13);
    expect(curve["58000"]).toBe(1);
    expect(curve["4000"]).toBe(1); // 1 - 0.99^4000 rounds to 1
  });
});

describe("learnability", () => {
  it("is ab/((a+b)(a+b+1)) under Beta(s+1, n-s+1)", () => {
    expect(learnability(0, 0)).toBeCloseTo(1 / 6, 12); // uniform: E[q] - E[q^2] = 1/2 - 1/3
    expect(learnability(5, 2)).toBeCloseTo((3 * 4) / (7 * 8), 12);
    expect(learnability(5, 5)).toBeCloseTo((6 * 1) / (7 * 8), 12);
    expect(learnability(5, 0)).toBeCloseTo(learnability(5, 5), 12);
  });
  it("scales by a known pMax < 1 with q = min(X/pMax, 1)", () => {
    // X ~ U(0,1): integral_0^0.5 2x(1-2x) dx = 1/12
    expect(learnability(0, 0, 0.5)).toBeCloseTo(1 / 12, 9);
    // X ~ Beta(2,2): 12 * integral_0^0.5 x^2 (1-2x)(1-x) dx = 0.0875
    expect(learnability(2, 1, 0.5)).toBeCloseTo(0.0875, 9);
    expect(learnability(5, 2, 1)).toBeCloseTo(learnability(5, 2), 12);
    expect(learnability(5, 2, null)).toBeCloseTo(learnability(5, 2), 12);
    expect(learnability(5, 2, 0)).toBe(0);
  });
  it("stays within [0, 1/4] when the posterior sits above pMax", () => {
    const v = learnability(100, 90, 0.3);
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThan(1e-6);
  });
  it("GRPO variant E[1 - q^G - (1-q)^G] uses Beta moments", () => {
    expect(groupLearnability(0, 0, 4)).toBeCloseTo(1 - 1 / 5 - 1 / 5, 12);
    expect(groupLearnability(5, 2, 2)).toBeCloseTo(2 * learnability(5, 2), 12);
    expect(groupLearnability(5, 2, 1)).toBeCloseTo(0, 12);
    // X ~ Beta(2,2), pMax 0.5, G = 4: 11/35 (by integration)
    expect(groupLearnability(2, 1, 4, 0.5)).toBeCloseTo(11 / 35, 8);
    expect(groupLearnability(2, 1, 2, 0.5)).toBeCloseTo(2 * 0.0875, 8);
  });
  it("averages over environments", () => {
    expect(meanLearnability([env(0, 0), env(5, 2)])).toBeCloseTo((1 / 6 + 12 / 56) / 2, 12);
    expect(meanLearnability([])).toBeNull();
  });
});

describe("population figures", () => {
  const rollouts = [
    { environmentKey: "a", reward: 1 },
    { environmentKey: "a", reward: 0, status: "errored" },
    { environmentKey: "a" }, // no reward: counts 0, flagged
    { environmentKey: "b", reward: 0.5, infra: true },
    { environmentKey: "c", reward: 1 },
  ];
  const envs = aggregateByEnvironment(rollouts);

  it("aggregates per environment", () => {
    expect(envs.get("a")).toMatchObject({ n: 3, s: 1, rewardSum: 1, errored: 1, unrewarded: 1 });
    expect(envs.get("b")).toMatchObject({ n: 1, s: 0, rewardSum: 0.5, infraErrors: 1 });
  });
  it("pools success, reward and infra over rollouts", () => {
    expect(successRate(envs.values())).toBeCloseTo(2 / 5, 12);
    expect(meanReward(envs.values())).toBeCloseTo(2.5 / 5, 12);
    expect(infraErrorRate(envs.values())).toBeCloseTo(1 / 5, 12);
    expect(successRate([])).toBeNull();
  });
  it("counts zero-signal environments among those with attempts", () => {
    expect(isZeroSignal({ n: 0, s: 0 })).toBe(false);
    expect(zeroSignalFraction([env(5, 0), env(5, 5), env(5, 2), env(0, 0)])).toBeCloseTo(2 / 3, 12);
  });
  it("summarises a population in the API's shape", () => {
    const m = populationMetrics(envs.values());
    expect(m).toMatchObject({ rollouts: 5, environments: 3, errored: 1, unrewarded: 1 });
    expect(Object.keys(m.passAtK)).toEqual(["1", "2", "3"]);
    expect(m.zeroSignalFraction).toBeCloseTo(2 / 3, 12);
  });
});

describe("tiers", () => {
  it("uses the Tmax boundaries", () => {
    expect(difficultyTier(0.39)).toBe("frontier");
    expect(difficultyTier(0.4)).toBe("advanced");
    expect(difficultyTier(0.6)).toBe("core");
    expect(difficultyTier(0.8)).toBe("solved");
  });
  it("takes the best policy", () => {
    expect(
      environmentTier([
        { n: 5, s: 1 },
        { n: 5, s: 4 },
      ]),
    ).toBe("solved");
    expect(environmentTier([])).toBeNull();
    expect(tierHistogram(["frontier", "frontier", "solved", null])).toEqual({ frontier: 2, advanced: 0, core: 0, solved: 1 });
  });
});

describe("fieldBreakdown", () => {
  it("bins numeric fields into 5 equal-width bins, the last one closed", () => {
    const items = Array.from({ length: 11 }, (_, i) => ({ value: i, env: { n: 2, s: i % 2 === 0 ? 2 : 0, rewardSum: 0 } }));
    const b = fieldBreakdown([...items, { value: null, env: { n: 1, s: 0, rewardSum: 0 } }], { kind: "integer" });
    expect(b.buckets.map((x) => x.environments)).toEqual([2, 2, 2, 2, 3, 1]);
    expect(b.buckets[0]).toMatchObject({ label: "0–2", lo: 0, hi: 2, rollouts: 4, successes: 2, successRate: 0.5 });
    expect(b.buckets[4]).toMatchObject({ lo: 8, hi: 10, environments: 3 });
    expect(b.buckets[5].label).toBe("(missing)");
  });
  it("keeps ordinal level order and appends unseen values", () => {
    const b = fieldBreakdown(
      [
        { value: "complex", env: { n: 5, s: 1, rewardSum: 1 } },
        { value: "short", env: { n: 5, s: 5, rewardSum: 5 } },
        { value: "weird", env: { n: 1, s: 0, rewardSum: 0 } },
      ],
      { kind: "ordinal", levels: ["short", "moderate", "complex", "intricate"] },
    );
    expect(b.buckets.map((x) => [x.label, x.environments, x.successRate])).toEqual([
      ["short", 1, 1],
      ["moderate", 0, null],
      ["complex", 1, 0.2],
      ["intricate", 0, null],
      ["weird", 1, 0],
    ]);
  });
  it("splits booleans into false and true", () => {
    const b = fieldBreakdown([{ value: true, env: { n: 4, s: 1, rewardSum: 1 } }], { kind: "boolean" });
    expect(b.buckets.map((x) => [x.value, x.rollouts])).toEqual([
      [false, 0],
      [true, 4],
    ]);
  });
  it("uses one bin when every value is equal", () => {
    const b = fieldBreakdown(
      [
        { value: 3, env: { n: 1, s: 1, rewardSum: 1 } },
        { value: 3, env: { n: 1, s: 0, rewardSum: 0 } },
      ],
      { kind: "number" },
    );
    expect(b.buckets).toHaveLength(1);
    expect(b.buckets[0]).toMatchObject({ label: "3", environments: 2, successRate: 0.5 });
  });
});

describe("passAtKChartPoints", () => {
  const curve = passAtKCurve([env(5000, 3), env(7, 2)]);

  it("keeps every k up to 100, then k at least 5% apart, and the largest k, with the full curve's values", () => {
    const points = passAtKChartPoints(curve);
    const ks = Object.keys(points).map(Number);
    for (let k = 1; k <= 100; k++) expect(points[String(k)]).toBe(curve[String(k)]);
    expect(ks).toContain(5000);
    for (const k of ks) expect(points[String(k)]).toBe(curve[String(k)]);
    const beyond = ks.filter((k) => k > 100).sort((a, b) => a - b);
    for (let i = 1; i < beyond.length - 1; i++) expect(beyond[i]).toBeGreaterThanOrEqual(Math.ceil(beyond[i - 1] * 1.05));
    // about 100 + log(50) / log(1.05) points, not 5,000
    expect(ks.length).toBeGreaterThan(150);
    expect(ks.length).toBeLessThan(200);
  });

  it("keeps a short curve whole", () => {
    const short = passAtKCurve([env(9, 4)]);
    expect(passAtKChartPoints(short)).toEqual(short);
  });
});

describe("passAtKSeries and seriesChartPoints (the dashboard's curves without the every-k object)", () => {
  // 5,000 and 4,999 attempts: k = 4,999 is not 5% past its predecessor, so only the "always the largest k" rule keeps 5,000
  const populations = [[env(5000, 3), env(7, 2)], [env(4999, 10), env(12, 0), env(3, 3), env(0, 0)], [env(9, 4)], [env(1, 1)], []];

  it("holds passAtKCurve's values at k - 1, bit for bit", () => {
    for (const envs of populations) {
      const curve = passAtKCurve(envs);
      const series = passAtKSeries(envs);
      expect(Object.keys(curve)).toHaveLength(series.length);
      series.forEach((v, i) => expect(curve[String(i + 1)]).toBe(v));
    }
  });

  it("charts the same points with the same values as passAtKChartPoints of the full curve", () => {
    for (const envs of populations) {
      expect(seriesChartPoints(passAtKSeries(envs))).toEqual(passAtKChartPoints(passAtKCurve(envs)));
      expect(seriesChartPoints(passAtKSeries(envs), 10, 1.5)).toEqual(passAtKChartPoints(passAtKCurve(envs), 10, 1.5));
    }
    expect(Object.keys(seriesChartPoints(passAtKSeries(populations[1])))).toContain("4999");
  });

  it("gives populationMetrics the chart's points when asked, every k otherwise", () => {
    for (const envs of populations) {
      const every = populationMetrics(envs);
      const chart = populationMetrics(envs, { passAtK: "chart" });
      expect(every.passAtK).toEqual(passAtKCurve(envs));
      expect(chart).toEqual({ ...every, passAtK: passAtKChartPoints(every.passAtK) });
    }
  });
});

import { describe, expect, it } from "vitest";
import type { ArenaReport, StrategyResult } from "@/lib/arena";
import { run } from "../main";
import { arenaSummaryLine, arenaTable, lostChecks } from "./arena";

const result = (to50: number | null, reached50: number): StrategyResult => ({
  rolloutsTo50: to50,
  rolloutsTo50CI: to50 === null ? [1000, 1000] : [to50 - 50, to50 + 50],
  rolloutsTo80: null,
  rolloutsTo80CI: [1000, 1000],
  auc: 0.4,
  aucCI: [0.35, 0.45],
  finalSuccess: 0.7,
  cvar10: 0.5,
  zeroSignal: 0.3,
  invalidRate: 0,
  diversity: 0.4,
  reached50,
  reached80: 0,
});

const report: ArenaReport = {
  version: 1,
  createdAt: "2026-11-30T00:00:00.000Z",
  seeds: 2,
  seedBase: 1000,
  quick: true,
  family: "search-agent",
  learner: "default",
  trapShare: 0.15,
  validator: { mode: "shared-charged", cost: 1 },
  budget: { rollouts: 1000 },
  settings: {
    clean: { uniform: result(600, 2), heuristic: result(300, 2) },
    traps: { uniform: result(700, 1), heuristic: result(350, 2) },
  },
  curves: { clean: {}, traps: {} },
  goal: {
    heuristicVsUniform50: { clean: 0.5, traps: 0.5 },
    heuristicVsPlr50: { clean: null, traps: null },
    checks: [
      { setting: "clean", level: 50, baseline: "uniform", heuristic: 300, other: 600, ratio: 0.5, limit: 0.6, won: true },
      { setting: "traps", level: 80, baseline: "uniform", heuristic: 1000, other: 1000, ratio: 1, limit: 0.6, won: false },
    ],
    won: 1,
    lost: 1,
    met: false,
  },
  notes: [],
  durationMs: 1234,
};

describe("envforge arena output", () => {
  it("prints one row per strategy and setting with intervals and the seeds that got there", () => {
    const lines = arenaTable(report).split("\n");
    expect(lines[0]).toMatch(/^strategy\s+setting\s+rollouts to 50%\s+rollouts to 80%\s+AUC\s+final$/);
    expect(lines).toHaveLength(2 + 4);
    expect(lines[2]).toMatch(/^uniform\s+clean\s+600 \[550, 650\]\s+never \(0\/2\)\s+0\.400 \[0\.350, 0\.450\]\s+0\.700$/);
    expect(lines[3]).toMatch(/^uniform\s+traps\s+700 \[650, 750\] \(1\/2\)/);
    expect(lines[4]).toMatch(/^heuristic\s+clean\s+300 \[250, 350\]/);
  });

  it("ends with a summary line that says whether the goal was met", () => {
    expect(arenaSummaryLine(report)).toBe(
      "arena (search-agent, learner default, traps 0.15, 2 seeds from 1000, quick): heuristic/uniform rollouts to 50% " +
        "0.50 clean, 0.50 traps (goal <= 0.60); heuristic/PLR n/a clean, n/a traps (goal <= 1.00); 1/2 goal checks won; " +
        "goal not met in 1.2 s",
    );
  });

  it("lists each lost check, saying when the oracle misses it too", () => {
    expect(lostChecks(report)).toBe("  lost: traps to 80%: heuristic 1000 vs uniform 1000 (ratio 1.00, goal <= 0.6)");
    const checks = report.goal.checks!;
    const withOracle: ArenaReport = {
      ...report,
      goal: {
        ...report.goal,
        checks: [
          { ...checks[0], oracle: 250, oracleWon: true },
          { ...checks[1], oracle: 1000, oracleWon: false },
          { ...checks[1], level: 50, heuristic: 700, ratio: 0.7, oracle: 400, oracleWon: true },
        ],
      },
    };
    expect(lostChecks(withOracle).split("\n")).toEqual([
      "  lost: traps to 80%: heuristic 1000 vs uniform 1000 (ratio 1.00, goal <= 0.6); the oracle misses it too (1000)",
      "  lost: traps to 50%: heuristic 700 vs uniform 1000 (ratio 0.70, goal <= 0.6)",
    ]);
  });

  it("rejects malformed options before running anything", async () => {
    await expect(run(["arena", "--seeds", "0"])).rejects.toThrow(/--seeds must be a whole number >= 1/);
    await expect(run(["arena", "--workers", "two"])).rejects.toThrow(/--workers must be a whole number >= 0/);
    await expect(run(["arena", "--seeds", "1", "--family", "nope"])).rejects.toThrow(
      /Unknown family "nope": use a built-in family \(terminal-task, /,
    );
  });
});

/**
 * The Arena page's goal matrix, rendered to markup from reports whose goal checks lib/arena/goal.ts made: the count of
 * lost checks the oracle misses too (title and remark), and the legend's word on the clean column counted once per
 * share of traps, which only a matrix of several shares needs.
 */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { goalChecks } from "@/lib/arena/goal";
import type { ArenaReport, StrategyResult } from "@/lib/arena/types";
import { GoalMatrix } from "./goal-matrix";

const r = (to50: number | null, to80: number | null) => ({ rolloutsTo50: to50, rolloutsTo80: to80 }) as StrategyResult;

/** One cell: the heuristic loses to 80% to uniform x0.6 in the clean setting, and the oracle (never there) misses it too. */
function cell(trapShare: number): ArenaReport {
  const settings = {
    clean: { uniform: r(1000, null), heuristic: r(500, 9000), oracle: r(400, null) },
    traps: { uniform: r(1000, null), heuristic: r(500, 5000), oracle: r(400, 4000) },
  };
  return {
    version: 1,
    seeds: 10,
    seedBase: 1000,
    quick: false,
    family: "search-agent",
    learner: "default",
    trapShare,
    budget: { rollouts: 10_000 },
    settings,
    curves: { clean: {}, traps: {} },
    goal: goalChecks(settings, 10_000),
  } as unknown as ArenaReport;
}

const html = (cells: ArenaReport[]) => renderToStaticMarkup(createElement(GoalMatrix, { cells }));

describe("GoalMatrix", () => {
  it("counts the lost checks the oracle misses too, clean ones once per share of traps as the totals do, and says why", () => {
    const two = html([cell(0.15), cell(0.3)]);
    expect(two).toContain("Goal matrix: 6 of 8 comparisons won; 2 of the lost the oracle misses too");
    expect(two).toContain("the oracle misses it too (1.00×)");
    expect(two).toContain("the totals above count its comparisons once per share");
    const one = html([cell(0.15)]);
    expect(one).toContain("Goal matrix: 3 of 4 comparisons won; 1 of the lost the oracle misses too");
    expect(one).not.toContain("once per share");
  });

  it("draws no oracle remark, count or legend line for checks made without an oracle (older reports)", () => {
    const older = cell(0.15);
    older.goal.checks = older.goal.checks.map(({ oracle: _o, oracleWon: _w, ...c }) => c);
    const out = html([older]);
    expect(out).toContain("Goal matrix: 3 of 4 comparisons won</");
    expect(out).not.toContain("oracle misses");
  });
});

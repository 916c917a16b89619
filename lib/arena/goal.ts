/**
 * The arena's goal (issue 16): to 50% and to 80% target success, the heuristic engineer needs at
 * most 0.6x uniform's rollouts and at most each of threshold, RLVE, SFL, PLR and ACCEL's, in the
 * clean and the traps setting. Rollouts are IQMs over seeds where a seed that never gets there
 * counts as the budget, so a strategy that reaches a level on no seed scores the budget. Each check
 * also says whether the oracle, the arena's upper bound, would meet it: a lost check the oracle
 * loses too is one no curriculum of this arena is known to win.
 */
import type { ArenaGoal, ArenaReport, ArenaSetting, GoalCheck, StrategyId, StrategyResult } from "./types";
import { ARENA_SETTINGS } from "./types";

/** The baselines the goal compares with and the ratio each allows. */
export const GOAL_LIMITS: readonly { baseline: StrategyId; limit: number }[] = [
  { baseline: "uniform", limit: 0.6 },
  { baseline: "threshold", limit: 1 },
  { baseline: "rlve", limit: 1 },
  { baseline: "sfl", limit: 1 },
  { baseline: "plr", limit: 1 },
  { baseline: "accel", limit: 1 },
];

/**
 * A lost check the oracle misses too (the oracle's figure known and a number): one no curriculum of this
 * arena is known to win. The page, `envforge arena` and bench:arena all mark lost checks by this one rule.
 */
export function oracleMissesToo(check: GoalCheck): check is GoalCheck & { oracle: number } {
  return !check.won && check.oracleWon === false && typeof check.oracle === "number" && Number.isFinite(check.oracle);
}

/** The heuristic's rollouts over the baseline's (a baseline at 0 rollouts counts as 1): the stored ratio, unrounded. */
const exactRatio = (heuristic: number, other: number): number => heuristic / Math.max(1, other);

/**
 * A check's ratio as text for the page, `envforge arena` and bench:arena: two decimals, or as many more (up to six)
 * as it takes to land on the side of the limit the verdict says. The stored ratio is rounded, so a check lost by 20
 * rollouts in 45,000 read "1.00x, needs <= 1x" beside the word lost; now it reads 1.0004.
 */
export function ratioText(check: Pick<GoalCheck, "heuristic" | "other" | "limit" | "won">): string {
  const exact = exactRatio(check.heuristic, check.other);
  for (let digits = 2; digits < 6; digits++) {
    const text = exact.toFixed(digits);
    if (Number(text) <= check.limit === check.won) return text;
  }
  return exact.toFixed(6);
}

const rolloutsTo = (r: StrategyResult | undefined, level: 50 | 80, budget: number): number | undefined =>
  r === undefined ? undefined : ((level === 50 ? r.rolloutsTo50 : r.rolloutsTo80) ?? budget);

/** Every check of the goal that the settings allow (baselines not run are left out). */
export function goalChecks(settings: ArenaReport["settings"], budget: number): ArenaGoal {
  const checks: GoalCheck[] = [];
  for (const setting of ARENA_SETTINGS)
    for (const level of [50, 80] as const) {
      const heuristic = rolloutsTo(settings[setting].heuristic, level, budget);
      if (heuristic === undefined) continue;
      // The oracle (it reads the learner) is the bound: a check it cannot meet either asks for more than any curriculum here gives.
      const oracle = rolloutsTo(settings[setting].oracle, level, budget);
      for (const { baseline, limit } of GOAL_LIMITS) {
        const other = rolloutsTo(settings[setting][baseline], level, budget);
        if (other === undefined) continue;
        const ratio = Math.round(exactRatio(heuristic, other) * 1000) / 1000;
        checks.push({
          setting,
          level,
          baseline,
          heuristic,
          other,
          ratio,
          limit,
          won: heuristic <= limit * other,
          ...(oracle !== undefined ? { oracle, oracleWon: oracle <= limit * other } : {}),
        });
      }
    }
  const ratio = (setting: ArenaSetting, baseline: StrategyId) =>
    checks.find((c) => c.setting === setting && c.level === 50 && c.baseline === baseline)?.ratio ?? null;
  const won = checks.filter((c) => c.won).length;
  return {
    heuristicVsUniform50: { clean: ratio("clean", "uniform"), traps: ratio("traps", "uniform") },
    heuristicVsPlr50: { clean: ratio("clean", "plr"), traps: ratio("traps", "plr") },
    checks,
    won,
    lost: checks.length - won,
    met: checks.length > 0 && won === checks.length,
  };
}

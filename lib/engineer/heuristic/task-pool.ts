/**
 * Terminal tasks scheduled from the project's pool of imported tasks (issue 14): the heuristic
 * never samples a synthetic task for them. Unused imported tasks join by predicted learnability
 * (measured attempts when there are any, else the success rate of tasks with the same difficulty
 * label, else the population's), and every item gets a weight that follows its predicted
 * learnability, so the export repeats the tasks that teach most.
 */
import { learnability } from "@/lib/analytics/metrics";
import { isHopeless, isSolved } from "../classification";
import type { EngineerInput, PopulationMember, ProposedItem } from "../types";

/** Family key of a population of real tasks: unset numeric fields are never started from an assumed default. */
export const REAL_TASKS_SUFFIX = ":tasks";
/** Pseudo-attempts of the prior of an untested task (its success rate taken from tasks like it). */
const PRIOR_ATTEMPTS = 4;
/** Pool tasks predicted to teach less than this are left out. */
export const POOL_MIN_LEARNABILITY = 0.05;
/** Smallest weight of an item (a task predicted to teach nothing still runs now and then). */
export const MIN_WEIGHT = 0.1;

/** A pool task's predicted success and learnability, with what the prediction rests on. */
export interface PoolPrediction {
  member: PopulationMember;
  success: number;
  learnability: number;
  basis: string;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** Predicted success and learnability of every usable pool task, most learnable first (ties by key). */
export function rankPool(input: EngineerInput): PoolPrediction[] {
  const { summary } = input;
  const labels = summary.environments.fields.find((f) => f.path === "difficulty");
  const overall = summary.behaviour.successRate;
  const out: PoolPrediction[] = [];
  for (const m of input.taskPool ?? []) {
    if (m.validation.state === "invalid" || m.validation.state === "unsolvable" || m.validation.pMax === 0) continue;
    if (isSolved(m.n, m.s) || isHopeless(m.n, m.s)) continue;
    if (m.n > 0) {
      out.push({
        member: m,
        success: (m.s + 1) / (m.n + 2),
        learnability: learnability(m.n, m.s, m.validation.pMax),
        basis: `${m.s}/${m.n} successes in earlier generations`,
      });
      continue;
    }
    const label = typeof m.config.difficulty === "string" ? m.config.difficulty : null;
    const bucket = label ? labels?.buckets.find((b) => b.label === label && b.rollouts > 0 && b.successRate !== null) : undefined;
    const p = bucket?.successRate ?? overall ?? 0.5;
    const basis = bucket
      ? `untested; tasks labelled ${label} succeed ${pct(p)}`
      : overall !== null
        ? `untested; the population succeeds ${pct(p)}`
        : "untested; nothing measured yet";
    const a = 1 + PRIOR_ATTEMPTS * p;
    const b = 1 + PRIOR_ATTEMPTS * (1 - p);
    out.push({ member: m, success: p, learnability: (a * b) / ((a + b) * (a + b + 1)), basis });
  }
  return out
    .filter((x) => x.learnability >= POOL_MIN_LEARNABILITY)
    .sort((x, y) => y.learnability - x.learnability || (x.member.key < y.member.key ? -1 : 1));
}

/** Items that bring the `want` most learnable unused imported tasks back (op add, their own key and config). */
export function poolAddItems(input: EngineerInput, want: number): ProposedItem[] {
  return rankPool(input)
    .slice(0, Math.max(0, want))
    .map((x) => ({
      op: "add" as const,
      environmentKey: x.member.key,
      config: x.member.config,
      direction: "diversify" as const,
      rationale: `Imported task ${x.member.key} joins: predicted learnability ${x.learnability.toFixed(3)} (${x.basis}).`,
      evidence: [
        x.member.n > 0
          ? { kind: "stat" as const, ref: `env:${x.member.key}`, note: x.basis }
          : { kind: "stat" as const, ref: "environments.fields.difficulty", note: x.basis },
      ],
      predictedSuccess: Math.round(x.success * 1000) / 1000,
      proposer: "heuristic" as const,
      flags: ["pool"],
    }));
}

/** The weight of an item from its predicted success p: 4 p (1 - p) (1 at p = 0.5), at least MIN_WEIGHT, two decimals. */
export function weightOf(predictedSuccess: number | undefined): number {
  const p = predictedSuccess ?? 0.5;
  return Math.max(MIN_WEIGHT, Math.round(400 * p * (1 - p)) / 100);
}

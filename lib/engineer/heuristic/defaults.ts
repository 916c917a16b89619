/** The heuristic engineer's tunable defaults and the harness defaults of unset fields. */
import type { SkillDirection } from "@/lib/families/types";
import { CLASSIFICATION } from "../classification";

/** Defaults of the heuristic engineer (ENGINEER.md; PLR/ACCEL replay defaults). */
export const HEURISTIC_DEFAULTS = {
  keepShare: 0.5,
  /**
   * share of the next population added as fresh samples and crossovers (at least one add while it
   * is above 0, budget.ts): one a generation for a population of 32. ENGINEER.md's default is
   * 10-20% (docs/decisions/0009-fewer-fresh-samples.md says why we left it): a fresh sample from the
   * whole generator seldom lands where the policy learns (on the arena's tuning seeds their groups'
   * success variance p(1-p) was 0.12-0.15 against 0.21-0.24 for kept members and mutated children),
   * and every add takes the place of a mutated child. On the arena's tuning seeds 0-9 (full budget,
   * default learner), 36 goal checks a family: 0.15 gave frozenlake-mapf 33 and search-agent 30, 0.08
   * (3 adds) 33 and 30, 0.03 (1 add) 33 and 32 with rollouts to 80% 6-25% fewer (frozenlake-mapf
   * traps 0.3 27,554 -> 20,551), 0 (no fresh sample: nothing measures the generator) 32 and 25, 0.3
   * 28 and 28; three fresh samples without crossovers 30 and 31, and a cut to one add only while the
   * frontier stands still 33 and 30. Fewer fresh samples dilute a lineage of noisy TVs less: at 30%
   * traps they took over populations (the held-out tangled learner's frozenlake-mapf checks 27 -> 19)
   * until a plateaued member's lineage retired with it (score.ts, retirePlateauedLineage): then 33, 30
   * and 27 (docs/BENCHMARKS.md, "Issue 16, ninth round")
   */
  addShare: 0.03,
  /**
   * fresh samples from the frontier's window on top of the adds (phase.ts, frontierFreshCount), a
   * share of the population taken from its mutated children: 3 of 32 while fresh samples are drawn
   * at the frontier (by default while it rises) and the members passed at least frontierFreshAbove
   * of their attempts on average. On the arena's tuning seeds 0-9 (full budget), goal checks of 36:
   * search-agent (five engineer seeds, as its counts move by up to 6 with the seed alone) default
   * 30.2 -> 30.6, and the held-out learners as a check, tangled 21.4 -> 24.8 (rollouts to 50% 4.5%
   * fewer) and drift 29.0 -> 29.0; frozenlake-mapf unchanged (default 34 and 33, tangled 31, drift
   * 31 and 31). Without the success gate (every generation the frontier rises) search-agent gained
   * a little more (31.0 / 25.8 / 29.4) and frozenlake-mapf lost (31 / 24 / 30): its window's fresh
   * samples passed 0.6-0.97 (most above 0.75) while its mutated children sat at 0.33-0.70. A gate
   * at 0.5 still cost frozenlake-mapf 7-15% more rollouts (default 33), at 0.6 search-agent's gain
   * was gone; 2 or 5 extra instead of 3 were no better. The held-out learners were a check, but the
   * gate's level was chosen with them in view. On the evaluation seeds 230 -> 235 of 288 goal checks
   * (docs/BENCHMARKS.md, "Issue 16, thirteenth round")
   */
  frontierFreshShare: 0.1,
  frontierFreshAbove: 0.55,
  /** PLR rank prioritisation temperature */
  temperature: 0.3,
  /** PLR staleness weight */
  stalenessWeight: 0.3,
  /** retire as solved at q >= solvedRate with at least minAttempts attempts */
  solvedRate: 0.9,
  minAttempts: CLASSIFICATION.hopelessAttempts,
  /** directed steps: harder above, easier below this q (the classification's solved and frontier edges) */
  harderAbove: CLASSIFICATION.solvedAt,
  easierBelow: CLASSIFICATION.frontierAbove,
  /**
   * replay parents above this q (and at most harderAbove) get a directed harder child instead of
   * random edits: on the arena's tuning seeds (quick, default learner) the population's mean
   * success sat at 0.6-0.67 while threshold stepping's batches sat at 0.5 and marched to the hard
   * end; 0.6 took search-agent's goal checks from 25 to 27 of 36 (rollouts to 80% clean 9,155 ->
   * 9,024, traps 0.3 12,288 -> 12,127) and kept frozenlake-mapf's at 30 of 36 (traps 0.3 to 80%
   * 8,122 -> 7,424); 0.45 was faster on search-agent (27, to 80% clean 7,948) but lost two on
   * frozenlake-mapf; 0.7 no better than without
   */
  replayHarderAbove: 0.6,
  /**
   * hardness bias of the keep order (select.ts, weighByHardness): a member's learnability is
   * weighed by 1 + hardnessBias x (the population's mean success rate) x (its hardness minus the
   * population's mean hardness), a bonus at its first measurement only, so among members that
   * teach about as much the harder ones stay and parent more children, the more so the more the
   * policy passes. On the arena's tuning seeds 0-9 (full budget): frozenlake-mapf 29 -> 33 of 36
   * goal checks, search-agent 27 -> 30 (default learner), frozenlake-mapf with the held-out tangled
   * learner 23 -> 27, as a check; 2 gave 30, 29 and 18, and quick tuning (seeds 0-19) found a bias
   * not scaled by the success rate (0.5, 1) no better than 1. With the bonus at every age,
   * frozenlake-mapf's traps 0.3 setting lost (docs/BENCHMARKS.md, "Issue 16, eighth round")
   */
  hardnessBias: 1,
  /**
   * frontier discount of the keep order (select.ts, weighByFrontier): a member's priority is multiplied
   * by max(0, 1 - frontierDiscount x max(0, 2 f - 1)), f the population's fitted success at its
   * hardness, so a member passed about half the time where the policy passes most configs as hard
   * (likely capped by a p_max below 1, or noisy) ranks below one as learnable at the frontier. On the
   * arena's tuning seeds 0-9 (full budget), goal checks of 36: 0 (none) gave frozenlake-mapf 33 and
   * search-agent 30, 0.3 gave 33 and 31, 0.5 34 and 33 (frozenlake-mapf's rollouts to 80% clean
   * 19,425 -> 16,214; search-agent's at traps 0.15 34,081 -> 28,593), 0.7 33 and 31, 1 33 and 30; the
   * held-out tangled learner's frozenlake-mapf checks 27 -> 31 with 0.5 (docs/BENCHMARKS.md, "Issue 16,
   * tenth round")
   */
  frontierDiscount: 0.5,
  /**
   * a harder step tries last the directions along which its parent already sits this far or more
   * toward the hard end (evidence.ts, harderDirections; its mean hardness over the direction's
   * fields), the failure evidence's order kept otherwise. On the arena's tuning seeds 0-9 (full
   * budget, five engineer seeds), goal checks of 36 against 31.8 without the rule: search-agent 0.5
   * 33.0, 0.6 32.8, 0.7 35.0 (rollouts to 50% / 80% 4.4% / 7.9% fewer), 0.75 34.4, 0.8 33.2, 0.9
   * 31.2; frozenlake-mapf 33.8 at 0.7 and at 0.75, as without it. The held-out learners as a check
   * at 0.7: search-agent tangled 24.4 -> 29.6, drift 30.2 -> 31.4, frozenlake-mapf tangled 28.0 ->
   * 28.3 (three engineer seeds). Ranking every direction by the parent's hardness alone (its easiest
   * first) gave search-agent 35.0 and tangled 31.6 but frozenlake-mapf 32.2: there a parent's
   * easiest direction is often the one whose steps cap what a policy can reach (more agents, fewer
   * steps), which the evidence's order avoids (docs/BENCHMARKS.md, "Issue 16, twenty-third round")
   */
  harderSaturatedAt: 0.7,
  /**
   * directions a harder step takes after every other, saturated or not (evidence.ts, harderDirections):
   * uncertainty, whose steps add noise (slippery tiles, distractor documents), failures no policy learns
   * away, so its children are capped below success 1 and teach less at the same success rate. On the
   * arena's tuning seeds 0-9 (full budget; five engineer seeds, three for frozenlake-mapf's held-out
   * learners), goal checks of 36 and rollouts to 50% / 80% against main's: search-agent 35.0 -> 35.0
   * (0.957 / 0.965), frozenlake-mapf 33.8 -> 35.6 (0.940 / 0.855); uncertainty only after the unsaturated
   * directions (before the saturated ones) 35.0 (0.976 / 0.990) and 35.6 (0.940 / 0.891). The held-out
   * learners as a check: search-agent tangled 30.0 -> 32.2, drift 32.0 -> 32.2, frozenlake-mapf tangled
   * 28.0 -> 31.0, drift 31.0 -> 35.0. On the evaluation seeds 244 -> 279 of 288 on the recorded draw,
   * 249.4 -> 276.4 over five draws (docs/BENCHMARKS.md, "Issue 16, twenty-fifth round"; ADR 0010)
   */
  harderLast: ["uncertainty"] as readonly SkillDirection[],
  /** members sampled as the novelty reference set */
  noveltyReference: 32,
  /** attempts per solved parent before moving on */
  triesPerParent: 3,
  /** logit shift of the predicted success per directed edit */
  logitStep: 0.5,
  /** plateaued: measured in at least this many generations without its success rate rising by plateauRise */
  plateauGenerations: 3,
  plateauRise: 0.1,
  /**
   * a member retired as plateaued on its own with a mean success rate over its measurements of this
   * or more gets a harder child after the solved parents (budget.ts, plateauedHarderParents). On the
   * arena's tuning seeds 0-9 (full budget, five engineer seeds), goal checks of 36 and rollouts to
   * 50% / 80% against main's: 0.6 kept search-agent's 35.0 (0.993 / 0.981) and frozenlake-mapf's
   * 33.8 (1.010 / 0.965: traps 0.3 to 80% 4-16% fewer on four draws of five, clean to 50% 2.6%
   * more); every plateaued member (no bar) took search-agent's 80% 3.4% lower but frozenlake-mapf
   * to 31-32 on two draws (its traps 0.15 to 80% 16-19% slower: noisy TVs, passed half the time,
   * bred harder TVs); the rate this generation at 0.55 or more instead of the mean, 34.8 and 33.5
   * on two draws. The held-out learners as a check at 0.6: search-agent tangled 29.6 -> 30.0,
   * drift 31.4 -> 32.0. On the evaluation seeds 244 -> 244 of 288 on the recorded draw, 245.6 ->
   * 249.4 over five draws (docs/BENCHMARKS.md, "Issue 16, twenty-fourth round")
   */
  plateauHarderAbove: 0.6,
  /** a kind of failure dominates a member when it holds more than this share of its failed attempts */
  dominantShare: 0.5,
  /** infra-dominated also needs infra failures in at least this share of all attempts */
  infraAttemptShare: 0.2,
  /** steps at least of a timeout-driven easier edit on a budget field */
  timeoutSteps: 3,
} as const;

/** Most steps a directed edit takes on one numeric field (see stepsPerField). */
export const MAX_STEPS_PER_FIELD = 4;

/**
 * Most steps a harder edit takes when the ratchet adds to it (parentSteps: one more per earlier
 * measurement in a row above replayHarderAbove). On the arena's tuning seeds (quick, default
 * learner, seeds 0-9) the ratchet capped at 6 with the fresh-sample cut (budget.ts) took
 * search-agent's goal checks from 26 to 28 of 36 and kept frozenlake-mapf's at 30 (docs/BENCHMARKS.md,
 * "Issue 16, fourth round"); capped at 4 alone it was no better than without.
 */
export const MAX_RATCHET_STEPS = 6;

/**
 * Values an unset numeric field takes when the harness runs without it (family id -> path ->
 * value), the start of a directed edit of such a field: Harbor runs a task without an agent
 * timeout override with its task.toml timeout, 900 s for most Terminal-Bench 2 tasks (48 of the
 * 66 AgentTimeoutErrors of the TB2 jobs say 900 s, the rest 1800 or 3600 s). Fields not listed
 * start from the midpoint of their bounds.
 */
export const UNSET_DEFAULTS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  "terminal-task": { agent_timeout_sec: 900 },
};

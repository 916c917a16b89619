/**
 * Step 3 of the heuristic engineer: how many children of each kind the next population needs and
 * which members may parent them (harder, replay and crossover pools).
 */
import type { Rng } from "@/lib/families/rng";
import { HEURISTIC_DEFAULTS } from "./defaults";
import { canStep } from "./directed";
import type { DirectionEvidence, Scored } from "./model";
import { meanRate } from "./score";

/** A share option clamped to [0, 1], or the fallback when unset or not finite. */
export function clampShare(value: number | undefined, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(1, Math.max(0, value));
}

/**
 * Members retired as plateaued on their own (not with a plateaued parent: retirePlateauedLineage) whose
 * success rate averaged over their measurements is `above` or more: each gets a harder child, after
 * the solved parents. The policy passes such a member mostly, and has for generations without passing
 * it more: the steps ahead of it teach, it no longer does. A member passed about half the time
 * (a noisy TV, whose mean sits at 1/2 whatever the policy learns, or one capped there) stays no parent,
 * as the plateau rule says; so do those below the bar. Infra-dominated members never parent.
 * docs/BENCHMARKS.md, "Issue 16, twenty-fourth round".
 */
export function plateauedHarderParents(rng: Rng, scored: readonly Scored[], above: number): Scored[] {
  return rng
    .fork("plateau-order")
    .shuffle(
      scored.filter((sc) => sc.retire === "plateaued" && sc.plateauedParent === undefined && !sc.infra && meanRate(sc.member) >= above),
    );
}

/** The children to make and the parents to make them from. */
export interface ChildBudget {
  /** children that fill the population back up to its target */
  childrenTarget: number;
  /** fresh samples and crossovers (addShare of the target, plus frontierFresh) */
  addTarget: number;
  /** of addTarget, fresh samples all drawn from the frontier's window (frontierFreshCount), taken from the mutations */
  frontierFresh: number;
  /** mutated children (harder, easier, replayed) */
  mutateTarget: number;
  /**
   * solved and nearly solved parents (q > harderAbove), in seeded random order, then the members
   * retired as plateaued on their own whose mean success rate is plateauHarderAbove or more
   * (plateauedHarderParents), in seeded random order
   */
  harderPool: Scored[];
  /** replay parents: q <= harderAbove, those with q < easierBelow only when they can move easier */
  replayPool: Scored[];
  /** parents crossed over: kept ones, else replay parents with q >= easierBelow */
  crossPool: Scored[];
  harderTarget: number;
  crossTarget: number;
}

/**
 * Budgets: children fill the population back up; fresh samples and crossovers take addShare of it,
 * at least one when addShare is above 0 (a fresh sample a generation measures the generator again:
 * freshTooEasy, and the frontier's window).
 */
export function childBudget(p: {
  rng: Rng;
  scored: readonly Scored[];
  kept: readonly Scored[];
  target: number;
  addShare: number;
  evidence: readonly DirectionEvidence[];
  familyId: string;
  /**
   * the fresh samples measured this generation passed more than 0.8 (phase.ts freshTooEasy): the
   * adds fall to half of them plus one, the rest go to mutations
   */
  freshTooEasy?: boolean;
  /**
   * fresh samples from the frontier's window on top of the adds, taken from the mutations
   * (frontierFreshCount: the frontier rises and the population passes most of its attempts)
   */
  frontierFresh?: number;
}): ChildBudget {
  const D = HEURISTIC_DEFAULTS;
  const { rng, scored, kept, target, addShare, evidence, familyId } = p;
  const childrenTarget = Math.max(0, target - kept.length);
  let addTarget = addShare > 0 ? Math.min(childrenTarget, Math.max(1, Math.round(addShare * target))) : 0;
  // Fresh draws the policy passes > 80% of the time teach little: keep half the adds (crossovers and at
  // least one fresh sample, which measures the generator again next generation), mutate the rest.
  if (p.freshTooEasy === true) addTarget = Math.min(addTarget, Math.floor(addTarget / 2) + 1);
  const frontierFresh = Math.min(childrenTarget - addTarget, Math.max(0, Math.floor(p.frontierFresh ?? 0)));
  addTarget += frontierFresh;
  const mutateTarget = childrenTarget - addTarget;
  const eligible = scored.filter((sc) => !sc.infra && sc.retire !== "invalid" && sc.retire !== "unsolvable" && sc.retire !== "plateaued");
  const harderPool = [
    ...rng.fork("harder-order").shuffle(eligible.filter((sc) => sc.q !== null && sc.q > D.harderAbove)),
    ...plateauedHarderParents(rng, scored, D.plateauHarderAbove),
  ];
  // A parent with q < 0.2 only gets easier steps: none when its failures are the policy's output, or when nothing can move easier.
  const replayPool = eligible.filter((sc) => {
    if (sc.q === null || sc.q >= D.easierBelow) return sc.q === null || sc.q <= D.harderAbove;
    return sc.failure.dominant?.kind !== "output" && canStep(evidence, sc.member.config, -1, familyId);
  });
  // Crossovers recombine kept (teaching) parents, whatever their q, never infra-dominated ones; the
  // fallback pool of replay parents leaves out those with q < 0.2, which only get easier steps.
  const keptParents = kept.filter((sc) => !sc.infra);
  const crossCandidates = replayPool.filter((sc) => sc.q === null || sc.q >= D.easierBelow);
  const crossPool = keptParents.length >= 2 ? keptParents : crossCandidates.length >= 2 ? crossCandidates : [];
  const harderTarget = Math.min(harderPool.length, replayPool.length > 0 ? Math.ceil(mutateTarget / 2) : mutateTarget);
  const crossTarget = crossPool.length >= 2 ? Math.floor((addTarget - frontierFresh) / 2) : 0;
  return { childrenTarget, addTarget, frontierFresh, mutateTarget, harderPool, replayPool, crossPool, harderTarget, crossTarget };
}

/**
 * The heuristic environment engineer (ENGINEER.md, "The heuristic engineer"): keep the most
 * learnable environments, retire what does not teach, mutate replayed and solved parents
 * (ACCEL-style), add fresh samples and crossovers. Offline and deterministic for a seed.
 * Pure: no database, no Next.js. The steps live beside this file: score.ts, select.ts, budget.ts,
 * children.ts (child strategies, directed.ts for directed edits), rationale.ts, predict.ts.
 *
 * Decisions where the spec is open:
 * - Every population member gets exactly one item: keep, or retire with its reason (invalid,
 *   unsolvable, solved, hopeless, plateaued, or "outranked" when its learnability is below the keep cut).
 * - Plateaued (learning progress retiring what stopped teaching): measured in 3 generations or more,
 *   its success rate (the mean of the last two) between 0.2 and 0.8 and not 0.1 above its first; it
 *   is not used as a parent either. Learnability alone keeps a noisy TV (success 0.5 whatever the policy does) for ever.
 *   Its lineage goes with it (score.ts, retirePlateauedLineage): a member whose parent plateaus this
 *   generation and whose own success rate lies in the same band retires as plateaued too; a noisy TV's
 *   children lie in its trap region and breed faster than the rule finds them one by one.
 * - Hopeless = 0 successes in n >= 4 attempts now and a success rate of 0 in the previous
 *   generation (the last history entry): two generations in a row at zero.
 * - Keep ranks by priority: the learnability weighed by hardness (select.ts, weighByHardness), a
 *   factor 1 + hardnessBias x the population's mean success x (the member's hardness minus the
 *   population's mean), a bonus only at a member's first measurement, a penalty at any age:
 *   ENGINEER.md keeps "the highest L", but L cannot tell a config failed for being hard from one
 *   passed half the time for being capped or noisy, and the aim lies at the hard end; among members
 *   that teach about as much the harder stay, more so as the policy passes more
 *   (HEURISTIC_DEFAULTS.hardnessBias has the figures). Then the frontier discount (select.ts,
 *   weighByFrontier): the priority times 1 - frontierDiscount x (2 f - 1) where f, the population's
 *   fitted success at the member's hardness (frontier.ts, fitSuccessOnHardness), is above 1/2: a
 *   member passed half the time where the policy passes most configs as hard is more likely capped
 *   (p_max < 1) or noisy than still being learnt (HEURISTIC_DEFAULTS.frontierDiscount has the figures).
 *   Ties broken by learning progress (history plus the current q). The keep cut and the parents' PLR
 *   rank weights go by the same priority.
 * - Children: solved parents (q > 0.8) get one harder child each, and after them members retired as
 *   plateaued on their own that passed 0.6 or more of their attempts on average (budget.ts,
 *   plateauedHarderParents: mostly passed for generations without passing more, the steps ahead
 *   teach; HEURISTIC_DEFAULTS.plateauHarderAbove has the figures), at most half of the mutation
 *   budget when there are also replay parents; replay parents (q <= 0.8) are drawn by PLR rank
 *   weights (temperature 0.3, staleness weight 0.3 with equal staleness, as every score is fresh)
 *   without replacement, cycling, so children spread over parents instead of piling onto rank 1;
 *   replay parents with q < 0.2 are made easier, those with q > 0.6 (5 of 8 and up: mostly passed)
 *   get a directed harder step like a solved parent, the others get 1-3 random edits. Without the
 *   q > 0.6 step the population sat at a mean success of 0.6-0.67 on the arena's tuning seeds
 *   (threshold stepping's batches at 0.5) and reached the hard end later.
 * - A directed edit moves each of its numeric fields 1 step, plus one per unit of logit by which
 *   the parent's posterior success (q n + 1) / (n + 2) sits beyond 0.5 in the edit's direction, and
 *   at least as many as the population's mean q asks for the same way (at most 4): a parent that
 *   passed 8 of 8 moved one step lands where the policy still passes almost everything (on the
 *   arena's tuning seeds, half of such children did), and when the policy has outgrown the whole
 *   population, single steps cannot catch up. Ordinals and booleans move one level.
 * - Ratchet (phase.ts, parentSteps): a harder edit takes one more step for every earlier
 *   measurement in a row in which its parent stayed above replayHarderAbove, up to
 *   MAX_RATCHET_STEPS (6): a kept member the policy has passed mostly for generations shows that
 *   the steps fall behind the policy. On the arena's tuning seeds the population's hidden
 *   difficulty stalled near 1.0 on search-agent while threshold stepping, which keeps raising its
 *   level for as long as the policy passes it, reached 1.85.
 * - Fresh-sample cut (phase.ts freshTooEasy): when the fresh samples measured this generation
 *   passed more than 0.8 of their attempts (posterior mean), the generator draws below the
 *   policy's level: the adds fall to half of them plus one (crossovers and one fresh sample, which
 *   measures the generator again) and the rest become mutations. With the ratchet, on the arena's
 *   tuning seeds 0-9 (quick, default learner): search-agent 26 -> 28 of 36 goal checks,
 *   frozenlake-mapf 30 -> 30.
 * - Fresh samples at the frontier (frontier.ts): a logistic fit of the members' success on their
 *   hardness (the mean easy -> hard position of their difficulty-signed fields) gives the hardness at
 *   65% success; two of every three fresh samples ask the family's sampler for a window of +-0.1
 *   around it, the third the whole generator (coverage). By default only while the frontier rises
 *   (frontierRising: the fit on the re-measured members' success now lies harder than the fit on the
 *   same members' previous rates); options.freshAtFrontier true / false forces it on / off. Without a
 *   fit (fewer than 8 measured members, or success not falling with hardness) all come from the whole
 *   generator. Always on, on the arena's tuning seeds 0-9 (quick, default learner), search-agent won
 *   32 of 36 goal checks (28 without) but frozenlake-mapf, whose success falls with hardness through
 *   p_max caps more than through skill and whose frontier stands still from generation 5 on, 29 of 30;
 *   with the rising gate 32 and 30 (issue 16, fifth round).
 * - More fresh samples at the frontier (phase.ts, frontierFreshCount): while fresh samples are drawn
 *   at the frontier and the members measured this generation passed at least 0.55 of their attempts
 *   on average, a tenth of the population more (3 of 32) comes from the window, all of them, taken
 *   from the mutated children: a policy that passes most of its population while its frontier moves
 *   harder has outgrown the middle of it (threshold stepping's batches, drawn fresh at its level,
 *   sit at the frontier). Without the success gate frozenlake-mapf, whose window's samples passed
 *   0.6-0.97, lost (HEURISTIC_DEFAULTS.frontierFreshShare has the figures).
 * - Which direction the failure evidence points to: per direction, the mean fitted success drop
 *   from the easy to the hard end of its fields' buckets (summary.environments.fields) plus how much
 *   harder along it the environments of policy failure clusters are than the population (cluster lift).
 * - Adds: addShare of the population (HEURISTIC_DEFAULTS: 0.03, at least one: a single fresh sample a
 *   generation for 32 members; docs/decisions/0009-fewer-fresh-samples.md: ENGINEER.md's 10-20% of fresh
 *   samples from the whole generator taught less than the mutated children they displaced), half of them
 *   crossovers (of two kept parents; the second the most distant of the next few in PLR order), the rest
 *   fresh samples; a share a pool cannot fill passes on to the next kind.
 * - A solved parent whose harder child duplicates a known hash or fails validation is retried (another
 *   edit subset, then one step plus a reseed); a config rejected once is not counted twice; validations
 *   are capped at 1.5x the children wanted (+4), so the validator cost stays bounded.
 * - Retire items carry the flag `retire:<reason>`; crossovers `crossover`, fresh samples `fresh_sample`.
 * - predictedSuccess is on the success-rate scale: the posterior mean (s+1)/(n+2) for kept and
 *   retired environments; for a mutated child the parent's, moved 0.5 in logit per step that makes
 *   it harder (or easier), capped at the child's p_max.
 *
 * Failure-aware decisions (every family):
 * - A member's failed attempts (n - s) are spread over the clusters its failures fall in
 *   (member.clusterIds; the summary gives cluster totals only): each cluster is weighted by its
 *   failures per environment (count / environments, at least 1, as a cluster holds at least one
 *   failure of each environment it touches; a cluster the summary cut weighs 1), the weights made
 *   non-increasing along clusterIds (which lists the member's own clusters largest first). A kind
 *   of failure (infra, timeout = agent/verifier timeout, output = format error/context length,
 *   verifier = failed tests, other) dominates when it holds more than half of the failures; infra
 *   also needs at least a fifth of all attempts, so one crashed sandbox next to nine passes does
 *   not call an environment broken. Counts are exact when every cluster of the member is of that
 *   kind, else written "about".
 * - Infra-dominated: never a parent, left out of the direction evidence and the step sizes, flagged
 *   "infra"; retired when nothing passed (the image looks broken: fix it, then re-add it), else
 *   kept or retired by the usual rules with that warning.
 * - Timeout-dominated with q < 0.2: made easier on its budget fields first (precision fields with
 *   difficulty "down", e.g. agent_timeout_sec, max_steps, which move up), at least TIMEOUT_STEPS
 *   steps (one scale step is x1.16, which seldom lets a 0/n environment finish), then along
 *   precision, then the other directions.
 * - Output-dominated (format error, context length): that is the policy, not the environment's
 *   difficulty: kept or retired by learnability with that reason, never made easier on it (a
 *   q < 0.2 member of this kind is no parent).
 * - Verifier-failed-dominated (and mixed profiles): the direction evidence decides as before.
 * - Hopeless parents (q < 0.2) only get "easier" directed edits, never random ones; one that cannot
 *   move easier along any direction is no parent. Crossovers still recombine any two kept
 *   (teaching) members, as before: a crossover is not an edit of one parent, and without them the
 *   arena's traps setting got slower (heuristic/uniform rollouts to 50% 0.52 -> 0.55).
 * - Unset fields stay unset: random edits, reseeds and crossovers touch only fields set on the
 *   parent(s). A directed edit prefers set fields (every direction is tried with set fields before
 *   any unset one) and may start an unset difficulty-signed field: an ordinal at the level next to
 *   the middle of its levels in the step's direction (what the family's hidden difficulty assumes
 *   for a missing value is the middle), a boolean at its easy/hard value, a bounded number from a
 *   known harness default (UNSET_DEFAULTS: a Harbor task without an override runs with its
 *   task.toml timeout, 900 s for most Terminal-Bench 2 tasks) or else from the midpoint of its
 *   bounds on its own scale, then stepped as usual; the rationale names the assumed start.
 * - Evidence cites what motivated the item: the dominant cluster (and one exemplar) when the
 *   category drove the decision or is named in the rationale, the field statistic behind a
 *   direction, the environment's own numbers; never an unrelated cluster of the parent.
 */
import { createRng, hashSeed } from "@/lib/families/rng";
import type { EngineerInput, EngineerOutput, ProposedItem } from "../types";
import { childBudget, clampShare } from "./budget";
import { ChildBatch, childContext, noveltyReference, proposeChildren, speculativeCrossovers } from "./children";
import { HEURISTIC_DEFAULTS } from "./defaults";
import { directionEvidence, evidenceWriter } from "./evidence";
import { baseSuccessRate, predictChild } from "./predict";
import { childRationale, keepItems, proposalNotes, retireItems } from "./rationale";
import { competenceFrontier, frontierRising, frontierWindow } from "./frontier";
import { freshTooEasy, frontierFreshCount, meanSuccess } from "./phase";
import { scoreMembers } from "./score";
import { learnabilityTies, selectKept, weighByFrontier, weighByHardness } from "./select";
import { poolAddItems, REAL_TASKS_SUFFIX, weightOf } from "./task-pool";

export { HEURISTIC_DEFAULTS, UNSET_DEFAULTS } from "./defaults";

/** The heuristic engineer: a proposal for the next generation, deterministic for options.seed. */
export function heuristicEngineer(input: EngineerInput): EngineerOutput {
  const { family, summary, population, options } = input;
  const D = HEURISTIC_DEFAULTS;
  const seed = options.seed ?? hashSeed(`${summary.project}:${summary.generation}`);
  const rng = createRng(seed);
  const target = Math.max(0, Math.floor(options.populationSize ?? population.length));
  const keepShare = clampShare(options.keepShare, D.keepShare);
  const addShare = clampShare(options.addShare, D.addShare);
  const plateauGenerations = Math.max(0, Math.floor(options.plateauGenerations ?? D.plateauGenerations));

  // 1-2. Score every member; keep the highest priority (learnability weighed by hardness and the frontier; ties: learning progress),
  // retire the rest with a reason.
  const scored = scoreMembers(population, summary, options.groupSize, plateauGenerations);
  weighByHardness(family, scored, D.hardnessBias);
  weighByFrontier(family, scored, D.frontierDiscount);
  const { ranked, kept, keepCut, rankOf } = selectKept(scored, keepShare, target);

  // Infra-dominated members say nothing about difficulty: left out of the direction evidence, step sizes and parents.
  const evidence = directionEvidence(
    family,
    summary.environments.fields,
    summary.failures.clusters,
    scored.filter((sc) => !sc.infra),
  );
  const cite = evidenceWriter(summary);

  // 3. Budgets and parent pools; 4. the child strategies fill them through one batch.
  // Terminal tasks with a pool of imported tasks: no task is invented, adds come from the pool, unset fields stay Harbor's.
  const pooled = input.taskPool !== undefined;
  const familyKey = pooled ? `${family.id}${REAL_TASKS_SUFFIX}` : family.id;
  // Fresh samples at the frontier: always with options.freshAtFrontier, never with false; by default when the frontier is rising.
  const atFrontier = options.freshAtFrontier ?? frontierRising(family, scored);
  const frontier = pooled || !atFrontier ? null : competenceFrontier(family, scored);
  // With a frontier, and a population the policy passes mostly, a tenth more fresh samples from its window (phase.ts).
  const frontierFresh = frontier === null ? 0 : frontierFreshCount(scored, target);
  const budget = childBudget({
    rng,
    scored,
    kept,
    target,
    addShare,
    evidence,
    familyId: familyKey,
    freshTooEasy: freshTooEasy(scored),
    frontierFresh,
  });
  const reference = noveltyReference(rng, scored);
  const baseRate = baseSuccessRate(summary, scored);
  const describe = childRationale({ family, cite, rankOf, reference });
  const predict = (cand: Parameters<typeof describe>[0], pMax: number | undefined) => predictChild(family, baseRate, cand, pMax);
  const batch = new ChildBatch(input, Math.ceil(1.5 * budget.childrenTarget) + 4, budget.childrenTarget, describe, predict);
  const poolItems: ProposedItem[] = [];
  const addFromPool = (want: number) => poolItems.push(...poolAddItems(input, want));
  const ctx = {
    ...childContext({ rng, family, evidence, budget, batch, reference, scored }),
    ...(frontier !== null ? { freshWindow: frontierWindow(frontier) } : {}),
    familyKey,
    ...(pooled ? { addFromPool } : {}),
  };
  // A validation helper (a second thread) validates the crossovers and draws the fresh samples while this thread makes
  // the harder and replayed children: both sequences depend on the seed and the pools only, not on what is accepted.
  // Asked for a margin over the targets (about 10% of crossovers were rejected at bench:engineer's size); what it was
  // not asked for is computed here as before. Fresh samples only without a window (a window's draws depend on `done`).
  if (input.helper && !pooled) {
    const crossovers = speculativeCrossovers(ctx, Math.ceil(1.25 * budget.crossTarget) + 16);
    const fresh = frontier === null ? Math.max(0, budget.addTarget - budget.crossTarget) + 32 : 0;
    input.helper.ask(crossovers, fresh > 0 ? { seed, label: "fresh", count: fresh } : undefined);
  }
  proposeChildren({ ...ctx, ...(input.helper && frontier === null ? { helper: input.helper } : {}) });

  // 5. Items for the members: every one gets exactly one keep or retire; then the notes.
  const tiedOut = keepCut === null ? 0 : ranked.slice(kept.length).filter((sc) => learnabilityTies(sc.priority, keepCut)).length;
  const keep = keepItems(kept, ranked.length, cite, { keepCut, tiedOut });
  const retire = retireItems(scored, batch, keepCut, cite);
  const notes = proposalNotes({ seed, target, kept: kept.length, keepCut, scored, evidence, batch, childrenTarget: budget.childrenTarget });
  if (frontier !== null && batch.made.fresh > 0) {
    const w = frontierWindow(frontier);
    const pct = (x: number) => `${Math.round(100 * x)}%`;
    const extra = budget.frontierFresh;
    notes.push(
      `Fresh samples: ${extra > 0 ? `${extra} from` : "two of every three from"} the hardness window ${w.min.toFixed(2)}-${w.max.toFixed(2)} ` +
        `around the competence frontier (success fitted at 65% at hardness ${frontier.toFixed(2)})` +
        (extra > 0
          ? `, taken from the mutated children as the members passed ${pct(meanSuccess(scored) ?? 0)} of their attempts on ` +
            `average (${pct(D.frontierFreshAbove)} or more); of the other adds two of every three from the window, the rest ` +
            `from the whole generator.`
          : `, the rest from the whole generator.`),
    );
  }
  if (summary.family !== family.id) notes.push(`The summary is for family ${summary.family}, the population for ${family.id}.`);
  const dropped = (Object.entries(batch.dropped) as [string, number][])
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => ({ reason, count }));
  const items = [...keep, ...batch.items, ...poolItems, ...retire];
  if (pooled) {
    for (const item of items) if (item.op !== "retire") item.weight = weightOf(item.predictedSuccess);
    notes.push(
      `Terminal tasks scheduled from the project's ${input.taskPool!.length} unused imported ` +
        `task${input.taskPool!.length === 1 ? "" : "s"}: ${poolItems.length} joined by predicted learnability; no task is ` +
        `invented; weights follow predicted learnability (4p(1-p), at least 0.1).`,
    );
  }
  return { items, dropped, notes };
}

/**
 * Step 4 of the heuristic engineer, the child strategies: solved parents pushed harder, replayed
 * parents in PLR rank order (hopeless ones made easier), crossovers of two high-learnability
 * parents, fresh samples for coverage; every candidate goes through one ChildBatch (duplicate
 * check, validator, validation budget). A share a strategy cannot fill carries to the next.
 */
import { configHash } from "@/lib/families/hash";
import { crossover, distance, mutateConfig } from "@/lib/families/operators";
import type { Rng } from "@/lib/families/rng";
import type { FamilyConfig, FamilyDefinition, FieldSpec } from "@/lib/families/types";
import { getFieldValue } from "@/lib/families/field-path";
import { noveltyScore, plrRankWeights } from "../scoring";
import type { EngineerHelper, EngineerInput, ProposedItem } from "../types";
import type { ChildBudget } from "./budget";
import { HEURISTIC_DEFAULTS } from "./defaults";
import { directedEdit, parentSteps, stepsPerField } from "./directed";
import { editDirection, harderDirections, orderDirections } from "./evidence";
import type { Candidate, ChildKind, DirectionEvidence, Scored } from "./model";
import { weightedOrder } from "./select";

/**
 * The children of one proposal: candidates go through the duplicate check (known hashes, the
 * population, children already proposed) and the family validator; the rest are dropped and counted.
 */
export class ChildBatch {
  readonly items: ProposedItem[] = [];
  readonly dropped = { invalid: 0, unsolvable: 0, duplicate: 0 };
  readonly made: Record<ChildKind, number> = { harder: 0, easier: 0, replay: 0, crossover: 0, fresh: 0 };
  readonly childrenOf = new Map<string, string[]>();
  validations = 0;
  private readonly proposed = new Set<string>();
  /** configs already rejected: a retry that lands on one again is skipped without counting twice */
  private readonly rejected = new Set<string>();
  private readonly populationHashes: Set<string>;
  private readonly populationKeys: Set<string>;
  private readonly width: number;
  private counter = 0;

  constructor(
    private readonly input: EngineerInput,
    private readonly validationBudget: number,
    childrenTarget: number,
    private readonly describe: (cand: Candidate) => Pick<ProposedItem, "rationale" | "evidence" | "flags">,
    private readonly predict: (cand: Candidate, pMax: number | undefined) => number,
  ) {
    this.populationHashes = new Set(input.population.map((m) => m.configHash));
    this.populationKeys = new Set(input.population.map((m) => m.key));
    this.width = Math.max(3, String(childrenTarget).length);
  }

  get exhausted(): boolean {
    return this.validations >= this.validationBudget;
  }

  /** Propose the candidate if it is new and valid; returns whether it was accepted. */
  accept(cand: Candidate | null): boolean {
    if (!cand || this.exhausted) return false;
    const hash = configHash(cand.config);
    if (this.rejected.has(hash)) return false;
    if (this.input.knownHashes.has(hash) || this.populationHashes.has(hash) || this.proposed.has(hash)) {
      this.rejected.add(hash);
      this.dropped.duplicate += 1;
      return false;
    }
    this.validations += 1;
    const validation = this.input.family.validate(cand.config);
    if (validation.state !== "valid") {
      this.rejected.add(hash);
      this.dropped[validation.state] += 1;
      return false;
    }
    this.proposed.add(hash);
    const key = this.nextKey();
    const item: ProposedItem = {
      op: cand.kind === "crossover" || cand.kind === "fresh" ? "add" : "mutate",
      environmentKey: key,
      ...(cand.parent ? { parentKey: cand.parent.member.key } : {}),
      ...(cand.second ? { secondParentKey: cand.second.member.key } : {}),
      config: cand.config,
      direction: cand.direction,
      ...this.describe(cand),
      predictedSuccess: this.predict(cand, validation.pMax),
      proposer: "heuristic",
    };
    if (!item.flags) delete item.flags;
    this.items.push(item);
    this.made[cand.kind] += 1;
    if (cand.parent) this.childrenOf.set(cand.parent.member.key, [...(this.childrenOf.get(cand.parent.member.key) ?? []), key]);
    return true;
  }

  private nextKey(): string {
    let key: string;
    do {
      this.counter += 1;
      key = `${this.input.keyPrefix}${String(this.counter).padStart(this.width, "0")}`;
    } while (this.populationKeys.has(key));
    return key;
  }
}

/** Fields set on a config: random edits, reseeds and crossovers touch no others. */
export function setFields(fields: readonly FieldSpec[], ...configs: FamilyConfig[]): FieldSpec[] {
  return fields.filter((f) => configs.every((c) => getFieldValue(c, f.path) !== undefined));
}

/** A member of the bounded reference set fresh samples measure their novelty against. */
export interface ReferenceConfig {
  key: string;
  config: FamilyConfig;
}

/** The novelty reference set: up to noveltyReference members in seeded random order. */
export function noveltyReference(rng: Rng, scored: readonly Scored[]): ReferenceConfig[] {
  return rng
    .fork("reference")
    .shuffle(scored)
    .slice(0, HEURISTIC_DEFAULTS.noveltyReference)
    .map((sc) => ({ key: sc.member.key, config: sc.member.config }));
}

/** What the child strategies share: the seeded generators, the evidence, the budget and the batch. */
export interface ChildContext {
  rng: Rng;
  /** the generator of every mutation, shared by the harder and replay steps in that order */
  mutRng: Rng;
  family: FamilyDefinition;
  evidence: readonly DirectionEvidence[];
  budget: ChildBudget;
  batch: ChildBatch;
  reference: readonly ReferenceConfig[];
  harderSteps: number;
  easierSteps: number;
  /** the family id directed edits look unset starts up under (REAL_TASKS_SUFFIX for imported tasks); default family.id */
  familyKey?: string;
  /** the sampler's hardness window around the competence frontier (frontier.ts), for fresh samples; undefined: the whole generator */
  freshWindow?: { min: number; max: number };
  /** terminal tasks: adds come from the pool of imported tasks (returns how many joined) instead of crossovers and fresh samples */
  addFromPool?: (want: number) => number;
  /** the fresh samples a validation helper drew ahead (EngineerInput.helper); used only without freshWindow */
  helper?: Pick<EngineerHelper, "sample">;
}

/** The context of the child strategies for one proposal. */
export function childContext(
  p: Omit<ChildContext, "mutRng" | "harderSteps" | "easierSteps"> & { scored: readonly Scored[] },
): ChildContext {
  const { scored, ...rest } = p;
  return { ...rest, mutRng: p.rng.fork("mutate"), harderSteps: stepsPerField(scored, 1), easierSteps: stepsPerField(scored, -1) };
}

/** A directed child of `parent`, harder (sign 1) or easier (-1); the third try (attempt 2) keeps one step and reseeds. */
function directedChild(ctx: ChildContext, parent: Scored, sign: 1 | -1, attempt: number): Candidate | null {
  const { mutRng, evidence, family } = ctx;
  // Easier steps follow the parent's dominant failure: timeouts raise the budget first, failed tests follow the direction evidence.
  const dominant = parent.failure.dominant;
  const driver = sign < 0 && dominant && (dominant.kind === "timeout" || dominant.kind === "verifier") ? dominant : undefined;
  const timeout = driver?.kind === "timeout";
  let order = orderDirections(mutRng, evidence, sign < 0);
  if (timeout) order = [...order.filter((e) => e.direction === "precision"), ...order.filter((e) => e.direction !== "precision")];
  // A harder step leaves the directions the parent is already nearly hardest along, then noise (harderLast), for last.
  const ranking =
    sign > 0
      ? harderDirections(order, parent.member.config, HEURISTIC_DEFAULTS.harderSaturatedAt, HEURISTIC_DEFAULTS.harderLast)
      : undefined;
  if (ranking) order = ranking.map((r) => r.evidence);
  // The third try of a parent keeps one directed step and reseeds, for a new instance of the same step.
  const step = directedEdit(
    mutRng,
    order,
    parent.member.config,
    sign,
    attempt >= 2 ? 1 : 0,
    parentSteps(parent, sign, sign > 0 ? ctx.harderSteps : ctx.easierSteps),
    ctx.familyKey ?? family.id,
    timeout,
  );
  if (!step) return null;
  const edits = [...step.edits];
  let config = step.config;
  if (attempt >= 2) {
    const reseeded = mutateConfig(mutRng, setFields(family.fields, parent.member.config), config, { edits: 1, direction: "diversify" });
    config = reseeded.config;
    edits.push(...reseeded.edits);
  }
  return {
    kind: sign > 0 ? "harder" : "easier",
    config,
    direction: step.evidence.direction,
    edits,
    starts: step.starts,
    ...(driver ? { driver } : {}),
    firstChoice: step.evidence === order[0],
    ...(ranking ? { ranking } : {}),
    parent,
    evidence: step.evidence,
    steps: step.steps,
  };
}

/** Every child strategy in turn, each passing what it could not fill to the next. */
export function proposeChildren(ctx: ChildContext): void {
  let carry = harderChildren(ctx);
  carry = replayChildren(ctx, carry);
  if (ctx.addFromPool) {
    ctx.addFromPool(ctx.budget.addTarget + carry);
    return;
  }
  carry = crossoverChildren(ctx, carry);
  freshChildren(ctx, carry);
}

/** 3b. Solved parents pushed harder, one child each; returns the children it could not make. */
function harderChildren(ctx: ChildContext): number {
  const { batch, budget } = ctx;
  let done = 0;
  for (const parent of budget.harderPool) {
    if (done >= budget.harderTarget || batch.exhausted) break;
    for (let attempt = 0; attempt < HEURISTIC_DEFAULTS.triesPerParent; attempt++) {
      const cand = directedChild(ctx, parent, 1, attempt);
      if (!cand) break;
      if (batch.accept(cand)) {
        done += 1;
        break;
      }
    }
  }
  return budget.harderTarget - done;
}

/**
 * 3a. Replayed parents in PLR rank order, without replacement and cycling: q < 0.2 made easier
 * (only), q > replayHarderAbove (0.6: 5 of 8 and up) pushed harder one directed step, the rest 1-3
 * random edits of set fields.
 */
function replayChildren(ctx: ChildContext, carryIn: number): number {
  const { rng, mutRng, family, batch, budget } = ctx;
  const D = HEURISTIC_DEFAULTS;
  const { replayPool, mutateTarget, harderTarget } = budget;
  // Without replay parents, their share (and what the harder step left) passes on to crossovers and fresh samples.
  const want = replayPool.length > 0 ? mutateTarget - harderTarget + carryIn : 0;
  let carry = replayPool.length > 0 ? 0 : mutateTarget - harderTarget + carryIn;
  const weights = plrRankWeights(
    replayPool.map((sc) => sc.priority),
    D.temperature,
    replayPool.map(() => 1),
    D.stalenessWeight,
  );
  const order = weightedOrder(rng.fork("replay-order"), weights);
  let done = 0;
  for (let attempt = 0; done < want && attempt < 3 * want + 5 && !batch.exhausted; attempt++) {
    const parent = replayPool[order[attempt % order.length]];
    let cand: Candidate | null = null;
    if (parent.q !== null && parent.q < D.easierBelow) cand = directedChild(ctx, parent, -1, attempt >= order.length ? 2 : 0);
    else if (parent.q !== null && parent.q > D.replayHarderAbove) cand = directedChild(ctx, parent, 1, attempt >= order.length ? 2 : 0);
    else {
      const { config, edits } = mutateConfig(mutRng, setFields(family.fields, parent.member.config), parent.member.config, {
        edits: mutRng.int(1, 3),
      });
      if (edits.length > 0) cand = { kind: "replay", config, direction: editDirection(family.fields, edits), edits, parent };
    }
    if (batch.accept(cand)) done += 1;
  }
  carry += want - done;
  return carry;
}

/**
 * The crossover candidates of attempts 0, 1, 2, ... in order: the same whatever the batch accepts (only how many are
 * tried depends on that), so a validation helper can be given them before the batch asks (speculativeCrossovers).
 */
function* crossoverCandidates(ctx: ChildContext): Generator<Candidate, never> {
  const { rng, family, budget } = ctx;
  const D = HEURISTIC_DEFAULTS;
  const { crossPool } = budget;
  const crossRng = rng.fork("crossover");
  const weights = plrRankWeights(
    crossPool.map((sc) => sc.priority),
    D.temperature,
    crossPool.map(() => 1),
    D.stalenessWeight,
  );
  const order = weightedOrder(crossRng, weights);
  for (let attempt = 0; ; attempt++) {
    const a = crossPool[order[attempt % order.length]];
    let b = crossPool[order[(attempt + 1) % order.length]];
    let farthest = -1;
    for (let j = 1; j <= Math.min(8, order.length - 1); j++) {
      const other = crossPool[order[(attempt + j) % order.length]];
      const d = distance(family, a.member.config, other.member.config);
      if (d > farthest) {
        farthest = d;
        b = other;
      }
    }
    // Only fields set on both parents cross over: a field unset on the first stays unset.
    const config = crossover(crossRng, setFields(family.fields, a.member.config, b.member.config), a.member.config, b.member.config);
    const novelty = noveltyScore(family, config, [a.member.config, b.member.config]);
    yield { kind: "crossover", config, direction: "diversify", edits: [], parent: a, second: b, novelty };
  }
}

/** The configs of the first `count` crossover attempts (none without two parents to cross). */
export function speculativeCrossovers(ctx: ChildContext, count: number): FamilyConfig[] {
  if (ctx.budget.crossPool.length < 2) return [];
  const candidates = crossoverCandidates(ctx);
  return Array.from({ length: count }, () => candidates.next().value.config);
}

/** 4a. Crossovers of two high-learnability parents; the second is the most distant of the next few in PLR order. */
function crossoverChildren(ctx: ChildContext, carryIn: number): number {
  const { batch, budget } = ctx;
  const { crossPool, crossTarget } = budget;
  let carry = carryIn;
  const want = crossPool.length >= 2 ? crossTarget + carry : 0;
  if (want > 0) carry = 0;
  const candidates = crossoverCandidates(ctx);
  let done = 0;
  for (let attempt = 0; done < want && attempt < 3 * want + 5 && !batch.exhausted; attempt++) {
    if (batch.accept(candidates.next().value)) done += 1;
  }
  carry += want - done;
  return carry;
}

/**
 * 4b. Fresh samples (novelty against a bounded reference set of members): with a frontier window,
 * two of every three from the sampler's window around the competence frontier and the third from
 * the whole generator (coverage); else all from the whole generator.
 */
function freshChildren(ctx: ChildContext, carry: number): void {
  const { rng, family, batch, budget, reference, freshWindow } = ctx;
  const want = budget.addTarget - budget.crossTarget + carry;
  const freshRng = rng.fork("fresh");
  // Without a window the k-th draw is the k-th sample of freshRng: a validation helper may have drawn it already
  // (ctx.helper, asked only without a window); where it has not, freshRng catches up on the draws it skipped.
  let drawn = 0;
  const draw = (k: number): FamilyConfig => {
    const ahead = ctx.helper?.sample(k);
    if (ahead) return ahead;
    for (; drawn < k; drawn++) family.sample(freshRng);
    drawn += 1;
    return family.sample(freshRng) as FamilyConfig;
  };
  let done = 0;
  for (let attempt = 0; done < want && attempt < 2 * want + 3 && !batch.exhausted; attempt++) {
    // the frontier's extra fresh samples first, all from the window; then two of every three adds from it
    const windowed = freshWindow !== undefined && (done < budget.frontierFresh || (done - budget.frontierFresh) % 3 !== 2);
    const config =
      freshWindow === undefined
        ? draw(attempt)
        : ((windowed ? family.sample(freshRng, { hardness: freshWindow }) : family.sample(freshRng)) as FamilyConfig);
    let nearest: { key: string; distance: number } | undefined;
    for (const ref of reference) {
      const d = distance(family, config, ref.config);
      if (!nearest || d < nearest.distance) nearest = { key: ref.key, distance: d };
    }
    if (batch.accept({ kind: "fresh", config, direction: "diversify", edits: [], novelty: nearest?.distance ?? 1, nearest })) done += 1;
  }
}

/**
 * The heuristic environment engineer (ENGINEER.md, "The heuristic engineer"): keep the most
 * learnable environments, retire what does not teach, mutate replayed and solved parents
 * (ACCEL-style), add fresh samples and crossovers. Offline and deterministic for a seed.
 * Pure: no database, no Next.js.
 *
 * Decisions where the spec is open:
 * - Every population member gets exactly one item: keep, or retire with its reason (invalid,
 *   unsolvable, solved, hopeless, plateaued, or "outranked" when its learnability is below the keep cut).
 * - Plateaued (learning progress retiring what stopped teaching): measured in 3 generations or more,
 *   its success rate (the mean of the last two) between 0.2 and 0.8 and not 0.1 above its first; it
 *   is not used as a parent either. Learnability alone keeps a noisy TV (success 0.5 whatever the policy does) for ever.
 * - Hopeless = 0 successes in n >= 4 attempts now and a success rate of 0 in the previous
 *   generation (the last history entry): two generations in a row at zero.
 * - Keep ranks by learnability, ties broken by learning progress (history plus the current q).
 * - Children: solved parents (q > 0.8) get one harder child each, at most half of the mutation
 *   budget when there are also replay parents; replay parents (q <= 0.8) are drawn by PLR rank
 *   weights (temperature 0.3, staleness weight 0.3 with equal staleness, as every score is fresh)
 *   without replacement, cycling, so children spread over parents instead of piling onto rank 1;
 *   replay parents with q < 0.2 are made easier, the others get 1-3 random edits.
 * - A directed edit moves each of its numeric fields 1 step, plus one per unit of logit by which
 *   the population's mean q sits beyond 0.5 in the edit's direction (at most 4): when the policy
 *   has outgrown the whole population, single steps cannot catch up. Ordinals and booleans move one level.
 * - Which direction the failure evidence points to: per direction, the mean fitted success drop
 *   from the easy to the hard end of its fields' buckets (summary.environments.fields) plus how much
 *   harder along it the environments of policy failure clusters are than the population (cluster lift).
 * - Adds: half crossovers (of two kept parents; the second the most distant of the next few in
 *   PLR order), the rest fresh samples; a share a pool cannot fill passes on to the next kind.
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
import { getFieldValue, setFieldValue } from "@/lib/families/field-path";
import type { FailureCategory } from "@/lib/analytics/failures";
import { fieldHardness, valueAtPosition } from "@/lib/families/hardness";
import { configHash } from "@/lib/families/hash";
import { crossover, distance, mutateConfig, stepHarder, type FieldEdit } from "@/lib/families/operators";
import { createRng, hashSeed, type Rng } from "@/lib/families/rng";
import { SKILL_DIRECTIONS, type Direction, type FamilyConfig, type FamilyDefinition, type FieldSpec, type SkillDirection } from "@/lib/families/types";
import { isUnsolvable, learnabilityScore, learningProgress, normalizedRate, noveltyScore, plrRankWeights, posteriorMean } from "./scoring";
import type { EngineerInput, EngineerOutput, EvidenceRef, PopulationMember, ProposedItem, StructuredSummary, SummaryCluster, SummaryField } from "./types";

/** Defaults of the heuristic engineer (ENGINEER.md; PLR/ACCEL replay defaults). */
export const HEURISTIC_DEFAULTS = {
  keepShare: 0.5,
  addShare: 0.15,
  /** PLR rank prioritisation temperature */
  temperature: 0.3,
  /** PLR staleness weight */
  stalenessWeight: 0.3,
  /** retire as solved at q >= solvedRate with at least minAttempts attempts */
  solvedRate: 0.9,
  minAttempts: 4,
  /** directed steps: harder above, easier below this q */
  harderAbove: 0.8,
  easierBelow: 0.2,
  /** members sampled as the novelty reference set */
  noveltyReference: 32,
  /** attempts per solved parent before moving on */
  triesPerParent: 3,
  /** logit shift of the predicted success per directed edit */
  logitStep: 0.5,
  /** plateaued: measured in at least this many generations without its success rate rising by plateauRise */
  plateauGenerations: 3,
  plateauRise: 0.1,
  /** a kind of failure dominates a member when it holds more than this share of its failed attempts */
  dominantShare: 0.5,
  /** infra-dominated also needs infra failures in at least this share of all attempts */
  infraAttemptShare: 0.2,
  /** steps at least of a timeout-driven easier edit on a budget field */
  timeoutSteps: 3,
} as const;

/** Most steps a directed edit takes on one numeric field (see stepsPerField). */
const MAX_STEPS_PER_FIELD = 4;

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

type RetireReason = "invalid" | "unsolvable" | "solved" | "hopeless" | "plateaued" | "outranked" | "infra";

/** What a failure says about an environment: infrastructure, a budget ran out, the policy's output, failed tests, other errors. */
type FailureKind = "infra" | "timeout" | "output" | "verifier" | "other";

/** The kind of failure that holds most of a member's failed attempts. */
interface Dominant {
  kind: FailureKind;
  /** the kind's largest category for this member */
  category: FailureCategory;
  /** estimated failed attempts of this kind (exact when every cluster of the member is of this kind) */
  count: number;
  exact: boolean;
  /** the member's largest cluster of this kind, cited as evidence */
  cluster: SummaryCluster;
}

interface FailureProfile {
  /** failed attempts, n - s */
  failures: number;
  /** the kind holding more than half of the failures (see failureProfile), or null */
  dominant: Dominant | null;
  /** the member's largest policy (non-infra) cluster the summary lists, with its estimated failures */
  top: { cluster: SummaryCluster; count: number } | null;
}

interface Scored {
  member: PopulationMember;
  index: number;
  q: number | null;
  mean: number;
  learnability: number;
  progress: number;
  retire: RetireReason | null;
  failure: FailureProfile;
  /** infra-dominated: no parent, not in the difficulty logic */
  infra: boolean;
}

interface DirectionEvidence {
  direction: SkillDirection;
  /** mutable difficulty-signed fields of this direction */
  fields: FieldSpec[];
  /** mean fitted success drop from the easy to the hard end of the fields' buckets */
  drop: number | null;
  /** count-weighted hardness of failure-cluster environments along this direction minus the population's */
  lift: number | null;
  score: number;
  /** the field with the largest drop, cited as evidence */
  top: { path: string; easy: number; hard: number; drop: number } | null;
}

type ChildKind = "harder" | "easier" | "replay" | "crossover" | "fresh";

/** Where an unset field's directed edit started: a harness default or the midpoint of its bounds. */
interface UnsetStart {
  value: number;
  from: "default" | "midpoint";
}

interface Candidate {
  kind: ChildKind;
  config: FamilyConfig;
  direction: Direction;
  edits: FieldEdit[];
  /** starts assumed for unset numeric fields a directed edit moved, by path */
  starts?: Map<string, UnsetStart>;
  /** the dominant failure that decided a directed edit (timeouts, failed tests) */
  driver?: Dominant;
  parent?: Scored;
  second?: Scored;
  evidence?: DirectionEvidence;
  novelty?: number;
  nearest?: { key: string; distance: number };
  /** single-field steps of a directed edit (more than its edits when fields moved several steps) */
  steps?: number;
  /** whether a directed edit moved along the direction the evidence ranks first (else a later one that could move) */
  firstChoice?: boolean;
}

const MISSING_BUCKET = "(missing)";

function clampShare(value: number | undefined, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(1, Math.max(0, value));
}

function fmt(x: number, digits = 2): string {
  return x.toFixed(digits);
}

function showValue(value: unknown): string {
  if (value === undefined) return "unset";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(3)));
  return String(value);
}

function showEdits(edits: readonly FieldEdit[], starts?: ReadonlyMap<string, UnsetStart>): string {
  return edits
    .map((e) => {
      const start = e.from === undefined ? starts?.get(e.path) : undefined;
      const from = start ? `unset (${start.from === "default" ? "assumed" : "midpoint"} ${showValue(start.value)})` : showValue(e.from);
      return `${e.path} ${from}→${showValue(e.to)}`;
    })
    .join(", ");
}

/** A signature shortened for a rationale, in quotes. */
function quote(signature: string, max = 60): string {
  const s = signature.replace(/\s+/g, " ").trim();
  return `"${s.length <= max ? s : `${s.slice(0, max - 1)}…`}"`;
}

/** "7 of 10 attempts" or "about 7 of 10 attempts" for a dominant failure. */
function showCount(d: Dominant, n: number): string {
  return `${d.exact ? "" : "about "}${d.count} of ${n} attempts`;
}

/** "7/8, q 0.88" plus the p_max where it visibly caps the rate; `qSuffix` follows q (e.g. " >= 0.9"). */
function showRate(sc: Scored, qSuffix = ""): string {
  const { n, s, validation } = sc.member;
  if (n === 0) return "unmeasured";
  const pMax = validation.pMax;
  const cap = typeof pMax === "number" && pMax > 0 && pMax < 0.995 ? `, p_max ${fmt(pMax)}` : "";
  return `${s}/${n}, q ${sc.q === null ? "n/a" : fmt(sc.q)}${qSuffix}${cap}`;
}

function logit(p: number): number {
  const x = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(x / (1 - x));
}

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

function retireReason(member: PopulationMember, q: number | null, plateauGenerations: number): RetireReason | null {
  if (member.validation.state === "invalid") return "invalid";
  if (isUnsolvable(member.validation)) return "unsolvable";
  if (q !== null && q >= HEURISTIC_DEFAULTS.solvedRate && member.n >= HEURISTIC_DEFAULTS.minAttempts) return "solved";
  const last = member.history.length > 0 ? member.history[member.history.length - 1] : null;
  if (member.s === 0 && member.n >= HEURISTIC_DEFAULTS.minAttempts && last === 0) return "hopeless";
  if (isPlateaued(member, plateauGenerations)) return "plateaued";
  return null;
}

/**
 * Plateaued (ENGINEER.md: learning progress retires plateaued regions): trained on in at least
 * `generations` generations, its success rate (the mean of the last two) still in the frontier band
 * [easierBelow, harderAbove] and not plateauRise above its first measurement. A policy that learns
 * from an environment gets better at it; one whose rate stands still while it is trained on
 * teaches nothing (a noisy TV looks maximally learnable for ever). Retiring a slow learner by
 * mistake costs little: a child of a high-learnability parent takes its place. Members above or
 * below the band are left to the solved, harder, easier and hopeless rules.
 */
function isPlateaued(member: PopulationMember, generations: number): boolean {
  if (generations <= 0 || member.n === 0) return false;
  const rates = [...member.history.filter((r) => Number.isFinite(r)), member.s / member.n];
  if (rates.length < Math.max(2, generations)) return false;
  const recent = (rates[rates.length - 1] + rates[rates.length - 2]) / 2;
  const D = HEURISTIC_DEFAULTS;
  return recent >= D.easierBelow && recent <= D.harderAbove && recent < rates[0] + D.plateauRise;
}

function failureKind(cluster: SummaryCluster): FailureKind {
  if (cluster.infra || cluster.category === "infra_error") return "infra";
  switch (cluster.category) {
    case "agent_timeout":
    case "verifier_timeout":
      return "timeout";
    case "format_error":
    case "context_length_exceeded":
      return "output";
    case "verifier_failed":
      return "verifier";
    default:
      return "other";
  }
}

const FAILURE_KINDS: readonly FailureKind[] = ["infra", "timeout", "output", "verifier", "other"];

/**
 * The member's failed attempts spread over its clusters (the summary has cluster totals only):
 * weights count / environments (at least 1; 1 for a cluster the summary cut), made non-increasing
 * along clusterIds (the member's clusters, its largest first) by pooling adjacent violators, then
 * scaled to n - s. The dominant kind holds more than dominantShare of the failures (infra also at
 * least infraAttemptShare of the attempts).
 */
function failureProfile(member: PopulationMember, clusterById: ReadonlyMap<string, SummaryCluster>): FailureProfile {
  const failures = Math.max(0, member.n - member.s);
  const ids = [...new Set(member.clusterIds)];
  if (failures === 0 || ids.length === 0) return { failures, dominant: null, top: null };
  const known = ids.map((id) => clusterById.get(id));
  const blocks: { sum: number; len: number }[] = [];
  for (const c of known) {
    blocks.push({ sum: c ? Math.max(1, c.count / Math.max(1, c.environments)) : 1, len: 1 });
    while (blocks.length >= 2 && blocks[blocks.length - 2].sum / blocks[blocks.length - 2].len < blocks[blocks.length - 1].sum / blocks[blocks.length - 1].len) {
      const last = blocks.pop() as { sum: number; len: number };
      blocks[blocks.length - 1].sum += last.sum;
      blocks[blocks.length - 1].len += last.len;
    }
  }
  const weights = blocks.flatMap((b) => Array.from({ length: b.len }, () => b.sum / b.len));
  const total = weights.reduce((a, b) => a + b, 0);
  const estimates = weights.map((w) => (failures * w) / total);

  const byKind = new Map<FailureKind, { estimate: number; categories: Map<FailureCategory, number>; best: { cluster: SummaryCluster; estimate: number } | null }>();
  let top: { cluster: SummaryCluster; estimate: number } | null = null;
  for (let i = 0; i < known.length; i++) {
    const c = known[i];
    if (!c) continue;
    const kind = failureKind(c);
    const entry = byKind.get(kind) ?? { estimate: 0, categories: new Map<FailureCategory, number>(), best: null };
    entry.estimate += estimates[i];
    entry.categories.set(c.category, (entry.categories.get(c.category) ?? 0) + estimates[i]);
    if (!entry.best || estimates[i] > entry.best.estimate) entry.best = { cluster: c, estimate: estimates[i] };
    byKind.set(kind, entry);
    if (kind !== "infra" && (!top || estimates[i] > top.estimate)) top = { cluster: c, estimate: estimates[i] };
  }

  let dominant: Dominant | null = null;
  const D = HEURISTIC_DEFAULTS;
  for (const kind of FAILURE_KINDS) {
    const entry = byKind.get(kind);
    if (!entry?.best || entry.estimate <= D.dominantShare * failures + 1e-9) continue;
    if (kind === "infra" && entry.estimate < D.infraAttemptShare * member.n - 1e-9) continue;
    let category = entry.best.cluster.category;
    let most = -1;
    for (const [c, e] of entry.categories) {
      if (e > most + 1e-9) {
        most = e;
        category = c;
      }
    }
    const exact = known.every((c) => c !== undefined && failureKind(c) === kind);
    dominant = { kind, category, count: exact ? failures : Math.min(failures, Math.max(1, Math.round(entry.estimate))), exact, cluster: entry.best.cluster };
    break;
  }
  return { failures, dominant, top: top ? { cluster: top.cluster, count: Math.min(failures, Math.max(1, Math.round(top.estimate))) } : null };
}

/** Hardness in [0, 1] of a bucket label of a signed field (bins "lo–hi" by their midpoint, levels by name). */
function bucketHardness(field: FieldSpec, label: string): number | undefined {
  if (label === MISSING_BUCKET) return undefined;
  switch (field.kind) {
    case "integer":
    case "number": {
      const match = /^(-?[\d.]+(?:e[-+]?\d+)?)(?:–(-?[\d.]+(?:e[-+]?\d+)?))?$/i.exec(label.trim());
      if (!match) return undefined;
      const lo = Number(match[1]);
      const hi = match[2] === undefined ? lo : Number(match[2]);
      return Number.isFinite(lo) && Number.isFinite(hi) ? fieldHardness(field, (lo + hi) / 2) : undefined;
    }
    case "ordinal": {
      const level = (field.levels ?? []).find((l) => String(l) === label);
      return level === undefined ? undefined : fieldHardness(field, level);
    }
    case "boolean":
      return label === "true" || label === "false" ? fieldHardness(field, label === "true") : undefined;
    case "nominal":
      return undefined;
  }
}

/** Rollout-weighted linear fit of success on hardness over a field's buckets: fitted success at the easy and hard end. */
function fieldDrop(field: FieldSpec, buckets: SummaryField["buckets"]): { easy: number; hard: number; drop: number } | null {
  const points: { h: number; y: number; w: number }[] = [];
  for (const bucket of buckets) {
    if (bucket.successRate === null || !(bucket.rollouts > 0)) continue;
    const h = bucketHardness(field, bucket.label);
    if (h !== undefined) points.push({ h, y: bucket.successRate, w: bucket.rollouts });
  }
  if (points.length < 2) return null;
  let sw = 0;
  let sh = 0;
  let sy = 0;
  for (const p of points) {
    sw += p.w;
    sh += p.w * p.h;
    sy += p.w * p.y;
  }
  const mh = sh / sw;
  const my = sy / sw;
  let cov = 0;
  let varH = 0;
  let hMin = 1;
  let hMax = 0;
  for (const p of points) {
    cov += p.w * (p.h - mh) * (p.y - my);
    varH += p.w * (p.h - mh) ** 2;
    hMin = Math.min(hMin, p.h);
    hMax = Math.max(hMax, p.h);
  }
  if (varH < 1e-12) return null;
  const slope = cov / varH;
  const clip = (y: number) => Math.min(1, Math.max(0, y));
  const easy = clip(my + slope * (hMin - mh));
  const hard = clip(my + slope * (hMax - mh));
  return { easy, hard, drop: easy - hard };
}

function meanHardness(fields: readonly FieldSpec[], config: unknown): number | undefined {
  let sum = 0;
  let count = 0;
  for (const field of fields) {
    const h = fieldHardness(field, getFieldValue(config, field.path));
    if (h === undefined) continue;
    sum += h;
    count += 1;
  }
  return count > 0 ? sum / count : undefined;
}

/** What the failure evidence says about each difficulty direction the family can move along. */
function directionEvidence(family: FamilyDefinition, fields: readonly SummaryField[], clusters: readonly SummaryCluster[], scored: readonly Scored[]): DirectionEvidence[] {
  const byKey = new Map(scored.map((sc) => [sc.member.key, sc]));
  const out: DirectionEvidence[] = [];
  for (const direction of SKILL_DIRECTIONS) {
    const signed = family.fields.filter((f) => f.direction === direction && f.difficulty && f.mutable !== false && f.kind !== "nominal");
    if (signed.length === 0) continue;

    const drops: { path: string; easy: number; hard: number; drop: number }[] = [];
    for (const summaryField of fields) {
      const spec = signed.find((f) => f.path === summaryField.path);
      if (!spec) continue;
      const fit = fieldDrop(spec, summaryField.buckets);
      if (fit) drops.push({ path: spec.path, ...fit });
    }
    const drop = drops.length > 0 ? drops.reduce((a, d) => a + d.drop, 0) / drops.length : null;
    const top = drops.length > 0 ? drops.reduce((best, d) => (d.drop > best.drop ? d : best)) : null;

    let popSum = 0;
    let popCount = 0;
    for (const sc of scored) {
      const h = meanHardness(signed, sc.member.config);
      if (h === undefined) continue;
      popSum += h;
      popCount += 1;
    }
    let lift: number | null = null;
    if (popCount > 0) {
      const popMean = popSum / popCount;
      let acc = 0;
      let weight = 0;
      for (const cluster of clusters) {
        if (cluster.infra || !(cluster.count > 0)) continue;
        let sum = 0;
        let count = 0;
        for (const key of cluster.environmentKeys) {
          const sc = byKey.get(key);
          const h = sc ? meanHardness(signed, sc.member.config) : undefined;
          if (h === undefined) continue;
          sum += h;
          count += 1;
        }
        if (count === 0) continue;
        acc += cluster.count * (sum / count - popMean);
        weight += cluster.count;
      }
      if (weight > 0) lift = acc / weight;
    }
    out.push({ direction, fields: signed, drop, lift, score: (drop ?? 0) + (lift ?? 0), top });
  }
  return out;
}

/** Directions ordered by evidence score (descending for "most", ascending for "least"); ties in seeded random order. */
function orderDirections(rng: Rng, evidence: readonly DirectionEvidence[], most: boolean): DirectionEvidence[] {
  const shuffled = rng.shuffle(evidence);
  const sign = most ? -1 : 1;
  return shuffled
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (Math.abs(a.e.score - b.e.score) < 1e-9 ? a.i - b.i : sign * (a.e.score - b.e.score)))
    .map((x) => x.e);
}

/** Indices of `weights` in a weighted random order without replacement (Efraimidis-Spirakis keys). */
function weightedOrder(rng: Rng, weights: readonly number[]): number[] {
  const keyed = weights.map((w, i) => {
    const u = rng.next() || Number.MIN_VALUE;
    return { i, k: w > 0 ? Math.log(u) / w : Number.NEGATIVE_INFINITY };
  });
  keyed.sort((a, b) => (a.k === b.k ? a.i - b.i : b.k - a.k));
  return keyed.map((x) => x.i);
}

/** Net count of edits that made the config harder (+1) or easier (-1), over difficulty-signed fields. */
function hardnessSteps(fields: readonly FieldSpec[], edits: readonly FieldEdit[]): number {
  let steps = 0;
  for (const edit of edits) {
    const field = fields.find((f) => f.path === edit.path);
    if (!field?.difficulty) continue;
    const from = fieldHardness(field, edit.from);
    const to = fieldHardness(field, edit.to);
    if (from === undefined || to === undefined || from === to) continue;
    steps += to > from ? 1 : -1;
  }
  return steps;
}

/** The direction of an undirected mutation: the most edited direction among difficulty-signed fields, else "diversify". */
function editDirection(fields: readonly FieldSpec[], edits: readonly FieldEdit[]): Direction {
  const counts = new Map<Direction, number>();
  for (const edit of edits) {
    const field = fields.find((f) => f.path === edit.path);
    if (!field?.difficulty || !field.direction || field.direction === "diversify") continue;
    counts.set(field.direction, (counts.get(field.direction) ?? 0) + 1);
  }
  let best: Direction = "diversify";
  let bestCount = 0;
  for (const [direction, count] of counts) {
    if (count > bestCount) {
      best = direction;
      bestCount = count;
    }
  }
  return best;
}

/** The evidence refs items cite: only clusters and rollouts of the summary, environments and fields. */
interface EvidenceWriter {
  /** a failure cluster of the summary (with what the item says about it) and one exemplar rollout of it */
  cluster(cluster: SummaryCluster | null | undefined, note?: string): EvidenceRef[];
  environment(sc: Scored, note?: string): EvidenceRef;
  field(e: DirectionEvidence | undefined): EvidenceRef[];
  /** the least covered level of a categorical field, when it is clearly under-covered */
  coverageGap: EvidenceRef | null;
}

function evidenceWriter(summary: StructuredSummary): EvidenceWriter {
  let gap: { path: string; label: string; environments: number; total: number } | null = null;
  for (const field of summary.environments.fields) {
    // Categorical fields only: equal-width numeric bins are empty by construction on skewed fields.
    if (field.kind !== "nominal" && field.kind !== "ordinal" && field.kind !== "boolean") continue;
    const buckets = field.buckets.filter((b) => b.label !== MISSING_BUCKET);
    if (buckets.length < 2) continue;
    const total = buckets.reduce((a, b) => a + b.environments, 0);
    for (const bucket of buckets) {
      const underCovered = bucket.environments < (0.5 * total) / buckets.length;
      if (underCovered && (gap === null || bucket.environments < gap.environments)) gap = { path: field.path, label: bucket.label, environments: bucket.environments, total };
    }
  }
  return {
    cluster(cluster, note) {
      if (!cluster) return [];
      const refs: EvidenceRef[] = [{ kind: "cluster", ref: cluster.id, note: `${note ? `${note}; ` : ""}${cluster.category}: ${cluster.signature}`.slice(0, 160) }];
      if (cluster.exemplarRolloutIds.length > 0) refs.push({ kind: "rollout", ref: cluster.exemplarRolloutIds[0] });
      return refs;
    },
    environment(sc, note) {
      return { kind: "stat", ref: `env:${sc.member.key}`, note: note ?? `${showRate(sc)}, learnability ${fmt(sc.learnability, 3)}` };
    },
    field(e) {
      if (!e?.top) return [];
      return [{ kind: "stat", ref: `field:${e.top.path}`, note: `success ${fmt(e.top.easy)}→${fmt(e.top.hard)} from its easy to its hard buckets` }];
    },
    coverageGap: gap
      ? { kind: "stat", ref: `field:${gap.path}`, note: `least covered level: ${gap.label} has ${gap.environments} of ${gap.total} environments` }
      : null,
  };
}

/**
 * Scores of every member: normalised rate, posterior mean, learnability, learning progress, failure
 * profile and a retirement reason (an infra-dominated member that never passed retires as "infra").
 */
function scoreMembers(population: readonly PopulationMember[], summary: StructuredSummary, groupSize: number | undefined, plateauGenerations: number): Scored[] {
  const clusterById = new Map(summary.failures.clusters.map((c) => [c.id, c]));
  return population.map((member, index) => {
    const q = normalizedRate(member.s, member.n, member.validation.pMax);
    const failure = failureProfile(member, clusterById);
    let retire = retireReason(member, q, plateauGenerations);
    const broken = retire === "invalid" || retire === "unsolvable";
    const infra = !broken && failure.dominant?.kind === "infra";
    if (infra && member.s === 0) retire = "infra";
    return {
      member,
      index,
      q,
      mean: posteriorMean(member.s, member.n),
      learnability: learnabilityScore(member, groupSize),
      progress: learningProgress(q === null ? member.history : [...member.history, q]),
      retire,
      failure,
      infra,
    };
  });
}

/** A budget field: precision, raising it makes the task easier (a time, step or turn budget). */
function isBudget(field: FieldSpec): boolean {
  return field.direction === "precision" && field.difficulty === "down";
}

/**
 * A directed edit of a field unset on the parent, `steps` steps harder (sign 1) or easier (-1):
 * an ordinal takes the level next to the middle of its levels in that direction, a boolean its
 * hard/easy value, a number starts from UNSET_DEFAULTS or the midpoint of its bounds (on its own
 * scale) and steps from there. Undefined when the field has no sensible start (nominal, unbounded).
 */
function unsetMove(familyId: string, field: FieldSpec, sign: 1 | -1, steps: number): { to: unknown; start?: UnsetStart } | undefined {
  if (!field.difficulty || field.mutable === false) return undefined;
  const dir = field.difficulty === "up" ? sign : -sign;
  switch (field.kind) {
    case "ordinal": {
      const levels = field.levels ?? [];
      if (levels.length < 2) return undefined;
      const mid = (levels.length - 1) / 2;
      return { to: levels[dir > 0 ? Math.floor(mid) + 1 : Math.ceil(mid) - 1] };
    }
    case "boolean":
      return { to: dir > 0 };
    case "integer":
    case "number": {
      const known = UNSET_DEFAULTS[familyId]?.[field.path];
      let start: UnsetStart;
      if (typeof known === "number") start = { value: known, from: "default" };
      else if (field.min !== undefined && field.max !== undefined && field.max > field.min) {
        const mid = valueAtPosition(field, 0.5);
        start = { value: field.kind === "integer" ? Math.round(mid) : Math.round(mid * 1e4) / 1e4, from: "midpoint" };
      } else return undefined;
      let to: unknown = start.value;
      for (let k = 0; k < Math.max(1, steps); k++) {
        const next = stepHarder(field, to, sign);
        if (next === to) break;
        to = next;
      }
      return to === start.value ? undefined : { to, start };
    }
    case "nominal":
      return undefined;
  }
}

interface DirectedResult {
  config: FamilyConfig;
  edits: FieldEdit[];
  evidence: DirectionEvidence;
  steps: number;
  starts: Map<string, UnsetStart>;
}

/**
 * Directed step: 1-3 difficulty-signed fields `steps` steps harder (sign 1) or easier (-1) along
 * the first direction in `order` that can move (numeric fields; ordinals and booleans move one
 * level). Fields set on the parent first, in every direction, before any unset one (unsetMove).
 * With `budgetFirst` (a timeout-driven easier step), the budget fields of `order`'s precision entry
 * come first, set or unset, with at least timeoutSteps steps.
 */
function directedEdit(
  rng: Rng,
  order: readonly DirectionEvidence[],
  config: FamilyConfig,
  sign: 1 | -1,
  edits: number,
  steps: number,
  familyId: string,
  budgetFirst = false,
): DirectedResult | null {
  const isSetMovable = (f: FieldSpec) => {
    const value = getFieldValue(config, f.path);
    return value !== undefined && stepHarder(f, value, sign) !== value;
  };
  const isUnsetMovable = (f: FieldSpec) => getFieldValue(config, f.path) === undefined && unsetMove(familyId, f, sign, 1) !== undefined;

  const apply = (e: DirectionEvidence, movable: FieldSpec[], fieldSteps: number): DirectedResult => {
    const count = Math.min(edits > 0 ? edits : rng.int(1, 3), movable.length);
    let child = config;
    const changes: FieldEdit[] = [];
    const starts = new Map<string, UnsetStart>();
    let taken = 0;
    for (const field of rng.shuffle(movable).slice(0, count)) {
      const from = getFieldValue(child, field.path);
      const numeric = field.kind === "integer" || field.kind === "number";
      let to: unknown;
      if (from === undefined) {
        const move = unsetMove(familyId, field, sign, numeric ? fieldSteps : 1) as { to: unknown; start?: UnsetStart };
        to = move.to;
        if (move.start) starts.set(field.path, move.start);
        taken += numeric ? fieldSteps : 1;
      } else {
        to = stepHarder(field, from, sign);
        taken += 1;
        for (let k = 1; k < fieldSteps && numeric; k++) {
          const next = stepHarder(field, to, sign);
          if (next === to) break;
          to = next;
          taken += 1;
        }
      }
      child = setFieldValue(child, field.path, to);
      changes.push({ path: field.path, from, to });
    }
    return { config: child, edits: changes, evidence: e, steps: taken, starts };
  };

  if (budgetFirst) {
    const precision = order.find((e) => e.direction === "precision");
    const budget = precision ? precision.fields.filter(isBudget) : [];
    const budgetSteps = Math.min(MAX_STEPS_PER_FIELD, Math.max(steps, HEURISTIC_DEFAULTS.timeoutSteps));
    for (const movableNow of [isSetMovable, isUnsetMovable]) {
      const movable = budget.filter(movableNow);
      if (precision && movable.length > 0) return apply(precision, movable, budgetSteps);
    }
  }
  for (const movableNow of [isSetMovable, isUnsetMovable]) {
    for (const e of order) {
      const movable = e.fields.filter(movableNow);
      if (movable.length > 0) return apply(e, movable, steps);
    }
  }
  return null;
}

/** True when some difficulty-signed field of the config can move a step in direction `sign` (set, or unset with a start). */
function canStep(evidence: readonly DirectionEvidence[], config: FamilyConfig, sign: 1 | -1, familyId: string): boolean {
  return evidence.some((e) =>
    e.fields.some((f) => {
      const value = getFieldValue(config, f.path);
      return value === undefined ? unsetMove(familyId, f, sign, 1) !== undefined : stepHarder(f, value, sign) !== value;
    }),
  );
}

/**
 * Steps per field of a directed edit: 1, plus one for every unit of logit by which the
 * population's mean normalised success sits beyond the frontier (0.5) in the step's direction, at
 * most MAX_STEPS_PER_FIELD. When the policy has outgrown most of the population, one step at a time
 * cannot keep up; when the population sits at the frontier, steps stay single.
 */
function stepsPerField(scored: readonly Scored[], sign: 1 | -1): number {
  const rates = scored.filter((sc) => sc.q !== null && !sc.infra && sc.retire !== "invalid" && sc.retire !== "unsolvable").map((sc) => sc.q as number);
  if (rates.length < 8) return 1;
  const mean = Math.min(0.98, Math.max(0.02, rates.reduce((a, b) => a + b, 0) / rates.length));
  return Math.min(MAX_STEPS_PER_FIELD, Math.max(1, 1 + Math.floor(sign * logit(mean))));
}

/**
 * The children of one proposal: candidates go through the duplicate check (known hashes, the
 * population, children already proposed) and the family validator; the rest are dropped and counted.
 */
class ChildBatch {
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
function setFields(fields: readonly FieldSpec[], ...configs: FamilyConfig[]): FieldSpec[] {
  return fields.filter((f) => configs.every((c) => getFieldValue(c, f.path) !== undefined));
}

/** What a member's failures add to its keep or retire item: a clause (starting "; " or ", "), the cluster cited, the "infra" flag. */
function failureClause(sc: Scored, cite: EvidenceWriter): { text: string; refs: EvidenceRef[]; flags: string[] } {
  const { dominant: d, top } = sc.failure;
  const n = sc.member.n;
  if (d) {
    const count = showCount(d, n);
    switch (d.kind) {
      case "infra":
        return {
          text: `, but the environment looks ${sc.member.s > 0 ? "partly " : ""}broken: ${count} failed on infrastructure (${d.category}, ${quote(d.cluster.signature)}); fix the image`,
          refs: cite.cluster(d.cluster, `${count} failed on infrastructure`),
          flags: ["infra"],
        };
      case "output":
        return {
          text: `; ${count} failed on the policy's output (${d.category}), which is the policy's format or context, not the environment's difficulty, so its difficulty is left alone`,
          refs: cite.cluster(d.cluster, `${count} ${d.category}`),
          flags: [],
        };
      default: {
        const verb = d.kind === "timeout" ? "timed out" : d.kind === "verifier" ? "failed the tests" : "errored";
        return { text: `; ${count} ${verb} (${d.category})`, refs: cite.cluster(d.cluster, `${count} ${d.category}`), flags: [] };
      }
    }
  }
  if (top) {
    return {
      text: `; its failures are mixed, the largest cluster ${top.cluster.category} with about ${top.count} of ${n} attempts`,
      refs: cite.cluster(top.cluster, `largest cluster, about ${top.count} of ${n} attempts`),
      flags: [],
    };
  }
  return { text: "", refs: [], flags: [] };
}

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

  // 1-2. Keep the most learnable (ties: learning progress), retire the rest with a reason.
  const scored = scoreMembers(population, summary, options.groupSize, plateauGenerations);
  const ranked = scored
    .filter((sc) => sc.retire === null)
    .sort((a, b) => b.learnability - a.learnability || b.progress - a.progress || a.index - b.index);
  const kept = ranked.slice(0, Math.min(ranked.length, Math.floor(keepShare * target)));
  for (const sc of ranked.slice(kept.length)) sc.retire = "outranked";
  const keepCut = kept.length > 0 ? kept[kept.length - 1].learnability : null;
  const rankOf = new Map(ranked.map((sc, i) => [sc, i + 1]));

  // Infra-dominated members say nothing about difficulty: left out of the direction evidence, step sizes and parents.
  const evidence = directionEvidence(
    family,
    summary.environments.fields,
    summary.failures.clusters,
    scored.filter((sc) => !sc.infra),
  );
  const cite = evidenceWriter(summary);
  const fieldByPath = new Map(family.fields.map((f) => [f.path, f]));

  // Budgets: children fill the population back up; fresh samples and crossovers take addShare of it.
  const childrenTarget = Math.max(0, target - kept.length);
  const addTarget = Math.min(childrenTarget, Math.round(addShare * target));
  const mutateTarget = childrenTarget - addTarget;
  const eligible = scored.filter((sc) => !sc.infra && sc.retire !== "invalid" && sc.retire !== "unsolvable" && sc.retire !== "plateaued");
  const harderPool = rng.fork("harder-order").shuffle(eligible.filter((sc) => sc.q !== null && sc.q > D.harderAbove));
  // A parent with q < 0.2 only gets easier steps: none when its failures are the policy's output, or when nothing can move easier.
  const replayPool = eligible.filter((sc) => {
    if (sc.q === null || sc.q >= D.easierBelow) return sc.q === null || sc.q <= D.harderAbove;
    return sc.failure.dominant?.kind !== "output" && canStep(evidence, sc.member.config, -1, family.id);
  });
  // Crossovers recombine kept (teaching) parents, whatever their q, never infra-dominated ones; the
  // fallback pool of replay parents leaves out those with q < 0.2, which only get easier steps.
  const keptParents = kept.filter((sc) => !sc.infra);
  const crossCandidates = replayPool.filter((sc) => sc.q === null || sc.q >= D.easierBelow);
  const crossPool = keptParents.length >= 2 ? keptParents : crossCandidates.length >= 2 ? crossCandidates : [];
  const harderTarget = Math.min(harderPool.length, replayPool.length > 0 ? Math.ceil(mutateTarget / 2) : mutateTarget);
  const crossTarget = crossPool.length >= 2 ? Math.floor(addTarget / 2) : 0;
  const reference = rng
    .fork("reference")
    .shuffle(scored)
    .slice(0, D.noveltyReference)
    .map((sc) => ({ key: sc.member.key, config: sc.member.config }));
  const baseRate = summary.behaviour.successRate ?? (scored.length > 0 ? scored.reduce((a, sc) => a + sc.mean, 0) / scored.length : 0.5);

  const describe = (cand: Candidate): Pick<ProposedItem, "rationale" | "evidence" | "flags"> => {
    const p = cand.parent as Scored;
    const edits = showEdits(cand.edits, cand.starts);
    const pointed = (which: string) => `which the failure evidence points to ${which}${cand.firstChoice === false ? " among those that can move" : ""}`;
    switch (cand.kind) {
      case "harder": {
        const label = p.retire === "solved" ? "Solved" : "Nearly solved";
        return {
          rationale: `${label} (${showRate(p)}): pushed harder along ${cand.direction}, ${pointed("least")}: ${edits}.`,
          evidence: [cite.environment(p), ...cite.field(cand.evidence)],
        };
      }
      case "easier": {
        const d = cand.driver;
        const n = p.member.n;
        if (d?.kind === "timeout") {
          const budgetMoved = cand.edits.some((e) => {
            const field = fieldByPath.get(e.path);
            return field !== undefined && isBudget(field);
          });
          const clusterRefs = cite.cluster(d.cluster, `${showCount(d, n)} ${d.category}`);
          return budgetMoved
            ? {
                rationale: `Too hard (${showRate(p)}), ${showCount(d, n)} timed out (${d.category}): ${edits} along ${cand.direction} to give it the budget it ran out of.`,
                evidence: [cite.environment(p), ...clusterRefs],
              }
            : {
                rationale: `Too hard (${showRate(p)}), ${showCount(d, n)} timed out (${d.category}) but no budget field can grow: made easier along ${cand.direction} instead: ${edits}.`,
                evidence: [cite.environment(p), ...clusterRefs, ...cite.field(cand.evidence)],
              };
        }
        const tests = d?.kind === "verifier";
        return {
          rationale: `Too hard (${showRate(p)})${tests && d ? `, ${showCount(d, n)} failed the tests (${d.category})` : ""}: made easier along ${cand.direction}, ${pointed("most")}: ${edits}.`,
          evidence: [cite.environment(p), ...(tests && d ? cite.cluster(d.cluster, `${showCount(d, n)} ${d.category}`) : []), ...cite.field(cand.evidence)],
        };
      }
      case "replay": {
        const rank = rankOf.get(p);
        return {
          rationale: `Replayed a high-learnability parent (${showRate(p)}, learnability ${fmt(p.learnability, 3)}${rank ? `, rank ${rank}` : ""}): ${edits}.`,
          evidence: [cite.environment(p)],
        };
      }
      case "crossover": {
        const b = cand.second as Scored;
        return {
          rationale: `Crossover of high-learnability parents ${p.member.key} (learnability ${fmt(p.learnability, 3)}) and ${b.member.key} (${fmt(b.learnability, 3)}), novelty ${fmt(cand.novelty ?? 0)}.`,
          evidence: [cite.environment(p), cite.environment(b)],
          flags: ["crossover"],
        };
      }
      case "fresh": {
        const refs: EvidenceRef[] = cite.coverageGap ? [cite.coverageGap] : [];
        if (cand.nearest) refs.push({ kind: "stat", ref: `env:${cand.nearest.key}`, note: `nearest environment, distance ${fmt(cand.nearest.distance)}` });
        return {
          rationale: `Fresh sample for coverage: novelty ${fmt(cand.novelty ?? 1)} to the nearest of ${reference.length} reference environments.`,
          evidence: refs,
          flags: ["fresh_sample"],
        };
      }
    }
  };

  const predict = (cand: Candidate, pMax: number | undefined): number => {
    let estimate: number;
    if (cand.kind === "fresh") estimate = baseRate;
    else if (cand.kind === "crossover") estimate = ((cand.parent as Scored).mean + (cand.second as Scored).mean) / 2;
    else {
      const net = hardnessSteps(family.fields, cand.edits);
      // A directed edit counts every step of every field, an unset field's start included.
      const directedSteps = cand.kind === "harder" || cand.kind === "easier";
      const steps = cand.steps !== undefined && directedSteps ? (cand.kind === "harder" ? 1 : -1) * Math.max(Math.abs(net), cand.steps) : net;
      const z = logit((cand.parent as Scored).mean) - D.logitStep * steps;
      estimate = 1 / (1 + Math.exp(-z));
    }
    if (typeof pMax === "number" && pMax < 1) estimate = Math.min(estimate, pMax);
    return round4(estimate);
  };

  const batch = new ChildBatch(input, Math.ceil(1.5 * childrenTarget) + 4, childrenTarget, describe, predict);
  const mutRng = rng.fork("mutate");

  const harderSteps = stepsPerField(scored, 1);
  const easierSteps = stepsPerField(scored, -1);
  const directed = (parent: Scored, sign: 1 | -1, attempt: number): Candidate | null => {
    // Easier steps follow the parent's dominant failure: timeouts raise the budget first, failed tests follow the direction evidence.
    const dominant = parent.failure.dominant;
    const driver = sign < 0 && dominant && (dominant.kind === "timeout" || dominant.kind === "verifier") ? dominant : undefined;
    const timeout = driver?.kind === "timeout";
    let order = orderDirections(mutRng, evidence, sign < 0);
    if (timeout) order = [...order.filter((e) => e.direction === "precision"), ...order.filter((e) => e.direction !== "precision")];
    // The third try of a parent keeps one directed step and reseeds, for a new instance of the same step.
    const step = directedEdit(mutRng, order, parent.member.config, sign, attempt >= 2 ? 1 : 0, sign > 0 ? harderSteps : easierSteps, family.id, timeout);
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
      parent,
      evidence: step.evidence,
      steps: step.steps,
    };
  };

  // 3b. Solved parents pushed harder, one child each.
  let carry = 0;
  {
    let done = 0;
    for (const parent of harderPool) {
      if (done >= harderTarget || batch.exhausted) break;
      for (let attempt = 0; attempt < D.triesPerParent; attempt++) {
        const cand = directed(parent, 1, attempt);
        if (!cand) break;
        if (batch.accept(cand)) {
          done += 1;
          break;
        }
      }
    }
    carry = harderTarget - done;
  }

  // 3a. Replayed parents in PLR rank order, without replacement and cycling: q < 0.2 made easier (only), the rest 1-3 random edits of set fields.
  {
    // Without replay parents, their share (and what the harder step left) passes on to crossovers and fresh samples.
    const want = replayPool.length > 0 ? mutateTarget - harderTarget + carry : 0;
    carry = replayPool.length > 0 ? 0 : mutateTarget - harderTarget + carry;
    const weights = plrRankWeights(
      replayPool.map((sc) => sc.learnability),
      D.temperature,
      replayPool.map(() => 1),
      D.stalenessWeight,
    );
    const order = weightedOrder(rng.fork("replay-order"), weights);
    let done = 0;
    for (let attempt = 0; done < want && attempt < 3 * want + 5 && !batch.exhausted; attempt++) {
      const parent = replayPool[order[attempt % order.length]];
      let cand: Candidate | null = null;
      if (parent.q !== null && parent.q < D.easierBelow) cand = directed(parent, -1, attempt >= order.length ? 2 : 0);
      else {
        const { config, edits } = mutateConfig(mutRng, setFields(family.fields, parent.member.config), parent.member.config, { edits: mutRng.int(1, 3) });
        if (edits.length > 0) cand = { kind: "replay", config, direction: editDirection(family.fields, edits), edits, parent };
      }
      if (batch.accept(cand)) done += 1;
    }
    carry += want - done;
  }

  // 4a. Crossovers of two high-learnability parents; the second is the most distant of the next few in PLR order.
  {
    const want = crossPool.length >= 2 ? crossTarget + carry : 0;
    if (want > 0) carry = 0;
    const crossRng = rng.fork("crossover");
    const weights = plrRankWeights(
      crossPool.map((sc) => sc.learnability),
      D.temperature,
      crossPool.map(() => 1),
      D.stalenessWeight,
    );
    const order = weightedOrder(crossRng, weights);
    let done = 0;
    for (let attempt = 0; done < want && attempt < 3 * want + 5 && !batch.exhausted; attempt++) {
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
      if (batch.accept({ kind: "crossover", config, direction: "diversify", edits: [], parent: a, second: b, novelty })) done += 1;
    }
    carry += want - done;
  }

  // 4b. Fresh samples for coverage (novelty against a bounded reference set of members).
  {
    const want = addTarget - crossTarget + carry;
    const freshRng = rng.fork("fresh");
    let done = 0;
    for (let attempt = 0; done < want && attempt < 2 * want + 3 && !batch.exhausted; attempt++) {
      const config = family.sample(freshRng) as FamilyConfig;
      let nearest: { key: string; distance: number } | undefined;
      for (const ref of reference) {
        const d = distance(family, config, ref.config);
        if (!nearest || d < nearest.distance) nearest = { key: ref.key, distance: d };
      }
      if (batch.accept({ kind: "fresh", config, direction: "diversify", edits: [], novelty: nearest?.distance ?? 1, nearest })) done += 1;
    }
  }

  // Items for the members: every one gets exactly one keep or retire.
  const keepItems: ProposedItem[] = kept.map((sc, i) => {
    const clause = failureClause(sc, cite);
    const label = sc.member.n === 0 ? "Unmeasured" : sc.infra ? "Teaches despite infra noise" : sc.q !== null && sc.q > D.harderAbove ? "Nearly solved" : "Teaches";
    const item: ProposedItem = {
      op: "keep",
      environmentKey: sc.member.key,
      config: sc.member.config,
      rationale: `${label} (${showRate(sc)}): learnability ${fmt(sc.learnability, 3)} ranks ${i + 1} of ${ranked.length}, kept${clause.text}.`,
      evidence: [cite.environment(sc), ...clause.refs],
      predictedSuccess: round4(sc.mean),
      proposer: "heuristic",
    };
    if (clause.flags.length > 0) item.flags = clause.flags;
    return item;
  });
  const retireItems: ProposedItem[] = scored
    .filter((sc) => sc.retire !== null)
    .map((sc) => {
      const { validation } = sc.member;
      const broken = sc.retire === "invalid" || sc.retire === "unsolvable";
      const validationNote = `validation ${validation.state}${validation.pMax === null ? "" : `, p_max ${fmt(validation.pMax)}`}`;
      // What the failures say joins the reasons that are about them (hopeless, outranked) and any infra warning.
      const clause = broken ? { text: "", refs: [], flags: [] } : failureClause(sc, cite);
      const withClause = sc.retire === "hopeless" || sc.retire === "outranked" || (sc.infra && sc.retire !== "infra");
      return {
        op: "retire",
        environmentKey: sc.member.key,
        config: sc.member.config,
        rationale: `${retireRationale(sc, batch.childrenOf.get(sc.member.key)?.[0], keepCut)}${withClause ? clause.text : ""}.`,
        evidence: [cite.environment(sc, broken ? validationNote : undefined), ...(sc.retire === "infra" || withClause ? clause.refs : [])],
        predictedSuccess: round4(sc.mean),
        proposer: "heuristic",
        flags: [`retire:${sc.retire}`, ...(sc.infra ? ["infra"] : [])],
      };
    });

  const notes = proposalNotes({ seed, target, kept: kept.length, keepCut, scored, evidence, batch, childrenTarget });
  if (summary.family !== family.id) notes.push(`The summary is for family ${summary.family}, the population for ${family.id}.`);
  const dropped = (Object.entries(batch.dropped) as [string, number][]).filter(([, count]) => count > 0).map(([reason, count]) => ({ reason, count }));
  return { items: [...keepItems, ...batch.items, ...retireItems], dropped, notes };
}

/** One sentence (without its final period) naming why a member is retired, with its numbers. */
function retireRationale(sc: Scored, harderChild: string | undefined, keepCut: number | null): string {
  const m = sc.member;
  switch (sc.retire) {
    case "invalid":
      return `Invalid config (validation state invalid): retired`;
    case "unsolvable":
      return `Unsolvable (validation ${m.validation.state}, p_max ${m.validation.pMax === null ? "n/a" : fmt(m.validation.pMax)}): retired, and never mutated toward`;
    case "solved":
      return `Solved (${showRate(sc, ` >= ${HEURISTIC_DEFAULTS.solvedRate}`)}): retired, it no longer teaches${harderChild ? `; its harder child ${harderChild} takes its place` : ""}`;
    case "hopeless":
      return `Hopeless (${m.s}/${m.n} now and a success rate of 0 the generation before): retired after two generations at zero`;
    case "plateaued":
      return `Plateaued (learnability without learning progress): success rates ${[...m.history, m.n > 0 ? m.s / m.n : 0].map((r) => fmt(r)).join(" → ")} over ${m.history.length + 1} generations of training, no rise of ${HEURISTIC_DEFAULTS.plateauRise}: retired, not used as a parent`;
    case "infra": {
      const d = sc.failure.dominant as Dominant;
      const failed = `${showCount(d, m.n)} failed on infrastructure (${d.category}, ${quote(d.cluster.signature)})`;
      const last = m.history.length > 0 ? m.history[m.history.length - 1] : null;
      return last === 0 && m.n >= HEURISTIC_DEFAULTS.minAttempts
        ? `Hopeless (${m.s}/${m.n} now and a success rate of 0 the generation before) and the environment looks broken: ${failed}: retired, not bred from; fix the image, then re-add it`
        : `Looks broken (${m.s}/${m.n}, none passed): ${failed}, so it is hopeless as it stands: retired, not bred from; fix the image, then re-add it`;
    }
    default:
      return `Outranked: learnability ${fmt(sc.learnability, 3)} (${showRate(sc)}) below the keep cut ${keepCut === null ? "n/a" : fmt(keepCut, 3)}`;
  }
}

function proposalNotes(p: {
  seed: number;
  target: number;
  kept: number;
  keepCut: number | null;
  scored: readonly Scored[];
  evidence: readonly DirectionEvidence[];
  batch: ChildBatch;
  childrenTarget: number;
}): string[] {
  const reasons: Record<RetireReason, number> = { solved: 0, hopeless: 0, plateaued: 0, unsolvable: 0, invalid: 0, outranked: 0, infra: 0 };
  for (const sc of p.scored) if (sc.retire) reasons[sc.retire] += 1;
  const retired = Object.values(reasons).reduce((a, b) => a + b, 0);
  const notes = [
    `Heuristic engineer, seed ${p.seed}: next population ${p.target}; kept ${p.kept}${p.keepCut === null ? "" : ` (keep cut: learnability ${fmt(p.keepCut, 3)})`}, retired ${retired} (solved ${reasons.solved}, hopeless ${reasons.hopeless}, plateaued ${reasons.plateaued}, unsolvable ${reasons.unsolvable}, invalid ${reasons.invalid}, outranked ${reasons.outranked}${reasons.infra > 0 ? `, broken by infrastructure ${reasons.infra}` : ""}).`,
  ];
  const kinds: Record<FailureKind, number> = { infra: 0, timeout: 0, output: 0, verifier: 0, other: 0 };
  for (const sc of p.scored) if (sc.failure.dominant && sc.retire !== "invalid" && sc.retire !== "unsolvable") kinds[sc.failure.dominant.kind] += 1;
  if (Object.values(kinds).some((k) => k > 0)) {
    notes.push(
      `Dominant failures (more than half of a member's failed attempts): infrastructure ${kinds.infra} (flagged infra, never bred from), timeouts ${kinds.timeout} (hopeless ones get more budget first), policy output ${kinds.output} (difficulty left alone), failed tests ${kinds.verifier}, other errors ${kinds.other}.`,
    );
  }
  if (p.evidence.length > 0) {
    const byScore = [...p.evidence].sort((a, b) => a.score - b.score);
    const shown = p.evidence.map((e) => `${e.direction} ${e.score >= 0 ? "+" : ""}${fmt(e.score)}`).join(", ");
    notes.push(
      `Failure evidence by direction (success drop across field buckets + failure-cluster lift): ${shown}; harder steps prefer ${byScore[0].direction}, easier ones ${byScore[byScore.length - 1].direction}.`,
    );
  }
  const m = p.batch.made;
  notes.push(`Children: ${m.harder} pushed harder, ${m.easier} made easier, ${m.replay} replayed mutations, ${m.crossover} crossovers, ${m.fresh} fresh samples.`);
  if (p.batch.items.length < p.childrenTarget) {
    const why = p.batch.exhausted ? "the validation budget ran out" : "the parents gave no more valid, new configs";
    notes.push(`Proposed ${p.batch.items.length} of ${p.childrenTarget} children: ${why}.`);
  }
  return notes;
}

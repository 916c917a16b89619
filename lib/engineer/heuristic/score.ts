/**
 * Step 1 of the heuristic engineer: score every member (normalised rate, posterior mean,
 * learnability, learning progress), profile its failures and name a retirement reason.
 */
import type { FailureCategory } from "@/lib/analytics/failures";
import { isUnsolvable, learnabilityScore, learningProgress, normalizedRate, posteriorMean } from "../scoring";
import type { PopulationMember, StructuredSummary, SummaryCluster } from "../types";
import { HEURISTIC_DEFAULTS } from "./defaults";
import type { Dominant, FailureKind, FailureProfile, RetireReason, Scored } from "./model";

/**
 * Scores of every member: normalised rate, posterior mean, learnability, learning progress, failure
 * profile and a retirement reason (an infra-dominated member that never passed retires as "infra").
 */
export function scoreMembers(
  population: readonly PopulationMember[],
  summary: StructuredSummary,
  groupSize: number | undefined,
  plateauGenerations: number,
): Scored[] {
  const clusterById = new Map(summary.failures.clusters.map((c) => [c.id, c]));
  const scored = population.map((member, index) => {
    const q = normalizedRate(member.s, member.n, member.validation.pMax);
    const failure = failureProfile(member, clusterById);
    let retire = retireReason(member, q, plateauGenerations);
    const broken = retire === "invalid" || retire === "unsolvable";
    const infra = !broken && failure.dominant?.kind === "infra";
    if (infra && member.s === 0) retire = "infra";
    const learnability = learnabilityScore(member, groupSize);
    return {
      member,
      index,
      q,
      mean: posteriorMean(member.s, member.n),
      learnability,
      priority: learnability,
      hardnessWeight: 1,
      progress: learningProgress(q === null ? member.history : [...member.history, q]),
      retire,
      failure,
      infra,
    };
  });
  retirePlateauedLineage(scored);
  return scored;
}

/**
 * A plateaued member's lineage retires with it (mutates `scored`): a member whose parent is in the
 * population and retires as plateaued this generation, and whose own success rate lies in the same
 * frontier band [easierBelow, harderAbove], retires as plateaued too, and so is no parent either. A
 * child lies near its parent in the config space, so a region that teaches nothing (a noisy TV,
 * success 1/2 whatever the policy learns, looks the most learnable of all) breeds more of itself
 * faster than the plateau rule, which needs plateauGenerations measurements of each member, can find
 * them one by one; fresh samples from the generator diluted such a lineage, and with fewer of them
 * it took over the arena's populations at 30% traps (docs/BENCHMARKS.md, "Issue 16, ninth round").
 * A child that left the band (passed mostly or failed mostly) has moved and is judged by the other rules.
 */
export function retirePlateauedLineage(scored: readonly Scored[]): void {
  const plateaued = new Set(scored.filter((sc) => sc.retire === "plateaued").map((sc) => sc.member.key));
  if (plateaued.size === 0) return;
  const D = HEURISTIC_DEFAULTS;
  for (const sc of scored) {
    const { parentKey, n, s } = sc.member;
    if (sc.retire !== null || parentKey === null || !plateaued.has(parentKey) || n <= 0) continue;
    const rate = s / n;
    if (rate < D.easierBelow || rate > D.harderAbove) continue;
    sc.retire = "plateaued";
    sc.plateauedParent = parentKey;
  }
}

/**
 * A member's success rates, oldest first: its earlier generations' (a rate that is no number left out)
 * and this generation's (0 when unmeasured). What the plateau rule, its retire rationale and
 * meanRate read.
 */
export function measuredRates(member: Pick<PopulationMember, "history" | "n" | "s">): number[] {
  return [...member.history.filter((r) => Number.isFinite(r)), member.n > 0 ? member.s / member.n : 0];
}

/** A member's mean success rate over every generation it was measured in, this one included (0 unmeasured). */
export function meanRate(member: Pick<PopulationMember, "history" | "n" | "s">): number {
  const rates = measuredRates(member);
  return rates.reduce((a, b) => a + b, 0) / rates.length;
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
  const rates = measuredRates(member);
  if (rates.length < Math.max(2, generations)) return false;
  const recent = (rates[rates.length - 1] + rates[rates.length - 2]) / 2;
  const D = HEURISTIC_DEFAULTS;
  return recent >= D.easierBelow && recent <= D.harderAbove && recent < rates[0] + D.plateauRise;
}

export function failureKind(cluster: SummaryCluster): FailureKind {
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

export const FAILURE_KINDS: readonly FailureKind[] = ["infra", "timeout", "output", "verifier", "other"];

/**
 * The member's failed attempts spread over its clusters (the summary has cluster totals only):
 * weights count / environments (at least 1; 1 for a cluster the summary cut), made non-increasing
 * along clusterIds (the member's clusters, its largest first) by pooling adjacent violators, then
 * scaled to n - s. The dominant kind holds more than dominantShare of the failures (infra also at
 * least infraAttemptShare of the attempts).
 */
export function failureProfile(member: PopulationMember, clusterById: ReadonlyMap<string, SummaryCluster>): FailureProfile {
  const failures = Math.max(0, member.n - member.s);
  const ids = [...new Set(member.clusterIds)];
  if (failures === 0 || ids.length === 0) return { failures, dominant: null, top: null };
  const known = ids.map((id) => clusterById.get(id));
  const blocks: { sum: number; len: number }[] = [];
  for (const c of known) {
    blocks.push({ sum: c ? Math.max(1, c.count / Math.max(1, c.environments)) : 1, len: 1 });
    while (
      blocks.length >= 2 &&
      blocks[blocks.length - 2].sum / blocks[blocks.length - 2].len < blocks[blocks.length - 1].sum / blocks[blocks.length - 1].len
    ) {
      const last = blocks.pop() as { sum: number; len: number };
      blocks[blocks.length - 1].sum += last.sum;
      blocks[blocks.length - 1].len += last.len;
    }
  }
  const weights = blocks.flatMap((b) => Array.from({ length: b.len }, () => b.sum / b.len));
  const total = weights.reduce((a, b) => a + b, 0);
  const estimates = weights.map((w) => (failures * w) / total);

  const byKind = new Map<
    FailureKind,
    { estimate: number; categories: Map<FailureCategory, number>; best: { cluster: SummaryCluster; estimate: number } | null }
  >();
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
    dominant = {
      kind,
      category,
      count: exact ? failures : Math.min(failures, Math.max(1, Math.round(entry.estimate))),
      exact,
      cluster: entry.best.cluster,
    };
    break;
  }
  return {
    failures,
    dominant,
    top: top ? { cluster: top.cluster, count: Math.min(failures, Math.max(1, Math.round(top.estimate))) } : null,
  };
}

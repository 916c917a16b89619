/**
 * The heuristic engineer's words: the rationale, evidence and flags of every item (keep, retire,
 * each kind of child) and the proposal's notes. Every number a rationale names is the one the
 * decision used.
 */
import type { FamilyDefinition } from "@/lib/families/types";
import type { EvidenceRef, ProposedItem } from "../types";
import { isBudget } from "./directed";
import { HEURISTIC_DEFAULTS } from "./defaults";
import { harderDirections, type EvidenceWriter } from "./evidence";
import type { ChildBatch, ReferenceConfig } from "./children";
import { fmt, quote, showCount, showEdits, showRate } from "./format";
import type { Candidate, DirectionEvidence, Dominant, FailureKind, RetireReason, Scored } from "./model";
import { round4 } from "./predict";
import { meanRate, measuredRates } from "./score";
import { learnabilityTies, TIE_BREAK_RULE } from "./select";

/** Why a harder step takes noise (HEURISTIC_DEFAULTS.harderLast) last, as the rationale and the notes say it. */
const NOISE_CAPS = "noise caps the success a policy can reach";

/** What a member's failures add to its keep or retire item: a clause (starting "; " or ", "), the cluster cited, the "infra" flag. */
function failureClause(sc: Scored, cite: EvidenceWriter): { text: string; refs: EvidenceRef[]; flags: string[] } {
  const { dominant: d, top } = sc.failure;
  const n = sc.member.n;
  if (d) {
    const count = showCount(d, n);
    switch (d.kind) {
      case "infra":
        return {
          text:
            `, but the environment looks ${sc.member.s > 0 ? "partly " : ""}broken: ${count} failed on infrastructure ` +
            `(${d.category}, ${quote(d.cluster.signature)}); fix the image`,
          refs: cite.cluster(d.cluster, `${count} failed on infrastructure`),
          flags: ["infra"],
        };
      case "output":
        return {
          text:
            `; ${count} failed on the policy's output (${d.category}), which is the policy's format or context, not the ` +
            `environment's difficulty, so its difficulty is left alone`,
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

/** The rationale, evidence and flags of a child candidate (the describe of a ChildBatch). */
export function childRationale(ctx: {
  family: FamilyDefinition;
  cite: EvidenceWriter;
  rankOf: ReadonlyMap<Scored, number>;
  reference: readonly ReferenceConfig[];
}): (cand: Candidate) => Pick<ProposedItem, "rationale" | "evidence" | "flags"> {
  const { cite, rankOf, reference } = ctx;
  const fieldByPath = new Map(ctx.family.fields.map((f) => [f.path, f]));
  return (cand) => {
    const p = cand.parent as Scored;
    const edits = showEdits(cand.edits, cand.starts);
    const pointed = (which: string) =>
      `which the failure evidence points to ${which}${cand.firstChoice === false ? " among those that can move" : ""}`;
    switch (cand.kind) {
      case "harder": {
        const label =
          p.retire === "solved"
            ? "Solved"
            : p.retire === "plateaued"
              ? `Plateaued while mostly passed (mean ${fmt(meanRate(p.member))} over ${measuredRates(p.member).length} generations)`
              : p.q !== null && p.q > HEURISTIC_DEFAULTS.harderAbove
                ? "Nearly solved"
                : "Mostly passed";
        // Directions the parent was already near the hard end of go last, whatever the evidence said, and
        // noise (harderLast) after them. None named when the step itself went along one: every direction
        // before it could not move, or (saturated) was near its hard end too.
        const chosen = cand.ranking?.find((r) => r.evidence.direction === cand.direction);
        const ranking = chosen?.last ? [] : (cand.ranking ?? []);
        const saturated = chosen?.saturated ? [] : ranking.filter((r) => r.saturated && !r.last);
        const noisy = ranking.filter((r) => r.last);
        const among = [
          ...(saturated.length > 0
            ? [
                `it is not already near the hard end of (not ${saturated
                  .map((r) => `${r.evidence.direction}, at hardness ${fmt(r.hardness)}`)
                  .join("; not ")})`,
              ]
            : []),
          ...(noisy.length > 0 ? [`that add no noise (not ${noisy.map((r) => r.evidence.direction).join(", ")}: ${NOISE_CAPS})`] : []),
          ...(cand.firstChoice === false ? ["that can move"] : []),
        ];
        const which = `which the failure evidence points to least${among.length > 0 ? ` among the directions ${among.join(" and ")}` : ""}`;
        return {
          rationale: `${label} (${showRate(p)}): pushed harder along ${cand.direction}, ${which}: ${edits}.`,
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
                rationale:
                  `Too hard (${showRate(p)}), ${showCount(d, n)} timed out (${d.category}): ${edits} along ` +
                  `${cand.direction} to give it the budget it ran out of.`,
                evidence: [cite.environment(p), ...clusterRefs],
              }
            : {
                rationale:
                  `Too hard (${showRate(p)}), ${showCount(d, n)} timed out (${d.category}) but no budget field can grow: made easier ` +
                  `along ${cand.direction} instead: ${edits}.`,
                evidence: [cite.environment(p), ...clusterRefs, ...cite.field(cand.evidence)],
              };
        }
        const tests = d?.kind === "verifier";
        return {
          rationale:
            `Too hard (${showRate(p)})${tests && d ? `, ${showCount(d, n)} failed the tests (${d.category})` : ""}: made ` +
            `easier along ${cand.direction}, ${pointed("most")}: ${edits}.`,
          evidence: [
            cite.environment(p),
            ...(tests && d ? cite.cluster(d.cluster, `${showCount(d, n)} ${d.category}`) : []),
            ...cite.field(cand.evidence),
          ],
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
          rationale:
            `Crossover of high-learnability parents ${p.member.key} (learnability ${fmt(p.learnability, 3)}) and ` +
            `${b.member.key} (${fmt(b.learnability, 3)}), novelty ${fmt(cand.novelty ?? 0)}.`,
          evidence: [cite.environment(p), cite.environment(b)],
          flags: ["crossover"],
        };
      }
      case "fresh": {
        const refs: EvidenceRef[] = cite.coverageGap ? [cite.coverageGap] : [];
        if (cand.nearest)
          refs.push({ kind: "stat", ref: `env:${cand.nearest.key}`, note: `nearest environment, distance ${fmt(cand.nearest.distance)}` });
        return {
          rationale: `Fresh sample for coverage: novelty ${fmt(cand.novelty ?? 1)} to the nearest of ${reference.length} reference environments.`,
          evidence: refs,
          flags: ["fresh_sample"],
        };
      }
    }
  };
}

/**
 * What a member ranks by, in words: its learnability, and when the hardness bias or the frontier
 * discount moved it, the weights, the member's hardness, the fitted success there and the priority
 * that results ("learnability 0.210 x hardness weight 1.06 (hardness 0.62) x frontier weight 0.80
 * (fitted success 0.70 at hardness 0.62) = 0.178").
 */
export function priorityText(sc: Scored): string {
  const base = `learnability ${fmt(sc.learnability, 3)}`;
  if (sc.hardness === undefined) return base;
  const hardness = sc.hardnessWeight !== 1 ? ` x hardness weight ${fmt(sc.hardnessWeight)} (hardness ${fmt(sc.hardness)})` : "";
  const frontier =
    sc.frontierWeight !== undefined && sc.frontierWeight !== 1 && sc.fittedSuccess !== undefined
      ? ` x frontier weight ${fmt(sc.frontierWeight)} (fitted success ${fmt(sc.fittedSuccess)} at hardness ${fmt(sc.hardness)})`
      : "";
  if (!hardness && !frontier) return base;
  return `${base}${hardness}${frontier} = ${fmt(sc.priority, 3)}`;
}

/** The keep items: one per kept member, ranked, with what its failures add. */
export function keepItems(
  kept: readonly Scored[],
  rankedCount: number,
  cite: EvidenceWriter,
  tie: { keepCut: number | null; tiedOut: number } = { keepCut: null, tiedOut: 0 },
): ProposedItem[] {
  const D = HEURISTIC_DEFAULTS;
  const onTie = (sc: Scored) =>
    tie.tiedOut > 0 && tie.keepCut !== null && learnabilityTies(sc.priority, tie.keepCut)
      ? ` on a tie at the keep cut with ${tie.tiedOut} retired member${tie.tiedOut === 1 ? "" : "s"} (${TIE_BREAK_RULE})`
      : "";
  return kept.map((sc, i) => {
    const clause = failureClause(sc, cite);
    const label =
      sc.member.n === 0
        ? "Unmeasured"
        : sc.infra
          ? "Teaches despite infra noise"
          : sc.q !== null && sc.q > D.harderAbove
            ? "Nearly solved"
            : "Teaches";
    const item: ProposedItem = {
      op: "keep",
      environmentKey: sc.member.key,
      config: sc.member.config,
      rationale: `${label} (${showRate(sc)}): ${priorityText(sc)} ranks ${i + 1} of ${rankedCount}, kept${onTie(sc)}${clause.text}.`,
      evidence: [cite.environment(sc), ...clause.refs],
      predictedSuccess: round4(sc.mean),
      proposer: "heuristic",
    };
    if (clause.flags.length > 0) item.flags = clause.flags;
    return item;
  });
}

/** The retire items: one per member with a retirement reason, naming it with its numbers. */
export function retireItems(scored: readonly Scored[], batch: ChildBatch, keepCut: number | null, cite: EvidenceWriter): ProposedItem[] {
  return scored
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
}

/** One sentence (without its final period) naming why a member is retired, with its numbers. */
function retireRationale(sc: Scored, harderChild: string | undefined, keepCut: number | null): string {
  const m = sc.member;
  switch (sc.retire) {
    case "invalid":
      return `Invalid config (validation state invalid): retired`;
    case "unsolvable":
      return (
        `Unsolvable (validation ${m.validation.state}, p_max ${m.validation.pMax === null ? "n/a" : fmt(m.validation.pMax)}): ` +
        `retired, and never mutated toward`
      );
    case "solved":
      return (
        `Solved (${showRate(sc, ` >= ${HEURISTIC_DEFAULTS.solvedRate}`)}): retired, it no longer ` +
        `teaches${harderChild ? `; its harder child ${harderChild} takes its place` : ""}`
      );
    case "hopeless":
      return `Hopeless (${m.s}/${m.n} now and a success rate of 0 the generation before): retired after two generations at zero`;
    case "plateaued": {
      if (sc.plateauedParent)
        return (
          `Plateaued lineage: its parent ${sc.plateauedParent} plateaued (learnability without learning progress) and it ` +
          `passes ${fmt(m.s / m.n)} (${m.s}/${m.n}), in the same band ${HEURISTIC_DEFAULTS.easierBelow}-${HEURISTIC_DEFAULTS.harderAbove}: ` +
          `retired with it, not used as a parent`
        );
      const rates = measuredRates(m);
      return (
        `Plateaued (learnability without learning progress): success rates ${rates.map((r) => fmt(r)).join(" → ")} ` +
        `over ${rates.length} generations of training, no rise of ${HEURISTIC_DEFAULTS.plateauRise}: retired` +
        (harderChild
          ? `; passed ${fmt(meanRate(m))} on average (${HEURISTIC_DEFAULTS.plateauHarderAbove} or more), so its harder child ${harderChild} takes its place`
          : `, not used as a parent`)
      );
    }
    case "infra": {
      const d = sc.failure.dominant as Dominant;
      const failed = `${showCount(d, m.n)} failed on infrastructure (${d.category}, ${quote(d.cluster.signature)})`;
      const last = m.history.length > 0 ? m.history[m.history.length - 1] : null;
      return last === 0 && m.n >= HEURISTIC_DEFAULTS.minAttempts
        ? `Hopeless (${m.s}/${m.n} now and a success rate of 0 the generation before) and the environment looks broken: ` +
            `${failed}: retired, not bred from; fix the image, then re-add it`
        : `Looks broken (${m.s}/${m.n}, none passed): ${failed}, so it is hopeless as it stands: retired, not bred from; fix the image, then re-add it`;
    }
    default:
      return keepCut !== null && learnabilityTies(sc.priority, keepCut)
        ? `Outranked on a tie: ${priorityText(sc)} (${showRate(sc)}) equals the keep cut; ` +
            `${TIE_BREAK_RULE}, and the kept members at the cut have more`
        : `Outranked: ${priorityText(sc)} (${showRate(sc)}) below the keep cut ${keepCut === null ? "n/a" : fmt(keepCut, 3)}`;
  }
}

/** The notes of a proposal: what was kept and retired and why, dominant failures, direction evidence, children made. */
export function proposalNotes(p: {
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
    `Heuristic engineer, seed ${p.seed}: next population ${p.target}; kept ${p.kept}${
      p.keepCut === null ? "" : ` (keep cut: priority ${fmt(p.keepCut, 3)}, the learnability weighed by hardness and the frontier)`
    }, ` +
      `retired ${retired} (solved ${reasons.solved}, hopeless ${reasons.hopeless}, plateaued ` +
      `${reasons.plateaued}, unsolvable ${reasons.unsolvable}, invalid ${reasons.invalid}, outranked ` +
      `${reasons.outranked}${reasons.infra > 0 ? `, broken by infrastructure ${reasons.infra}` : ""}).`,
  ];
  const kinds: Record<FailureKind, number> = { infra: 0, timeout: 0, output: 0, verifier: 0, other: 0 };
  for (const sc of p.scored)
    if (sc.failure.dominant && sc.retire !== "invalid" && sc.retire !== "unsolvable") kinds[sc.failure.dominant.kind] += 1;
  if (Object.values(kinds).some((k) => k > 0)) {
    notes.push(
      `Dominant failures (more than half of a member's failed attempts): infrastructure ${kinds.infra} (flagged infra, ` +
        `never bred from), timeouts ${kinds.timeout} (hopeless ones get more budget first), policy output ` +
        `${kinds.output} (difficulty left alone), failed tests ${kinds.verifier}, other errors ${kinds.other}.`,
    );
  }
  if (p.evidence.length > 0) {
    const byScore = [...p.evidence].sort((a, b) => a.score - b.score);
    // The order a harder step takes before any parent's hardness is known: no direction saturated, noise last.
    const [harder, ...after] = harderDirections(byScore, undefined, Number.POSITIVE_INFINITY, HEURISTIC_DEFAULTS.harderLast);
    const noisy = after.filter((r) => r.last).map((r) => r.evidence.direction);
    const shown = p.evidence.map((e) => `${e.direction} ${e.score >= 0 ? "+" : ""}${fmt(e.score)}`).join(", ");
    notes.push(
      `Failure evidence by direction (success drop across field buckets + failure-cluster lift): ` +
        `${shown}; harder steps prefer ${harder.evidence.direction} (where a parent is not already near its hard end` +
        `${noisy.length > 0 ? `; ${noisy.join(", ")} last: ${NOISE_CAPS}` : ""}), easier ones ${byScore[byScore.length - 1].direction}.`,
    );
  }
  const m = p.batch.made;
  notes.push(
    `Children: ${m.harder} pushed harder, ${m.easier} made easier, ${m.replay} replayed mutations, ${m.crossover} crossovers, ${m.fresh} fresh samples.`,
  );
  if (p.batch.items.length < p.childrenTarget) {
    const why = p.batch.exhausted ? "the validation budget ran out" : "the parents gave no more valid, new configs";
    notes.push(`Proposed ${p.batch.items.length} of ${p.childrenTarget} children: ${why}.`);
  }
  return notes;
}

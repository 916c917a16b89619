/**
 * What the failure evidence says about each difficulty direction (field-bucket success drops and
 * failure-cluster lift), how edits move along them, and the evidence refs items cite.
 */
import { getFieldValue } from "@/lib/families/field-path";
import { fieldHardness } from "@/lib/families/hardness";
import type { FieldEdit } from "@/lib/families/operators";
import type { Rng } from "@/lib/families/rng";
import { SKILL_DIRECTIONS, type Direction, type FamilyDefinition, type FieldSpec, type SkillDirection } from "@/lib/families/types";
import type { EvidenceRef, StructuredSummary, SummaryCluster, SummaryField } from "../types";
import { fmt, showRate } from "./format";
import type { DirectionEvidence, HarderDirection, Scored } from "./model";

const MISSING_BUCKET = "(missing)";

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

/** Mean hardness of a config over `fields` (each in [0, 1]; unset fields left out); undefined when none is set. */
export function meanHardness(fields: readonly FieldSpec[], config: unknown): number | undefined {
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
export function directionEvidence(
  family: FamilyDefinition,
  fields: readonly SummaryField[],
  clusters: readonly SummaryCluster[],
  scored: readonly Scored[],
): DirectionEvidence[] {
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
export function orderDirections(rng: Rng, evidence: readonly DirectionEvidence[], most: boolean): DirectionEvidence[] {
  const shuffled = rng.shuffle(evidence);
  const sign = most ? -1 : 1;
  return shuffled
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (Math.abs(a.e.score - b.e.score) < 1e-9 ? a.i - b.i : sign * (a.e.score - b.e.score)))
    .map((x) => x.e);
}

/**
 * The directions a harder step of `config` tries, in order: the failure evidence's order (the
 * direction it points to least first, ENGINEER.md), except that a direction along which the parent
 * already sits `saturatedAt` or more of the way to the hard end (its mean hardness over the
 * direction's fields; 0.5 when none is set) goes last, in the same order. A step there has little
 * room left (one field moving its last step) and makes a config that is hard along one direction
 * and easy along the others, where the hard end of a curriculum is hard along all of them; the
 * population's evidence cannot tell, since it points least where the policy passes the most, which
 * is often where the population is already hard. docs/BENCHMARKS.md, "Issue 16, twenty-third round".
 *
 * The directions in `last` (HEURISTIC_DEFAULTS.harderLast: uncertainty) go after all of these, saturated or
 * not: a step that adds noise to transitions or observations (PRODUCT.md: slippery tiles, distractor
 * documents) adds failures that no policy learns away, a lower cap on the success it can reach, so the
 * child is passed about half the time for the environment's dice as much as for what the policy has yet
 * to learn, and teaches less than one made harder along horizon or precision. They are still taken when
 * nothing else can move, and fresh samples, crossovers and replayed mutations still bring noise in.
 * docs/BENCHMARKS.md, "Issue 16, twenty-fifth round".
 */
export function harderDirections(
  order: readonly DirectionEvidence[],
  config: unknown,
  saturatedAt: number,
  last: readonly SkillDirection[] = [],
): HarderDirection[] {
  const ranked = order.map((evidence) => {
    const hardness = meanHardness(evidence.fields, config) ?? 0.5;
    return { evidence, hardness, saturated: hardness >= saturatedAt, last: last.includes(evidence.direction) };
  });
  const bySaturation = [...ranked.filter((r) => !r.saturated), ...ranked.filter((r) => r.saturated)];
  return [...bySaturation.filter((r) => !r.last), ...bySaturation.filter((r) => r.last)];
}

/** Net count of edits that made the config harder (+1) or easier (-1), over difficulty-signed fields. */
export function hardnessSteps(fields: readonly FieldSpec[], edits: readonly FieldEdit[]): number {
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
export function editDirection(fields: readonly FieldSpec[], edits: readonly FieldEdit[]): Direction {
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
export interface EvidenceWriter {
  /** a failure cluster of the summary (with what the item says about it) and one exemplar rollout of it */
  cluster(cluster: SummaryCluster | null | undefined, note?: string): EvidenceRef[];
  environment(sc: Scored, note?: string): EvidenceRef;
  field(e: DirectionEvidence | undefined): EvidenceRef[];
  /** the least covered level of a categorical field, when it is clearly under-covered */
  coverageGap: EvidenceRef | null;
}

export function evidenceWriter(summary: StructuredSummary): EvidenceWriter {
  let gap: { path: string; label: string; environments: number; total: number } | null = null;
  for (const field of summary.environments.fields) {
    // Categorical fields only: equal-width numeric bins are empty by construction on skewed fields.
    if (field.kind !== "nominal" && field.kind !== "ordinal" && field.kind !== "boolean") continue;
    const buckets = field.buckets.filter((b) => b.label !== MISSING_BUCKET);
    if (buckets.length < 2) continue;
    const total = buckets.reduce((a, b) => a + b.environments, 0);
    for (const bucket of buckets) {
      const underCovered = bucket.environments < (0.5 * total) / buckets.length;
      if (underCovered && (gap === null || bucket.environments < gap.environments))
        gap = { path: field.path, label: bucket.label, environments: bucket.environments, total };
    }
  }
  return {
    cluster(cluster, note) {
      if (!cluster) return [];
      const refs: EvidenceRef[] = [
        { kind: "cluster", ref: cluster.id, note: `${note ? `${note}; ` : ""}${cluster.category}: ${cluster.signature}`.slice(0, 160) },
      ];
      if (cluster.exemplarRolloutIds.length > 0) refs.push({ kind: "rollout", ref: cluster.exemplarRolloutIds[0] });
      return refs;
    },
    environment(sc, note) {
      return { kind: "stat", ref: `env:${sc.member.key}`, note: note ?? `${showRate(sc)}, learnability ${fmt(sc.learnability, 3)}` };
    },
    field(e) {
      if (!e?.top) return [];
      return [
        {
          kind: "stat",
          ref: `field:${e.top.path}`,
          note: `success ${fmt(e.top.easy)}→${fmt(e.top.hard)} from its easy to its hard buckets`,
        },
      ];
    },
    coverageGap: gap
      ? {
          kind: "stat",
          ref: `field:${gap.path}`,
          note: `least covered level: ${gap.label} has ${gap.environments} of ${gap.total} environments`,
        }
      : null,
  };
}

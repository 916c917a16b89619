/**
 * What the generation page's policy scatter draws of a comparison: every environment that improved, regressed or ran
 * under one policy only, and at most `maxUnchanged` of the unchanged ones, spread evenly over their cloud. The counts stay
 * the comparison's own. 5,000 environments drawn one SVG dot each made the page interactive after 2.2-3.6 s (issue 19).
 */
import type { ComparisonPoint, PolicyComparison } from "./views";

export const MAX_UNCHANGED_DRAWN = 1000;

export interface ChartComparison extends PolicyComparison {
  /** unchanged environments drawn, of how many (both equal when none were left out) */
  unchangedDrawn: { shown: number; of: number };
}

function unchanged(p: ComparisonPoint, margin: number): boolean {
  return p.delta !== null && !Number.isNaN(p.delta) && Math.abs(p.delta) < margin;
}

export function chartComparison(comparison: PolicyComparison, maxUnchanged = MAX_UNCHANGED_DRAWN): ChartComparison {
  const still = comparison.points.filter((p) => unchanged(p, comparison.margin));
  const rest = comparison.points.filter((p) => !unchanged(p, comparison.margin));
  if (still.length <= maxUnchanged) return { ...comparison, unchangedDrawn: { shown: still.length, of: still.length } };
  // ordered along the diagonal (a's rate, then b's, then the key), every k-th: the cloud keeps its shape and density
  const ordered = [...still].sort((x, y) => x.a.rate! - y.a.rate! || x.b.rate! - y.b.rate! || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const step = ordered.length / maxUnchanged;
  const drawn = Array.from({ length: maxUnchanged }, (_, i) => ordered[Math.floor(i * step)]);
  return { ...comparison, points: [...rest, ...drawn], unchangedDrawn: { shown: drawn.length, of: still.length } };
}

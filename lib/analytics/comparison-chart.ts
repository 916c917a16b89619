/**
 * What the generation page's policy scatter draws of a comparison. Environments whose two success rates are the same pair
 * are one mark, sized by how many they are: with a handful of attempts per environment the rates take few values (5
 * attempts: sixths of 0-100%), so 89 Harbor tasks fell on 20 points and a dot at 0% -> 0% hid 40 environments under one.
 * Changed environments (and those that ran under one policy only) stay listed one by one for the movers beside the chart;
 * unchanged ones are only in the marks. At most `maxUnchanged` marks of unchanged environments are drawn, spread evenly
 * over their cloud (5,000 environments drawn one SVG dot each made the page interactive after 2.2-3.6 s, issue 19); the
 * counts stay the comparison's own.
 */
import type { ComparisonPoint, PolicyComparison } from "./views";

export const MAX_UNCHANGED_DRAWN = 1000;
/** Keys a mark carries for its tooltip and its list; `n` counts them all. */
export const STACK_KEYS = 12;

export type Change = "improved" | "regressed" | "unchanged";

/** Where b beats a (or a beats b) by at least the margin; ties and smaller moves are unchanged. */
export function changeOf(delta: number, margin: number): Change {
  if (delta > 0 && delta >= margin) return "improved";
  if (delta < 0 && -delta >= margin) return "regressed";
  return "unchanged";
}

/** The environments that sit at one point of the scatter. */
export interface ScatterStack {
  /** a's success rate */
  x: number;
  /** b's success rate */
  y: number;
  change: Change;
  /** environments at this point */
  n: number;
  /** the first `STACK_KEYS` of their keys, in key order */
  keys: string[];
}

export interface ChartComparison extends PolicyComparison {
  /** one mark per distinct pair of rates; unchanged marks beyond the cap left out */
  stacks: ScatterStack[];
  /** unchanged environments drawn (in the drawn marks), of how many */
  unchangedDrawn: { shown: number; of: number };
}

type Ran = ComparisonPoint & { a: { rate: number }; b: { rate: number } };

function bothRan(p: ComparisonPoint): p is Ran {
  return p.a.rate !== null && p.b.rate !== null && !Number.isNaN(p.a.rate) && !Number.isNaN(p.b.rate);
}

const byKey = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** Environments that ran under both policies, one stack per distinct pair of rates, ordered along the diagonal. */
export function stackPoints(points: ComparisonPoint[], margin: number): ScatterStack[] {
  const stacks = new Map<string, { x: number; y: number; keys: string[] }>();
  for (const p of points) {
    if (!bothRan(p)) continue;
    const at = `${p.a.rate} ${p.b.rate}`;
    const stack = stacks.get(at);
    if (stack) stack.keys.push(p.key);
    else stacks.set(at, { x: p.a.rate, y: p.b.rate, keys: [p.key] });
  }
  return [...stacks.values()]
    .map(({ x, y, keys }) => ({ x, y, change: changeOf(y - x, margin), n: keys.length, keys: keys.sort(byKey).slice(0, STACK_KEYS) }))
    .sort((s, t) => s.x - t.x || s.y - t.y);
}

export function chartComparison(comparison: PolicyComparison, maxUnchanged = MAX_UNCHANGED_DRAWN): ChartComparison {
  const all = stackPoints(comparison.points, comparison.margin);
  const changed = all.filter((s) => s.change !== "unchanged");
  const still = all.filter((s) => s.change === "unchanged");
  const of = still.reduce((sum, s) => sum + s.n, 0);
  // every k-th mark along the diagonal: the cloud keeps its shape
  const step = still.length / maxUnchanged;
  const drawn = still.length <= maxUnchanged ? still : Array.from({ length: maxUnchanged }, (_, i) => still[Math.floor(i * step)]);
  const points = comparison.points.filter((p) => !bothRan(p) || changeOf(p.b.rate - p.a.rate, comparison.margin) !== "unchanged");
  return {
    ...comparison,
    points,
    stacks: [...changed, ...drawn],
    unchangedDrawn: { shown: drawn.reduce((sum, s) => sum + s.n, 0), of },
  };
}

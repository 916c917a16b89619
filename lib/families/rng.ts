/** A small seeded random number generator (mulberry32), deterministic across platforms. */

export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number;
  /** Uniform float in [lo, hi). */
  float(lo: number, hi: number): number;
  /** Standard normal draw (Box-Muller). */
  normal(): number;
  /** True with probability p. */
  bool(p?: number): boolean;
  /** A uniformly chosen element; throws on an empty array. */
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** An independent generator derived from this one's seed and a label (does not advance this one). */
  fork(label: string | number): Rng;
}

/** Hash a string to a 32-bit seed (FNV-1a followed by a murmur3 finaliser). */
export function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Create a deterministic generator from a numeric or string seed. */
export function createRng(seed: number | string): Rng {
  const seedKey = typeof seed === "number" ? `n:${seed}` : `s:${seed}`;
  let state = hashSeed(seedKey);
  let spareNormal: number | null = null;

  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  const rng: Rng = {
    next,
    int(lo, hi) {
      const a = Math.ceil(Math.min(lo, hi));
      const b = Math.floor(Math.max(lo, hi));
      return a + Math.floor(next() * (b - a + 1));
    },
    float(lo, hi) {
      return lo + next() * (hi - lo);
    },
    normal() {
      if (spareNormal !== null) {
        const z = spareNormal;
        spareNormal = null;
        return z;
      }
      let u = 0;
      while (u === 0) u = next();
      const v = next();
      const r = Math.sqrt(-2 * Math.log(u));
      spareNormal = r * Math.sin(2 * Math.PI * v);
      return r * Math.cos(2 * Math.PI * v);
    },
    bool(p = 0.5) {
      return next() < p;
    },
    pick(items) {
      if (items.length === 0) throw new Error("pick() from an empty array");
      return items[Math.floor(next() * items.length)];
    },
    shuffle(items) {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
    fork(label) {
      return createRng(`${seedKey}/${label}`);
    },
  };
  return rng;
}

/** Indices of `weights` in a weighted random order without replacement (Efraimidis-Spirakis keys). */
export function weightedOrder(rng: Rng, weights: readonly number[]): number[] {
  const keyed = weights.map((w, i) => {
    const u = rng.next() || Number.MIN_VALUE;
    return { i, k: w > 0 ? Math.log(u) / w : Number.NEGATIVE_INFINITY };
  });
  keyed.sort((a, b) => (a.k === b.k ? a.i - b.i : b.k - a.k));
  return keyed.map((x) => x.i);
}

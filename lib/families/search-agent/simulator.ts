/**
 * Retrieval model of `search-agent` (context interference in search agents).
 *
 * A question needs `hops` gold documents found in order (each hop's query depends on the previous
 * hop's document). Each turn the agent queries for its current hop and retrieves docs_per_turn
 * documents: the gold document is among them with probability 1 - r^k (r = distractor_ratio,
 * k = docs_per_turn: each retrieved slot is a distractor with probability r). Distractors pile up
 * in the context and interfere: the agent recognises a retrieved gold document with probability
 * 1 / (1 + INTERFERENCE * D_t), where D_t = r * k * t is the expected number of distractors in the
 * context after t turns; a context refiner drops REFINER_EFFICACY of them. More documents per turn
 * raise retrieval but also interference, so docs_per_turn has no difficulty sign.
 */
import { createRng, type Rng } from "../rng";

export interface SearchParams {
  hops: number;
  max_turns: number;
  docs_per_turn: number;
  distractor_ratio: number;
  context_refiner: boolean;
}

/** Recognition loss per distractor in the context. */
export const INTERFERENCE = 0.05;
/** Share of distractors a context refiner removes from the context. */
export const REFINER_EFFICACY = 0.8;

/** Probability the current hop's gold document is retrieved in one turn. */
export function retrievalProbability(params: Pick<SearchParams, "docs_per_turn" | "distractor_ratio">): number {
  return 1 - Math.pow(params.distractor_ratio, params.docs_per_turn);
}

/** Expected distractors left in the context after `turn` turns (after the refiner, if any). */
export function contextDistractors(params: SearchParams, turn: number): number {
  const kept = params.context_refiner ? 1 - REFINER_EFFICACY : 1;
  return params.distractor_ratio * params.docs_per_turn * turn * kept;
}

/** Probability of finding (retrieving and recognising) the current hop's gold document at turn t (1-based). */
export function turnSuccessProbability(params: SearchParams, turn: number): number {
  return retrievalProbability(params) / (1 + INTERFERENCE * contextDistractors(params, turn));
}

/**
 * Probability that all hops' gold documents are found within max_turns: dynamic programming over
 * turns on the number of hops found so far (each turn advances one hop with turnSuccessProbability).
 * Zero when max_turns < hops.
 */
export function searchPMax(params: SearchParams): number {
  if (params.max_turns < params.hops) return 0;
  let found = new Float64Array(params.hops + 1);
  found[0] = 1;
  for (let turn = 1; turn <= params.max_turns; turn++) {
    const s = turnSuccessProbability(params, turn);
    const next = new Float64Array(params.hops + 1);
    next[params.hops] = found[params.hops];
    for (let h = 0; h < params.hops; h++) {
      next[h] += found[h] * (1 - s);
      next[h + 1] += found[h] * s;
    }
    found = next;
  }
  return Math.min(1, Math.max(0, found[params.hops]));
}

export interface RetrievedDoc {
  id: string;
  kind: "gold" | "distractor" | "neutral";
  /** Hop the document belongs to (gold documents only). */
  hop?: number;
}

export interface SearchTurn {
  turn: number;
  hop: number;
  docs: RetrievedDoc[];
  /** Documents the refiner kept in the context (all of them without a refiner). */
  kept: string[];
  foundGold: boolean;
}

export interface SearchEpisode {
  success: boolean;
  hopsFound: number;
  turns: SearchTurn[];
}

/**
 * Simulate one episode of an agent that follows the retrieval model: per turn, the retrieved
 * documents (marked gold, distractor or neutral), what the refiner kept, and whether the gold
 * document was recognised. Deterministic for the rng (defaults to one seeded by `seed`).
 */
export function simulateSearch(
  params: SearchParams & { seed: number },
  rng: Rng = createRng(`search-agent:${params.seed}`),
): SearchEpisode {
  const turns: SearchTurn[] = [];
  let hop = 0;
  let distractorsInContext = 0;
  let nextDoc = 0;
  for (let turn = 1; turn <= params.max_turns && hop < params.hops; turn++) {
    const goldRetrieved = rng.next() < retrievalProbability(params);
    const goldSlot = goldRetrieved ? rng.int(0, params.docs_per_turn - 1) : -1;
    const docs: RetrievedDoc[] = [];
    for (let slot = 0; slot < params.docs_per_turn; slot++) {
      if (slot === goldSlot) docs.push({ id: `gold-${hop + 1}`, kind: "gold", hop: hop + 1 });
      else if (rng.next() < params.distractor_ratio) docs.push({ id: `distractor-${++nextDoc}`, kind: "distractor" });
      else docs.push({ id: `neutral-${++nextDoc}`, kind: "neutral" });
    }
    const kept = docs.filter((doc) => !(params.context_refiner && doc.kind === "distractor" && rng.next() < REFINER_EFFICACY));
    distractorsInContext += kept.filter((doc) => doc.kind === "distractor").length;
    const recognised = goldRetrieved && rng.next() < 1 / (1 + INTERFERENCE * distractorsInContext);
    turns.push({ turn, hop: hop + 1, docs, kept: kept.map((doc) => doc.id), foundGold: recognised });
    if (recognised) hop += 1;
  }
  return { success: hop >= params.hops, hopsFound: hop, turns };
}

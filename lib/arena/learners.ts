/**
 * The simulated learners of the arena (`--learner`): the default one, on which the heuristic
 * engineer and the baselines were tuned, and two held out from every tuning:
 * - `drift`: its gain peaks away from p = 1/2 (p^1 (1-p)^3 peaks at 1/4, p^3 (1-p) at 3/4, taking
 *   turns across seeds) and it forgets per skill (horizon hardly, precision fast);
 * - `tangled`: skills interfere (training one skill takes from the others: a negative transfer) and
 *   its hidden difficulty is only approximated by the family's difficulty signs: a seeded warp of
 *   each difficulty-signed field's position (some weighted against their sign, with a bend) is
 *   added to the family's difficulty.
 */
import { GAIN_SHAPES, type GainShape, type LearnerParams } from "./learner";
import { LEARNER_IDS, type LearnerId } from "./types";

/** How a learner id shapes the world: the learner's parameters for a seed and the hidden-difficulty warp. */
export interface LearnerVariant {
  id: LearnerId;
  /** what it is, for the report's notes and the page */
  description: string;
  /** the learner of one seed, from the arena's base learner */
  params(base: LearnerParams, seed: number): LearnerParams;
  /** amplitude of the seeded warp of the hidden difficulty (0: the family's difficulty plus noise only) */
  difficultyWarp: number;
}

const cycle = <T>(items: readonly T[], seed: number): T => items[((seed % items.length) + items.length) % items.length];

/** The gain shapes of the drift learner: peaks at p = 1/4 and 3/4. */
export const DRIFT_GAIN_SHAPES: readonly GainShape[] = [
  [1, 3],
  [3, 1],
];

const VARIANTS: Record<LearnerId, LearnerVariant> = {
  default: {
    id: "default",
    description: "gain p^x (1-p)^y with (x, y) taking turns (1,1), (1,2), (2,1) across seeds; one forgetting rate; transfer 0.25",
    params: (base, seed) => ({ ...base, gainShape: cycle(GAIN_SHAPES, seed) }),
    difficultyWarp: 0,
  },
  drift: {
    id: "drift",
    description:
      "held out: gain peaking at p = 1/4 or 3/4 (turns across seeds), per-skill forgetting (horizon 0, uncertainty 1e-4, precision 3e-4 a group)",
    params: (base, seed) => ({ ...base, gainShape: cycle(DRIFT_GAIN_SHAPES, seed), forgetting: [0, 1e-4, 3e-4] }),
    difficultyWarp: 0,
  },
  tangled: {
    id: "tangled",
    description:
      "held out: skills interfere (transfer -0.2: training one skill takes from the others) and the hidden difficulty is " +
      "the family's plus a seeded warp of its fields (amplitude 1.2) that its difficulty signs only approximate",
    params: (base, seed) => ({ ...base, gainShape: cycle(GAIN_SHAPES, seed), transfer: -0.2 }),
    difficultyWarp: 1.2,
  },
};

/** The learner variant of an id (throws on an unknown id, naming the known ones). */
export function learnerVariant(id: string): LearnerVariant {
  if (!(LEARNER_IDS as readonly string[]).includes(id)) throw new Error(`Unknown learner "${id}": use ${LEARNER_IDS.join(", ")}.`);
  return VARIANTS[id as LearnerId];
}

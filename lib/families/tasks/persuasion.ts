/**
 * persuasion-game as a single-turn task: the case (claim, prior, evidence accuracy, rounds, target),
 * the decision maker's update equation with its parameters, and the experiment results drawn for
 * this instance (seeded by the config). The answer is the message log: per round the evidence
 * presented and the belief it leaves, checked by the scorer against the decision maker's equation.
 */
import { canonicalJson } from "../hash";
import { effectiveParams, type PersuasionConfig } from "../persuasion-game";
import { reachesTarget, updateBelief, type Signal } from "../persuasion-game/simulator";
import { createRng } from "../rng";
import { ANSWER_TAG_NOTE, type TaskInstance } from "./types";

/** Belief tolerance of the scorer (absolute). */
export const PERSUASION_BELIEF_TOLERANCE = 0.005;

function describeDecisionMaker(config: PersuasionConfig, p: ReturnType<typeof effectiveParams>): string {
  const bayes = "B(b, LR) = b*LR / (b*LR + 1 - b)";
  switch (config.decision_model) {
    case "bayesian":
      return `The decision maker is Bayesian: after a signal with likelihood ratio LR its belief b becomes ${bayes}.`;
    case "affine":
      return `The decision maker distorts Bayes' rule affinely: b' = clamp(${p.affine_slope} * B(b, LR) + ${p.affine_intercept}, 0, 1), where ${bayes}.`;
    case "motivated":
      return (
        `The decision maker is a motivated reasoner who wants the claim to be false: in log odds, b' = logistic(logit(b) + ` +
        `w * ln(LR)) with w = ${1 - p.motivation_strength} (= 1 - ${p.motivation_strength}) for a supporting signal and w = ` +
        `1 for a contradicting one; a belief of exactly 0 or 1 never moves.`
      );
    case "grether":
      return `The decision maker follows Grether's model: b' = logistic(${p.alpha} * ln(LR) + ${p.beta} * logit(b)) (the prior term is 0 when beta is 0).`;
  }
}

/** The persuasion-game task instance of a config: signals drawn from the config's hash, reference from the decision maker's equation. */
export function persuasionTask(config: PersuasionConfig): TaskInstance {
  const params = { ...config, ...effectiveParams(config) };
  const rng = createRng(`persuasion-task:${canonicalJson(config)}`);
  const signals: Signal[] = Array.from({ length: config.num_rounds }, () => (rng.next() < config.evidence_strength ? 1 : -1));
  const q = config.evidence_strength;
  const lines: string[] = [];
  let belief = config.prior;
  let reachedRound: number | null = reachesTarget(belief, config.target_belief) ? 0 : null;
  for (let round = 1; round <= config.num_rounds && reachedRound === null; round++) {
    belief = updateBelief(params, belief, signals[round - 1]);
    lines.push(`round ${round}: ${signals[round - 1] === 1 ? "supports" : "contradicts"} -> ${belief.toFixed(4)}`);
    if (reachesTarget(belief, config.target_belief)) reachedRound = round;
  }
  lines.push(`reached: ${reachedRound === null ? "no" : `round ${reachedRound}`}`);
  const content = [
    "You are the persuader. You argue that a claim H is true (it is).",
    `The decision maker starts with belief P(H) = ${config.prior}. You win if its belief reaches ${config.target_belief} within ${config.num_rounds} rounds.`,
    `Each round you must present the result of one experiment. An experiment's result is correct with probability ` +
      `${q}: a result that supports H has likelihood ratio LR = ${q}/(1-${q}) = ${(q / (1 - q)).toFixed(4)}, one that ` +
      `contradicts H has LR = ${(1 - q).toFixed(4)}/${q}.`,
    describeDecisionMaker(config, effectiveParams(config)),
    "",
    "The experiments of this game give, round by round:",
    ...signals.map((s, i) => `- round ${i + 1}: ${s === 1 ? "supports H" : "contradicts H"}`),
    "",
    "Message format: one line per round you present, `round <k>: <supports|contradicts> -> <belief after it, 4 " +
      "decimals>`, stopping after the round in which the target is reached; then `reached: round <k>` or `reached: " +
      "no`. Example:",
    "<answer>",
    "round 1: supports -> 0.6000",
    "reached: no",
    "</answer>",
  ].join("\n");
  return {
    messages: [
      {
        role: "system",
        content: `You persuade a simulated decision maker whose belief updates follow a known equation. ${ANSWER_TAG_NOTE}`,
      },
      { role: "user", content },
    ],
    groundTruth: {
      family: "persuasion-game",
      answer_format: "belief-log",
      decision_model: config.decision_model,
      params: effectiveParams(config),
      prior: config.prior,
      evidence_strength: q,
      target_belief: config.target_belief,
      signals,
      tolerance: PERSUASION_BELIEF_TOLERANCE,
      reference: lines.join("\n"),
    },
  };
}

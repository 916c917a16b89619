/**
 * The heuristic engineer's predicted success of an item, on the success-rate scale: the
 * posterior mean for kept and retired members; for a mutated child the parent's, moved
 * logitStep in logit per step that makes it harder (or easier), capped at the child's p_max.
 */
import type { FamilyDefinition } from "@/lib/families/types";
import type { StructuredSummary } from "../types";
import { HEURISTIC_DEFAULTS } from "./defaults";
import { hardnessSteps } from "./evidence";
import type { Candidate, Scored } from "./model";

/** Log-odds of a probability, clamped away from 0 and 1. */
export function logit(p: number): number {
  const x = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(x / (1 - x));
}

/** A number rounded to four decimals, as predictions are stored. */
export function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/** The success rate a fresh sample is predicted at: the summary's, else the members' mean, else 0.5. */
export function baseSuccessRate(summary: StructuredSummary, scored: readonly Scored[]): number {
  return summary.behaviour.successRate ?? (scored.length > 0 ? scored.reduce((a, sc) => a + sc.mean, 0) / scored.length : 0.5);
}

/** The predicted success of a child candidate, given the p_max its validation reported. */
export function predictChild(family: FamilyDefinition, baseRate: number, cand: Candidate, pMax: number | undefined): number {
  const D = HEURISTIC_DEFAULTS;
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
}

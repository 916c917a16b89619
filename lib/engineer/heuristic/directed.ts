/**
 * Directed edits: a parent moved harder or easier along the direction the evidence ranks first
 * that can move, by a number of steps per field set by how far the population is from the frontier.
 */
import { getFieldValue, setFieldValue } from "@/lib/families/field-path";
import { valueAtPosition } from "@/lib/families/hardness";
import { stepHarder, type FieldEdit } from "@/lib/families/operators";
import type { Rng } from "@/lib/families/rng";
import type { FamilyConfig, FieldSpec } from "@/lib/families/types";
import { HEURISTIC_DEFAULTS, MAX_RATCHET_STEPS, MAX_STEPS_PER_FIELD, UNSET_DEFAULTS } from "./defaults";
import { REAL_TASKS_SUFFIX } from "./task-pool";
import type { DirectionEvidence, Scored, UnsetStart } from "./model";
import { streakAbove } from "./phase";
import { logit } from "./predict";

/** A budget field: precision, raising it makes the task easier (a time, step or turn budget). */
export function isBudget(field: FieldSpec): boolean {
  return field.direction === "precision" && field.difficulty === "down";
}

/**
 * A directed edit of a field unset on the parent, `steps` steps harder (sign 1) or easier (-1):
 * an ordinal takes the level next to the middle of its levels in that direction, a boolean its
 * hard/easy value, a number starts from UNSET_DEFAULTS or the midpoint of its bounds (on its own
 * scale) and steps from there. Undefined when the field has no sensible start (nominal, unbounded).
 */
function unsetMove(familyId: string, field: FieldSpec, sign: 1 | -1, steps: number): { to: unknown; start?: UnsetStart } | undefined {
  if (!field.difficulty || field.mutable === false) return undefined;
  const dir = field.difficulty === "up" ? sign : -sign;
  switch (field.kind) {
    case "ordinal": {
      const levels = field.levels ?? [];
      if (levels.length < 2) return undefined;
      const mid = (levels.length - 1) / 2;
      return { to: levels[dir > 0 ? Math.floor(mid) + 1 : Math.ceil(mid) - 1] };
    }
    case "boolean":
      return { to: dir > 0 };
    case "integer":
    case "number": {
      // real tasks: an unset value is Harbor's own (no agent timeout at all), not a number to start from
      if (familyId.endsWith(REAL_TASKS_SUFFIX)) return undefined;
      const known = UNSET_DEFAULTS[familyId]?.[field.path];
      let start: UnsetStart;
      if (typeof known === "number") start = { value: known, from: "default" };
      else if (field.min !== undefined && field.max !== undefined && field.max > field.min) {
        const mid = valueAtPosition(field, 0.5);
        start = { value: field.kind === "integer" ? Math.round(mid) : Math.round(mid * 1e4) / 1e4, from: "midpoint" };
      } else return undefined;
      let to: unknown = start.value;
      for (let k = 0; k < Math.max(1, steps); k++) {
        const next = stepHarder(field, to, sign);
        if (next === to) break;
        to = next;
      }
      return to === start.value ? undefined : { to, start };
    }
    case "nominal":
      return undefined;
  }
}

export interface DirectedResult {
  config: FamilyConfig;
  edits: FieldEdit[];
  evidence: DirectionEvidence;
  steps: number;
  starts: Map<string, UnsetStart>;
}

/**
 * Directed step: 1-3 difficulty-signed fields `steps` steps harder (sign 1) or easier (-1) along
 * the first direction in `order` that can move (numeric fields; ordinals and booleans move one
 * level). Fields set on the parent first, in every direction, before any unset one (unsetMove).
 * With `budgetFirst` (a timeout-driven easier step), the budget fields of `order`'s precision entry
 * come first, set or unset, with at least timeoutSteps steps.
 */
export function directedEdit(
  rng: Rng,
  order: readonly DirectionEvidence[],
  config: FamilyConfig,
  sign: 1 | -1,
  edits: number,
  steps: number,
  familyId: string,
  budgetFirst = false,
): DirectedResult | null {
  const isSetMovable = (f: FieldSpec) => {
    const value = getFieldValue(config, f.path);
    return value !== undefined && stepHarder(f, value, sign) !== value;
  };
  const isUnsetMovable = (f: FieldSpec) => getFieldValue(config, f.path) === undefined && unsetMove(familyId, f, sign, 1) !== undefined;

  const apply = (e: DirectionEvidence, movable: FieldSpec[], fieldSteps: number): DirectedResult => {
    const count = Math.min(edits > 0 ? edits : rng.int(1, 3), movable.length);
    let child = config;
    const changes: FieldEdit[] = [];
    const starts = new Map<string, UnsetStart>();
    let taken = 0;
    for (const field of rng.shuffle(movable).slice(0, count)) {
      const from = getFieldValue(child, field.path);
      const numeric = field.kind === "integer" || field.kind === "number";
      let to: unknown;
      if (from === undefined) {
        const move = unsetMove(familyId, field, sign, numeric ? fieldSteps : 1) as { to: unknown; start?: UnsetStart };
        to = move.to;
        if (move.start) starts.set(field.path, move.start);
        taken += numeric ? fieldSteps : 1;
      } else {
        to = stepHarder(field, from, sign);
        taken += 1;
        for (let k = 1; k < fieldSteps && numeric; k++) {
          const next = stepHarder(field, to, sign);
          if (next === to) break;
          to = next;
          taken += 1;
        }
      }
      child = setFieldValue(child, field.path, to);
      changes.push({ path: field.path, from, to });
    }
    return { config: child, edits: changes, evidence: e, steps: taken, starts };
  };

  if (budgetFirst) {
    const precision = order.find((e) => e.direction === "precision");
    const budget = precision ? precision.fields.filter(isBudget) : [];
    const budgetSteps = Math.min(MAX_STEPS_PER_FIELD, Math.max(steps, HEURISTIC_DEFAULTS.timeoutSteps));
    for (const movableNow of [isSetMovable, isUnsetMovable]) {
      const movable = budget.filter(movableNow);
      if (precision && movable.length > 0) return apply(precision, movable, budgetSteps);
    }
  }
  for (const movableNow of [isSetMovable, isUnsetMovable]) {
    for (const e of order) {
      const movable = e.fields.filter(movableNow);
      if (movable.length > 0) return apply(e, movable, steps);
    }
  }
  return null;
}

/** True when some difficulty-signed field of the config can move a step in direction `sign` (set, or unset with a start). */
export function canStep(evidence: readonly DirectionEvidence[], config: FamilyConfig, sign: 1 | -1, familyId: string): boolean {
  return evidence.some((e) =>
    e.fields.some((f) => {
      const value = getFieldValue(config, f.path);
      return value === undefined ? unsetMove(familyId, f, sign, 1) !== undefined : stepHarder(f, value, sign) !== value;
    }),
  );
}

/**
 * Steps per field of a directed edit: 1, plus one for every unit of logit by which the
 * population's mean normalised success sits beyond the frontier (0.5) in the step's direction, at
 * most MAX_STEPS_PER_FIELD. When the policy has outgrown most of the population, one step at a time
 * cannot keep up; when the population sits at the frontier, steps stay single.
 */
export function stepsPerField(scored: readonly Scored[], sign: 1 | -1): number {
  const rates = scored
    .filter((sc) => sc.q !== null && !sc.infra && sc.retire !== "invalid" && sc.retire !== "unsolvable")
    .map((sc) => sc.q as number);
  if (rates.length < 8) return 1;
  const mean = Math.min(0.98, Math.max(0.02, rates.reduce((a, b) => a + b, 0) / rates.length));
  return Math.min(MAX_STEPS_PER_FIELD, Math.max(1, 1 + Math.floor(sign * logit(mean))));
}

/**
 * Steps per field of a directed edit of one parent: as many as its own distance from the frontier
 * asks for (1, plus one per unit of logit by which its posterior success (q n + 1) / (n + 2) sits
 * beyond 0.5 in the step's direction), at least the population's (stepsPerField), at most
 * MAX_STEPS_PER_FIELD. A parent that passed 8 of 8 is far past the frontier: a single step lands
 * its child where the policy still passes almost everything.
 *
 * The ratchet (harder steps only): one more step for every earlier measurement in a row in which
 * the parent stayed above replayHarderAbove (streakAbove - 1), up to MAX_RATCHET_STEPS. A kept
 * member the policy has passed mostly for several generations is one the population's steps did
 * not leave behind fast enough; threshold stepping keeps raising its level for as long as it
 * passes. Easier steps are unchanged.
 */
export function parentSteps(parent: Scored, sign: 1 | -1, populationSteps: number): number {
  const n = parent.member.n;
  if (parent.q === null || n <= 0) return populationSteps;
  const posterior = (parent.q * n + 1) / (n + 2);
  const own = 1 + Math.floor(sign * logit(posterior));
  const ratchet = sign > 0 ? Math.max(0, streakAbove(parent) - 1) : 0;
  if (ratchet === 0) return Math.min(MAX_STEPS_PER_FIELD, Math.max(populationSteps, own, 1));
  return Math.min(MAX_RATCHET_STEPS, Math.max(populationSteps, own + ratchet, 1));
}

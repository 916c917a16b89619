/**
 * Directed edits: harder (sign 1) moves every difficulty-signed field along its family's difficulty
 * sign (up-fields up, down-fields down), easier (sign -1) the other way. Catches an inverted sign
 * anywhere between the child strategy and the field step.
 */
import { describe, expect, it } from "vitest";
import { fieldHardness } from "@/lib/families/hardness";
import { stepHarder } from "@/lib/families/operators";
import { createRng } from "@/lib/families/rng";
import type { FieldSpec, SkillDirection } from "@/lib/families/types";
import type { PopulationMember } from "../types";
import { canStep, directedEdit, isBudget, stepsPerField } from "./directed";
import type { DirectionEvidence, Scored } from "./model";

const size: FieldSpec = { path: "size", kind: "integer", min: 2, max: 12, difficulty: "up", direction: "horizon" };
const slip: FieldSpec = { path: "slip", kind: "number", min: 0, max: 1, difficulty: "up", direction: "uncertainty" };
const noisy: FieldSpec = { path: "noisy", kind: "boolean", difficulty: "up", direction: "uncertainty" };
const timeout: FieldSpec = { path: "timeout", kind: "integer", min: 10, max: 100, difficulty: "down", direction: "precision" };
const mode: FieldSpec = { path: "mode", kind: "ordinal", levels: ["easy", "mid", "hard"], difficulty: "up", direction: "precision" };
const color: FieldSpec = { path: "color", kind: "nominal", levels: ["red", "blue"] };

function evidence(direction: SkillDirection, fields: FieldSpec[]): DirectionEvidence {
  return { direction, fields, drop: null, lift: null, score: 0, top: null };
}

const horizon = evidence("horizon", [size]);
const uncertainty = evidence("uncertainty", [slip, noisy]);
const precision = evidence("precision", [timeout, mode]);
const all = [size, slip, noisy, timeout, mode];
const middle = { size: 6, slip: 0.5, noisy: false, timeout: 50, mode: "mid", color: "red" };

/** Hardness of every edited field moves the way `sign` says, one step each; at least one field moved. */
function expectMoved(result: ReturnType<typeof directedEdit>, sign: 1 | -1) {
  expect(result).not.toBeNull();
  const { edits } = result as NonNullable<typeof result>;
  expect(edits.length).toBeGreaterThanOrEqual(1);
  for (const edit of edits) {
    const field = all.find((f) => f.path === edit.path) as FieldSpec;
    const before = fieldHardness(field, edit.from) as number;
    const after = fieldHardness(field, edit.to) as number;
    if (sign > 0) expect(after, edit.path).toBeGreaterThan(before);
    else expect(after, edit.path).toBeLessThan(before);
  }
}

describe("directedEdit", () => {
  for (const e of [horizon, uncertainty, precision]) {
    it(`moves ${e.direction} fields harder with sign 1 and easier with sign -1, along each field's difficulty sign`, () => {
      for (let seed = 0; seed < 5; seed++) {
        const harder = directedEdit(createRng(seed), [e], middle, 1, 3, 1, "test");
        expectMoved(harder, 1);
        expect(harder?.evidence).toBe(e);
        const easier = directedEdit(createRng(seed), [e], middle, -1, 3, 1, "test");
        expectMoved(easier, -1);
        for (const edit of easier?.edits ?? []) {
          const field = all.find((f) => f.path === edit.path) as FieldSpec;
          expect(edit.to).toEqual(stepHarder(field, edit.from, -1));
        }
      }
    });
  }

  it("raises a down-field (a budget) to make it easier and lowers it to make it harder", () => {
    expect(directedEdit(createRng(1), [evidence("precision", [timeout])], middle, -1, 1, 1, "test")?.config.timeout).toBe(51);
    expect(directedEdit(createRng(1), [evidence("precision", [timeout])], middle, 1, 1, 1, "test")?.config.timeout).toBe(49);
  });

  it("takes `steps` steps on numeric fields and one level on ordinals and booleans", () => {
    const result = directedEdit(createRng(2), [horizon], middle, 1, 1, 3, "test");
    expect(result?.config.size).toBe(9);
    expect(result?.steps).toBe(3);
    const ordinal = directedEdit(createRng(2), [evidence("precision", [mode])], middle, 1, 1, 3, "test");
    expect(ordinal?.config.mode).toBe("hard");
    expect(ordinal?.steps).toBe(1);
    const flag = directedEdit(createRng(2), [evidence("uncertainty", [noisy])], middle, 1, 1, 3, "test");
    expect(flag?.config.noisy).toBe(true);
  });

  it("stops a numeric field at its bound and skips directions that cannot move", () => {
    const atHard = { ...middle, size: 12 };
    const result = directedEdit(createRng(3), [horizon, uncertainty], atHard, 1, 1, 4, "test");
    expect(result?.evidence).toBe(uncertainty);
    expect(directedEdit(createRng(3), [horizon], { ...middle, size: 11 }, 1, 1, 4, "test")?.config.size).toBe(12);
    expect(directedEdit(createRng(3), [horizon], atHard, 1, 1, 1, "test")).toBeNull();
  });

  it("takes the first direction in the order that can move", () => {
    for (let seed = 0; seed < 5; seed++) {
      expect(directedEdit(createRng(seed), [uncertainty, horizon], middle, 1, 0, 1, "test")?.evidence).toBe(uncertainty);
      expect(directedEdit(createRng(seed), [horizon, uncertainty], middle, -1, 0, 1, "test")?.evidence).toBe(horizon);
    }
  });

  it("edits 1 to 3 fields, never more than asked or than can move", () => {
    const counts = new Set<number>();
    for (let seed = 0; seed < 30; seed++) {
      const result = directedEdit(createRng(seed), [evidence("horizon", [size, slip, noisy, timeout])], middle, 1, 0, 1, "test");
      counts.add(result?.edits.length ?? 0);
    }
    expect([...counts].sort()).toEqual([1, 2, 3]);
    expect(directedEdit(createRng(1), [uncertainty], middle, 1, 1, 1, "test")?.edits).toHaveLength(1);
    expect(directedEdit(createRng(1), [uncertainty], middle, 1, 3, 1, "test")?.edits).toHaveLength(2);
  });

  it("prefers fields set on the parent, in every direction, before starting an unset one", () => {
    const partial = { size: 6 };
    for (let seed = 0; seed < 5; seed++) {
      const result = directedEdit(createRng(seed), [precision, horizon], partial, 1, 3, 1, "test");
      expect(result?.edits.map((e) => e.path)).toEqual(["size"]);
    }
  });

  it("starts an unset ordinal next to the middle level in the step's direction, a boolean at its hard or easy value", () => {
    const harder = directedEdit(createRng(1), [evidence("precision", [mode])], {}, 1, 1, 1, "test");
    expect(harder?.edits).toEqual([{ path: "mode", from: undefined, to: "hard" }]);
    const easier = directedEdit(createRng(1), [evidence("precision", [mode])], {}, -1, 1, 1, "test");
    expect(easier?.edits).toEqual([{ path: "mode", from: undefined, to: "easy" }]);
    expect(directedEdit(createRng(1), [evidence("uncertainty", [noisy])], {}, 1, 1, 1, "test")?.config.noisy).toBe(true);
    expect(directedEdit(createRng(1), [evidence("uncertainty", [noisy])], {}, -1, 1, 1, "test")?.config.noisy).toBe(false);
  });

  it("starts an unset number from its midpoint, or a known harness default, and steps it in the step's direction", () => {
    const up = directedEdit(createRng(1), [horizon], {}, 1, 1, 2, "test");
    expect(up?.starts.get("size")).toEqual({ value: 7, from: "midpoint" });
    expect(up?.config.size).toBe(9);
    expect(up?.steps).toBe(2);
    const down = directedEdit(createRng(1), [evidence("precision", [timeout])], {}, 1, 1, 1, "test");
    expect(down?.starts.get("timeout")).toEqual({ value: 55, from: "midpoint" });
    expect(down?.config.timeout).toBe(54);
    const agentTimeout: FieldSpec = { ...timeout, path: "agent_timeout_sec", min: 60, max: 7200, scale: true };
    const known = directedEdit(createRng(1), [evidence("precision", [agentTimeout])], {}, -1, 1, 1, "terminal-task");
    expect(known?.starts.get("agent_timeout_sec")).toEqual({ value: 900, from: "default" });
    expect(known?.config.agent_timeout_sec as number).toBeGreaterThan(900);
  });

  it("never starts an unset nominal, immutable or unsigned field, nor an unbounded number", () => {
    const fields: FieldSpec[] = [color, { ...size, mutable: false }, { ...slip, difficulty: undefined }, { ...size, min: undefined }];
    expect(directedEdit(createRng(1), [evidence("horizon", fields)], {}, 1, 1, 1, "test")).toBeNull();
    expect(directedEdit(createRng(1), [evidence("precision", [{ ...mode, levels: ["only"] }])], {}, 1, 1, 1, "test")).toBeNull();
  });

  it("moves the budget fields of the precision entry first, at least timeoutSteps steps, when asked to", () => {
    for (let seed = 0; seed < 5; seed++) {
      const result = directedEdit(createRng(seed), [horizon, precision], middle, -1, 0, 1, "test", true);
      expect(result?.evidence).toBe(precision);
      expect(result?.edits).toEqual([{ path: "timeout", from: 50, to: 53 }]);
    }
    const unset = directedEdit(createRng(1), [horizon, precision], { size: 6 }, -1, 0, 1, "test", true);
    expect(unset?.edits.map((e) => e.path)).toEqual(["timeout"]);
    // without budgetFirst the order decides
    expect(directedEdit(createRng(1), [horizon, precision], middle, -1, 0, 1, "test")?.evidence).toBe(horizon);
  });
});

describe("canStep and isBudget", () => {
  it("says whether any difficulty-signed field can move in the given direction", () => {
    const atEasy = { size: 2, slip: 0, noisy: false, timeout: 100, mode: "easy" };
    const atHard = { size: 12, slip: 1, noisy: true, timeout: 10, mode: "hard" };
    const order = [horizon, uncertainty, precision];
    expect(canStep(order, atEasy, -1, "test")).toBe(false);
    expect(canStep(order, atEasy, 1, "test")).toBe(true);
    expect(canStep(order, atHard, 1, "test")).toBe(false);
    expect(canStep(order, atHard, -1, "test")).toBe(true);
    expect(canStep([horizon], {}, -1, "test")).toBe(true);
    expect(canStep([evidence("diversify" as SkillDirection, [color])], {}, 1, "test")).toBe(false);
  });

  it("calls precision fields whose raise makes the task easier budgets", () => {
    expect(isBudget(timeout)).toBe(true);
    expect(isBudget(mode)).toBe(false);
    expect(isBudget({ ...timeout, direction: "horizon" })).toBe(false);
  });
});

describe("stepsPerField", () => {
  const scoredAt = (q: number | null, extra: Partial<Scored> = {}) =>
    ({ q, infra: false, retire: null, member: {} as PopulationMember, ...extra }) as Scored;

  it("is 1 at the frontier and with fewer than 8 measured members", () => {
    expect(
      stepsPerField(
        Array.from({ length: 8 }, () => scoredAt(0.5)),
        1,
      ),
    ).toBe(1);
    expect(
      stepsPerField(
        Array.from({ length: 7 }, () => scoredAt(0.99)),
        1,
      ),
    ).toBe(1);
  });

  it("grows by one per unit of logit the population sits beyond 0.5 in the step's direction, at most 4", () => {
    const solved = Array.from({ length: 8 }, () => scoredAt(0.95));
    expect(stepsPerField(solved, 1)).toBe(3);
    expect(stepsPerField(solved, -1)).toBe(1);
    const failing = Array.from({ length: 8 }, () => scoredAt(0.05));
    expect(stepsPerField(failing, -1)).toBe(3);
    expect(stepsPerField(failing, 1)).toBe(1);
    expect(
      stepsPerField(
        Array.from({ length: 8 }, () => scoredAt(1)),
        1,
      ),
    ).toBe(4);
    expect(
      stepsPerField(
        Array.from({ length: 8 }, () => scoredAt(0.8)),
        1,
      ),
    ).toBe(2);
  });

  it("leaves out unmeasured, infra-dominated, invalid and unsolvable members", () => {
    const solved = Array.from({ length: 8 }, () => scoredAt(0.95));
    const noise = [scoredAt(null), scoredAt(0, { infra: true }), scoredAt(0, { retire: "invalid" }), scoredAt(0, { retire: "unsolvable" })];
    expect(stepsPerField([...solved, ...noise], 1)).toBe(3);
    expect(stepsPerField([...solved.slice(0, 7), ...noise], 1)).toBe(1);
  });
});

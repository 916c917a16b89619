/**
 * Direction evidence: success that drops toward a field's hard end, and failure clusters sitting
 * at the hard end, both point along that direction (positive score); "most" ranks it first and
 * "least" last. Also the net hardness steps of edits and the evidence refs items cite.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "@/lib/families/rng";
import type { FamilyDefinition, FieldSpec } from "@/lib/families/types";
import type { PopulationMember, StructuredSummary, SummaryCluster, SummaryField } from "../types";
import { directionEvidence, editDirection, evidenceWriter, harderDirections, hardnessSteps, orderDirections } from "./evidence";
import type { Scored } from "./model";
import { childRationale, proposalNotes } from "./rationale";
import type { ChildBatch } from "./children";

const size: FieldSpec = { path: "size", kind: "integer", min: 2, max: 12, difficulty: "up", direction: "horizon" };
const slip: FieldSpec = { path: "slip", kind: "number", min: 0, max: 1, difficulty: "up", direction: "uncertainty" };
const budget: FieldSpec = { path: "budget", kind: "integer", min: 10, max: 100, difficulty: "down", direction: "precision" };
const mode: FieldSpec = { path: "mode", kind: "ordinal", levels: ["easy", "hard"], difficulty: "up", direction: "precision" };
const color: FieldSpec = { path: "color", kind: "nominal", levels: ["red", "blue", "green"], direction: "diversify" };
const family = { id: "t", fields: [size, slip, budget, mode, color] } as unknown as FamilyDefinition;

function summaryField(spec: FieldSpec, buckets: [string, number, number | null][]): SummaryField {
  return {
    path: spec.path,
    kind: spec.kind,
    direction: spec.direction ?? null,
    difficulty: spec.difficulty ?? null,
    buckets: buckets.map(([label, rollouts, successRate]) => ({ label, environments: 1, rollouts, successRate })),
  } as SummaryField;
}

const scoredAt = (key: string, config: Record<string, unknown>) => ({ member: { key, config } as unknown as PopulationMember }) as Scored;

describe("directionEvidence", () => {
  const fields = [
    summaryField(size, [
      ["2–4", 10, 0.9],
      ["8–10", 10, 0.1],
      ["(missing)", 50, 0],
    ]),
    summaryField(slip, [
      ["0–0.2", 10, 0.5],
      ["0.8–1", 10, 0.5],
    ]),
    // a down-field: success drops as the budget shrinks
    summaryField(budget, [
      ["10–20", 10, 0.2],
      ["90–100", 10, 0.6],
    ]),
  ];
  const scored = [scoredAt("small", { size: 2, slip: 0.5 }), scoredAt("big", { size: 12, slip: 0.5 })];

  it("reads a success drop toward the hard end as positive evidence along that direction", () => {
    const ev = directionEvidence(family, fields, [], scored);
    const byDirection = new Map(ev.map((e) => [e.direction, e]));
    expect([...byDirection.keys()].sort()).toEqual(["horizon", "precision", "uncertainty"]);
    const horizon = byDirection.get("horizon");
    expect(horizon?.fields).toEqual([size]);
    expect(horizon?.drop).toBeCloseTo(0.8, 9);
    expect(horizon?.top).toMatchObject({ path: "size" });
    expect(horizon?.top?.easy).toBeCloseTo(0.9, 9);
    expect(horizon?.top?.hard).toBeCloseTo(0.1, 9);
    expect(byDirection.get("uncertainty")?.drop).toBeCloseTo(0, 9);
    expect(byDirection.get("precision")?.drop).toBeCloseTo(0.4, 9);
    expect(byDirection.get("precision")?.fields).toEqual([budget, mode]);
    expect(horizon?.score).toBeCloseTo(0.8 + (horizon?.lift ?? 0), 9);
  });

  it("reads failure clusters at the hard end as positive lift, at the easy end as negative", () => {
    const cluster = (keys: string[]) =>
      ({
        id: "c",
        category: "verifier_failed",
        count: 5,
        environments: keys.length,
        environmentKeys: keys,
        infra: false,
      }) as unknown as SummaryCluster;
    const hard = directionEvidence(family, [], [cluster(["big"])], scored).find((e) => e.direction === "horizon");
    expect(hard?.lift).toBeCloseTo(0.5, 9);
    expect(hard?.drop).toBeNull();
    expect(hard?.score).toBeCloseTo(0.5, 9);
    const easy = directionEvidence(family, [], [cluster(["small"])], scored).find((e) => e.direction === "horizon");
    expect(easy?.lift).toBeCloseTo(-0.5, 9);
    const infra = { ...cluster(["big"]), infra: true };
    expect(directionEvidence(family, [], [infra], scored).find((e) => e.direction === "horizon")?.lift).toBeNull();
  });

  it("has no drop from fewer than two measured buckets or a flat hardness", () => {
    const one = summaryField(size, [
      ["2–4", 10, 0.9],
      ["8–10", 0, null],
    ]);
    const same = summaryField(size, [
      ["4", 10, 0.9],
      ["4", 10, 0.1],
    ]);
    for (const f of [one, same]) expect(directionEvidence(family, [f], [], []).find((e) => e.direction === "horizon")?.drop).toBeNull();
  });

  it("reads ordinal and boolean buckets by level", () => {
    const flag: FieldSpec = { path: "flag", kind: "boolean", difficulty: "up", direction: "uncertainty" };
    const fam = { id: "t", fields: [mode, flag] } as unknown as FamilyDefinition;
    const ev = directionEvidence(
      fam,
      [
        summaryField(mode, [
          ["easy", 10, 0.8],
          ["hard", 10, 0.2],
        ]),
        summaryField(flag, [
          ["false", 10, 0.3],
          ["true", 10, 0.7],
        ]),
      ],
      [],
      [],
    );
    expect(ev.find((e) => e.direction === "precision")?.drop).toBeCloseTo(0.6, 9);
    expect(ev.find((e) => e.direction === "uncertainty")?.drop).toBeCloseTo(-0.4, 9);
  });
});

/** A direction's evidence with only its score (and fields) set. */
const e = (direction: "horizon" | "uncertainty" | "precision", score: number, fields: FieldSpec[] = []) => ({
  direction,
  fields,
  drop: null,
  lift: null,
  score,
  top: null,
});

describe("orderDirections", () => {
  const evidence = [e("horizon", 0.1), e("uncertainty", 0.8), e("precision", -0.3)];

  // catches: "most" and "least" swapped (a solved parent would be pushed where the policy still fails)
  it("ranks by score, descending for most and ascending for least", () => {
    for (let seed = 0; seed < 5; seed++) {
      expect(orderDirections(createRng(seed), evidence, true).map((x) => x.direction)).toEqual(["uncertainty", "horizon", "precision"]);
      expect(orderDirections(createRng(seed), evidence, false).map((x) => x.direction)).toEqual(["precision", "horizon", "uncertainty"]);
    }
  });

  it("breaks ties in seeded random order", () => {
    const tied = [e("horizon", 0), e("uncertainty", 0), e("precision", 0)];
    const firsts = new Set<string>();
    for (let seed = 0; seed < 20; seed++) firsts.add(orderDirections(createRng(seed), tied, true)[0].direction);
    expect(firsts.size).toBeGreaterThan(1);
  });
});

describe("harderDirections", () => {
  // size 11 is 0.9 of horizon's way to its hard end, slip 0.7 uncertainty's 0.7, budget 100 precision's easy end (0)
  const config = { size: 11, slip: 0.7, budget: 100 };
  // the evidence's ascending order (orderDirections "least"): horizon, uncertainty, precision
  const order = [e("horizon", -0.2, [size]), e("uncertainty", 0.1, [slip]), e("precision", 0.5, [budget])];
  const directions = (at: number, cfg: Record<string, unknown> = config) =>
    harderDirections(order, cfg, at).map((r) => r.evidence.direction);

  // catches: the saturation test inverted or dropped (a parent pushed further along the direction it is already hardest in)
  it("keeps the evidence's order but leaves the directions the parent is near the hard end of for last", () => {
    expect(directions(0.7)).toEqual(["precision", "horizon", "uncertainty"]);
    expect(directions(0.8)).toEqual(["uncertainty", "precision", "horizon"]);
    expect(directions(1.01)).toEqual(["horizon", "uncertainty", "precision"]);
    const ranked = harderDirections(order, config, 0.7);
    expect(ranked.map((r) => r.saturated)).toEqual([false, true, true]);
    expect(ranked.map((r) => r.hardness)).toEqual([0, 0.9, 0.7].map((h) => expect.closeTo(h, 12)));
  });

  it("counts a direction with no field set as halfway, and with every direction near the hard end keeps the evidence's order", () => {
    expect(directions(0.7, { budget: 100 })).toEqual(["horizon", "uncertainty", "precision"]);
    expect(harderDirections(order, { budget: 100 }, 0.7).map((r) => r.hardness)).toEqual([0.5, 0.5, 0]);
    expect(directions(0.5, { size: 12, slip: 1, budget: 10 })).toEqual(["horizon", "uncertainty", "precision"]);
  });

  // catches: harderLast ignored, or noise put before the saturated directions instead of after them (or only after the
  // unsaturated ones), or the flag not set
  it("puts the directions of `last` after every other, saturated or not, in the same order", () => {
    const last = (at: number, cfg: Record<string, unknown> = config) =>
      harderDirections(order, cfg, at, ["uncertainty"]).map((r) => r.evidence.direction);
    expect(last(1.01)).toEqual(["horizon", "precision", "uncertainty"]);
    expect(last(0.8)).toEqual(["precision", "horizon", "uncertainty"]);
    expect(last(0.7)).toEqual(["precision", "horizon", "uncertainty"]);
    expect(harderDirections(order, config, 0.8, ["uncertainty"]).map((r) => r.last)).toEqual([false, false, true]);
    expect(harderDirections(order, config, 0.8).map((r) => r.last)).toEqual([false, false, false]);
    expect(harderDirections(order, config, 1.01, ["horizon", "uncertainty"]).map((r) => r.evidence.direction)).toEqual([
      "precision",
      "horizon",
      "uncertainty",
    ]);
  });

  // catches: a rationale that names no skipped direction, or names them when the step itself went along one
  it("has the harder child's rationale name the directions skipped, and none when every one was near the hard end", () => {
    const describe = childRationale({
      family,
      cite: evidenceWriter({ environments: { fields: [] } } as unknown as StructuredSummary),
      rankOf: new Map(),
      reference: [],
    });
    const parent = {
      member: { key: "p", config, n: 8, s: 8, validation: { state: "valid", pMax: null } } as unknown as PopulationMember,
      q: 1,
      retire: "solved",
      learnability: 0,
    } as unknown as Scored;
    type Dir = "precision" | "horizon" | "uncertainty";
    // the rationale of a harder child along `direction` with this ranking (none: a candidate that carries no ranking)
    const say = (direction: Dir, ranking?: ReturnType<typeof harderDirections>, firstChoice = true) =>
      describe({ kind: "harder", config, direction, edits: [{ path: "budget", from: 100, to: 90 }], parent, ranking, firstChoice })
        .rationale;
    const rationale = (at: number, direction: Dir) => say(direction, harderDirections(order, config, at));
    expect(rationale(0.7, "precision")).toBe(
      "Solved (8/8, q 1.00): pushed harder along precision, which the failure evidence points to least among the directions " +
        "it is not already near the hard end of (not horizon, at hardness 0.90; not uncertainty, at hardness 0.70): budget 100→90.",
    );
    expect(rationale(0, "horizon")).toBe(
      "Solved (8/8, q 1.00): pushed harder along horizon, which the failure evidence points to least: budget 100→90.",
    );
    const withLast = (direction: Dir, firstChoice: boolean) =>
      say(direction, harderDirections(order, config, 0.8, ["uncertainty"]), firstChoice);
    expect(withLast("precision", true)).toBe(
      "Solved (8/8, q 1.00): pushed harder along precision, which the failure evidence points to least among the directions " +
        "it is not already near the hard end of (not horizon, at hardness 0.90) and that add no noise (not uncertainty: " +
        "noise caps the success a policy can reach): budget 100→90.",
    );
    // two directions taken last are both named; a candidate that carries no ranking names none
    expect(say("precision", harderDirections(order, config, 1.01, ["horizon", "uncertainty"]))).toContain(
      "among the directions that add no noise (not horizon, uncertainty: noise caps",
    );
    expect(say("precision")).toBe(
      "Solved (8/8, q 1.00): pushed harder along precision, which the failure evidence points to least: budget 100→90.",
    );
    // a step along noise names nothing skipped: every direction before it could not move
    expect(withLast("uncertainty", false)).toBe(
      "Solved (8/8, q 1.00): pushed harder along uncertainty, which the failure evidence points to least among the directions " +
        "that can move: budget 100→90.",
    );
  });
});

describe("the evidence note", () => {
  const note = (evidence: ReturnType<typeof e>[]) =>
    proposalNotes({
      seed: 0,
      target: 4,
      kept: 0,
      keepCut: null,
      scored: [],
      evidence,
      batch: { made: { harder: 0, easier: 0, replay: 0, crossover: 0, fresh: 0 }, items: [], exhausted: false } as unknown as ChildBatch,
      childrenTarget: 0,
    }).find((n) => n.startsWith("Failure evidence")) as string;

  // catches: the preference that skips noise dropped, its words printed with no noisy direction in the evidence, or the
  // direction harder steps prefer named again as last; the scores' signs
  it("names the direction harder steps prefer (uncertainty after every other), and uncertainty last only when it was skipped", () => {
    expect(note([e("uncertainty", -0.4), e("horizon", 0), e("precision", 0.2)])).toBe(
      "Failure evidence by direction (success drop across field buckets + failure-cluster lift): uncertainty -0.40, horizon " +
        "+0.00, precision +0.20; harder steps prefer horizon (where a parent is not already near its hard end; uncertainty " +
        "last: noise caps the success a policy can reach), easier ones precision.",
    );
    expect(note([e("horizon", -0.4), e("precision", 0.2)])).toBe(
      "Failure evidence by direction (success drop across field buckets + failure-cluster lift): horizon -0.40, precision " +
        "+0.20; harder steps prefer horizon (where a parent is not already near its hard end), easier ones precision.",
    );
    // a family whose only difficulty direction is noise: harder steps take it, and the note does not call it last
    expect(note([e("uncertainty", 0.1)])).toBe(
      "Failure evidence by direction (success drop across field buckets + failure-cluster lift): uncertainty +0.10; harder " +
        "steps prefer uncertainty (where a parent is not already near its hard end), easier ones uncertainty.",
    );
  });
});

describe("hardnessSteps and editDirection", () => {
  it("counts edits that made the config harder +1 and easier -1, ignoring unsigned fields", () => {
    expect(hardnessSteps(family.fields, [{ path: "size", from: 4, to: 5 }])).toBe(1);
    expect(hardnessSteps(family.fields, [{ path: "budget", from: 50, to: 60 }])).toBe(-1);
    expect(hardnessSteps(family.fields, [{ path: "budget", from: 50, to: 40 }])).toBe(1);
    expect(
      hardnessSteps(family.fields, [
        { path: "size", from: 4, to: 5 },
        { path: "slip", from: 0.5, to: 0.6 },
        { path: "mode", from: "hard", to: "easy" },
        { path: "color", from: "red", to: "blue" },
        { path: "size", from: 4, to: 4 },
      ]),
    ).toBe(1);
  });

  it("names the most edited signed direction, else diversify", () => {
    expect(editDirection(family.fields, [{ path: "color", from: "red", to: "blue" }])).toBe("diversify");
    expect(
      editDirection(family.fields, [
        { path: "budget", from: 50, to: 60 },
        { path: "mode", from: "easy", to: "hard" },
        { path: "size", from: 4, to: 5 },
      ]),
    ).toBe("precision");
    expect(editDirection(family.fields, [{ path: "slip", from: 0.1, to: 0.2 }])).toBe("uncertainty");
  });
});

describe("evidenceWriter", () => {
  const summary = (fields: SummaryField[]) => ({ environments: { fields } }) as unknown as StructuredSummary;

  it("cites a cluster with one exemplar rollout, nothing for no cluster, and the top field of a direction", () => {
    const cite = evidenceWriter(summary([]));
    const c = { id: "c1", category: "agent_timeout", signature: "ran out", exemplarRolloutIds: ["r1", "r2"] } as unknown as SummaryCluster;
    expect(cite.cluster(c, "3 of 8")).toEqual([
      { kind: "cluster", ref: "c1", note: "3 of 8; agent_timeout: ran out" },
      { kind: "rollout", ref: "r1" },
    ]);
    expect(cite.cluster({ ...c, exemplarRolloutIds: [] })).toEqual([{ kind: "cluster", ref: "c1", note: "agent_timeout: ran out" }]);
    expect(cite.cluster(null)).toEqual([]);
    expect(cite.field(undefined)).toEqual([]);
    const top = { path: "size", easy: 0.9, hard: 0.1, drop: 0.8 };
    expect(cite.field({ direction: "horizon", fields: [], drop: 0.8, lift: null, score: 0.8, top })[0]).toMatchObject({
      kind: "stat",
      ref: "field:size",
    });
    expect(cite.coverageGap).toBeNull();
  });

  it("finds the least covered level of a categorical field when it holds under half its share", () => {
    const colorField = {
      path: "color",
      kind: "nominal",
      direction: "diversify",
      difficulty: null,
      buckets: [
        { label: "red", environments: 10, rollouts: 40, successRate: 0.5 },
        { label: "blue", environments: 9, rollouts: 40, successRate: 0.5 },
        { label: "green", environments: 1, rollouts: 4, successRate: 0.5 },
        { label: "(missing)", environments: 0, rollouts: 0, successRate: null },
      ],
    } as SummaryField;
    expect(evidenceWriter(summary([colorField])).coverageGap).toMatchObject({
      kind: "stat",
      ref: "field:color",
      note: expect.stringContaining("green has 1 of 20"),
    });
    const even = { ...colorField, buckets: colorField.buckets.map((b) => ({ ...b, environments: 5 })) };
    expect(evidenceWriter(summary([even])).coverageGap).toBeNull();
  });
});

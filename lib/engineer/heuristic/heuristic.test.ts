import { describe, expect, it } from "vitest";
import { getFieldValue } from "@/lib/families/field-path";
import { fieldHardness } from "@/lib/families/hardness";
import { configHash } from "@/lib/families/hash";
import { stepHarder } from "@/lib/families/operators";
import { heuristicEngineer } from ".";
import type { EngineerInput, EngineerOutput, PopulationMember } from "../types";
import {
  buildSummary,
  buildInput,
  children,
  inBounds,
  frozenlake,
  terminal,
  flInput,
  flProposal,
  perTest,
  ttInput,
  ttProposal,
} from "./test-input";
import type { FieldSpec } from "@/lib/families/types";

const flOut = perTest(flProposal);
const ttOut = perTest(ttProposal);

/** Single steps (stepHarder) from `from` to `to` in direction `sign`; Infinity when `to` is not on that path. */
function stepsBetween(field: FieldSpec, from: unknown, to: unknown, sign: 1 | -1): number {
  let v = from;
  for (let steps = 0; steps <= 10; steps++) {
    if (v === to) return steps;
    v = stepHarder(field, v, sign);
  }
  return Infinity;
}

describe("heuristicEngineer: determinism", () => {
  it("gives a deep-equal proposal for the same seed", () => {
    expect(heuristicEngineer(flInput)).toEqual(flOut());
    expect(heuristicEngineer(ttInput)).toEqual(ttOut());
  });

  it("gives different children for a different seed", () => {
    const other = heuristicEngineer({ ...flInput, options: { seed: 8 } });
    const hashes = (out: EngineerOutput) => children(out).map((c) => configHash(c.config));
    expect(hashes(other)).not.toEqual(hashes(flOut()));
  });

  it("defaults the seed to a hash of project and generation", () => {
    const input = { ...flInput, options: {} };
    expect(heuristicEngineer(input)).toEqual(heuristicEngineer(input));
  });
});

describe("heuristicEngineer: the fate of every member", () => {
  for (const [name, input, proposal] of [
    ["frozenlake-mapf", flInput, flOut],
    ["terminal-task", ttInput, ttOut],
  ] as const) {
    it(`${name}: gives each population member exactly one keep or retire item`, () => {
      const fates = proposal().items.filter((i) => i.op === "keep" || i.op === "retire");
      expect(fates).toHaveLength(input.population.length);
      expect(new Set(fates.map((i) => i.environmentKey))).toEqual(new Set(input.population.map((m) => m.key)));
      for (const item of fates) {
        const member = input.population.find((m) => m.key === item.environmentKey) as PopulationMember;
        expect(item.config).toEqual(member.config);
      }
    });

    it(`${name}: keeps at most half of the population, the most learnable first`, () => {
      const out = proposal();
      const keeps = out.items.filter((i) => i.op === "keep");
      expect(keeps.length).toBeGreaterThan(0);
      expect(keeps.length).toBeLessThanOrEqual(Math.floor(input.population.length / 2));
      const total = out.items.filter((i) => i.op !== "retire").length;
      expect(total).toBeLessThanOrEqual(input.population.length);
    });
  }

  it("retires unsolvable and invalid environments with that reason", () => {
    const byKey = new Map(flOut().items.map((i) => [i.environmentKey, i]));
    const unsolvable = byKey.get("g3-005");
    expect(unsolvable?.op).toBe("retire");
    expect(unsolvable?.rationale).toMatch(/^Unsolvable/);
    const invalid = byKey.get("g3-007");
    expect(invalid?.op).toBe("retire");
    expect(invalid?.rationale).toMatch(/^Invalid/);
    // never used as parents
    for (const child of children(flOut())) {
      expect(["g3-005", "g3-007"]).not.toContain(child.parentKey);
      expect(["g3-005", "g3-007"]).not.toContain(child.secondParentKey);
    }
  });

  it("retires hopeless environments only after two generations at zero", () => {
    const byKey = new Map(flOut().items.map((i) => [i.environmentKey, i]));
    expect(byKey.get("g3-002")?.rationale).toMatch(/^Hopeless/);
    expect(byKey.get("g3-003")?.rationale ?? "").not.toMatch(/^Hopeless/);
  });

  it("retires solved environments and names every retirement's reason", () => {
    for (const item of flOut().items.filter((i) => i.op === "retire")) {
      expect(item.rationale).toMatch(/^(Solved|Hopeless|Unsolvable|Invalid|Outranked)/);
    }
    for (const key of ["g3-000", "g3-001", "g3-010"]) {
      const item = flOut().items.find((i) => i.environmentKey === key);
      expect(item?.op).toBe("retire");
      expect(item?.rationale).toMatch(/^Solved \(8\/8/);
    }
  });
});

describe("heuristicEngineer: children", () => {
  it("proposes children that validate, with unique keys and fresh hashes", () => {
    for (const [input, out] of [
      [flInput, flOut()],
      [ttInput, ttOut()],
    ] as const) {
      const kids = children(out);
      expect(kids.length).toBeGreaterThan(0);
      const hashes = kids.map((c) => configHash(c.config));
      expect(new Set(hashes).size).toBe(hashes.length);
      for (const [i, child] of kids.entries()) {
        expect(input.family.validate(child.config).state, child.environmentKey).toBe("valid");
        expect(input.knownHashes.has(hashes[i])).toBe(false);
        expect(child.environmentKey).toMatch(/^g4-\d{3}$/);
        expect(child.proposer).toBe("heuristic");
        expect(child.direction).toBeDefined();
        expect(child.predictedSuccess).toBeGreaterThanOrEqual(0);
        expect(child.predictedSuccess).toBeLessThanOrEqual(1);
      }
      const keys = out.items.map((i) => i.environmentKey);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it("never lets a known hash in again, and counts the duplicates it dropped", () => {
    const first = children(flOut()).map((c) => configHash(c.config));
    const input = { ...flInput, knownHashes: new Set([...flInput.knownHashes, ...first]) };
    const again = heuristicEngineer(input);
    for (const child of children(again)) expect(input.knownHashes.has(configHash(child.config))).toBe(false);
    expect(again.dropped.find((d) => d.reason === "duplicate")?.count ?? 0).toBeGreaterThan(0);
  });

  it("fills the population back to its size with mutations and, by default, one fresh sample; at 15% adds with crossovers too", () => {
    const ops = (out: EngineerOutput, op: string) => out.items.filter((i) => i.op === op).length;
    const flagged = (out: EngineerOutput, flag: string) => out.items.filter((i) => i.flags?.includes(flag));
    // 40 members: max(1, round(0.03 x 40)) = 1 add (HEURISTIC_DEFAULTS.addShare), half of it crossovers (none)
    const out = flOut();
    expect(ops(out, "keep") + ops(out, "mutate") + ops(out, "add")).toBe(flInput.population.length);
    expect(ops(out, "add")).toBe(1);
    expect(flagged(out, "fresh_sample").map((i) => i.parentKey ?? null)).toEqual([null]);
    expect(flagged(out, "crossover")).toEqual([]);
    // ENGINEER.md's 15%: round(0.15 x 40) = 6 adds, 3 of them crossovers of two parents
    const wide = heuristicEngineer({ ...flInput, options: { ...flInput.options, addShare: 0.15 } });
    expect(ops(wide, "keep") + ops(wide, "mutate") + ops(wide, "add")).toBe(flInput.population.length);
    expect(ops(wide, "add")).toBe(6);
    expect(flagged(wide, "crossover").filter((i) => i.parentKey && i.secondParentKey)).toHaveLength(3);
    expect(flagged(wide, "fresh_sample").filter((i) => !i.parentKey)).toHaveLength(3);
  });

  it("pushes solved parents harder along a difficulty direction, numeric fields as many steps as the parent is past the frontier", () => {
    const byKey = new Map(flInput.population.map((m) => [m.key, m]));
    const harder = children(flOut()).filter((c) => c.rationale.startsWith("Solved"));
    expect(harder.length).toBeGreaterThan(0);
    for (const child of harder) {
      const parent = byKey.get(child.parentKey as string) as PopulationMember;
      expect(["horizon", "uncertainty", "precision"]).toContain(child.direction);
      let directedEdits = 0;
      for (const field of frozenlake.fields) {
        const from = getFieldValue(parent.config, field.path);
        const to = getFieldValue(child.config, field.path);
        if (from === to) continue;
        if (field.difficulty) {
          expect(field.direction).toBe(child.direction);
          if (field.kind === "integer" || field.kind === "number") {
            // A parent that passed s of n moves 1 + floor(logit((s + 1) / (n + 2))) steps at least, at most 4 (parentSteps).
            const own = Math.min(4, 1 + Math.floor(Math.log((parent.s + 1) / (parent.n - parent.s + 1))));
            const steps = stepsBetween(field, from, to, 1);
            expect(steps, field.path).toBeGreaterThanOrEqual(own);
            expect(steps, field.path).toBeLessThanOrEqual(4);
          } else expect(to, field.path).toBe(stepHarder(field, from, 1));
          expect(fieldHardness(field, to)).toBeGreaterThan(fieldHardness(field, from) as number);
          directedEdits += 1;
        } else {
          expect(field.direction, `${field.path} may change only as a reseed`).toBe("diversify");
        }
      }
      expect(directedEdits).toBeGreaterThanOrEqual(1);
      expect(directedEdits).toBeLessThanOrEqual(3);
      expect(child.predictedSuccess as number).toBeLessThan((parent.s + 1) / (parent.n + 2));
    }
  });

  it("makes parents with q < 0.2 easier along a difficulty direction", () => {
    const out = heuristicEngineer({ ...ttInput, options: { seed: 11, keepShare: 0.1 } });
    const byKey = new Map(ttInput.population.map((m) => [m.key, m]));
    const easier = children(out).filter((c) => c.rationale.startsWith("Too hard"));
    expect(easier.length).toBeGreaterThan(0);
    let timeoutDriven = 0;
    for (const child of easier) {
      const parent = byKey.get(child.parentKey as string) as PopulationMember;
      expect(parent.s / parent.n).toBeLessThan(0.2);
      // A timeout-driven step raises the budget (agent_timeout_sec) several steps at once; every other field moves one step.
      const timedOut = /timed out \(agent_timeout\)/.test(child.rationale);
      if (timedOut) timeoutDriven += 1;
      for (const field of terminal.fields.filter((f) => f.difficulty)) {
        const from = getFieldValue(parent.config, field.path);
        const to = getFieldValue(child.config, field.path);
        if (from === to) continue;
        if (timedOut && field.path === "agent_timeout_sec") {
          let steps = 0;
          for (let v = from; v !== to && steps < 10; steps++) v = stepHarder(field, v, -1);
          expect(steps, field.path).toBeGreaterThanOrEqual(1);
          expect(steps, field.path).toBeLessThanOrEqual(4);
        } else if (field.kind === "integer" || field.kind === "number") {
          // A parent that passed s of n moves 1 + floor(-logit((s + 1) / (n + 2))) steps easier at least, at most 4 (parentSteps).
          const own = Math.min(4, 1 + Math.floor(-Math.log((parent.s + 1) / (parent.n - parent.s + 1))));
          const steps = stepsBetween(field, from, to, -1);
          expect(steps, field.path).toBeGreaterThanOrEqual(own);
          expect(steps, field.path).toBeLessThanOrEqual(4);
        } else expect(to, field.path).toBe(stepHarder(field, from, -1));
      }
    }
    expect(timeoutDriven).toBeGreaterThan(0);
  });

  it("keeps numeric fields in bounds, moves ordinals one level and resamples nominals among their levels", () => {
    for (const [input, out] of [
      [flInput, flOut()],
      [ttInput, ttOut()],
    ] as const) {
      const byKey = new Map(input.population.map((m) => [m.key, m]));
      for (const child of children(out)) {
        for (const field of input.family.fields) {
          const to = getFieldValue(child.config, field.path);
          if (to !== undefined) expect(inBounds(field, to), `${child.environmentKey} ${field.path}=${String(to)}`).toBe(true);
        }
        if (child.op !== "mutate") continue;
        const parent = byKey.get(child.parentKey as string) as PopulationMember;
        for (const field of input.family.fields) {
          const from = getFieldValue(parent.config, field.path);
          const to = getFieldValue(child.config, field.path);
          if (from === to) continue;
          expect(field.mutable, `${field.path} is an identity field`).not.toBe(false);
          if (field.kind === "ordinal" && from !== undefined) {
            const levels = field.levels as unknown[];
            expect(Math.abs(levels.indexOf(to) - levels.indexOf(from)), field.path).toBe(1);
          }
          if (field.kind === "nominal") expect(field.levels).toContain(to);
        }
      }
    }
    const ordinalMoves = children(ttOut()).filter((c) => c.op === "mutate");
    expect(ordinalMoves.length).toBeGreaterThan(0);
  });
});

describe("heuristicEngineer: evidence", () => {
  it("cites only clusters and rollouts of the summary, and only real environments and fields", () => {
    for (const [input, out] of [
      [flInput, flOut()],
      [ttInput, ttOut()],
    ] as const) {
      const clusterIds = new Set(input.summary.failures.clusters.map((c) => c.id));
      const rolloutIds = new Set(input.summary.failures.clusters.flatMap((c) => c.exemplarRolloutIds));
      const envKeys = new Set(input.population.map((m) => m.key));
      const paths = new Set(input.family.fields.map((f) => f.path));
      let clusterRefs = 0;
      for (const item of out.items) {
        expect(item.rationale.length).toBeGreaterThan(10);
        for (const ref of item.evidence) {
          if (ref.kind === "cluster") {
            expect(clusterIds.has(ref.ref), ref.ref).toBe(true);
            clusterRefs += 1;
          } else if (ref.kind === "rollout") {
            expect(rolloutIds.has(ref.ref), ref.ref).toBe(true);
          } else {
            const [kind, name] = [ref.ref.slice(0, ref.ref.indexOf(":")), ref.ref.slice(ref.ref.indexOf(":") + 1)];
            if (kind === "env") expect(envKeys.has(name), ref.ref).toBe(true);
            else {
              expect(kind).toBe("field");
              expect(paths.has(name), ref.ref).toBe(true);
            }
          }
        }
        if (item.op !== "add") expect(item.evidence.length, item.environmentKey).toBeGreaterThan(0);
      }
      expect(clusterRefs).toBeGreaterThan(0);
    }
  });

  it("cites an infra cluster only on items flagged infra, and writes rationales with numbers", () => {
    // g3-002's failures are mostly infrastructure (the fixture's cl-infra): its retire item cites it, nothing else does.
    for (const item of flOut().items) {
      const cited = item.evidence.filter((e) => e.kind === "cluster").map((e) => e.ref);
      if (cited.includes("cl-infra")) expect(item.flags, item.environmentKey).toContain("infra");
    }
    expect(flOut().items.find((i) => i.environmentKey === "g3-002")?.flags).toContain("infra");
    const harder = children(flOut()).find((c) => c.rationale.startsWith("Solved"));
    expect(harder?.rationale).toMatch(
      /Solved \(8\/8, q 1\.00.*\): pushed harder along \w+, which the failure evidence points to least(?: among the directions .+?)?: \w+ [\d.]+→[\d.]+/,
    );
  });

  it("notes the direction evidence and the child counts", () => {
    expect(flOut().notes.some((n) => n.startsWith("Failure evidence by direction"))).toBe(true);
    expect(flOut().notes.some((n) => n.startsWith("Children:"))).toBe(true);
  });
});

describe("heuristicEngineer: options and edge cases", () => {
  it("honours populationSize, keepShare and addShare", () => {
    const out = heuristicEngineer({ ...ttInput, options: { seed: 3, populationSize: 30, keepShare: 0.2, addShare: 0.3 } });
    expect(out.items.filter((i) => i.op === "keep")).toHaveLength(6);
    expect(out.items.filter((i) => i.op === "add")).toHaveLength(9);
    expect(out.items.filter((i) => i.op !== "retire")).toHaveLength(30);
  });

  it("uses the GRPO group learnability when a group size is given", () => {
    const out = heuristicEngineer({ ...ttInput, options: { seed: 11, groupSize: 8 } });
    expect(out.items.filter((i) => i.op === "keep").length).toBe(ttOut().items.filter((i) => i.op === "keep").length);
    expect(out.items.find((i) => i.op === "keep")?.evidence[0].note).toMatch(/learnability 0\.\d+/);
  });

  it("handles an empty population", () => {
    const input = buildInput(terminal, 0, { seed: 1 });
    expect(heuristicEngineer(input)).toMatchObject({ items: [], dropped: [] });
    const grown = heuristicEngineer({ ...input, options: { seed: 1, populationSize: 5 } });
    expect(grown.items.filter((i) => i.op === "add")).toHaveLength(5);
  });
});

describe("heuristicEngineer: learning progress and step sizes", () => {
  /** flInput with some members replaced by the given outcomes (summary rebuilt). */
  function withOutcomes(edit: (m: PopulationMember, i: number) => Partial<PopulationMember>): EngineerInput {
    const population = flInput.population.map((m, i) => ({ ...m, ...edit(m, i) }));
    return { ...flInput, population, summary: buildSummary(frozenlake, population, flInput.summary.failures.clusters) };
  }

  it("retires a member trained for three generations without its success rate rising, and never breeds from it", () => {
    const input = withOutcomes((m, i) =>
      i === 4 ? { s: 4, n: 8, history: [0.5, 0.5], age: 3 } : i === 6 ? { s: 5, n: 8, history: [0.25, 0.5], age: 3 } : {},
    );
    const out = heuristicEngineer(input);
    const flat = out.items.find((i) => i.environmentKey === "g3-004");
    expect(flat?.op).toBe("retire");
    expect(flat?.flags).toContain("retire:plateaued");
    expect(flat?.rationale).toMatch(/^Plateaued \(learnability without learning progress\): success rates 0\.50 → 0\.50 → 0\.50/);
    for (const child of children(out)) {
      expect(child.parentKey).not.toBe("g3-004");
      expect(child.secondParentKey).not.toBe("g3-004");
    }
    // rising from 0.25 to 0.5 and 0.625 is progress
    expect(out.items.find((i) => i.environmentKey === "g3-006")?.flags ?? []).not.toContain("retire:plateaued");
    expect(out.notes[0]).toMatch(/plateaued 1,/);
    // plateauGenerations 0 turns it off
    const off = heuristicEngineer({ ...input, options: { seed: 7, plateauGenerations: 0 } });
    expect(off.items.find((i) => i.environmentKey === "g3-004")?.flags ?? []).not.toContain("retire:plateaued");
  });

  it("pushes harder a member plateaued while mostly passed (0.6 or more on average), and says so on both items", () => {
    // 5/8 three times: no rise, mean 0.625; 0.5 three times: no rise, mean 0.5 (a noisy TV looks like this)
    const input = withOutcomes((m, i) =>
      i === 4 ? { s: 5, n: 8, history: [0.625, 0.625], age: 3 } : i === 6 ? { s: 4, n: 8, history: [0.5, 0.5], age: 3 } : {},
    );
    const out = heuristicEngineer(input);
    const mostly = out.items.find((i) => i.environmentKey === "g3-004");
    expect(mostly?.flags).toContain("retire:plateaued");
    const child = children(out).find((c) => c.parentKey === "g3-004");
    expect(child?.op).toBe("mutate");
    expect(child?.rationale).toMatch(
      /^Plateaued while mostly passed \(mean 0\.63 over 3 generations\) \(5\/8, q 0\.63[^)]*\): pushed harder along \w+, /,
    );
    expect(mostly?.rationale).toBe(
      "Plateaued (learnability without learning progress): success rates 0.63 → 0.63 → 0.63 over 3 generations of " +
        `training, no rise of 0.1: retired; passed 0.63 on average (0.6 or more), so its harder child ${child?.environmentKey} takes its place.`,
    );
    // the harder child is harder by the schema's signs
    const parent = input.population[4];
    const moved = frozenlake.fields.filter(
      (f) => f.difficulty && getFieldValue(parent.config, f.path) !== getFieldValue(child?.config, f.path),
    );
    expect(moved.length).toBeGreaterThan(0);
    for (const f of moved)
      expect(fieldHardness(f, getFieldValue(child?.config, f.path)) ?? 0, f.path).toBeGreaterThan(
        fieldHardness(f, getFieldValue(parent.config, f.path)) ?? 0,
      );
    // the member passed half the time breeds nothing, and its rationale says it is no parent
    expect(children(out).some((c) => c.parentKey === "g3-006" || c.secondParentKey === "g3-006")).toBe(false);
    expect(out.items.find((i) => i.environmentKey === "g3-006")?.rationale).toMatch(/: retired, not used as a parent\.$/);
  });

  it("retires a plateaued member's child in the same band with it, says why, and breeds from neither", () => {
    const input = withOutcomes((m, i) =>
      i === 4
        ? { s: 4, n: 8, history: [0.5, 0.5], age: 3 }
        : i === 9
          ? { s: 4, n: 8, history: [], age: 1, parentKey: "g3-004", op: "mutate" }
          : i === 10
            ? { s: 8, n: 8, history: [], age: 1, parentKey: "g3-004", op: "mutate" }
            : {},
    );
    const out = heuristicEngineer(input);
    const lineage = out.items.find((i) => i.environmentKey === "g3-009");
    expect(lineage?.op).toBe("retire");
    expect(lineage?.flags).toContain("retire:plateaued");
    expect(lineage?.rationale).toBe(
      "Plateaued lineage: its parent g3-004 plateaued (learnability without learning progress) and it passes 0.50 (4/8), " +
        "in the same band 0.2-0.8: retired with it, not used as a parent.",
    );
    // the child that passed 8/8 has left the band: solved, not plateaued
    expect(out.items.find((i) => i.environmentKey === "g3-010")?.flags).toContain("retire:solved");
    for (const child of children(out)) {
      expect([child.parentKey, child.secondParentKey]).not.toContain("g3-009");
      expect([child.parentKey, child.secondParentKey]).not.toContain("g3-004");
    }
    expect(out.notes[0]).toMatch(/plateaued 2,/);
  });

  it("takes several steps a numeric field when the policy has outgrown the population, ordinals still one level", () => {
    const input = withOutcomes((m, i) => (m.validation.state === "valid" ? { s: i % 3 === 0 ? 7 : 8, n: 8, history: [] } : {}));
    const out = heuristicEngineer(input);
    const byKey = new Map(input.population.map((m) => [m.key, m]));
    const harder = children(out).filter((c) => c.rationale.startsWith("Solved") || c.rationale.startsWith("Nearly solved"));
    expect(harder.length).toBeGreaterThan(0);
    let multi = 0;
    for (const child of harder) {
      const parent = byKey.get(child.parentKey as string) as PopulationMember;
      for (const field of frozenlake.fields.filter((f) => f.difficulty)) {
        const from = getFieldValue(parent.config, field.path);
        const to = getFieldValue(child.config, field.path);
        if (from === to) continue;
        expect(fieldHardness(field, to) as number).toBeGreaterThan(fieldHardness(field, from) as number);
        let steps = 0;
        for (let v = from; v !== to && steps < 10; steps++) v = stepHarder(field, v, 1);
        expect(steps, field.path).toBeLessThanOrEqual(field.kind === "integer" || field.kind === "number" ? 4 : 1);
        if (steps > 1) multi += 1;
      }
    }
    expect(multi).toBeGreaterThan(0);
  });
});

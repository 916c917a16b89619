/**
 * Step 1 of the heuristic engineer: the retirement reasons at their boundaries and the failure
 * profile. Each block says which inverted rule or flipped threshold it catches.
 */
import { describe, expect, it } from "vitest";
import { learnability } from "@/lib/analytics/metrics";
import type { PopulationMember, StructuredSummary, SummaryCluster } from "../types";
import { HEURISTIC_DEFAULTS } from "./defaults";
import { failureKind, failureProfile, scoreMembers } from "./score";

type Outcome = Partial<PopulationMember> & { s: number; n: number };

function member(key: string, outcome: Outcome): PopulationMember {
  return {
    key,
    config: { seed: 1 },
    configHash: key,
    parentKey: null,
    op: "seed",
    direction: null,
    validation: { state: "valid", pMax: null },
    age: 1 + (outcome.history?.length ?? 0),
    history: [],
    clusterIds: [],
    ...outcome,
  };
}

function summaryWith(clusters: SummaryCluster[] = []): StructuredSummary {
  return { failures: { categories: [], clusters } } as unknown as StructuredSummary;
}

/** The retirement reason scoreMembers gives one member (plateau rule on, as by default). */
function reasonOf(outcome: Outcome, plateauGenerations: number = HEURISTIC_DEFAULTS.plateauGenerations) {
  return scoreMembers([member("m", outcome)], summaryWith(), undefined, plateauGenerations)[0].retire;
}

function cluster(id: string, category: SummaryCluster["category"], count: number, environments = 1, infra = false): SummaryCluster {
  return {
    id,
    category,
    signature: `${category}: ${id}`,
    count,
    environments,
    environmentKeys: [],
    exemplarRolloutIds: [],
    excerpt: "",
    infra,
  };
}

describe("scoreMembers: solved (q >= 0.9 with n >= 4)", () => {
  // catches: the solved comparison inverted, solvedRate flipped (0.9 -> 0.1), the attempt floor inverted
  it("retires 8/8, 4/4 and 9/10 (exactly 0.9) as solved", () => {
    expect(reasonOf({ s: 8, n: 8 })).toBe("solved");
    expect(reasonOf({ s: 4, n: 4 })).toBe("solved");
    expect(reasonOf({ s: 9, n: 10 })).toBe("solved");
  });

  it("does not retire 7/8 (0.875), 3/3 (too few attempts) or 1/8 as solved", () => {
    expect(reasonOf({ s: 7, n: 8 })).toBeNull();
    expect(reasonOf({ s: 3, n: 3 })).toBeNull();
    expect(reasonOf({ s: 1, n: 8 })).toBeNull();
    expect(reasonOf({ s: 4, n: 8 })).toBeNull();
  });

  it("judges solved on q = p / p_max: 4/8 at p_max 0.5 is solved, 4/8 at p_max 0.8 is not", () => {
    expect(reasonOf({ s: 4, n: 8, validation: { state: "valid", pMax: 0.5 } })).toBe("solved");
    expect(reasonOf({ s: 4, n: 8, validation: { state: "valid", pMax: 0.8 } })).toBeNull();
  });
});

describe("scoreMembers: hopeless (zero now and in the previous generation, n >= 4)", () => {
  // catches: the "previous generation at zero" test inverted, the attempt floor flipped
  it("retires 0/8 after a generation at zero", () => {
    expect(reasonOf({ s: 0, n: 8, history: [0] })).toBe("hopeless");
    expect(reasonOf({ s: 0, n: 4, history: [0.5, 0] })).toBe("hopeless");
  });

  it("keeps a first zero, a zero after a success, a member with a pass and one with too few attempts", () => {
    expect(reasonOf({ s: 0, n: 8, history: [] })).toBeNull();
    expect(reasonOf({ s: 0, n: 8, history: [0.25] })).toBeNull();
    expect(reasonOf({ s: 1, n: 8, history: [0] })).toBeNull();
    expect(reasonOf({ s: 0, n: 3, history: [0] })).toBeNull();
  });
});

describe("scoreMembers: unsolvable and invalid", () => {
  // catches: the unsolvable or invalid test inverted (every valid member would retire)
  it("retires by validation, whatever the results", () => {
    expect(reasonOf({ s: 4, n: 8, validation: { state: "invalid", pMax: null } })).toBe("invalid");
    expect(reasonOf({ s: 0, n: 8, validation: { state: "unsolvable", pMax: null } })).toBe("unsolvable");
    expect(reasonOf({ s: 0, n: 8, validation: { state: "valid", pMax: 0 } })).toBe("unsolvable");
    expect(reasonOf({ s: 3, n: 8, validation: { state: "valid", pMax: 0.5 } })).toBeNull();
  });

  it("scores an unsolvable member's learnability 0 and gives no rate", () => {
    const [sc] = scoreMembers([member("u", { s: 2, n: 8, validation: { state: "valid", pMax: 0 } })], summaryWith(), undefined, 3);
    expect(sc.learnability).toBe(0);
    expect(sc.q).toBeNull();
  });
});

describe("scoreMembers: plateaued (3 generations in the frontier band without rising 0.1)", () => {
  // catches: the "has not risen" test inverted, the band edges swapped, the generation count ignored
  it("retires a member flat at 0.5 for three generations", () => {
    expect(reasonOf({ s: 4, n: 8, history: [0.5, 0.5] })).toBe("plateaued");
    expect(reasonOf({ s: 3, n: 8, history: [0.4, 0.3] })).toBe("plateaued");
  });

  it("keeps a member that rose by 0.1 or more, one measured in fewer generations, and one with the rule off", () => {
    expect(reasonOf({ s: 5, n: 8, history: [0.25, 0.5] })).toBeNull();
    expect(reasonOf({ s: 4, n: 8, history: [0.5] })).toBeNull();
    expect(reasonOf({ s: 4, n: 8, history: [0.5, 0.5] }, 0)).toBeNull();
  });

  it("leaves members outside the band [0.2, 0.8] to the other rules", () => {
    expect(reasonOf({ s: 1, n: 10, history: [0.1, 0.1] })).toBeNull();
    expect(reasonOf({ s: 17, n: 20, history: [0.85, 0.85] })).toBeNull();
  });

  // catches: the band's edges made exclusive, a rise of exactly 0.1 counted as standing still
  it("counts the band's edges 0.2 and 0.8 in, and a rise of exactly 0.1 as a rise", () => {
    expect(reasonOf({ s: 2, n: 10, history: [0.2, 0.2] })).toBe("plateaued");
    expect(reasonOf({ s: 8, n: 10, history: [0.8, 0.8] })).toBe("plateaued");
    // first 0.3, the last two 0.4 and 0.4: exactly 0.1 above (0.3 + 0.1 === 0.4 in floating point)
    expect(reasonOf({ s: 4, n: 10, history: [0.3, 0.4] })).toBeNull();
    // a hair less than 0.1 above is standing still
    expect(reasonOf({ s: 39, n: 100, history: [0.3, 0.4] })).toBe("plateaued");
  });
});

describe("scoreMembers: a plateaued member's lineage (retirePlateauedLineage)", () => {
  const plateau = (key = "tv") => member(key, { s: 4, n: 8, history: [0.5, 0.5] });
  const child = (key: string, s: number, parentKey: string | null = "tv", extra: Partial<PopulationMember> = {}) =>
    member(key, { s, n: 8, parentKey, op: "mutate", ...extra });
  const score = (population: PopulationMember[], plateauGenerations: number = HEURISTIC_DEFAULTS.plateauGenerations) =>
    new Map(scoreMembers(population, summaryWith(), 8, plateauGenerations).map((sc) => [sc.member.key, sc]));

  // catches: the lineage rule gone (a noisy TV's children breed on), applied to another parent's children, or its band inverted
  it("retires the children of a member that plateaued this generation while they pass within the band [0.2, 0.8]", () => {
    const byKey = score([
      plateau(),
      child("mid", 4),
      child("low-edge", 2), // 0.25
      child("high-edge", 6), // 0.75
      child("grown", 3, "tv", { history: [0.5] }), // any age
      child("other", 4, "someone-else"),
      child("orphan", 4, null),
    ]);
    expect(byKey.get("tv")!.retire).toBe("plateaued");
    for (const key of ["mid", "low-edge", "high-edge", "grown"]) {
      expect(byKey.get(key)!.retire, key).toBe("plateaued");
      expect(byKey.get(key)!.plateauedParent, key).toBe("tv");
    }
    for (const key of ["other", "orphan"]) {
      expect(byKey.get(key)!.retire, key).toBeNull();
      expect(byKey.get(key)!.plateauedParent, key).toBeUndefined();
    }
  });

  // catches: the band test dropped or flipped (a child that moved out of the band is judged by the other rules)
  it("leaves a child that passes mostly or fails mostly, one with another reason, and all of them when the parent did not plateau", () => {
    const byKey = score([plateau(), child("solved", 8), child("nearly", 7), child("rarely", 1), child("none", 0)]);
    expect(byKey.get("solved")!.retire).toBe("solved");
    expect(byKey.get("nearly")!.retire).toBeNull(); // 0.875
    expect(byKey.get("rarely")!.retire).toBeNull(); // 0.125
    expect(byKey.get("none")!.retire).toBeNull(); // 0/8 without a zero the generation before
    // the parent rose (not plateaued), or the plateau rule is off: its children stay
    const rising = score([member("tv", { s: 6, n: 8, history: [0.25, 0.5] }), child("mid", 4)]);
    expect(rising.get("tv")!.retire).toBeNull();
    expect(rising.get("mid")!.retire).toBeNull();
    const off = score([plateau(), child("mid", 4)], 0);
    expect(off.get("mid")!.retire).toBeNull();
    // the band's edges are in: a child passed 2 of 10 or 8 of 10 retires with the parent
    const edges = score([
      plateau(),
      member("low", { s: 2, n: 10, parentKey: "tv", op: "mutate" }),
      member("high", { s: 8, n: 10, parentKey: "tv", op: "mutate" }),
    ]);
    expect(edges.get("low")!.retire).toBe("plateaued");
    expect(edges.get("high")!.retire).toBe("plateaued");
    // an invalid child keeps its own reason
    expect(score([plateau(), child("bad", 4, "tv", { validation: { state: "invalid", pMax: null } })]).get("bad")!.retire).toBe("invalid");
  });
});

describe("scoreMembers: scores", () => {
  it("gives q, the posterior mean, learnability and learning progress per member", () => {
    const [flat, rising] = scoreMembers(
      [member("a", { s: 2, n: 8, history: [0.25] }), member("b", { s: 6, n: 8, history: [0.1, 0.3] })],
      summaryWith(),
      undefined,
      0,
    );
    expect(flat.q).toBeCloseTo(0.25, 12);
    expect(flat.mean).toBeCloseTo(0.3, 12);
    expect(flat.learnability).toBeCloseTo(learnability(8, 2), 12);
    expect(flat.progress).toBe(0);
    expect(rising.progress).toBeGreaterThan(0.01);
    expect(flat.index).toBe(0);
    expect(rising.index).toBe(1);
  });

  // catches: the learning progress read from the history alone, without this generation's rate
  it("counts this generation's rate in the learning progress", () => {
    const [still, jumped] = scoreMembers(
      [member("a", { s: 2, n: 8, history: [0.25] }), member("b", { s: 6, n: 8, history: [0.25] })],
      summaryWith(),
      undefined,
      0,
    );
    expect(still.progress).toBe(0);
    expect(jumped.progress).toBeGreaterThan(0.01);
  });

  it("uses the GRPO group learnability with a group size", () => {
    const [sc] = scoreMembers([member("a", { s: 4, n: 8 })], summaryWith(), 8, 0);
    expect(sc.learnability).toBeGreaterThan(0.5);
  });
});

describe("failureKind and failureProfile", () => {
  const profileOf = (clusters: SummaryCluster[], failures = 8) =>
    failureProfile(
      member("m", { s: 10 - failures, n: 10, clusterIds: clusters.map((c) => c.id) }),
      new Map(clusters.map((c) => [c.id, c])),
    );

  // catches: the pooling of adjacent violators gone or its sums broken (clusterIds lists the member's clusters largest
  // first, so a later cluster never gets a larger share of its failures than an earlier one)
  it("pools a later cluster that weighs more per environment with the earlier one: equal shares, no dominant kind at half", () => {
    // weights 2 / 2 = 1 (listed first: the member's larger cluster) and 9 / 1 = 9, pooled to 5 and 5: 4 of the 8 failures each
    const p = profileOf([cluster("tests", "verifier_failed", 2, 2), cluster("slow", "agent_timeout", 9, 1)]);
    expect(p.dominant).toBeNull(); // 4 of 8 each: not more than half
    expect(p.top).toEqual({ cluster: expect.objectContaining({ id: "tests" }), count: 4 }); // the first of equal shares
    // behind a heavier first cluster (5 / 1) only the violating pair pools: 5, then (1 + 9) / 2 = 5 twice, 8/3 failures each
    const three = profileOf([
      cluster("hang", "agent_timeout", 5, 1),
      cluster("tests", "verifier_failed", 2, 2),
      cluster("slow", "agent_timeout", 9, 1),
    ]).dominant!;
    expect(three.kind).toBe("timeout");
    expect(three.exact).toBe(false);
    expect(three.count).toBe(5); // round(16 / 3)
  });

  // catches: the dominant kind's category taken from its largest cluster, or from the last category seen, instead of the
  // category holding most of the kind's failures
  it("names the category holding most of the dominant kind's failures, not that of its largest cluster", () => {
    // estimates 3, 2.5, 2.5 of 8 failures (weights 6 / 2, 5 / 2, 5 / 2)
    const first = profileOf([
      cluster("v1", "verifier_timeout", 6, 2),
      cluster("a1", "agent_timeout", 5, 2),
      cluster("v2", "verifier_timeout", 5, 2),
    ]).dominant!;
    expect(first.kind).toBe("timeout");
    expect(first.category).toBe("verifier_timeout"); // 5.5 against 2.5
    expect(first.cluster.id).toBe("v1");
    const second = profileOf([
      cluster("a1", "agent_timeout", 6, 2),
      cluster("v1", "verifier_timeout", 5, 2),
      cluster("v2", "verifier_timeout", 5, 2),
    ]).dominant!;
    expect(second.category).toBe("verifier_timeout"); // 5 against 3, though the largest cluster is an agent timeout
    expect(second.cluster.id).toBe("a1");
    expect(second.count).toBe(8);
    expect(second.exact).toBe(true);
  });

  it("maps categories to kinds", () => {
    expect(failureKind(cluster("a", "infra_error", 1))).toBe("infra");
    expect(failureKind(cluster("b", "verifier_failed", 1, 1, true))).toBe("infra");
    expect(failureKind(cluster("c", "agent_timeout", 1))).toBe("timeout");
    expect(failureKind(cluster("d", "verifier_timeout", 1))).toBe("timeout");
    expect(failureKind(cluster("e", "format_error", 1))).toBe("output");
    expect(failureKind(cluster("f", "context_length_exceeded", 1))).toBe("output");
    expect(failureKind(cluster("g", "verifier_failed", 1))).toBe("verifier");
    expect(failureKind(cluster("h", "agent_error" as SummaryCluster["category"], 1))).toBe("other");
  });

  it("finds the kind that holds more than half of the failures, exactly when all clusters are of it", () => {
    const clusters = [cluster("t", "agent_timeout", 30, 3), cluster("v", "verifier_failed", 5, 5)];
    const byId = new Map(clusters.map((c) => [c.id, c]));
    const only = failureProfile(member("m", { s: 2, n: 8, clusterIds: ["t"] }), byId);
    expect(only.failures).toBe(6);
    expect(only.dominant).toMatchObject({ kind: "timeout", category: "agent_timeout", count: 6, exact: true });
    // weights 10 (30 over 3 environments) and 1: timeout holds 10/11 of 6 failures
    const mixed = failureProfile(member("m", { s: 2, n: 8, clusterIds: ["t", "v"] }), byId);
    expect(mixed.dominant).toMatchObject({ kind: "timeout", exact: false, count: 5 });
    expect(mixed.top?.cluster.id).toBe("t");
  });

  it("has no dominant kind at an even split, none without failures and none without clusters", () => {
    const clusters = [cluster("t", "agent_timeout", 2, 1), cluster("v", "verifier_failed", 2, 1)];
    const byId = new Map(clusters.map((c) => [c.id, c]));
    expect(failureProfile(member("m", { s: 4, n: 8, clusterIds: ["t", "v"] }), byId).dominant).toBeNull();
    expect(failureProfile(member("m", { s: 8, n: 8, clusterIds: ["t"] }), byId)).toEqual({ failures: 0, dominant: null, top: null });
    expect(failureProfile(member("m", { s: 2, n: 8, clusterIds: [] }), byId).dominant).toBeNull();
  });

  it("calls infra dominant only at a fifth of all attempts, and retires an infra member that never passed", () => {
    const infra = cluster("i", "infra_error", 3, 1, true);
    const byId = new Map([[infra.id, infra]]);
    // 1 infra failure in 10 attempts: under a fifth of the attempts
    expect(failureProfile(member("m", { s: 9, n: 10, clusterIds: ["i"] }), byId).dominant).toBeNull();
    expect(failureProfile(member("m", { s: 6, n: 10, clusterIds: ["i"] }), byId).dominant?.kind).toBe("infra");
    const [broken, flaky] = scoreMembers(
      [member("b", { s: 0, n: 8, clusterIds: ["i"] }), member("f", { s: 5, n: 8, clusterIds: ["i"] })],
      summaryWith([infra]),
      undefined,
      3,
    );
    expect(broken.retire).toBe("infra");
    expect(broken.infra).toBe(true);
    expect(flaky.retire).toBeNull();
    expect(flaky.infra).toBe(true);
  });

  // catches: an invalid or unsolvable member flagged infra (its validation, not the sandbox, is what retires it)
  it("never flags an invalid or unsolvable member as infra-dominated, whatever its failures", () => {
    const infra = cluster("i", "infra_error", 3, 1, true);
    const [unsolvable, invalid] = scoreMembers(
      [
        member("u", { s: 0, n: 8, clusterIds: ["i"], validation: { state: "unsolvable", pMax: 0 } }),
        member("v", { s: 0, n: 8, clusterIds: ["i"], validation: { state: "invalid", pMax: null } }),
      ],
      summaryWith([infra]),
      undefined,
      3,
    );
    expect(unsolvable.failure.dominant?.kind).toBe("infra");
    expect(unsolvable.infra).toBe(false);
    expect(unsolvable.retire).toBe("unsolvable");
    expect(invalid.infra).toBe(false);
    expect(invalid.retire).toBe("invalid");
  });
});

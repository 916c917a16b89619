import { describe, expect, it } from "vitest";
import { getFieldValue } from "@/lib/families/field-path";
import { fieldHardness, valueAtPosition } from "@/lib/families/hardness";
import { configHash } from "@/lib/families/hash";
import type { FamilyConfig } from "@/lib/families/types";
import { UNSET_DEFAULTS, heuristicEngineer } from ".";
import type { EngineerInput, PopulationMember, SummaryCluster } from "../types";
import { buildSummary, children, terminal, flInput, flProposal, perTest, ttInput, ttProposal } from "./test-input";

describe("heuristicEngineer: failure-aware on a Harbor-like import", () => {
  type Breakdown = Partial<Record<"infra" | "timeout" | "format" | "tests", number>>;
  const clusterSpec = {
    infra: {
      id: "cl-h-infra",
      category: "infra_error",
      signature: "verifier setup: curl: command not found (apt: package not found)",
      infra: true,
    },
    timeout: {
      id: "cl-h-timeout",
      category: "agent_timeout",
      signature: "AgentTimeoutError: Agent execution timed out after <n> seconds",
      infra: false,
    },
    format: { id: "cl-h-format", category: "format_error", signature: "format error: did not include a valid tool call", infra: false },
    tests: { id: "cl-h-tests", category: "verifier_failed", signature: "test_outputs.py::test_result_matches", infra: false },
  } as const;

  /** 40 tasks as a Harbor job imports them (task_name, source, git_commit; agent_timeout_sec on most), 10 attempts each. */
  function harborInput(): EngineerInput {
    const plan: { s: number; failures: Breakdown; timeout?: boolean }[] = [];
    for (let i = 0; i < 5; i++) plan.push({ s: 0, failures: { infra: 10 } }); // h00-h04: the image is broken
    plan.push({ s: 4, failures: { infra: 5, tests: 1 } }); // h05: passes despite infra noise
    // h06-h13: hopeless, timing out (h11-h13 without a timeout)
    for (let i = 0; i < 8; i++) plan.push({ s: i % 3 === 0 ? 1 : 0, failures: { timeout: 7, tests: i % 3 === 0 ? 2 : 3 }, timeout: i < 5 });
    for (let i = 0; i < 6; i++) plan.push({ s: 4 + (i % 3), failures: { format: 6 - (i % 3) } }); // h14-h19: learnable, failing on format
    const rates = [0, 0, 0, 1, 2, 3, 3, 4, 5, 5, 6, 6, 7, 7, 8, 9, 10, 10, 10, 10];
    rates.forEach((s, i) => plan.push({ s, failures: s < 10 ? { tests: 10 - s } : {}, timeout: i % 4 !== 1 })); // h20-h39: failed tests
    const population: PopulationMember[] = plan.map((p, i) => {
      const config: FamilyConfig = {
        task_name: `tb2-task-${String(i).padStart(2, "0")}`,
        source: "terminal-bench",
        git_commit: "69671fbaac6d67a7ef0dfec016cc38a64ef7a77c",
      };
      if (p.timeout !== false) config.agent_timeout_sec = 900;
      const ids = (Object.entries(p.failures) as [keyof Breakdown, number][])
        .filter(([, c]) => c > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([k]) => clusterSpec[k].id);
      return {
        key: `h${String(i).padStart(2, "0")}`,
        config,
        configHash: configHash(config),
        parentKey: null,
        op: "import",
        direction: null,
        validation: { state: "unvalidated", pMax: null },
        n: 10,
        s: p.s,
        age: 1,
        history: [],
        clusterIds: ids,
      };
    });
    const clusters: SummaryCluster[] = (Object.keys(clusterSpec) as (keyof Breakdown)[]).map((k) => {
      const members = plan.map((p, i) => ({ key: population[i].key, count: p.failures[k] ?? 0 })).filter((m) => m.count > 0);
      return {
        ...clusterSpec[k],
        count: members.reduce((a, m) => a + m.count, 0),
        environments: members.length,
        environmentKeys: members.map((m) => m.key).slice(0, 10),
        exemplarRolloutIds: [`ro-${k}-1`],
        excerpt: k,
      };
    });
    return {
      family: terminal,
      summary: buildSummary(terminal, population, clusters),
      population,
      options: { seed: 5 },
      knownHashes: new Set(population.map((m) => m.configHash)),
      keyPrefix: "g1-",
    };
  }

  const input = harborInput();
  const proposal = perTest(() => heuristicEngineer(input));
  const byKey = new Map(input.population.map((m) => [m.key, m]));
  const itemOf = (key: string) => proposal().items.find((i) => i.environmentKey === key && (i.op === "keep" || i.op === "retire"));
  const infraKeys = ["h00", "h01", "h02", "h03", "h04", "h05"];
  const clustersCited = (item: { evidence: { kind: string; ref: string }[] }) =>
    item.evidence.filter((e) => e.kind === "cluster").map((e) => e.ref);

  it("is deterministic for a seed", () => {
    expect(heuristicEngineer(input)).toEqual(proposal());
  });

  it("never breeds from infra-dominated members, and says plainly that they look broken", () => {
    for (const child of children(proposal())) {
      expect(infraKeys).not.toContain(child.parentKey);
      expect(infraKeys).not.toContain(child.secondParentKey);
    }
    for (const key of infraKeys) {
      const item = itemOf(key);
      expect(item?.flags, key).toContain("infra");
      expect(item?.rationale, key).toMatch(/looks (partly )?broken/i);
      expect(item?.rationale, key).toMatch(/curl: command not found/);
      expect(item?.rationale, key).toMatch(/fix the image/);
      expect(clustersCited(item!), key).toEqual(["cl-h-infra"]);
    }
    for (const key of infraKeys.slice(0, 5)) {
      expect(itemOf(key)?.op, key).toBe("retire");
      expect(itemOf(key)?.rationale, key).toMatch(
        /^Looks broken \(0\/10, none passed\): 10 of 10 attempts failed on infrastructure \(infra_error/,
      );
    }
    // h05 passes 4 of 10: judged by learnability like any other member, with the warning
    expect(itemOf("h05")?.rationale).toMatch(/about \d+ of 10 attempts failed on infrastructure/);
    expect(proposal().notes.some((n) => /infrastructure 6/.test(n))).toBe(true);
    // only infra items cite the infra cluster
    for (const item of proposal().items) if (clustersCited(item).includes("cl-h-infra")) expect(item.flags).toContain("infra");
  });

  it("never retires as broken a task whose sandbox the agent itself broke (a policy failure)", () => {
    const blamed = harborInput();
    for (const c of blamed.summary.failures.clusters) {
      if (c.id !== "cl-h-infra") continue;
      c.category = "environment_broken_by_agent";
      c.signature =
        "agent's package-manager command timed out; verifier setup: curl: command not found (apt: dpkg lock held by another process)";
      c.infra = false;
    }
    blamed.summary.failures.categories = blamed.summary.failures.categories.map((c) =>
      c.category === "infra_error" ? { category: "environment_broken_by_agent", count: c.count, infra: false } : c,
    );
    blamed.summary.behaviour.infraErrorRate = 0;
    const res = heuristicEngineer(blamed);
    for (const key of infraKeys) {
      const item = res.items.find((i) => i.environmentKey === key && (i.op === "keep" || i.op === "retire"));
      expect(item?.flags ?? [], key).not.toContain("infra");
      expect(item?.flags ?? [], key).not.toContain("retire:infra");
      expect(item?.rationale ?? "", key).not.toMatch(/looks (partly )?broken|fix the image/i);
    }
  });

  it("raises agent_timeout_sec (precision) of hopeless members that time out, citing the timeout cluster", () => {
    const timeoutKeys = new Set(["h06", "h07", "h08", "h09", "h10", "h11", "h12", "h13"]);
    const kids = children(proposal()).filter((c) => timeoutKeys.has(c.parentKey as string));
    expect(kids.length).toBeGreaterThanOrEqual(3);
    let fromUnset = 0;
    for (const child of kids) {
      const parent = byKey.get(child.parentKey as string) as PopulationMember;
      expect(child.direction).toBe("precision");
      const from = parent.config.agent_timeout_sec as number | undefined;
      const to = child.config.agent_timeout_sec as number;
      expect(to).toBeGreaterThan(from ?? 900);
      if (from === undefined) fromUnset += 1;
      expect(child.rationale).toMatch(
        new RegExp(
          /^Too hard \([01]\/10, q 0\.\d\d\), (about )?\d+ of 10 attempts timed out \(agent_timeout\): /.source +
            /agent_timeout_sec (\d+|unset \(assumed 900\))→\d+ along precision/.source,
        ),
      );
      expect(clustersCited(child)).toEqual(["cl-h-timeout"]);
      // nothing else changed
      for (const key of Object.keys({ ...parent.config, ...child.config }))
        if (key !== "agent_timeout_sec") expect(child.config[key], key).toEqual(parent.config[key]);
    }
    expect(fromUnset).toBeGreaterThan(0);
  });

  it("keeps learnable members that fail on the policy's format, saying so, and never makes them easier", () => {
    const formatKeys = ["h14", "h15", "h16", "h17", "h18", "h19"];
    for (const key of formatKeys) {
      const item = itemOf(key);
      expect(item?.op, key).toBe("keep");
      expect(item?.rationale, key).toMatch(
        /failed on the policy's output \(format_error\), which is the policy's format or context, not the environment's difficulty/,
      );
      expect(clustersCited(item!), key).toEqual(["cl-h-format"]);
    }
    // catches: a member failing on its format made easier like one that fails the tests (the check needs such children)
    const ofFormat = children(proposal()).filter((child) => formatKeys.includes(child.parentKey as string) && child.op === "mutate");
    expect(ofFormat.length).toBeGreaterThan(0);
    for (const child of ofFormat) expect(child.rationale).not.toMatch(/made easier/);
  });

  it("cites the failing-test cluster when failed tests make a hopeless member easier", () => {
    // a small keep share leaves room for children of the less learnable parents too
    const wide = heuristicEngineer({ ...input, options: { seed: 5, keepShare: 0.1 } });
    const kids = children(wide).filter((c) => ["h20", "h21", "h22", "h23"].includes(c.parentKey as string));
    expect(kids.length).toBeGreaterThan(0);
    for (const child of kids) {
      expect(child.rationale).toMatch(
        /^Too hard \([01]\/10, q 0\.\d\d\), (9|10) of 10 attempts failed the tests \(verifier_failed\): made easier along \w+/,
      );
      expect(clustersCited(child)).toEqual(["cl-h-tests"]);
    }
  });

  /** Sign of a mutated child's step: -1 made easier, 1 pushed harder, 0 an undirected edit. */
  const signOf = (rationale: string) =>
    rationale.startsWith("Too hard") ? -1 : /^(Solved|Nearly solved|Mostly passed)/.test(rationale) ? 1 : 0;

  for (const [name, caseInput, caseOut] of [
    ["harbor-like terminal-task", input, proposal],
    ["terminal-task", ttInput, perTest(ttProposal)],
    ["frozenlake-mapf", flInput, perTest(flProposal)],
  ] as const) {
    it(`${name}: no child sets a field unset on its parent, except a difficulty-signed one moved along the child's direction`, () => {
      const parents = new Map(caseInput.population.map((m) => [m.key, m]));
      for (const child of children(caseOut()).filter((c) => c.parentKey)) {
        const parent = parents.get(child.parentKey as string) as PopulationMember;
        const second = child.secondParentKey ? parents.get(child.secondParentKey) : undefined;
        const sign = child.op === "mutate" ? signOf(child.rationale) : 0;
        for (const field of caseInput.family.fields) {
          const from = getFieldValue(parent.config, field.path);
          const to = getFieldValue(child.config, field.path);
          if (field.mutable === false) expect(to, `${child.environmentKey} ${field.path}`).toEqual(from);
          if (from !== undefined || to === undefined) continue;
          const what = `${child.environmentKey} sets ${field.path} (unset on ${parent.key})`;
          expect(second, what).toBeUndefined();
          expect(sign, what).not.toBe(0);
          expect(field.difficulty, what).toBeDefined();
          expect(field.direction, what).toBe(child.direction);
          const start =
            field.kind === "integer" || field.kind === "number"
              ? (fieldHardness(field, UNSET_DEFAULTS[caseInput.family.id]?.[field.path] ?? valueAtPosition(field, 0.5)) as number)
              : 0.5;
          expect(sign * ((fieldHardness(field, to) as number) - start), what).toBeGreaterThan(0);
        }
      }
    });

    it(`${name}: parents with q < 0.2 only get easier directed edits (crossovers only of kept ones)`, () => {
      const parents = new Map(caseInput.population.map((m) => [m.key, m]));
      const keptKeys = new Set(
        caseOut()
          .items.filter((i) => i.op === "keep")
          .map((i) => i.environmentKey),
      );
      for (const child of children(caseOut())) {
        for (const key of [child.parentKey, child.secondParentKey]) {
          const parent = key ? parents.get(key) : undefined;
          if (!parent || parent.n === 0 || parent.s / parent.n >= 0.2) continue;
          if (child.op === "add") expect(keptKeys.has(parent.key), `${child.environmentKey}: crossover of ${parent.key}`).toBe(true);
          else expect(child.rationale, child.environmentKey).toMatch(/^Too hard/);
        }
      }
    });
  }

  it("writes one-sentence rationales that name the category behind the decision", () => {
    for (const item of proposal().items) {
      expect(item.rationale.endsWith("."), item.rationale).toBe(true);
      expect(item.rationale.slice(0, -1), item.rationale).not.toMatch(/\.\s/);
    }
    const replays = children(proposal()).filter((c) => c.rationale.startsWith("Replayed"));
    for (const child of replays) expect(clustersCited(child)).toEqual([]);
  });
});

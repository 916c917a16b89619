import { describe, expect, it } from "vitest";
import { createRng } from "../rng";
import { frozenlakeMapfFamily, frozenlakePMaxProxy, validateFrozenLake, type FrozenLakeConfig } from "./index";
import { generateMap, manhattan, maxAgentsFor, renderMap, type FrozenLakeMap } from "./map";
import { agentsPMax, bfsDistances, planAgents, shortestPathLengths, singleAgentPMax } from "./solver";

const base: FrozenLakeConfig = {
  size: 8,
  num_agents: 2,
  obstacle_density: 0.2,
  slip_probability: 0.1,
  max_steps: 60,
  min_goal_distance: 5,
  collision: "block_both",
  seed: 11,
};

function randomLayout(rng: ReturnType<typeof createRng>): FrozenLakeConfig {
  const size = rng.int(3, 32);
  return {
    ...base,
    size,
    num_agents: rng.int(1, Math.min(8, maxAgentsFor(size))),
    obstacle_density: rng.float(0, 0.45),
    min_goal_distance: rng.int(1, 60),
    seed: rng.int(0, 2 ** 31 - 1),
  };
}

/** A map from text rows: "." frozen, "H" hole, a/b starts, A/B goals. */
function mapFrom(rows: string[]): FrozenLakeMap {
  const size = rows.length;
  const holes = new Uint8Array(size * size);
  const starts: number[] = [];
  const goals: number[] = [];
  rows.forEach((row, r) =>
    [...row].forEach((ch, c) => {
      const cell = r * size + c;
      if (ch === "H") holes[cell] = 1;
      else if (ch >= "a" && ch <= "h") starts[ch.charCodeAt(0) - 97] = cell;
      else if (ch >= "A" && ch <= "H" && ch !== "H") goals[ch.charCodeAt(0) - 65] = cell;
    }),
  );
  return {
    size,
    holes,
    agents: starts.map((start, i) => ({ start, goal: goals[i] })),
    effectiveGoalDistance: 1,
    goalDistanceMet: true,
    holeCount: holes.reduce((a, b) => a + b, 0),
  };
}

describe("generateMap", () => {
  it("always leaves a hole-free path for every agent (500 random layouts)", () => {
    const rng = createRng("maps");
    for (let i = 0; i < 500; i++) {
      const config = randomLayout(rng);
      const map = generateMap(config);
      const lengths = shortestPathLengths(map);
      map.agents.forEach((agent, a) => {
        expect(lengths[a], JSON.stringify(config)).toBeGreaterThan(0);
        // The carved path is monotone, so the shortest path is exactly the Manhattan distance.
        expect(lengths[a]).toBe(manhattan(config.size, agent.start, agent.goal));
      });
    }
  });

  it("places distinct starts and goals off the holes and honours min_goal_distance where possible", () => {
    const rng = createRng("endpoints");
    for (let i = 0; i < 200; i++) {
      const config = randomLayout(rng);
      const map = generateMap(config);
      const cells = map.agents.flatMap((a) => [a.start, a.goal]);
      expect(new Set(cells).size).toBe(cells.length);
      for (const cell of cells) expect(map.holes[cell]).toBe(0);
      if (config.num_agents === 1) {
        const d = manhattan(config.size, map.agents[0].start, map.agents[0].goal);
        expect(d).toBeGreaterThanOrEqual(Math.min(config.min_goal_distance, 2 * (config.size - 1)));
      }
    }
  });

  it("is deterministic for a config and changes with the seed", () => {
    expect(renderMap(generateMap(base))).toEqual(renderMap(generateMap({ ...base })));
    expect(renderMap(generateMap(base))).not.toEqual(renderMap(generateMap({ ...base, seed: 12 })));
  });

  it("places about obstacle_density x cells holes and more density only adds holes", () => {
    const config = { ...base, size: 20, num_agents: 1, min_goal_distance: 10, obstacle_density: 0.3 };
    const map = generateMap(config);
    expect(map.holeCount).toBe(Math.round(0.3 * 400));
    const denser = generateMap({ ...config, obstacle_density: 0.4 });
    for (let cell = 0; cell < 400; cell++) if (map.holes[cell]) expect(denser.holes[cell]).toBe(1);
  });
});

describe("p_max by value iteration", () => {
  it("matches hand-computed values on tiny maps", () => {
    // One step right to the goal: the intended move succeeds w.p. 1 - slip (slips go up into the wall or down).
    const open = mapFrom(["aA.", "...", "..."]);
    expect(singleAgentPMax(open, open.agents[0].start, open.agents[0].goal, 0.2, 1)).toBeCloseTo(0.8, 12);
    // Two steps: after a slip down, one step remains and the goal is two away, so only 0.8 * 0.8.
    const two = mapFrom(["a.A", "...", "..."]);
    expect(singleAgentPMax(two, two.agents[0].start, two.agents[0].goal, 0.2, 2)).toBeCloseTo(0.64, 12);
    expect(singleAgentPMax(two, two.agents[0].start, two.agents[0].goal, 0, 2)).toBe(1);
    expect(singleAgentPMax(two, two.agents[0].start, two.agents[0].goal, 0, 1)).toBe(0);
    // Holes on both sides of a corridor: every step falls w.p. 0.2 whatever the horizon.
    const corridor = mapFrom(["HHH", "a.A", "HHH"]);
    expect(singleAgentPMax(corridor, corridor.agents[0].start, corridor.agents[0].goal, 0.2, 200)).toBeCloseTo(0.64, 12);
    // Holes on one side only: pushing against the top wall is safe (slips move along it), so a
    // long horizon lets the agent creep to the goal almost surely while a tight one does not.
    const holey = mapFrom(["a.A", "HHH", "..."]);
    expect(singleAgentPMax(holey, holey.agents[0].start, holey.agents[0].goal, 0.2, 3)).toBeCloseTo(0.768, 12);
    expect(singleAgentPMax(holey, holey.agents[0].start, holey.agents[0].goal, 0.2, 400)).toBeGreaterThan(0.99);
  });

  it("stays in [0, 1], rises with the horizon and falls with slip at a tight step budget", () => {
    const rng = createRng("vi");
    for (let i = 0; i < 40; i++) {
      const config = { ...randomLayout(rng), num_agents: 1 };
      const map = generateMap(config);
      const { start, goal } = map.agents[0];
      const d = bfsDistances(map, start)[goal];
      let previous = Infinity;
      for (const slip of [0, 0.1, 0.2, 0.3, 0.4, 0.5]) {
        const p = singleAgentPMax(map, start, goal, slip, d);
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
        expect(p).toBeLessThanOrEqual(previous + 1e-12);
        previous = p;
      }
      expect(previous).toBeLessThan(1);
      const short = singleAgentPMax(map, start, goal, 0.2, d);
      const long = singleAgentPMax(map, start, goal, 0.2, d + 20);
      expect(long).toBeGreaterThanOrEqual(short);
    }
  });

  it("matches a plain full-grid value iteration (the pruned windows change nothing)", () => {
    const rng = createRng("reference-vi");
    for (let i = 0; i < 25; i++) {
      const config = { ...randomLayout(rng), size: rng.int(3, 12) };
      config.num_agents = Math.min(config.num_agents, maxAgentsFor(config.size));
      const map = generateMap(config);
      const slip = rng.float(0.01, 0.5);
      const queries = map.agents.map((a) => ({ start: a.start, goal: a.goal, horizon: rng.int(1, 80) }));
      const fast = agentsPMax(map, queries, slip);
      queries.forEach((q, a) =>
        expect(fast[a], JSON.stringify({ config, slip, q })).toBeCloseTo(referencePMax(map, q.start, q.goal, slip, q.horizon), 9),
      );
    }
  });
});

/** Textbook finite-horizon value iteration over every cell and all four actions. */
function referencePMax(map: FrozenLakeMap, start: number, goal: number, slip: number, horizon: number): number {
  const size = map.size;
  const land = (cell: number, dir: number) => {
    const r = Math.floor(cell / size) + [-1, 0, 1, 0][dir];
    const c = (cell % size) + [0, 1, 0, -1][dir];
    return r >= 0 && r < size && c >= 0 && c < size ? r * size + c : cell;
  };
  let value: number[] = Array.from({ length: size * size }, (_, cell) => (cell === goal ? 1 : 0));
  for (let k = 0; k < horizon; k++) {
    value = value.map((_, cell) => {
      if (cell === goal) return 1;
      if (map.holes[cell]) return 0;
      let best = 0;
      for (let dir = 0; dir < 4; dir++) {
        const v = (1 - slip) * value[land(cell, dir)] + (slip / 2) * (value[land(cell, (dir + 1) % 4)] + value[land(cell, (dir + 3) % 4)]);
        best = Math.max(best, v);
      }
      return best;
    });
  }
  return value[start];
}

describe("prioritized planning", () => {
  it("cannot swap two agents in a one-cell corridor under block_both, but can under soft", () => {
    const swap = mapFrom(["HHHH", "aBAb", "HHHH", "HHHH"]);
    expect(shortestPathLengths(swap)).toEqual([2, 2]);
    expect(planAgents(swap, 50, "block_both").ok).toBe(false);
    expect(planAgents(swap, 50, "soft").ok).toBe(true);
  });

  it("makes an agent wait for another to pass and reports the delay", () => {
    // Both unique shortest paths enter (1,1) at t = 1, so one agent must wait or detour.
    const map = mapFrom([".b..", "a..A", ".B..", "...."]);
    const plan = planAgents(map, 20, "block_both");
    expect(plan.ok).toBe(true);
    expect(plan.plans[0].delay + plan.plans[1].delay).toBeGreaterThanOrEqual(1);
    expect(planAgents(map, 20, "soft").plans.map((p) => p.delay)).toEqual([0, 0]);
    const [pa, pb] = plan.plans.map((p) => p.path);
    const longest = Math.max(pa.length, pb.length);
    for (let t = 0; t < longest; t++) {
      const ca = pa[Math.min(t, pa.length - 1)];
      const cb = pb[Math.min(t, pb.length - 1)];
      expect(ca, `vertex conflict at t=${t}`).not.toBe(cb);
      if (t + 1 < longest) {
        const na = pa[Math.min(t + 1, pa.length - 1)];
        const nb = pb[Math.min(t + 1, pb.length - 1)];
        expect(na === cb && nb === ca, `swap at t=${t}`).toBe(false);
      }
    }
    // Each step moves to a neighbour or waits, never through a hole.
    for (const path of [pa, pb]) for (let t = 1; t < path.length; t++) expect(manhattan(4, path[t - 1], path[t])).toBeLessThanOrEqual(1);
  });

  it("finds conflict-free plans for most random block_both maps", () => {
    const rng = createRng("plans");
    let ok = 0;
    for (let i = 0; i < 60; i++) {
      const config = { ...randomLayout(rng), num_agents: 4, obstacle_density: 0.1 };
      if (config.num_agents > maxAgentsFor(config.size)) continue;
      const map = generateMap(config);
      const plan = planAgents(map, 400, "block_both");
      if (plan.ok) ok++;
    }
    expect(ok).toBeGreaterThan(40);
  });
});

describe("validateFrozenLake", () => {
  it("is unsolvable with p_max 0 when max_steps is shorter than a shortest path", () => {
    const config = { ...base, size: 16, num_agents: 1, min_goal_distance: 20, max_steps: 10 };
    const result = frozenlakeMapfFamily.validate(config);
    expect(result.state).toBe("unsolvable");
    expect(result.pMax).toBe(0);
    expect(result.errors[0].path).toBe("max_steps");
    expect(frozenlakeMapfFamily.validate({ ...config, max_steps: 200 }).state).toBe("valid");
  });

  it("is invalid when the grid cannot hold the agents", () => {
    const result = frozenlakeMapfFamily.validate({ ...base, size: 3, num_agents: 5 });
    expect(result.state).toBe("invalid");
    expect(result.errors[0].path).toBe("num_agents");
  });

  it("reports p_max as the product of the agents' p_max, with the map in the details", () => {
    const result = validateFrozenLake({ ...base, num_agents: 3 });
    expect(result.state).toBe("valid");
    const details = result.details as { agents: { pMax: number }[]; map: string[] };
    expect(details.map).toHaveLength(8);
    expect(result.pMax).toBeCloseTo(
      details.agents.reduce((p, a) => p * a.pMax, 1),
      12,
    );
    const noSlip = validateFrozenLake({ ...base, num_agents: 3, slip_probability: 0 });
    expect(noSlip.pMax).toBe(1);
  });

  it("is unsolvable when slips make success practically impossible", () => {
    const result = validateFrozenLake({
      ...base,
      size: 32,
      num_agents: 8,
      obstacle_density: 0.45,
      slip_probability: 0.5,
      max_steps: 80,
      min_goal_distance: 40,
    });
    expect(result.state).toBe("unsolvable");
    expect(result.pMax).toBe(0);
  });
});

describe("frozenlakePMaxProxy", () => {
  it("falls as the config gets harder", () => {
    const p = frozenlakePMaxProxy(base);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThanOrEqual(1);
    expect(frozenlakePMaxProxy({ ...base, slip_probability: 0.3 })).toBeLessThan(p);
    expect(frozenlakePMaxProxy({ ...base, num_agents: 4 })).toBeLessThan(p);
    expect(frozenlakePMaxProxy({ ...base, max_steps: 8 })).toBeLessThan(p);
  });
});

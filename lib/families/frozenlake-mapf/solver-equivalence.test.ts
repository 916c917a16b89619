/**
 * The solver's speed-ups (issue 19) change no answer: p_max equals, bit for bit, the implementation it replaced (kept
 * below as `referenceReach`, from main 1163033) on many random maps, planAgents gives the plans of its old version
 * (`referencePlanAgents`), and the validator's answers on sampled and random configs match a digest stored before
 * the rewrite.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRng, type Rng } from "../rng";
import { frozenlakeMapfFamily, validateFrozenLake, type FrozenLakeConfig } from "./index";
import { generateMap, maxAgentsFor, type FrozenLakeMap } from "./map";
import { moveTable, planAgents, singleAgentPMax, type AgentPlan, type CollisionMode, type PlanResult } from "./solver";

// ---- the implementation of main 1163033, verbatim but for names: the reference ----

function referenceBfs(map: FrozenLakeMap, from: number): Int32Array {
  const n = map.size * map.size;
  const moves = moveTable(map.size);
  const dist = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  dist[from] = 0;
  queue[tail++] = from;
  while (head < tail) {
    const cell = queue[head++];
    for (let d = 0; d < 4; d++) {
      const next = moves[cell * 4 + d];
      if (dist[next] >= 0 || map.holes[next]) continue;
      dist[next] = dist[cell] + 1;
      queue[tail++] = next;
    }
  }
  return dist;
}

function referenceCountingSort(items: readonly number[], key: ArrayLike<number>): number[] {
  let maxKey = 0;
  for (const item of items) if (key[item] > maxKey) maxKey = key[item];
  const counts = new Int32Array(maxKey + 2);
  for (const item of items) counts[key[item] + 1]++;
  for (let k = 1; k < counts.length; k++) counts[k] += counts[k - 1];
  const out = new Array<number>(items.length);
  for (const item of items) out[counts[key[item]]++] = item;
  return out;
}

function referenceReach(map: FrozenLakeMap, start: number, goal: number, slip: number, horizon: number): number {
  if (horizon < 0) return 0;
  if (start === goal) return 1;
  const fromStart = referenceBfs(map, start);
  const d = fromStart[goal];
  if (d < 0 || d > horizon) return 0;
  if (slip <= 0) return 1;
  const toGoal = referenceBfs(map, goal);
  const n = map.size * map.size;
  const moves = moveTable(map.size);
  const kept: number[] = [];
  for (let cell = 0; cell < n; cell++) {
    if (cell !== goal && fromStart[cell] >= 0 && toGoal[cell] >= 0 && fromStart[cell] + toGoal[cell] <= horizon) kept.push(cell);
  }
  const cells = referenceCountingSort(kept, toGoal);
  const m = cells.length;
  const ZERO = m;
  const ONE = m + 1;
  const index = new Int32Array(n).fill(ZERO);
  cells.forEach((cell, i) => (index[cell] = i));
  index[goal] = ONE;
  const neighbours = new Int32Array(4 * m);
  const windowStart = new Int32Array(m);
  const windowEnd = new Int32Array(m);
  cells.forEach((cell, i) => {
    for (let dir = 0; dir < 4; dir++) neighbours[4 * i + dir] = index[moves[cell * 4 + dir]];
    windowStart[i] = toGoal[cell];
    windowEnd[i] = horizon - fromStart[cell];
  });
  let value = new Float64Array(m + 2);
  let next = new Float64Array(m + 2);
  value[ONE] = 1;
  next[ONE] = 1;
  const straight = 1 - slip;
  const side = slip / 2;
  const live = new Int32Array(m);
  const position = new Int32Array(m);
  let liveCount = 0;
  const byEnd = referenceCountingSort(
    Array.from({ length: m }, (_, i) => i),
    windowEnd,
  );
  let joined = 0;
  let left = 0;
  for (let k = 1; k <= horizon; k++) {
    while (joined < m && windowStart[joined] <= k) {
      live[liveCount] = joined;
      position[joined] = liveCount++;
      joined++;
    }
    while (left < m && windowEnd[byEnd[left]] < k) {
      const gone = byEnd[left++];
      const last = live[--liveCount];
      live[position[gone]] = last;
      position[last] = position[gone];
    }
    let change = 0;
    for (let p = 0; p < liveCount; p++) {
      const i = live[p];
      const j = 4 * i;
      const v0 = value[neighbours[j]];
      const v1 = value[neighbours[j + 1]];
      const v2 = value[neighbours[j + 2]];
      const v3 = value[neighbours[j + 3]];
      const vertical = straight * (v0 > v2 ? v0 : v2) + side * (v1 + v3);
      const horizontal = straight * (v1 > v3 ? v1 : v3) + side * (v0 + v2);
      const best = vertical > horizontal ? vertical : horizontal;
      const diff = best - value[i];
      if (diff > change) change = diff;
      next[i] = best;
    }
    const swap = value;
    value = next;
    next = swap;
    if (joined === m && change < 1e-12) break;
  }
  return Math.min(1, Math.max(0, value[index[start]]));
}

// planAgents of main 1163033 (its reservations and space-time BFS), verbatim but for names

interface ReferenceReservations {
  cells: number;
  /** Agent id + 1 occupying (t, cell) at index t * cells + cell, for t up to the time limit. */
  owner: Int16Array;
  /** Time from which a parked agent blocks its goal cell for good (Infinity when none). */
  parkedFrom: Float64Array;
  /** Latest time a cell is occupied by a reserved path (Infinity for a parked agent's goal). */
  lastUse: Float64Array;
  /** Time after which every reserved agent is parked at its goal. */
  settleTime: number;
  /** Goal cells of reserved agents. */
  parked: number[];
}

function referenceCreateReservations(cells: number, limit: number): ReferenceReservations {
  return {
    cells,
    owner: new Int16Array((limit + 1) * cells),
    parkedFrom: new Float64Array(cells).fill(Infinity),
    lastUse: new Float64Array(cells).fill(-1),
    settleTime: 0,
    parked: [],
  };
}

function referenceOccupiedBy(res: ReferenceReservations, cell: number, t: number): boolean {
  return res.owner[t * res.cells + cell] !== 0 || res.parkedFrom[cell] <= t;
}

/** True when a reserved agent moves to -> from while this one moves from -> to during (t, t+1). */
function referenceSwapsWith(res: ReferenceReservations, from: number, to: number, t: number): boolean {
  const owner = res.owner[t * res.cells + to];
  return owner !== 0 && res.owner[(t + 1) * res.cells + from] === owner;
}

/**
 * Space-time BFS for one agent against reserved paths (vertex and swap conflicts forbidden, parked
 * agents block their goals), with waiting allowed. After every reserved agent has parked, the rest
 * is a static BFS, which keeps the search small.
 */
function referenceSpaceTimePath(
  map: FrozenLakeMap,
  moves: Int32Array,
  start: number,
  goal: number,
  maxSteps: number,
  res: ReferenceReservations,
): number[] | null {
  const n = map.size * map.size;
  const dynamicEnd = Math.min(maxSteps, res.settleTime + 1);
  const parents: Int32Array[] = [];
  let frontier = [start];
  const level0 = new Int32Array(n).fill(-2);
  level0[start] = -1;
  parents.push(level0);
  const goalFree = (t: number) => t > res.lastUse[goal];
  const rebuild = (t: number, cell: number): number[] => {
    const path: number[] = [];
    let c = cell;
    for (let k = t; k >= 0; k--) {
      path.push(c);
      c = parents[k][c];
    }
    return path.reverse();
  };
  if (start === goal && goalFree(0)) return [start];
  for (let t = 0; t < dynamicEnd; t++) {
    const level = new Int32Array(n).fill(-2);
    const nextFrontier: number[] = [];
    for (const cell of frontier) {
      for (let d = 0; d < 5; d++) {
        const to = d === 4 ? cell : moves[cell * 4 + d];
        if (d < 4 && to === cell) continue;
        if (level[to] !== -2 || map.holes[to]) continue;
        if (referenceOccupiedBy(res, to, t + 1) || (to !== cell && referenceSwapsWith(res, cell, to, t))) continue;
        level[to] = cell;
        nextFrontier.push(to);
      }
    }
    parents.push(level);
    if (level[goal] !== -2 && goalFree(t + 1)) return rebuild(t + 1, goal);
    frontier = nextFrontier;
    if (frontier.length === 0) return null;
  }
  if (dynamicEnd >= maxSteps) return null;
  // Static phase: every reserved agent is parked; multi-source BFS from the frontier at dynamicEnd.
  const blocked = new Uint8Array(n);
  for (const cell of res.parked) blocked[cell] = 1;
  const staticParent = new Int32Array(n).fill(-2);
  const dist = new Int32Array(n).fill(-1);
  const queue: number[] = [];
  for (const cell of frontier) {
    dist[cell] = 0;
    staticParent[cell] = -1;
    queue.push(cell);
  }
  for (let head = 0; head < queue.length; head++) {
    const cell = queue[head];
    if (cell === goal) break;
    for (let d = 0; d < 4; d++) {
      const to = moves[cell * 4 + d];
      if (dist[to] >= 0 || map.holes[to] || blocked[to]) continue;
      dist[to] = dist[cell] + 1;
      staticParent[to] = cell;
      queue.push(to);
    }
  }
  if (dist[goal] < 0 || dynamicEnd + dist[goal] > maxSteps || !goalFree(dynamicEnd + dist[goal])) return null;
  const tail: number[] = [];
  let cell = goal;
  while (staticParent[cell] !== -1) {
    tail.push(cell);
    cell = staticParent[cell];
  }
  return [...rebuild(dynamicEnd, cell), ...tail.reverse()];
}

function referenceReserve(res: ReferenceReservations, agent: number, path: number[]): void {
  path.forEach((cell, t) => {
    res.owner[t * res.cells + cell] = agent + 1;
    if (t > res.lastUse[cell]) res.lastUse[cell] = t;
  });
  const goal = path[path.length - 1];
  res.parkedFrom[goal] = path.length - 1;
  res.lastUse[goal] = Infinity;
  res.parked.push(goal);
  res.settleTime = Math.max(res.settleTime, path.length - 1);
}

function referenceStaticPath(map: FrozenLakeMap, moves: Int32Array, start: number, goal: number): number[] | null {
  const dist = referenceBfs(map, goal);
  if (dist[start] < 0) return null;
  const path = [start];
  let cell = start;
  while (cell !== goal) {
    for (let d = 0; d < 4; d++) {
      const to = moves[cell * 4 + d];
      if (!map.holes[to] && dist[to] === dist[cell] - 1) {
        cell = to;
        break;
      }
    }
    path.push(cell);
  }
  return path;
}

/**
 * Prioritized planning for all agents within maxSteps. `soft`: agents may share cells (collisions
 * are penalised in the reward, not blocked), so each agent takes its own shortest path.
 * `block_both`: vertex and swap conflicts are forbidden; agents are planned one by one by space-time
 * BFS against the paths of higher-priority agents (parked agents block their goals). Priority
 * orders tried: longest shortest-path first, index order, shortest first. Prioritized planning is
 * incomplete, so a failure means "no plan found", which the validator treats as unsolvable.
 */
function referencePlanAgents(map: FrozenLakeMap, maxSteps: number, collision: CollisionMode): PlanResult {
  const moves = moveTable(map.size);
  const shortest = map.agents.map((agent) => referenceBfs(map, agent.start)[agent.goal]);
  const indices = map.agents.map((_, i) => i);
  if (collision === "soft" || map.agents.length === 1) {
    const plans: AgentPlan[] = [];
    for (const i of indices) {
      const path = referenceStaticPath(map, moves, map.agents[i].start, map.agents[i].goal);
      if (!path || path.length - 1 > maxSteps) return { ok: false, plans: [], order: indices, failedAgent: i };
      plans.push({ path, delay: 0 });
    }
    return { ok: true, plans, order: indices };
  }
  const orders = [
    [...indices].sort((a, b) => shortest[b] - shortest[a] || a - b),
    indices,
    [...indices].sort((a, b) => shortest[a] - shortest[b] || a - b),
  ];
  const seen = new Set<string>();
  let last: PlanResult = { ok: false, plans: [], order: indices };
  for (const order of orders) {
    const key = order.join(",");
    if (seen.has(key)) continue;
    seen.add(key);
    const res = referenceCreateReservations(map.size * map.size, maxSteps);
    const plans: AgentPlan[] = new Array(map.agents.length);
    let failedAgent: number | undefined;
    for (const i of order) {
      const path = referenceSpaceTimePath(map, moves, map.agents[i].start, map.agents[i].goal, maxSteps, res);
      if (!path) {
        failedAgent = i;
        break;
      }
      referenceReserve(res, i, path);
      plans[i] = { path, delay: path.length - 1 - shortest[i] };
    }
    if (failedAgent === undefined) return { ok: true, plans, order };
    last = { ok: false, plans: [], order, failedAgent };
  }
  return last;
}

// ---- random maps and queries ----

function randomConfig(rng: Rng): FrozenLakeConfig {
  const size = rng.int(3, 32);
  return {
    size,
    num_agents: rng.int(1, Math.min(8, maxAgentsFor(size))),
    obstacle_density: rng.float(0, 0.45),
    slip_probability: rng.pick([0, 0.5, rng.float(0, 0.5), rng.float(0, 0.05)]),
    max_steps: rng.pick([rng.int(4, 1000), rng.int(4, 120)]),
    min_goal_distance: rng.int(1, 60),
    collision: rng.pick(["block_both", "soft"] as const),
    seed: rng.int(0, 2 ** 31 - 1),
  };
}

/** A query on the map: its own agents' endpoints half the time, else any two cells (holes too). */
function randomQuery(rng: Rng, map: FrozenLakeMap) {
  const n = map.size * map.size;
  const agent = rng.pick(map.agents);
  const [start, goal] = rng.next() < 0.5 ? [agent.start, agent.goal] : [rng.int(0, n - 1), rng.int(0, n - 1)];
  const slip = rng.pick([0, 0.5, 1e-9, rng.float(0, 0.5), rng.float(0, 0.5)]);
  const horizon = rng.pick([-1, 0, 1, rng.int(0, 40), rng.int(0, 250), rng.int(0, 1000), 1000]);
  return { start, goal, slip, horizon };
}

const digest = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex");

describe("p_max: the sped-up value iteration against the implementation it replaced", () => {
  it("gives the same bits on a small map with a horizon far past its cell count, asked first", () => {
    // scratch sized by cells once came short of a horizon's range: the first query of a fresh module must be exact too
    const map = generateMap({ size: 3, num_agents: 1, obstacle_density: 0, min_goal_distance: 4, seed: 5 });
    const { start, goal } = map.agents[0];
    for (const horizon of [1000, 999, 37, 9])
      expect(singleAgentPMax(map, start, goal, 0.3, horizon)).toBe(referenceReach(map, start, goal, 0.3, horizon));
  });

  it("gives the same bits on 1,000 random maps and queries (sizes 3-32, horizons -1 to 1,000, slip 0 to 0.5)", () => {
    const rng = createRng("solver-equivalence");
    let nontrivial = 0;
    for (let i = 0; i < 1000; i++) {
      const map = generateMap(randomConfig(rng));
      for (let q = 0; q < 2; q++) {
        const { start, goal, slip, horizon } = randomQuery(rng, map);
        const want = referenceReach(map, start, goal, slip, horizon);
        const got = singleAgentPMax(map, start, goal, slip, horizon);
        if (!Object.is(got, want))
          expect({ i, q, start, goal, slip, horizon, got }).toEqual({ i, q, start, goal, slip, horizon, got: want });
        if (want > 0 && want < 1) nontrivial++;
      }
    }
    // most queries run the value iteration (not an early 0 or 1)
    expect(nontrivial).toBeGreaterThan(500);
  });

  it("gives the same bits after the WebAssembly memory grows for a large map, and on small maps after it", () => {
    // 32x32 cells fit the sweep's first 64 KiB page; a 60x60 map (3,600 cells, ~130 KiB) grows the memory, which
    // detaches every view on it: the value, next, neighbours and live views must be made again on the new buffer
    const rng = createRng("solver-equivalence-grow");
    let nontrivial = 0;
    for (const size of [5, 60, 7, 64, 4, 40]) {
      for (let q = 0; q < 6; q++) {
        const map = generateMap({ size, num_agents: 1, obstacle_density: rng.next() * 0.2, min_goal_distance: 2, seed: rng.int(0, 1e6) });
        const { start, goal } = map.agents[0];
        const slip = 0.05 + rng.next() * 0.4;
        const horizon = rng.int(2 * size, 12 * size);
        const want = referenceReach(map, start, goal, slip, horizon);
        expect({ size, q, got: singleAgentPMax(map, start, goal, slip, horizon) }).toEqual({ size, q, got: want });
        if (want > 0 && want < 1) nontrivial++;
      }
    }
    expect(nontrivial).toBeGreaterThan(24);
  });
});

describe("planAgents: reused tables against the implementation it replaced", () => {
  it("gives the same plans (paths, delays, order, failed agent) on 600 random maps under both collision modes", () => {
    const rng = createRng("plan-equivalence");
    let blockedPlans = 0;
    for (let i = 0; i < 600; i++) {
      const config = randomConfig(rng);
      const map = generateMap(config);
      const maxSteps = rng.pick([config.max_steps, rng.int(4, 60)]);
      for (const collision of ["block_both", "soft"] as const) {
        const want = referencePlanAgents(map, maxSteps, collision);
        expect(planAgents(map, maxSteps, collision), JSON.stringify({ i, collision, maxSteps })).toEqual(want);
        if (collision === "block_both" && map.agents.length > 1 && want.ok) blockedPlans++;
      }
    }
    // most maps plan several agents against each other's reservations
    expect(blockedPlans).toBeGreaterThan(200);
  });
});

describe("validateFrozenLake: answers stored before the solver's rewrite", () => {
  it("gives the same answers (state, p_max, details, errors) on 200 sampled and 200 random configs", () => {
    const sampleRng = createRng("validator-digest:sample");
    const randomRng = createRng("validator-digest:random");
    const configs = [
      ...Array.from({ length: 200 }, () => frozenlakeMapfFamily.sample(sampleRng)),
      ...Array.from({ length: 200 }, () => ({ ...randomConfig(randomRng), num_agents: randomRng.int(1, 8) })),
    ];
    const answers = configs.map((config) => validateFrozenLake(config as FrozenLakeConfig));
    const states = new Set(answers.map((a) => a.state));
    expect([...states].sort()).toEqual(["invalid", "unsolvable", "valid"]);
    expect(digest(answers)).toBe("24336162eba5a8b428a658a4cdf35acee55e814f49761880ac2774228e56e979");
  });
});

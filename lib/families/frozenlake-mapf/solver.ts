/**
 * Solvability and p_max for `frozenlake-mapf` maps.
 *
 * Dynamics: an agent moves up/right/down/left; a move off the grid leaves it in place; entering a
 * hole ends its episode in failure; reaching its goal ends it in success. With slip probability
 * p, a move goes in the intended direction w.p. 1 - p and in each of the two perpendicular
 * directions w.p. p / 2. Waiting (multi-agent plans only) never slips.
 */
import type { FrozenLakeMap } from "./map";

const DR = [-1, 0, 1, 0];
const DC = [0, 1, 0, -1];

/** Per cell and direction (0 up, 1 right, 2 down, 3 left) the cell a move lands on (itself at the border). */
export function moveTable(size: number): Int32Array {
  const table = new Int32Array(size * size * 4);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      for (let d = 0; d < 4; d++) {
        const nr = r + DR[d];
        const nc = c + DC[d];
        table[(r * size + c) * 4 + d] = nr >= 0 && nr < size && nc >= 0 && nc < size ? nr * size + nc : r * size + c;
      }
    }
  }
  return table;
}

/** BFS step distances from `from` over non-hole cells (-1 where unreachable). */
export function bfsDistances(map: FrozenLakeMap, from: number, blocked?: Uint8Array): Int32Array {
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
      if (dist[next] >= 0 || map.holes[next] || blocked?.[next]) continue;
      dist[next] = dist[cell] + 1;
      queue[tail++] = next;
    }
  }
  return dist;
}

/** Shortest hole-free path length from each agent's start to its goal (-1 if none). */
export function shortestPathLengths(map: FrozenLakeMap): number[] {
  return map.agents.map((agent) => bfsDistances(map, agent.start)[agent.goal]);
}

export interface PMaxQuery {
  start: number;
  goal: number;
  /** Moves available (max_steps minus any waiting the plan imposes). */
  horizon: number;
}

/**
 * Maximum probability that each agent reaches its goal from its start within its horizon under
 * slip, ignoring the other agents: finite-horizon value iteration V_0 = [goal],
 * V_k+1(s) = max_a E V_k(next), holes absorbing at 0 and the goal at 1. All agents share one sweep
 * (their values sit side by side per cell), stopped early once no value moves by more than 1e-12.
 * Slippery maps reward slow, safe routes, so values keep rising for hundreds of steps: the horizon matters.
 */
export function agentsPMax(map: FrozenLakeMap, queries: readonly PMaxQuery[], slip: number): number[] {
  const result = queries.map(() => 0);
  const pending: number[] = [];
  queries.forEach((q, a) => {
    if (q.horizon < 0) return;
    if (q.start === q.goal) {
      result[a] = 1;
      return;
    }
    const d = bfsDistances(map, q.start)[q.goal];
    if (d < 0 || d > q.horizon) return;
    if (slip <= 0) result[a] = 1;
    else pending.push(a);
  });
  if (pending.length === 0) return result;

  const n = map.size * map.size;
  const moves = moveTable(map.size);
  // Compact state space: cells reachable from any pending start, plus an absorbing hole sentinel.
  const reachable = new Uint8Array(n);
  for (const a of pending) {
    const dist = bfsDistances(map, queries[a].start);
    for (let cell = 0; cell < n; cell++) if (dist[cell] >= 0) reachable[cell] = 1;
  }
  const index = new Int32Array(n).fill(-1);
  let m = 0;
  for (let cell = 0; cell < n; cell++) if (reachable[cell]) index[cell] = m++;
  const HOLE = m;
  const A = pending.length;
  const neighbours = new Int32Array(4 * m);
  for (let cell = 0; cell < n; cell++) {
    const i = index[cell];
    if (i < 0) continue;
    for (let d = 0; d < 4; d++) {
      const to = moves[cell * 4 + d];
      neighbours[4 * i + d] = (map.holes[to] ? HOLE : index[to]) * A;
    }
  }
  const goalSlot = pending.map((a, k) => index[queries[a].goal] * A + k);
  const startSlot = pending.map((a, k) => index[queries[a].start] * A + k);
  const horizons = pending.map((a) => queries[a].horizon);
  const maxHorizon = Math.max(...horizons);
  let value = new Float64Array((m + 1) * A);
  let next = new Float64Array((m + 1) * A);
  for (const slot of goalSlot) value[slot] = 1;
  const straight = 1 - slip;
  const side = slip / 2;
  let k = 0;
  for (; k < maxHorizon; k++) {
    let change = 0;
    for (let i = 0, j = 0, base = 0; i < m; i++, j += 4, base += A) {
      const n0 = neighbours[j];
      const n1 = neighbours[j + 1];
      const n2 = neighbours[j + 2];
      const n3 = neighbours[j + 3];
      for (let a = 0; a < A; a++) {
        const v0 = value[n0 + a];
        const v1 = value[n1 + a];
        const v2 = value[n2 + a];
        const v3 = value[n3 + a];
        // Up/down slip to the (right, left) pair and right/left to the (up, down) pair, so the best
        // of four actions is the better of two: straight * max(opposite pair) + side * (other pair).
        const vertical = straight * (v0 > v2 ? v0 : v2) + side * (v1 + v3);
        const horizontal = straight * (v1 > v3 ? v1 : v3) + side * (v0 + v2);
        const best = vertical > horizontal ? vertical : horizontal;
        const diff = best - value[base + a];
        if (diff > change) change = diff;
        next[base + a] = best;
      }
    }
    for (const slot of goalSlot) next[slot] = 1;
    const swap = value;
    value = next;
    next = swap;
    for (let p = 0; p < A; p++) if (horizons[p] === k + 1) result[pending[p]] = value[startSlot[p]];
    if (change < 1e-12) break;
  }
  // Converged early: the remaining agents' values no longer move.
  for (let p = 0; p < A; p++) if (horizons[p] > k + 1) result[pending[p]] = value[startSlot[p]];
  return result.map((p) => Math.min(1, Math.max(0, p)));
}

/** Maximum probability that one agent reaches `goal` from `start` within `horizon` moves under slip (see agentsPMax). */
export function singleAgentPMax(map: FrozenLakeMap, start: number, goal: number, slip: number, horizon: number): number {
  return agentsPMax(map, [{ start, goal, horizon }], slip)[0];
}

export type CollisionMode = "block_both" | "soft";

export interface AgentPlan {
  /** Cells by time step, from the start (t = 0) to the arrival at the goal. */
  path: number[];
  /** Time steps spent beyond the agent's own shortest path (waits and detours). */
  delay: number;
}

export interface PlanResult {
  ok: boolean;
  /** Plans indexed by agent (present when ok). */
  plans: AgentPlan[];
  /** The priority order that worked, or the last one tried. */
  order: number[];
  /** The agent that could not be planned in the last order tried. */
  failedAgent?: number;
}

interface Reservations {
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

function createReservations(cells: number, limit: number): Reservations {
  return {
    cells,
    owner: new Int16Array((limit + 1) * cells),
    parkedFrom: new Float64Array(cells).fill(Infinity),
    lastUse: new Float64Array(cells).fill(-1),
    settleTime: 0,
    parked: [],
  };
}

function occupiedBy(res: Reservations, cell: number, t: number): boolean {
  return res.owner[t * res.cells + cell] !== 0 || res.parkedFrom[cell] <= t;
}

/** True when a reserved agent moves to -> from while this one moves from -> to during (t, t+1). */
function swapsWith(res: Reservations, from: number, to: number, t: number): boolean {
  const owner = res.owner[t * res.cells + to];
  return owner !== 0 && res.owner[(t + 1) * res.cells + from] === owner;
}

/**
 * Space-time BFS for one agent against reserved paths (vertex and swap conflicts forbidden, parked
 * agents block their goals), with waiting allowed. After every reserved agent has parked, the rest
 * is a static BFS, which keeps the search small.
 */
function spaceTimePath(map: FrozenLakeMap, moves: Int32Array, start: number, goal: number, maxSteps: number, res: Reservations): number[] | null {
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
        if (occupiedBy(res, to, t + 1) || (to !== cell && swapsWith(res, cell, to, t))) continue;
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

function reserve(res: Reservations, agent: number, path: number[]): void {
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

function staticPath(map: FrozenLakeMap, moves: Int32Array, start: number, goal: number): number[] | null {
  const dist = bfsDistances(map, goal);
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
export function planAgents(map: FrozenLakeMap, maxSteps: number, collision: CollisionMode): PlanResult {
  const moves = moveTable(map.size);
  const shortest = shortestPathLengths(map);
  const indices = map.agents.map((_, i) => i);
  if (collision === "soft" || map.agents.length === 1) {
    const plans: AgentPlan[] = [];
    for (const i of indices) {
      const path = staticPath(map, moves, map.agents[i].start, map.agents[i].goal);
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
    const res = createReservations(map.size * map.size, maxSteps);
    const plans: AgentPlan[] = new Array(map.agents.length);
    let failedAgent: number | undefined;
    for (const i of order) {
      const path = spaceTimePath(map, moves, map.agents[i].start, map.agents[i].goal, maxSteps, res);
      if (!path) {
        failedAgent = i;
        break;
      }
      reserve(res, i, path);
      plans[i] = { path, delay: path.length - 1 - shortest[i] };
    }
    if (failedAgent === undefined) return { ok: true, plans, order };
    last = { ok: false, plans: [], order, failedAgent };
  }
  return last;
}

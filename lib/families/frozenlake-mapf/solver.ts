/**
 * Solvability and p_max for `frozenlake-mapf` maps.
 *
 * Dynamics: an agent moves up/right/down/left; a move off the grid leaves it in place; entering a
 * hole ends its episode in failure; reaching its goal ends it in success. With slip probability
 * p, a move goes in the intended direction w.p. 1 - p and in each of the two perpendicular
 * directions w.p. p / 2. Waiting (multi-agent plans only) never slips.
 */
import type { FrozenLakeMap } from "./map";
import { createSweep } from "./sweep-wasm";

const DR = [-1, 0, 1, 0];
const DC = [0, 1, 0, -1];

const moveTables = new Map<number, Int32Array>();

/** Per cell and direction (0 up, 1 right, 2 down, 3 left) the cell a move lands on (itself at the border); cached per size, read-only. */
export function moveTable(size: number): Int32Array {
  const cached = moveTables.get(size);
  if (cached) return cached;
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
  moveTables.set(size, table);
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
 * V_k+1(s) = max_a E V_k(next), holes absorbing at 0 and the goal at 1. Slippery maps reward slow,
 * safe routes (pushing against a wall is safe), so values keep rising for hundreds of steps and
 * the horizon matters. Only cells that can matter are updated: V_k(c) = 0 while k < dist(c, goal),
 * and V_k(c) cannot reach the start in time once k > horizon - dist(start, c); cells with
 * dist(start, c) + dist(c, goal) > horizon never matter. Tight step budgets are therefore cheap.
 */
export function agentsPMax(map: FrozenLakeMap, queries: readonly PMaxQuery[], slip: number): number[] {
  return queries.map((q) => reachProbability(map, q.start, q.goal, slip, q.horizon));
}

/** The WebAssembly sweep (sweep-wasm.ts) and its memory, which holds value, next, neighbours and live. */
const wasm = createSweep();

/**
 * Scratch arrays of reachProbability, reused across calls and grown on demand (calls never overlap: it is
 * synchronous). A dozen typed arrays allocated per query cost about a fifth of the engineer's p_max time.
 * value, next, neighbours and live are views on the sweep's WebAssembly memory, at the byte offsets below.
 */
const scratch = {
  cells: 0,
  fromStart: new Int32Array(0),
  toGoal: new Int32Array(0),
  queue: new Int32Array(0),
  kept: new Int32Array(0),
  index: new Int32Array(0),
  neighbours: new Int32Array(0),
  windowStart: new Int32Array(0),
  windowEnd: new Int32Array(0),
  live: new Int32Array(0),
  position: new Int32Array(0),
  byEnd: new Int32Array(0),
  /** counting-sort buckets, indexed by distance or window end (up to the horizon, which can exceed the cells) */
  counts: new Int32Array(0),
  value: new Float64Array(0),
  next: new Float64Array(0),
  valueAt: 0,
  nextAt: 0,
  neighboursAt: 0,
  liveAt: 0,
};

function scratchFor(cells: number, horizon: number): typeof scratch {
  const s = scratch;
  if (cells > s.cells) {
    s.cells = cells;
    s.fromStart = new Int32Array(cells);
    s.toGoal = new Int32Array(cells);
    s.queue = new Int32Array(cells);
    s.kept = new Int32Array(cells);
    s.index = new Int32Array(cells);
    s.windowStart = new Int32Array(cells);
    s.windowEnd = new Int32Array(cells);
    s.position = new Int32Array(cells);
    s.byEnd = new Int32Array(cells);
    // in the WebAssembly memory: value and next (cells + 2 doubles each: the cells, then ZERO and ONE), neighbours, live
    s.valueAt = 0;
    s.nextAt = 8 * (cells + 2);
    s.neighboursAt = 16 * (cells + 2);
    s.liveAt = s.neighboursAt + 16 * cells;
    const pages = Math.ceil((s.liveAt + 4 * cells) / 65536);
    const have = wasm.memory.buffer.byteLength / 65536;
    if (pages > have) wasm.memory.grow(pages - have);
    const buffer = wasm.memory.buffer;
    s.value = new Float64Array(buffer, s.valueAt, cells + 2);
    s.next = new Float64Array(buffer, s.nextAt, cells + 2);
    s.neighbours = new Int32Array(buffer, s.neighboursAt, 4 * cells);
    s.live = new Int32Array(buffer, s.liveAt, cells);
  }
  if (s.counts.length < Math.max(cells, horizon) + 2) s.counts = new Int32Array(Math.max(cells, horizon) + 2);
  return s;
}

/** bfsDistances into `dist` (its first size * size entries), without allocating. */
function bfsInto(map: FrozenLakeMap, moves: Int32Array, from: number, dist: Int32Array, queue: Int32Array): void {
  dist.fill(-1, 0, map.size * map.size);
  const holes = map.holes;
  let head = 0;
  let tail = 0;
  dist[from] = 0;
  queue[tail++] = from;
  while (head < tail) {
    const cell = queue[head++];
    const step = dist[cell] + 1;
    for (let d = 0; d < 4; d++) {
      const next = moves[cell * 4 + d];
      if (dist[next] >= 0 || holes[next]) continue;
      dist[next] = step;
      queue[tail++] = next;
    }
  }
}

function reachProbability(map: FrozenLakeMap, start: number, goal: number, slip: number, horizon: number): number {
  if (horizon < 0) return 0;
  if (start === goal) return 1;
  const n = map.size * map.size;
  const moves = moveTable(map.size);
  const s = scratchFor(n, horizon);
  const { fromStart, toGoal, kept, index, neighbours, windowStart, windowEnd, live, position, byEnd, counts } = s;
  bfsInto(map, moves, start, fromStart, s.queue);
  const d = fromStart[goal];
  if (d < 0 || d > horizon) return 0;
  if (slip <= 0) return 1;
  bfsInto(map, moves, goal, toGoal, s.queue);
  // Cells whose update window [dist to goal, horizon - dist from start] is not empty, numbered by dist to goal
  // (a stable counting sort: ties in cell order).
  let m = 0;
  let maxStart = 0;
  for (let cell = 0; cell < n; cell++) {
    if (cell !== goal && fromStart[cell] >= 0 && toGoal[cell] >= 0 && fromStart[cell] + toGoal[cell] <= horizon) {
      kept[m++] = cell;
      if (toGoal[cell] > maxStart) maxStart = toGoal[cell];
    }
  }
  counts.fill(0, 0, maxStart + 2);
  for (let p = 0; p < m; p++) counts[toGoal[kept[p]] + 1]++;
  for (let k = 1; k < maxStart + 2; k++) counts[k] += counts[k - 1];
  const ZERO = m;
  const ONE = m + 1;
  index.fill(ZERO, 0, n);
  let maxEnd = 0;
  for (let p = 0; p < m; p++) {
    const cell = kept[p];
    const i = counts[toGoal[cell]]++;
    index[cell] = i;
    windowStart[i] = toGoal[cell];
    windowEnd[i] = horizon - fromStart[cell];
    if (windowEnd[i] > maxEnd) maxEnd = windowEnd[i];
  }
  index[goal] = ONE;
  for (let p = 0; p < m; p++) {
    const cell = kept[p];
    const j = 4 * index[cell];
    // byte offsets from the value array's start, as the sweep reads them
    for (let dir = 0; dir < 4; dir++) neighbours[j + dir] = index[moves[cell * 4 + dir]] * 8;
  }
  // The order in which cells leave the live set: by window end, ties by number (stable counting sort).
  counts.fill(0, 0, maxEnd + 2);
  for (let i = 0; i < m; i++) counts[windowEnd[i] + 1]++;
  for (let k = 1; k < maxEnd + 2; k++) counts[k] += counts[k - 1];
  for (let i = 0; i < m; i++) byEnd[counts[windowEnd[i]]++] = i;
  let value = s.value;
  let next = s.next;
  let valueAt = s.valueAt;
  let nextAt = s.nextAt;
  value.fill(0, 0, m + 2);
  next.fill(0, 0, m + 2);
  value[ONE] = 1;
  next[ONE] = 1;
  const straight = 1 - slip;
  const side = slip / 2;
  // The live set holds the cells whose window contains k: cells join in order of windowStart
  // (cells are numbered by it) and leave in order of windowEnd (swap-removal keeps it compact);
  // a cell leaves only after it joined, since windowStart <= windowEnd for every kept cell.
  let liveCount = 0;
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
    // One Jacobi sweep over live[0..liveCount-1] into next (sweep-wasm.ts). Up/down slip to the (right, left) pair and
    // right/left to the (up, down) pair, so the best of four actions is the better of two: straight * max(opposite
    // pair) + side * (other pair).
    const change = wasm.sweep(valueAt, nextAt, s.neighboursAt, s.liveAt, liveCount, straight, side);
    const swapAt = valueAt;
    valueAt = nextAt;
    nextAt = swapAt;
    const swap = value;
    value = next;
    next = swap;
    // Once every cell has joined, a sweep that changes nothing is a fixed point.
    if (joined === m && change < 1e-12) break;
  }
  return Math.min(1, Math.max(0, value[index[start]]));
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

/** The owner table of planAgents' reservations, reused (zeroed where the last plan wrote) and grown on demand. */
let ownerScratch = new Int16Array(0);
/** Entries of ownerScratch the last reservations may have written (from index 0). */
let ownerDirty = 0;

function createReservations(cells: number, limit: number): Reservations {
  const size = (limit + 1) * cells;
  if (ownerScratch.length < size) {
    ownerScratch = new Int16Array(size);
    ownerDirty = 0;
  }
  ownerScratch.fill(0, 0, ownerDirty);
  ownerDirty = 0;
  return {
    cells,
    owner: ownerScratch,
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

/** Parent tables of spaceTimePath's levels and the stamp of the cells each level reached, reused across calls. */
let parentScratch = new Int32Array(0);
let seenScratch = new Int32Array(0);
let seenStamp = 0;

/**
 * Space-time BFS for one agent against reserved paths (vertex and swap conflicts forbidden, parked
 * agents block their goals), with waiting allowed. After every reserved agent has parked, the rest
 * is a static BFS, which keeps the search small.
 */
function spaceTimePath(
  map: FrozenLakeMap,
  moves: Int32Array,
  start: number,
  goal: number,
  maxSteps: number,
  res: Reservations,
): number[] | null {
  const n = map.size * map.size;
  const dynamicEnd = Math.min(maxSteps, res.settleTime + 1);
  // parents of level t at parents[t * n + cell], valid where the level stamped the cell (no per-level array to fill)
  if (parentScratch.length < (dynamicEnd + 1) * n) parentScratch = new Int32Array((dynamicEnd + 1) * n);
  if (seenScratch.length < n || seenStamp > 2 ** 30) {
    seenScratch = new Int32Array(Math.max(n, seenScratch.length));
    seenStamp = 0;
  }
  const parents = parentScratch;
  const seen = seenScratch;
  let frontier = [start];
  parents[start] = -1;
  const goalFree = (t: number) => t > res.lastUse[goal];
  const rebuild = (t: number, cell: number): number[] => {
    const path: number[] = [];
    let c = cell;
    for (let k = t; k >= 0; k--) {
      path.push(c);
      c = parents[k * n + c];
    }
    return path.reverse();
  };
  if (start === goal && goalFree(0)) return [start];
  for (let t = 0; t < dynamicEnd; t++) {
    const stamp = ++seenStamp;
    const base = (t + 1) * n;
    const nextFrontier: number[] = [];
    for (const cell of frontier) {
      for (let d = 0; d < 5; d++) {
        const to = d === 4 ? cell : moves[cell * 4 + d];
        if (d < 4 && to === cell) continue;
        if (seen[to] === stamp || map.holes[to]) continue;
        if (occupiedBy(res, to, t + 1) || (to !== cell && swapsWith(res, cell, to, t))) continue;
        seen[to] = stamp;
        parents[base + to] = cell;
        nextFrontier.push(to);
      }
    }
    if (seen[goal] === stamp && goalFree(t + 1)) return rebuild(t + 1, goal);
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
  ownerDirty = Math.max(ownerDirty, path.length * res.cells);
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

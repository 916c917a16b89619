/**
 * Deterministic map generator for `frozenlake-mapf`. A map is a size x size grid of frozen cells
 * and holes; each agent has a start and a goal (all 2 x num_agents cells distinct). For every
 * agent a monotone lattice path from start to goal is carved first and holes are placed only off
 * the carved paths, so every agent always has a hole-free path and its shortest path length is
 * the Manhattan distance of its start and goal.
 */
import { createRng, type Rng } from "../rng";

/** The config fields the generator reads. */
export interface MapConfig {
  size: number;
  num_agents: number;
  obstacle_density: number;
  min_goal_distance: number;
  seed: number;
}

export interface AgentEndpoints {
  /** Cell index row * size + col. */
  start: number;
  goal: number;
}

export interface FrozenLakeMap {
  size: number;
  /** 1 where the cell is a hole (entering it ends the agent's episode in failure). */
  holes: Uint8Array;
  agents: AgentEndpoints[];
  /** Goal distance actually required: min(min_goal_distance, the grid's largest Manhattan distance). */
  effectiveGoalDistance: number;
  /** True when every agent's start-goal distance is >= min_goal_distance. */
  goalDistanceMet: boolean;
  holeCount: number;
}

/** Largest number of agents a size x size grid holds (two distinct cells per agent). */
export function maxAgentsFor(size: number): number {
  return Math.floor((size * size) / 2);
}

/** Largest start-goal Manhattan distance on a size x size grid. */
export function maxGoalDistanceFor(size: number): number {
  return 2 * (size - 1);
}

/** Row and column of a cell index. */
export function cellCoords(size: number, cell: number): [number, number] {
  return [Math.floor(cell / size), cell % size];
}

/** Manhattan distance of two cells. */
export function manhattan(size: number, a: number, b: number): number {
  return Math.abs(Math.floor(a / size) - Math.floor(b / size)) + Math.abs((a % size) - (b % size));
}

function farthestCornerDistance(size: number, cell: number): number {
  const [r, c] = cellCoords(size, cell);
  return Math.max(r, size - 1 - r) + Math.max(c, size - 1 - c);
}

function placeAgent(rng: Rng, size: number, used: Uint8Array, distance: number): AgentEndpoints {
  const cells = size * size;
  const free: number[] = [];
  const farEnough: number[] = [];
  for (let cell = 0; cell < cells; cell++) {
    if (used[cell]) continue;
    free.push(cell);
    if (farthestCornerDistance(size, cell) >= distance) farEnough.push(cell);
  }
  // Try starts that could reach the distance; fall back to the farthest free goal.
  const starts = rng.shuffle(farEnough.length > 0 ? farEnough : free);
  let best: AgentEndpoints | null = null;
  let bestDistance = -1;
  for (const start of starts.slice(0, 16)) {
    const goals: number[] = [];
    for (const goal of free) {
      if (goal === start) continue;
      const d = manhattan(size, start, goal);
      if (d >= distance) goals.push(goal);
      if (d > bestDistance) {
        bestDistance = d;
        best = { start, goal };
      }
    }
    if (goals.length > 0) return { start, goal: rng.pick(goals) };
  }
  if (!best) throw new Error("no free cells left for an agent");
  return best;
}

function carvePath(rng: Rng, size: number, from: number, to: number, protectedCells: Uint8Array): void {
  let [r, c] = cellCoords(size, from);
  const [tr, tc] = cellCoords(size, to);
  const moves: number[] = [];
  for (let i = 0; i < Math.abs(tr - r); i++) moves.push(0);
  for (let i = 0; i < Math.abs(tc - c); i++) moves.push(1);
  protectedCells[from] = 1;
  for (const move of rng.shuffle(moves)) {
    if (move === 0) r += Math.sign(tr - r);
    else c += Math.sign(tc - c);
    protectedCells[r * size + c] = 1;
  }
}

/**
 * Generate the map of a config, deterministically from its `seed` and layout fields. Throws when
 * the grid cannot hold the agents (validate() reports that case as an invalid num_agents first).
 */
export function generateMap(config: MapConfig): FrozenLakeMap {
  const { size, num_agents: agentCount } = config;
  const cells = size * size;
  if (agentCount > maxAgentsFor(size)) throw new Error(`a ${size}x${size} grid holds at most ${maxAgentsFor(size)} agents`);
  const rng = createRng(`frozenlake-mapf:${config.seed}:${size}:${agentCount}`);
  const distance = Math.max(1, Math.min(config.min_goal_distance, maxGoalDistanceFor(size)));
  const used = new Uint8Array(cells);
  const protectedCells = new Uint8Array(cells);
  const agents: AgentEndpoints[] = [];
  for (let i = 0; i < agentCount; i++) {
    const agent = placeAgent(rng, size, used, distance);
    used[agent.start] = 1;
    used[agent.goal] = 1;
    agents.push(agent);
  }
  for (const agent of agents) carvePath(rng, size, agent.start, agent.goal, protectedCells);
  for (let cell = 0; cell < cells; cell++) if (used[cell]) protectedCells[cell] = 1;

  const candidates: number[] = [];
  for (let cell = 0; cell < cells; cell++) if (!protectedCells[cell]) candidates.push(cell);
  const holeTarget = Math.min(candidates.length, Math.round(config.obstacle_density * cells));
  const holes = new Uint8Array(cells);
  const holeRng = rng.fork("holes");
  for (const cell of holeRng.shuffle(candidates).slice(0, holeTarget)) holes[cell] = 1;

  return {
    size,
    holes,
    agents,
    effectiveGoalDistance: distance,
    goalDistanceMet: agents.every((a) => manhattan(size, a.start, a.goal) >= config.min_goal_distance),
    holeCount: holeTarget,
  };
}

/** Text rows of a map: "." frozen, "H" hole, a-h agent starts, A-H agent goals (agents past 8 as "s"/"g"). */
export function renderMap(map: FrozenLakeMap): string[] {
  const chars: string[] = Array.from(map.holes, (h) => (h ? "H" : "."));
  map.agents.forEach((agent, i) => {
    chars[agent.start] = i < 8 ? String.fromCharCode(97 + i) : "s";
    chars[agent.goal] = i < 8 ? String.fromCharCode(65 + i) : "g";
  });
  const rows: string[] = [];
  for (let r = 0; r < map.size; r++) rows.push(chars.slice(r * map.size, (r + 1) * map.size).join(""));
  return rows;
}

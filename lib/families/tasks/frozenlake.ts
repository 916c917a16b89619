/**
 * frozenlake-mapf as a single-turn task: the generated map, each agent's start and goal, the step
 * budget and collision rule; the answer is one move string per agent, checked on the map by the
 * scorer (deterministically: a plan must reach every goal even before slips are considered).
 */
import type { FrozenLakeConfig } from "../frozenlake-mapf";
import { cellCoords, generateMap, renderMap } from "../frozenlake-mapf/map";
import { planAgents } from "../frozenlake-mapf/solver";
import { ANSWER_TAG_NOTE, type TaskInstance } from "./types";

const agentName = (i: number) => (i < 8 ? String.fromCharCode(97 + i) : `agent${i}`);

/** Moves of a cell path as letters: U, R, D, L, and W for a wait. */
export function pathToMoves(size: number, path: number[]): string {
  let moves = "";
  for (let t = 1; t < path.length; t++) {
    const d = path[t] - path[t - 1];
    moves += d === 0 ? "W" : d === -size ? "U" : d === size ? "D" : d === 1 ? "R" : "L";
  }
  return moves;
}

/** The frozenlake-mapf task instance of a config (reference from prioritized planning when it finds a plan). */
export function frozenlakeTask(config: FrozenLakeConfig): TaskInstance {
  const map = generateMap(config);
  const rows = renderMap(map);
  const agents = map.agents.map((agent, i) => ({
    name: agentName(i),
    start: cellCoords(map.size, agent.start),
    goal: cellCoords(map.size, agent.goal),
  }));
  const plan = planAgents(map, config.max_steps, config.collision);
  const reference = plan.ok ? plan.plans.map((p, i) => `${agents[i].name}: ${pathToMoves(map.size, p.path)}`).join("\n") : undefined;
  const collisionRule =
    config.collision === "block_both"
      ? "Agents may never occupy the same cell at the same time step, nor swap cells in one step."
      : "Agents may share cells (collisions cost reward but are not blocked).";
  const content = [
    `Frozen lake, ${map.size}x${map.size} grid (row 0 at the top, column 0 at the left):`,
    "",
    ...rows,
    "",
    'Legend: "." ice, "H" hole (an agent entering it is lost), lowercase letter = an agent\'s start, the same letter uppercase = its goal.',
    "Agents (row, column):",
    ...agents.map((a) => `- ${a.name}: start (${a.start[0]}, ${a.start[1]}) -> goal (${a.goal[0]}, ${a.goal[1]})`),
    "",
    `Every agent must end on its goal within ${config.max_steps} time steps. All agents act at once each step; after ` +
      `its last move an agent stays where it is. ${collisionRule}`,
    `The ice is slippery: a move slips to a perpendicular direction with probability ${config.slip_probability}; plan ` +
      `as if moves succeed, and prefer routes away from holes.`,
    "",
    "Answer with one line per agent, `<agent>: <moves>`, moves as letters U (up), D (down), L (left), R (right), W (wait), e.g.",
    "<answer>",
    ...agents.map((a) => `${a.name}: RRDD`),
    "</answer>",
  ].join("\n");
  return {
    messages: [
      { role: "system", content: `You plan routes for agents on a frozen lake. ${ANSWER_TAG_NOTE}` },
      { role: "user", content },
    ],
    groundTruth: {
      family: "frozenlake-mapf",
      answer_format: "moves-per-agent",
      map: rows,
      agents,
      max_steps: config.max_steps,
      collision: config.collision,
      ...(reference !== undefined ? { reference } : {}),
    },
  };
}

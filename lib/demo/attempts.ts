/**
 * Simulated attempts of a policy on one environment, as rollouts a harness would post: a
 * trajectory of tool calls and observations, and the failure modes a real run has (timeouts,
 * failing tests, the odd harness crash). Pure; used by the simulated trainer.
 */
import type { Rng } from "@/lib/families/rng";
import type { FamilyConfig } from "@/lib/families/types";
import type { RolloutInput } from "@/lib/ingest/normalized";

const MOVES = ["up", "down", "left", "right"] as const;

/** One attempt's rollout; `ok` decided by the caller from the learner's success probability. */
export function simulatedAttempt(
  rng: Rng,
  env: { key: string; config: FamilyConfig },
  attempt: { ok: boolean; externalId: string; generation: number; policy: string },
): RolloutInput {
  const { ok } = attempt;
  const size = Number(env.config.size ?? 6);
  const agents = Number(env.config.num_agents ?? 1);
  const maxSteps = Number(env.config.max_steps ?? 50);
  const steps = Math.max(2, Math.round(size * (1 + rng.next())));
  const timeout = !ok && rng.next() < 0.35;
  const infra = !ok && !timeout && rng.next() < 0.03;
  const shown = Math.min(steps, 14);
  const trajectory: NonNullable<RolloutInput["trajectory"]> = [
    {
      role: "system",
      content:
        `You control ${agents} agent(s) on a ${size}x${size} frozen lake with slippery tiles and holes. Reach every goal ` +
        `within ${maxSteps} steps; call the move tool once per step.`,
    },
    { role: "user", content: `Observation: map rendered (${size}x${size}); agents at their starts; goals marked G.` },
  ];
  let x = 0;
  let y = 0;
  for (let i = 0; i < shown; i++) {
    const agent = Math.floor(rng.next() * agents);
    const move = MOVES[Math.floor(rng.next() * 4)];
    const id = `call_${i}`;
    trajectory.push({
      role: "assistant",
      content: i === 0 ? "I will move toward the nearest goal, avoiding holes." : "",
      toolCalls: [{ id, name: "move", arguments: JSON.stringify({ agent, direction: move }) }],
      tokens: 18 + Math.floor(rng.next() * 20),
    });
    if (move === "right") x = Math.min(size - 1, x + 1);
    if (move === "left") x = Math.max(0, x - 1);
    if (move === "down") y = Math.min(size - 1, y + 1);
    if (move === "up") y = Math.max(0, y - 1);
    const slipped = rng.next() < Number(env.config.slip_probability ?? 0);
    trajectory.push({
      role: "tool",
      toolCallId: id,
      content: `agent ${agent} at (${x}, ${y})${slipped ? " after slipping" : ""}; step ${i + 1}/${maxSteps}`,
    });
  }
  if (ok) trajectory.push({ role: "assistant", content: "All agents reached their goals." });
  const failedAgent = Math.floor(rng.next() * agents);
  return {
    externalId: attempt.externalId,
    environmentKey: env.key,
    generation: attempt.generation,
    policy: attempt.policy,
    reward: infra ? undefined : ok ? 1 : 0,
    status: timeout || infra ? "errored" : "completed",
    error: timeout
      ? { type: "AgentTimeoutError", message: `Agent exceeded max_steps=${maxSteps} after ${steps + maxSteps} actions` }
      : infra
        ? { type: "SandboxError", message: "Simulator worker crashed before the verdict" }
        : undefined,
    turns: shown,
    inputTokens: 400 + steps * 90,
    outputTokens: 30 + steps * 12,
    trajectory,
    verifierOutput: infra
      ? "Fatal Python error: Segmentation fault (simulator worker)"
      : ok
        ? `${"=".repeat(29)} ${agents} passed in 0.${Math.floor(rng.next() * 90) + 10}s ${"=".repeat(29)}`
        : // pytest's own shape: the short summary, then the counts banner (what the rollout page's test counts read)
          `${"=".repeat(27)} short test summary info ${"=".repeat(28)}\nFAILED test_goals.py::test_agent_${failedAgent}_reaches_goal ` +
          `- agent ${failedAgent} ${rng.next() < 0.6 ? "fell into a hole" : "did not reach its goal"}\n${"=".repeat(25)} 1 ` +
          `failed${agents > 1 ? `, ${agents - 1} passed` : ""} in 0.${(steps % 90) + 10}s ${"=".repeat(25)}`,
  } as RolloutInput;
}

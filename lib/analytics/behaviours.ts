/**
 * Behaviours of an agent across tasks, beside the per-test failure signatures: hit the step cap,
 * timed out while a command ran, a package install timed out, format errors, never ran a test,
 * gave up or declared itself done early. A rollout may show several. Pure; patterns are linear
 * and run on capped text.
 */
import type { Message } from "@/lib/ingest/normalized";
import { commandsFromTrajectory, packageInstallTimeouts, type AgentCommand } from "./blame";

/** Behaviour ids and labels, in display order (API: failures.behaviours). */
export const BEHAVIOURS = [
  { id: "step_cap", label: "hit the step cap" },
  { id: "timeout_mid_command", label: "agent timed out while a command was running" },
  { id: "package_install_timeout", label: "package install timed out" },
  { id: "format_errors", label: "format errors" },
  { id: "never_ran_tests", label: "never ran the task's tests" },
  { id: "gave_up_early", label: "gave up / declared done early" },
] as const;
export type BehaviourId = (typeof BEHAVIOURS)[number]["id"];

/** Label of a behaviour id. */
export function behaviourLabel(id: string): string {
  return BEHAVIOURS.find((b) => b.id === id)?.label ?? id;
}

/** What the behaviour detector looks at for one rollout. */
export interface BehaviourInput {
  success: boolean;
  errorType?: string | null;
  turns?: number | null;
  /** the agent's own step limit (e.g. usage.json max_steps) */
  maxSteps?: number | null;
  /** format errors the harness counted (e.g. timing.json format_error) */
  formatErrors?: number | null;
  trajectory?: readonly Message[] | null;
}

const SCAN_MAX = 600;
const FORMAT_FEEDBACK =
  /^\s{0,20}(?:Format error\b|Previous response had parsing errors)|did not include a valid .{0,40}tool call|invalid tool call/i;
/** a command that runs tests: a test runner, or a script named test… */
// one literal per alternative (a line each); a command runs tests when any of them matches
const RUNS_TESTS = [
  /\b(?:pytest|py\.test|unittest|nosetests|tox|ctest|bats)\b/i,
  /\b(?:npm|yarn|pnpm) {1,8}(?:run {1,8})?test\b/i,
  /\b(?:cargo|go|mvn|gradle|dotnet|mix) {1,8}test\b/i,
  /\bmake {1,8}(?:test|check)\b/i,
  /\btests?[\w-]{0,40}\.(?:py|sh|pl|js|ts|rb|R)\b/i,
  /\b[\w-]{1,40}_test\.(?:py|go|sh)\b/i,
];
const DECLARES_DONE = /COMPLETE_TASK|task_complete|mark_task_complete|\bsubmit\b|\bfinish(?:ed)?\b/i;
const GIVES_UP = /\b(?:I (?:can(?:no|')t|am unable to|was unable to|could not|couldn't)|not possible|impossible to|give up|giving up)\b/i;
const AGENT_TIMEOUT = /AgentTimeout|timed? ?out/i;

function capped(text: string): string {
  return text.length > SCAN_MAX ? text.slice(0, SCAN_MAX) : text;
}

function tail(text: string): string {
  return text.length > SCAN_MAX ? text.slice(-SCAN_MAX) : text;
}

/** The behaviours a rollout shows (ids in display order). */
export function rolloutBehaviours(input: BehaviourInput, commands?: readonly AgentCommand[]): BehaviourId[] {
  const trajectory = input.trajectory ?? [];
  const cmds = commands ?? commandsFromTrajectory(trajectory);
  const out = new Set<BehaviourId>();
  const turns = input.turns ?? trajectory.filter((m) => m.role === "assistant").length;
  const stepCap = typeof input.maxSteps === "number" && input.maxSteps > 0 && turns >= input.maxSteps;
  if (stepCap) out.add("step_cap");

  const timedOut = !!input.errorType && AGENT_TIMEOUT.test(input.errorType) && !/verifier/i.test(input.errorType);
  const last = cmds[cmds.length - 1];
  if (timedOut && last && (last.unanswered || last.exitCode === 124)) out.add("timeout_mid_command");
  if (packageInstallTimeouts(cmds).length > 0) out.add("package_install_timeout");

  const formatFeedback = trajectory.some((m) => (m.role === "user" || m.role === "tool") && FORMAT_FEEDBACK.test(capped(m.content)));
  if ((input.formatErrors ?? 0) > 0 || formatFeedback) out.add("format_errors");

  // only an agent with a shell can run tests: a chat or game trajectory without commands is not flagged
  if (cmds.length > 0 && !cmds.some((c) => RUNS_TESTS.some((pattern) => pattern.test(capped(c.command))))) out.add("never_ran_tests");

  if (!input.success && !input.errorType && !stepCap) {
    const lastAssistant = [...trajectory].reverse().find((m) => m.role === "assistant");
    if (lastAssistant) {
      const calls = lastAssistant.toolCalls ?? [];
      const declaredDone = calls.length === 0 || calls.some((c) => DECLARES_DONE.test(c.name) || DECLARES_DONE.test(capped(c.arguments)));
      const early = turns <= (typeof input.maxSteps === "number" && input.maxSteps > 0 ? Math.floor(input.maxSteps / 2) : 10);
      if ((declaredDone && early) || GIVES_UP.test(tail(lastAssistant.content))) out.add("gave_up_early");
    }
  }
  return BEHAVIOURS.map((b) => b.id).filter((id) => out.has(id));
}

/** One behaviour across a generation's failures (API: failures.behaviours). */
export interface BehaviourCluster {
  id: BehaviourId;
  label: string;
  count: number;
  environments: number;
  environmentKeys: string[];
  exemplarRolloutIds: string[];
  /** policy name -> failures showing it */
  perPolicy: Record<string, number>;
}

/** Groups failed rollouts by behaviour; exemplars spread across environments (smallest id of each). */
export function clusterBehaviours(
  rows: Iterable<{ rolloutId: string; environmentKey: string; policy: string; behaviours: readonly string[] }>,
): BehaviourCluster[] {
  const groups = new Map<string, { ids: Map<string, string>; count: number; perPolicy: Record<string, number>; all: string[] }>();
  for (const r of rows) {
    for (const b of r.behaviours) {
      let g = groups.get(b);
      if (!g) groups.set(b, (g = { ids: new Map(), count: 0, perPolicy: {}, all: [] }));
      g.count += 1;
      g.perPolicy[r.policy] = (g.perPolicy[r.policy] ?? 0) + 1;
      const cur = g.ids.get(r.environmentKey);
      if (cur === undefined || Number(r.rolloutId) < Number(cur)) g.ids.set(r.environmentKey, r.rolloutId);
    }
  }
  const out: BehaviourCluster[] = [];
  for (const def of BEHAVIOURS) {
    const g = groups.get(def.id);
    if (!g) continue;
    out.push({
      id: def.id,
      label: def.label,
      count: g.count,
      environments: g.ids.size,
      environmentKeys: [...g.ids.keys()].sort(),
      exemplarRolloutIds: [...g.ids.values()].sort((a, b) => Number(a) - Number(b)).slice(0, 3),
      perPolicy: g.perPolicy,
    });
  }
  return out.sort((a, b) => b.count - a.count);
}

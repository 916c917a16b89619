/**
 * Who broke the environment: the shell commands an agent ran (read from its trajectory) and the
 * ones among them that leave a sandbox unusable for the verifier (a package manager timed out or
 * killed mid-install holds the dpkg lock or leaves dpkg half-configured; a removed tool; a killed
 * package manager). Pure; every pattern is linear and runs on a capped command string.
 */

/** One shell command the agent ran, and how it ended. */
export interface AgentCommand {
  /**
   * 1-based turn of the main agent that issued the command, numbered as the rollout's turn count is
   * (isMainAgentTurn); a subagent's command carries the main turn that started the subagent
   */
  step: number;
  /** 0-based index of the issuing message in the trajectory: the viewer's `#N` label and `#turn-N` link */
  message?: number;
  command: string;
  /** exit code, when the harness reported one */
  exitCode: number | null;
  /** the agent issued it but no result came back (the run ended while it was running) */
  unanswered?: boolean;
}

/** How an agent's command damaged the environment. */
export type EnvironmentDamageKind =
  "package_manager_timed_out" | "package_manager_killed" | "killed_package_manager" | "removed_tool" | "package_manager_in_background";

/** Evidence that the agent's own command broke the environment. */
export interface EnvironmentDamage {
  kind: EnvironmentDamageKind;
  step: number;
  /** the issuing message's index in the trajectory (the viewer's `#N`); absent in evidence recorded before it was kept */
  message?: number;
  exitCode: number | null;
  /** the command, cut to 200 characters */
  command: string;
}

/** Longest command text a pattern is run on. */
const COMMAND_SCAN_MAX = 4000;
const EVIDENCE_COMMAND_MAX = 200;

const SYSTEM_PACKAGE_MANAGER = /\b(?:apt-get|apt|aptitude|dpkg|yum|dnf|apk|zypper)\b/;
/** a package manager that installs (system or language level), for "package install timed out" */
const PACKAGE_INSTALL = [
  /\b(?:apt-get|apt|aptitude|yum|dnf|zypper) {1,8}(?:-\S{1,64} {1,8}){0,16}install\b/,
  /\bdpkg {1,8}(?:-i|--install|--configure)\b/,
  /\bapk {1,8}add\b/,
  /\b(?:pip3?|uv {1,8}pip|conda|mamba|npm|yarn|pnpm|gem|cargo) {1,8}install\b/,
];
const TIMED_OUT = new Set([124]);
const KILLED = new Set([137, 143, -9, -15]);
const KILLS_PACKAGE_MANAGER = /\b(?:kill|pkill|killall)\b[^\n;|&]{0,200}\b(?:dpkg|apt-get|apt|unattended-upgr)/;
const REMOVES_DPKG_LOCK = /\brm\b[^\n;|&]{0,200}\/var\/lib\/dpkg\/lock/;
const REMOVES_PACKAGE =
  /\b(?:apt-get|apt|aptitude) {1,8}(?:-\S{1,64} {1,8}){0,16}(?:remove|purge|autoremove)\b|\bdpkg {1,8}(?:-r|-P|--remove|--purge)\b/;
const REMOVES_TOOL = /\brm\b[^\n;|&]{0,200}\/(?:usr\/)?(?:local\/)?s?bin\/(?:curl|wget|python3?|pip3?|bash|sh|uv|uvx|apt|apt-get|dpkg)\b/;
/** `apt-get install … &` (a lone ampersand, not &&) or nohup: the install outlives the command */
const BACKGROUND_PACKAGE_MANAGER = /\bnohup {1,8}(?:sudo {1,8})?(?:apt-get|apt|dpkg)\b|\b(?:apt-get|apt|dpkg)\b[^\n;|&]{0,300}[^&]&(?!&)/;

function capped(command: string): string {
  return command.length > COMMAND_SCAN_MAX ? command.slice(0, COMMAND_SCAN_MAX) : command;
}

function evidence(kind: EnvironmentDamageKind, c: AgentCommand): EnvironmentDamage {
  const command = c.command.length > EVIDENCE_COMMAND_MAX ? `${c.command.slice(0, EVIDENCE_COMMAND_MAX - 1)}…` : c.command;
  return { kind, step: c.step, ...(c.message !== undefined ? { message: c.message } : {}), exitCode: c.exitCode, command };
}

/** True when the command installs packages (apt/dpkg/yum/apk, pip/conda/npm/…). */
export function isPackageInstall(command: string): boolean {
  const text = capped(command);
  return PACKAGE_INSTALL.some((pattern) => pattern.test(text));
}

/** The agent's commands that left the environment broken for the verifier, in step order. */
export function environmentDamage(commands: readonly AgentCommand[]): EnvironmentDamage[] {
  const out: EnvironmentDamage[] = [];
  for (const c of commands) {
    const cmd = capped(c.command);
    const systemPm = SYSTEM_PACKAGE_MANAGER.test(cmd);
    if (systemPm && c.exitCode !== null && TIMED_OUT.has(c.exitCode)) out.push(evidence("package_manager_timed_out", c));
    else if (systemPm && c.exitCode !== null && KILLED.has(c.exitCode)) out.push(evidence("package_manager_killed", c));
    else if (KILLS_PACKAGE_MANAGER.test(cmd) || REMOVES_DPKG_LOCK.test(cmd)) out.push(evidence("killed_package_manager", c));
    else if (REMOVES_PACKAGE.test(cmd) || REMOVES_TOOL.test(cmd)) out.push(evidence("removed_tool", c));
    else if (BACKGROUND_PACKAGE_MANAGER.test(cmd)) out.push(evidence("package_manager_in_background", c));
  }
  return out;
}

/** The package installs that timed out or were killed (apt, pip, npm, …). */
export function packageInstallTimeouts(commands: readonly AgentCommand[]): AgentCommand[] {
  return commands.filter(
    (c) => c.exitCode !== null && (TIMED_OUT.has(c.exitCode) || KILLED.has(c.exitCode)) && isPackageInstall(c.command),
  );
}

const EXIT_CODE =
  /\(exit_code=(-?\d{1,4})\)|\bexit(?:_code| code|ed with code)[:= ]{1,3}(-?\d{1,4})\b|\breturn ?code[:= ]{1,3}(-?\d{1,4})\b/i;
const TIMED_OUT_TEXT = /\bcommand timed out\b|\btimed out after \d{1,6} ?(?:s|ms|seconds)\b/i;
const RESULT_TAIL = 600;

/** Shells whose `-c` (or `-lc`, `-ic`, …) runs the next argument as the command line. */
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh"]);
/** A character that needs quoting in a shell word. */
const SHELL_SPECIAL = /[^\w@%+=:,./-]/;

function shellWord(word: string): string {
  return word !== "" && !SHELL_SPECIAL.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * An argv array as the shell line it runs: ["bash", "-lc", X] is X; anything else its words
 * joined, quoted where needed (codex's shell tool passes its command this way).
 */
function commandLineOf(argv: readonly unknown[]): string | null {
  if (argv.length === 0 || !argv.every((w): w is string => typeof w === "string")) return null;
  if (SHELLS.has(argv[0].slice(argv[0].lastIndexOf("/") + 1))) {
    for (let i = 1; i < argv.length - 1 && argv[i].startsWith("-") && !argv[i].startsWith("--"); i++) {
      if (argv[i].includes("c")) return argv[i + 1];
    }
  }
  return argv.map(shellWord).join(" ");
}

function commandOf(args: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const a = parsed as Record<string, unknown>;
  for (const key of ["command", "cmd", "keystrokes", "script", "code"]) {
    const value = a[key];
    if (typeof value === "string") return value;
    if (Array.isArray(value)) return commandLineOf(value);
  }
  return null;
}

/*
 * claude-code's tool results end with `[exit_code] N` (left out when N is 0) and `[interrupted] True`
 * lines, maybe followed by a `[metadata] {...}` line of any length (Harbor's claude_code.py
 * _format_tool_result), so they are found from the end, not in the tail.
 */
const CLAUDE_EXIT_CODE = "[exit_code] ";
const CLAUDE_INTERRUPTED = "[interrupted] True";
const LEADING_INTEGER = /^-?\d{1,4}\b/;

/** Where the last line that starts with `marker` starts, or -1. */
function lastLineStart(result: string, marker: string): number {
  // most results hold neither marker: V8's forward search skips through the text, its backward one compares at every
  // position (2 KB tool results: 0.05 against 1.2 microseconds a call), so the forward one says first whether to look
  if (result.indexOf(marker) < 0) return -1;
  const at = result.lastIndexOf(marker);
  return at === 0 || (at > 0 && result[at - 1] === "\n") ? at : -1;
}

function exitCodeOf(result: string): number | null {
  const claudeExit = lastLineStart(result, CLAUDE_EXIT_CODE);
  if (claudeExit >= 0) {
    const start = claudeExit + CLAUDE_EXIT_CODE.length;
    const m = result.slice(start, start + 8).match(LEADING_INTEGER);
    if (m) return Number(m[0]);
  }
  // Harbor runs claude-code headless, so nobody interrupts a command but its timeout
  if (lastLineStart(result, CLAUDE_INTERRUPTED) >= 0) return 124;
  const tail = result.length > RESULT_TAIL ? result.slice(-RESULT_TAIL) : result;
  const m = tail.match(EXIT_CODE);
  if (m) return Number(m[1] ?? m[2] ?? m[3]);
  return TIMED_OUT_TEXT.test(tail) ? 124 : null;
}

/** The parts of a trajectory message blame reads (structurally the ingest's normalized message; analytics sits below ingest). */
export interface TrajectoryMessage {
  role: string;
  content: string;
  toolCallId?: string;
  /** copied from an earlier segment for context (terminus-2's linear history): it happened, and was counted, there */
  copiedContext?: boolean;
  /** a subagent's message merged into the main trajectory (claude-code sidechains) */
  sidechain?: { agentId?: string };
  toolCalls?: readonly { id: string; arguments: string }[];
}

/**
 * Whether a message is one of the main agent's own turns: an assistant message neither copied from an
 * earlier segment nor a subagent's. The one rule for the rollout's turn count (countTurns) and the
 * step numbers blame names, so "step N" is the N-th of the rollout's "Turns".
 */
export function isMainAgentTurn(m: Pick<TrajectoryMessage, "role" | "copiedContext" | "sidechain">): boolean {
  return m.role === "assistant" && !m.copiedContext && !m.sidechain;
}

/**
 * The shell commands in a trajectory: each assistant tool call whose arguments carry a command
 * (`command`, `cmd`, `keystrokes`, …, a string or an argv array), with the exit code its linked
 * tool result reports (`(exit_code=N)`, `exit code N`, claude-code's `[exit_code] N`, …).
 *
 * Each command is numbered by the main agent's turn (isMainAgentTurn) and carries its message's index
 * (the viewer labels messages `#index`). Copied-context messages are skipped: they ran in an earlier
 * segment and are read there. A subagent's (sidechain) commands are read: the subagent is the policy's
 * own doing, so a sandbox it broke is still broken by the agent. They take the step of the main turn
 * that started the subagent (the last main turn before them), not a turn of their own, so the step
 * stays one the rollout's turn count has; their message index finds the exact message.
 */
export function commandsFromTrajectory(messages: readonly TrajectoryMessage[] | null | undefined): AgentCommand[] {
  if (!messages) return [];
  const results = new Map<string, string>();
  for (const m of messages) if (m.role === "tool" && m.toolCallId) results.set(m.toolCallId, m.content);
  const out: AgentCommand[] = [];
  let step = 0;
  messages.forEach((m, i) => {
    if (isMainAgentTurn(m)) step += 1;
    if (m.role !== "assistant" || m.copiedContext) return;
    // a result not linked to a call still answers it (ATIF agents that batch keystrokes)
    const next = messages[i + 1];
    const unlinkedAnswer = next !== undefined && next.role !== "assistant" && !next.toolCallId ? next.content : undefined;
    for (const call of m.toolCalls ?? []) {
      const command = commandOf(call.arguments);
      if (command === null) continue;
      const result = results.get(call.id) ?? unlinkedAnswer;
      out.push({
        // a subagent before any main turn (not seen in practice) counts as the first
        step: Math.max(step, 1),
        message: i,
        command: capped(command),
        exitCode: result === undefined ? null : exitCodeOf(result),
        ...(result === undefined ? { unanswered: true } : {}),
      });
    }
  });
  return out;
}

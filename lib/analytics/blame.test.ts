import { describe, expect, it } from "vitest";
import { countTurns, normalizeOpenAIMessages, type Message } from "@/lib/ingest/normalized";
import { outlineMessage } from "@/lib/rollouts/turns";
import { commandsFromTrajectory, environmentDamage, packageInstallTimeouts, type AgentCommand } from "./blame";

const cmd = (step: number, command: string, exitCode: number | null): AgentCommand => ({ step, command, exitCode });

describe("environmentDamage", () => {
  it("finds the agent's package-manager command that timed out or was killed", () => {
    const d = environmentDamage([
      cmd(1, "ls -la /app", 0),
      cmd(5, "apt-get update -qq && apt-get install -y -qq python3 2>/dev/null | tail -5", 124),
      cmd(6, "apt-get install -y r-base", 137),
      cmd(7, "pip install numpy", 124), // a pip timeout holds no system lock
      cmd(8, "apt-get install -y curl", 100), // failed, but finished: no lock left behind
    ]);
    expect(d.map((x) => [x.kind, x.step, x.exitCode])).toEqual([
      ["package_manager_timed_out", 5, 124],
      ["package_manager_killed", 6, 137],
    ]);
  });
  it("finds killed package managers, removed locks and tools, and installs left in the background", () => {
    const d = environmentDamage([
      cmd(2, "pkill -f dpkg 2>/dev/null; sleep 2", 0),
      cmd(3, "rm -f /var/lib/dpkg/lock* /var/cache/apt/archives/lock", 0),
      cmd(4, "apt-get purge -y curl", 0),
      cmd(5, "rm -rf /usr/bin/python3", 0),
      cmd(6, "nohup apt-get install -y gcc > /tmp/log", 0),
      cmd(7, "apt-get install -y gcc > /tmp/log 2>&1 &", 0),
      cmd(8, "apt-get update && apt-get install -y gcc", 0),
    ]);
    expect(d.map((x) => [x.kind, x.step])).toEqual([
      ["killed_package_manager", 2],
      ["killed_package_manager", 3],
      ["removed_tool", 4],
      ["removed_tool", 5],
      ["package_manager_in_background", 6],
      ["package_manager_in_background", 7],
    ]);
  });
  it("cuts the evidence command and stays fast on a huge command", () => {
    const long = `apt-get install -y ${"x".repeat(100_000)}`;
    const [d] = environmentDamage([cmd(1, long, 124)]);
    expect(d.command.length).toBeLessThanOrEqual(200);
    expect(environmentDamage([cmd(1, `kill ${" ".repeat(200_000)}`, 0)])).toEqual([]);
  });
});

describe("packageInstallTimeouts", () => {
  it("counts installs of any package manager that timed out", () => {
    const t = packageInstallTimeouts([
      cmd(1, "pip install numpy", 124),
      cmd(2, "apt-get install -y gcc", 0),
      cmd(3, "npm install", 137),
      cmd(4, "make", 124),
    ]);
    expect(t.map((c) => c.step)).toEqual([1, 3]);
  });
});

describe("commandsFromTrajectory", () => {
  it("pairs each command with the exit code of its linked result and marks one left unanswered", () => {
    const messages = normalizeOpenAIMessages([
      { role: "system", content: "s" },
      { role: "assistant", content: "a", tool_calls: [{ id: "c1", function: { name: "bash", arguments: '{"command": "ls"}' } }] },
      { role: "tool", tool_call_id: "c1", content: "x\n\n(exit_code=0)" },
      {
        role: "assistant",
        content: "b",
        tool_calls: [{ id: "c2", function: { name: "bash", arguments: '{"command": "apt-get install -y python3"}' } }],
      },
      { role: "tool", tool_call_id: "c2", content: "(no output)\n\n(exit_code=124)" },
      { role: "assistant", content: "c", tool_calls: [{ id: "c3", function: { name: "bash", arguments: '{"command": "sleep 999"}' } }] },
    ]);
    expect(commandsFromTrajectory(messages)).toEqual([
      { step: 1, message: 1, command: "ls", exitCode: 0 },
      { step: 2, message: 3, command: "apt-get install -y python3", exitCode: 124 },
      { step: 3, message: 5, command: "sleep 999", exitCode: null, unanswered: true },
    ]);
  });

  it("numbers steps by the main agent's turns, past copied context and a subagent, and names the viewer's message", () => {
    // terminus-2's continued segment starts with the earlier chat (is_copied_context); claude-code merges a
    // subagent's steps in (extra.is_sidechain). Neither is a turn of the main agent (countTurns, the "Turns" tile).
    const bash = (id: string, command: string) => [{ id, name: "Bash", arguments: JSON.stringify({ command }) }];
    const trajectory: Message[] = [
      { role: "user", content: "task", copiedContext: true },
      { role: "assistant", content: "", toolCalls: bash("old1", "apt-get update"), copiedContext: true },
      { role: "tool", content: "(exit_code=0)", toolCallId: "old1", copiedContext: true },
      { role: "user", content: "summary of the earlier segment", copiedContext: true },
      { role: "assistant", content: "", toolCalls: bash("c1", "ls /app") }, // #4, main turn 1
      { role: "tool", content: "a.py\n\n(exit_code=0)", toolCallId: "c1" },
      { role: "assistant", content: "delegating", toolCalls: [{ id: "t1", name: "Task", arguments: '{"prompt":"look"}' }] }, // #6, turn 2
      { role: "user", content: "look", sidechain: {} },
      { role: "assistant", content: "", toolCalls: bash("s1", "rm -rf /usr/bin/curl"), sidechain: { agentId: "a1" } }, // #8, the subagent's
      { role: "tool", content: "(exit_code=0)", toolCallId: "s1", sidechain: { agentId: "a1" } },
      { role: "assistant", content: "looked", sidechain: { agentId: "a1" } },
      { role: "tool", content: "looked", toolCallId: "t1" },
      { role: "assistant", content: "", toolCalls: bash("c2", "apt-get install -y python3") }, // #12, main turn 3
      { role: "tool", content: "(no output)\n\n(exit_code=124)", toolCallId: "c2" },
    ];
    const damage = environmentDamage(commandsFromTrajectory(trajectory));
    // before: every assistant message counted (the copied ones and the subagent's too): "step 4" and "step 6"
    expect(damage.map((d) => [d.kind, d.step, d.message])).toEqual([
      ["removed_tool", 2, 8],
      ["package_manager_timed_out", 3, 12],
    ]);
    for (const d of damage) {
      // the viewer labels message i `#i` (readTurnPage outlines the stored array by position): it holds the command
      const shown = outlineMessage(trajectory[d.message!], d.message!, 600);
      expect(shown.index).toBe(d.message);
      expect(shown.toolCalls.map((c) => c.argumentsPreview).join("")).toContain(d.command);
      // and "step N" is the N-th of the rollout's turns: the main turns up to the message (a subagent's, the turn that started it)
      expect(countTurns(trajectory.slice(0, d.message! + 1))).toBe(d.step);
    }
    expect(countTurns(trajectory)).toBe(3);
  });
});

describe("commandsFromTrajectory: codex and claude-code as Harbor writes them", () => {
  const call = (id: string, args: unknown) => ({
    role: "assistant",
    content: "",
    tool_calls: [{ id, function: { name: "shell", arguments: JSON.stringify(args) } }],
  });
  const result = (id: string, content: string) => ({ role: "tool", tool_call_id: id, content });
  const apt = Array.from({ length: 40 }, (_, i) => `Get:${i} http://archive.ubuntu.com/ubuntu noble/main amd64 pkg${i} [100 kB]`).join(
    "\n",
  );

  it("reads codex's argv command: [bash, -lc, X] is X, other arrays are joined as a shell line", () => {
    const messages = normalizeOpenAIMessages([
      call("c1", { command: ["bash", "-lc", "apt-get install -y curl"], timeout_ms: 600000 }),
      result("c1", `${apt}\n\n(exit_code=124)`),
      call("c2", { command: ["/bin/sh", "-c", "dpkg --configure -a"] }),
      result("c2", "ok\n\n(exit_code=0)"),
      call("c3", { command: ["python3", "-c", "print('it works')"], workdir: "/app" }),
      result("c3", "it works\n\n(exit_code=0)"),
    ]);
    const commands = commandsFromTrajectory(messages);
    expect(commands).toEqual([
      { step: 1, message: 0, command: "apt-get install -y curl", exitCode: 124 },
      { step: 2, message: 2, command: "dpkg --configure -a", exitCode: 0 },
      { step: 3, message: 4, command: "python3 -c 'print('\\''it works'\\'')'", exitCode: 0 },
    ]);
    expect(environmentDamage(commands).map((d) => [d.kind, d.step])).toEqual([["package_manager_timed_out", 1]]);
  });

  it("reads claude-code's [exit_code] N and [interrupted] True lines, even before a long [metadata] line", () => {
    const metadata = `[metadata] ${JSON.stringify({ returnCodeInterpretation: null, noOutputExpected: false, note: "x".repeat(2000) })}`;
    const messages = normalizeOpenAIMessages([
      call("toolu_1", { command: "apt-get install -y curl" }),
      result("toolu_1", `[stdout]\n${apt}\n[exit_code] 124`),
      call("toolu_2", { command: "apt-get install -y wget" }),
      result("toolu_2", `[stdout]\n${apt}\n[exit_code] 137\n${metadata}`),
      call("toolu_3", { command: "apt-get install -y jq", timeout: 120000 }),
      result("toolu_3", `[stdout]\n${apt}\n[stderr]\nCommand timed out after 2m 0.0s\n[interrupted] True\n${metadata}`),
      call("toolu_4", { command: "ls" }),
      result("toolu_4", "[stdout]\na.txt"),
    ]);
    const commands = commandsFromTrajectory(messages);
    expect(commands.map((c) => c.exitCode)).toEqual([124, 137, 124, null]);
    expect(environmentDamage(commands).map((d) => [d.kind, d.step])).toEqual([
      ["package_manager_timed_out", 1],
      ["package_manager_killed", 2],
      ["package_manager_timed_out", 3],
    ]);
  });
});

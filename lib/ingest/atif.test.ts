import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AtifFormatError, readAtifTrajectory } from "./atif";
import { fixturesDir } from "./fixtures-path";
import { trajectoryFromDocument } from "./harbor-parts";
import { messageSchema } from "./normalized";

// Golden ATIF files of Harbor's terminus-2 and claude-code agents (format: harbor/models/trajectories/*.py).
const root = fixturesDir();
const atifDir = root ? path.join(root, "harbor-tasks", "atif") : "";
const haveFixtures = atifDir !== "" && existsSync(atifDir);
if (!haveFixtures && process.env.CI === "true")
  throw new Error("shared/fixtures/harbor-tasks/atif is missing: set ENVFORGE_FIXTURES to the fixtures folder");
const load = (name: string): unknown => JSON.parse(readFileSync(path.join(atifDir, name), "utf8"));

describe.skipIf(!haveFixtures)("ATIF golden trajectories", () => {
  it("links every tool call to its result and keeps per-step tokens, cost and timestamps (claude-code)", () => {
    const doc = load("trajectory_fail.json") as { steps: { tool_calls?: unknown[] }[] };
    const { messages, summary } = readAtifTrajectory(doc);
    for (const m of messages) expect(messageSchema.safeParse(m).success).toBe(true);
    const calls = messages.flatMap((m) => m.toolCalls ?? []);
    expect(calls.length).toBe(doc.steps.reduce((n, s) => n + (s.tool_calls?.length ?? 0), 0));
    const answered = new Set(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
    expect(calls.every((c) => answered.has(c.id))).toBe(true);
    const second = messages.find((m) => m.role === "assistant")!;
    expect(second.timestamp).toBe("2026-06-16T12:35:27.387Z");
    expect(second.usage).toEqual({ promptTokens: 34647, completionTokens: 261, cachedTokens: 0 });
    expect(second.tokens).toBe(261);
    expect(JSON.parse(second.toolCalls![0].arguments)).toMatchObject({
      file_path: "/repo/deployment/base/maas-controller/rbac/clusterrole.yaml",
    });
    expect(summary).toMatchObject({
      schemaVersion: "ATIF-v1.7",
      agent: { name: "claude-code", modelName: "claude-opus-4-6" },
      totalSteps: 40,
    });
    expect(summary.totalCostUsd).toBeCloseTo(3.1485, 3);
  });

  it("keeps reasoning apart from the message (terminus-2, invalid JSON response)", () => {
    const { messages } = readAtifTrajectory(load("hello-world-invalid-json.trajectory.json"));
    const first = messages.find((m) => m.role === "assistant")!;
    expect(first.reasoning).toMatch(/^The task is straightforward/);
    expect(first.content).not.toContain("The task is straightforward");
    // the parser's complaint is a result tied to no call: kept, unlinked
    const feedback = messages[messages.indexOf(first) + 1];
    expect(feedback).toMatchObject({ role: "tool" });
    expect(feedback.toolCallId).toBeUndefined();
    expect(feedback.content).toMatch(/parsing errors/);
    expect(first.usage).toEqual({ promptTokens: 682, completionTokens: 100, costUsd: 0.002705 });
  });

  it("keeps the subagent reference of a context summarization", () => {
    const { messages } = readAtifTrajectory(load("hello-world-context-summarization.trajectory.json"));
    const handoff = messages.find((m) => m.subagentRefs);
    expect(handoff?.role).toBe("system");
    expect(handoff?.subagentRefs?.[0]).toMatchObject({ trajectoryPath: "trajectory.summarization-1-summary.json" });
  });

  it("reads a timed-out run and every fixture as ATIF, not as chat messages", () => {
    for (const f of [
      "hello-world-timeout.trajectory.json",
      "trajectory_pass.json",
      "trajectory_fail.json",
      "hello-world-context-summarization.trajectory.json",
    ]) {
      const r = trajectoryFromDocument(load(f));
      expect(r.format, f).toBe("atif");
      expect(r.messages!.length, f).toBeGreaterThan(0);
    }
    const timeout = trajectoryFromDocument(load("hello-world-timeout.trajectory.json"));
    expect(timeout.messages!.filter((m) => m.role === "assistant")).toHaveLength(3);
  });
});

describe("ATIF errors and other formats", () => {
  it("names the step and field of a malformed document", () => {
    expect(() =>
      readAtifTrajectory({ schema_version: "ATIF-v1.7", agent: {}, steps: [{ step_id: 1, source: "robot", message: "x" }] }),
    ).toThrow(/steps\[0\]\.source/);
    expect(() =>
      readAtifTrajectory({
        schema_version: "ATIF-v1.7",
        steps: [{ step_id: 1, source: "agent", message: "x", tool_calls: [{ function_name: "f" }] }],
      }),
    ).toThrow(AtifFormatError);
    expect(() => readAtifTrajectory({ schema_version: "ATIF-v9", steps: [] })).toThrow(/not an ATIF v1 version/);
  });
  it("keeps OpenAI message lists working and flags anything else with the reason", () => {
    expect(trajectoryFromDocument([{ role: "user", content: "hi" }])).toMatchObject({
      format: "openai",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(trajectoryFromDocument({ messages: [{ role: "user", content: "hi" }] }).format).toBe("openai");
    const odd = trajectoryFromDocument({ events: [], version: 3 });
    expect(odd.messages).toBeUndefined();
    expect(odd.problem).toMatch(/unknown trajectory format: an object with keys events, version/);
    expect(trajectoryFromDocument([{ role: "wizard", content: "x" }]).problem).toMatch(/unknown role/);
  });
});

describe("ATIF of Harbor's codex agent (agents/installed/codex.py)", () => {
  const shell = (id: string, command: unknown) => ({ tool_call_id: id, function_name: "shell", arguments: { command } });
  it("ends a tool result with the exit code codex's converter moved into the step's extra", () => {
    const { messages } = readAtifTrajectory({
      schema_version: "ATIF-v1.7",
      agent: { name: "codex", version: "0.46.0" },
      steps: [
        { step_id: 1, source: "user", message: "install curl" },
        // one call a step: extra.tool_metadata
        {
          step_id: 2,
          source: "agent",
          message: "",
          tool_calls: [shell("c1", ["bash", "-lc", "apt-get install -y curl"])],
          observation: { results: [{ source_call_id: "c1", content: "Get:1 http://archive.ubuntu.com/ubuntu noble InRelease" }] },
          extra: { tool_metadata: { exit_code: 124, duration_seconds: 600.0 }, api_call_id: "a1" },
        },
        // calls of one model request bundled: extra.tool_call_details[call id].metadata
        {
          step_id: 3,
          source: "agent",
          message: "",
          tool_calls: [shell("c2", "ls"), shell("c3", "cat missing")],
          observation: {
            results: [
              { source_call_id: "c2", content: "a.txt" },
              { source_call_id: "c3", content: "cat: missing: No such file or directory" },
            ],
          },
          extra: {
            api_call_id: "a2",
            tool_call_details: { c2: { metadata: { exit_code: 0 } }, c3: { metadata: { exit_code: 1 }, status: "completed" } },
          },
        },
        // no recorded exit code: the content stays as it was
        {
          step_id: 4,
          source: "agent",
          message: "",
          tool_calls: [shell("c4", "pwd")],
          observation: { results: [{ source_call_id: "c4", content: "/app" }] },
          extra: { api_call_id: "a3" },
        },
      ],
    });
    const tools = messages.filter((m) => m.role === "tool");
    expect(tools.map((m) => m.content)).toEqual([
      "Get:1 http://archive.ubuntu.com/ubuntu noble InRelease\n\n(exit_code=124)",
      "a.txt\n\n(exit_code=0)",
      "cat: missing: No such file or directory\n\n(exit_code=1)",
      "/app",
    ]);
    for (const m of messages) expect(messageSchema.safeParse(m).success).toBe(true);
  });
});

describe("ATIF subagent steps merged into the main trajectory", () => {
  it("marks claude-code sidechain steps (extra.is_sidechain, extra.agent_id) and their results as the subagent's", () => {
    // harbor agents/installed/claude_code.py (_convert_events_to_trajectory): subagents/*.jsonl are merged into the main
    // steps sorted by timestamp; only extra.is_sidechain (and agent_id on agent steps) tells them apart
    const side = { is_sidechain: true, agent_id: "a1" };
    const { messages } = readAtifTrajectory({
      schema_version: "ATIF-v1.7",
      steps: [
        { step_id: 1, source: "user", message: "fix the bug", extra: { is_sidechain: false } },
        { step_id: 2, source: "agent", message: "delegating", extra: { is_sidechain: false } },
        { step_id: 3, source: "user", message: "investigate", extra: { is_sidechain: true } },
        {
          step_id: 4,
          source: "agent",
          message: "",
          tool_calls: [{ tool_call_id: "toolu_S1", function_name: "Bash", arguments: { command: "ls" } }],
          observation: { results: [{ source_call_id: "toolu_S1", content: "[stdout]\n" }] },
          extra: side,
        },
      ],
    });
    expect(messages.map((m) => [m.role, m.sidechain])).toEqual([
      ["user", undefined],
      ["assistant", undefined],
      ["user", {}],
      ["assistant", { agentId: "a1" }],
      ["tool", { agentId: "a1" }],
    ]);
    for (const m of messages) expect(messageSchema.safeParse(m).success).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import {
  VERIFIER_OUTPUT_MAX_BYTES,
  TrajectoryFormatError,
  countTurns,
  failureInputFromRollout,
  normalizeOpenAIMessages,
  parseRollout,
  truncateVerifierOutput,
} from "./normalized";

const minimal = { externalId: "t-1", environmentKey: "fix-git", policy: "swerl-step200" };

describe("rolloutSchema", () => {
  it("accepts a minimal and a full rollout", () => {
    expect(parseRollout(minimal)).toEqual({ ok: true, rollout: minimal });
    const full = parseRollout({
      ...minimal,
      generation: 0,
      reward: 1,
      success: true,
      status: "completed",
      error: { type: "AgentTimeoutError", message: "timed out" },
      inputTokens: 10,
      outputTokens: 2,
      turns: 1,
      startedAt: "2026-06-09T22:02:53.550367Z",
      finishedAt: "2026-06-09T22:13:53+02:00",
      trajectory: [
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "bash", arguments: "{}" }] },
        { role: "tool", content: "ok", toolCallId: "c1", retrievedDocuments: [{ id: "d1", relevant: true }] },
      ],
      verifierOutput: "1 passed",
      metadata: { anything: { goes: [1, 2] } },
    });
    expect(full.ok).toBe(true);
  });
  it("folds a null reward into an absent one", () => {
    const r = parseRollout({ ...minimal, reward: null });
    expect(r.ok && r.rollout.reward).toBeUndefined();
  });
  it("rejects unknown keys with their path", () => {
    const r = parseRollout({ ...minimal, rewrad: 1, trajectory: [{ role: "user", content: "x", extra: 1 }] });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues.map((i) => i.path).sort()).toEqual(["rewrad", "trajectory.0.extra"]);
      expect(r.issues.find((i) => i.path === "rewrad")?.message).toBe('unknown field "rewrad"');
    }
  });
  it("points at bad values", () => {
    const r = parseRollout({ ...minimal, reward: "1", trajectory: [{ role: "robot", content: "x" }], startedAt: "yesterday" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path).sort()).toEqual(["reward", "startedAt", "trajectory.0.role"]);
  });
  it("requires the identity fields", () => {
    const r = parseRollout({ policy: "p" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path).sort()).toEqual(["environmentKey", "externalId"]);
  });
});

describe("truncateVerifierOutput", () => {
  it("leaves short output alone", () => {
    expect(truncateVerifierOutput("ok")).toBe("ok");
    const exact = "x".repeat(VERIFIER_OUTPUT_MAX_BYTES);
    expect(truncateVerifierOutput(exact)).toBe(exact);
  });
  it("keeps head and tail with a visible marker", () => {
    const text = `HEAD${"a".repeat(100_000)}=== 1 failed in 1.00s ===`;
    const out = truncateVerifierOutput(text);
    const dropped = new TextEncoder().encode(text).length - VERIFIER_OUTPUT_MAX_BYTES;
    expect(out).toContain(`\n…[truncated ${dropped} bytes]\n`);
    expect(out.startsWith("HEAD")).toBe(true);
    expect(out.endsWith("=== 1 failed in 1.00s ===")).toBe(true);
    const kept = out.replace(`\n…[truncated ${dropped} bytes]\n`, "");
    expect(new TextEncoder().encode(kept).length).toBe(VERIFIER_OUTPUT_MAX_BYTES);
  });
  it("never splits a multi-byte character", () => {
    const out = truncateVerifierOutput("é".repeat(50_000));
    expect(out).not.toContain("\uFFFD");
    const m = out.match(/…\[truncated (\d+) bytes\]/);
    const kept = out.replace(/\n…\[truncated \d+ bytes\]\n/, "");
    expect(new TextEncoder().encode(kept).length + Number(m![1])).toBe(100_000);
  });
  it("is applied by the schema", () => {
    const r = parseRollout({ ...minimal, verifierOutput: "z".repeat(70_000) });
    expect(r.ok && r.rollout.verifierOutput).toContain("…[truncated 4464 bytes]");
  });
});

describe("normalizeOpenAIMessages", () => {
  it("converts roles, content parts, tool calls and tool results", () => {
    const out = normalizeOpenAIMessages([
      { role: "developer", content: "be brief" },
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "data:..." } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }],
        function_call: null,
        provider_specific_fields: { refusal: null },
      },
      { role: "tool", tool_call_id: "call_1", content: "a.txt\n\n(exit_code=0)" },
      { role: "assistant", content: "", function_call: { name: "bash", arguments: { command: "pwd" } } },
      { role: "function", name: "bash", content: "/app" },
    ]);
    expect(out).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "look\n[image]" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"ls"}' }] },
      { role: "tool", content: "a.txt\n\n(exit_code=0)", toolCallId: "call_1" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_4", name: "bash", arguments: '{"command":"pwd"}' }] },
      { role: "tool", content: "/app", toolCallId: "bash" },
    ]);
    expect(countTurns(out)).toBe(2);
  });
  it("keeps retrieved documents", () => {
    const [m] = normalizeOpenAIMessages([
      { role: "tool", content: "", retrieved_documents: [{ id: 3, title: "T", content: "body", relevant: false }] },
    ]);
    expect(m.retrievedDocuments).toEqual([{ id: "3", title: "T", text: "body", relevant: false }]);
  });
  it("names the offending message", () => {
    expect(() =>
      normalizeOpenAIMessages([
        { role: "user", content: "x" },
        { role: "robot", content: "x" },
      ]),
    ).toThrow(TrajectoryFormatError);
    expect(() =>
      normalizeOpenAIMessages([
        { role: "user", content: "x" },
        { role: "robot", content: "x" },
      ]),
    ).toThrow(/message 1: unknown role/);
    expect(() => normalizeOpenAIMessages({})).toThrow(/array/);
  });
});

describe("failureInputFromRollout", () => {
  it("reads verdict, error and the last message", () => {
    const r = parseRollout({
      ...minimal,
      reward: 0,
      status: "errored",
      error: { type: "AgentTimeoutError", message: "m" },
      trajectory: [{ role: "user", content: "Format error: ..." }],
      metadata: { flags: ["no_reward"] },
    });
    if (!r.ok) throw new Error("invalid");
    expect(failureInputFromRollout(r.rollout)).toMatchObject({
      reward: null,
      hasVerdict: false,
      errorType: "AgentTimeoutError",
      finalMessage: "Format error: ...",
    });
  });
});

describe("countTurns", () => {
  it("counts assistant messages, not those copied from an earlier segment for context", () => {
    // terminus-2 with linear_history (harbor agents/terminus_2/terminus_2.py, _split_trajectory_on_summarization) starts each
    // trajectory.cont-N.json with the earlier chat, marked is_copied_context
    expect(
      countTurns([
        { role: "user", content: "task", copiedContext: true },
        { role: "assistant", content: "ls", copiedContext: true },
        { role: "user", content: "summary", copiedContext: true },
        { role: "assistant", content: "cat a" },
        { role: "tool", content: "b" },
        { role: "assistant", content: "done" },
      ]),
    ).toBe(2);
  });
  it("leaves out a subagent's messages merged into the main trajectory", () => {
    // claude-code sidechains (harbor agents/installed/claude_code.py, extra.is_sidechain)
    const trajectory = [
      { role: "user" as const, content: "fix the bug" },
      { role: "assistant" as const, content: "delegating" },
      { role: "user" as const, content: "investigate", sidechain: {} },
      { role: "assistant" as const, content: "ls", sidechain: { agentId: "a1" } },
      { role: "assistant" as const, content: "done investigating", sidechain: { agentId: "a1" } },
      { role: "assistant" as const, content: "fixed" },
    ];
    expect(countTurns(trajectory)).toBe(2);
    expect(parseRollout({ ...minimal, trajectory }).ok).toBe(true);
    expect(parseRollout({ ...minimal, trajectory: [{ role: "user", content: "x", sidechain: { agent: "a1" } }] })).toMatchObject({
      ok: false,
      issues: [{ path: "trajectory.0.sidechain.agent" }],
    });
  });
});

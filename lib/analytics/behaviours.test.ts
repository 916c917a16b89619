import { describe, expect, it } from "vitest";
import { normalizeOpenAIMessages } from "@/lib/ingest/normalized";
import { clusterBehaviours, rolloutBehaviours } from "./behaviours";

const call = (id: string, command: string) => ({
  role: "assistant",
  content: "",
  tool_calls: [{ id, function: { name: "bash", arguments: JSON.stringify({ command }) } }],
});
const result = (id: string, out: string, code: number) => ({ role: "tool", tool_call_id: id, content: `${out}\n\n(exit_code=${code})` });

describe("rolloutBehaviours", () => {
  it("sees the step cap, a package install that timed out and a run without tests", () => {
    const trajectory = normalizeOpenAIMessages([
      { role: "user", content: "task" },
      call("a", "apt-get install -y python3"),
      result("a", "", 124),
      call("b", "ls"),
      result("b", "x", 0),
    ]);
    expect(rolloutBehaviours({ success: false, turns: 2, maxSteps: 2, trajectory })).toEqual([
      "step_cap",
      "package_install_timeout",
      "never_ran_tests",
    ]);
    expect(rolloutBehaviours({ success: false, turns: 2, maxSteps: 64, trajectory })).not.toContain("step_cap");
  });
  it("sees an agent timeout while its command was still running", () => {
    const trajectory = normalizeOpenAIMessages([call("a", "python3 -m pytest -q"), result("a", "1 passed", 0), call("b", "make -j8")]);
    expect(rolloutBehaviours({ success: false, errorType: "AgentTimeoutError", trajectory })).toEqual(["timeout_mid_command"]);
    expect(rolloutBehaviours({ success: false, errorType: null, trajectory })).not.toContain("timeout_mid_command");
  });
  it("sees format errors, and an agent that declared itself done early", () => {
    const trajectory = normalizeOpenAIMessages([
      call("a", "cat x"),
      result("a", "x", 0),
      { role: "user", content: "Format error: Your last response did not include a valid `bash` tool call." },
      call("b", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
      result("b", "", 0),
    ]);
    expect(rolloutBehaviours({ success: false, turns: 2, maxSteps: 64, trajectory })).toEqual([
      "format_errors",
      "never_ran_tests",
      "gave_up_early",
    ]);
    // a success never "gave up"
    expect(rolloutBehaviours({ success: true, turns: 2, maxSteps: 64, trajectory })).not.toContain("gave_up_early");
    expect(rolloutBehaviours({ success: false, formatErrors: 3, trajectory: [] })).toEqual(["format_errors"]);
  });
  it("does not say an agent without a shell (a game, a chat) never ran the tests", () => {
    const trajectory = normalizeOpenAIMessages([
      { role: "user", content: "Frozen lake 5x5: reach G" },
      { role: "assistant", content: "RIGHT RIGHT DOWN" },
      { role: "user", content: "You fell into a hole." },
    ]);
    expect(rolloutBehaviours({ success: false, turns: 1, maxSteps: 40, trajectory })).not.toContain("never_ran_tests");
    // the same agent with a shell that only looked around did not run them
    const shell = normalizeOpenAIMessages([{ role: "user", content: "task" }, call("a", "ls"), result("a", "x", 0)]);
    expect(rolloutBehaviours({ success: false, turns: 1, maxSteps: 40, trajectory: shell })).toContain("never_ran_tests");
  });
});

describe("clusterBehaviours", () => {
  it("counts per policy, environments and spreads exemplars", () => {
    const c = clusterBehaviours([
      { rolloutId: "3", environmentKey: "a", policy: "p", behaviours: ["step_cap"] },
      { rolloutId: "1", environmentKey: "a", policy: "q", behaviours: ["step_cap", "format_errors"] },
      { rolloutId: "7", environmentKey: "b", policy: "p", behaviours: ["step_cap"] },
    ]);
    expect(c[0]).toMatchObject({ id: "step_cap", count: 3, environments: 2, exemplarRolloutIds: ["1", "7"], perPolicy: { p: 2, q: 1 } });
    expect(c[1]).toMatchObject({ id: "format_errors", count: 1 });
  });
});

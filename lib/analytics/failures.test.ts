import { describe, expect, it } from "vitest";
import { classifyRollout, clusterId, failureSignature, normalizeMessage, parseVerifierOutput } from "./failures";

const PYTEST_FAILED = `============================= test session starts ==============================
platform linux -- Python 3.13.7, pytest-8.4.1, pluggy-1.6.0
collected 3 items

../tests/test_outputs.py F.F                                               [100%]

=================================== FAILURES ===================================
E       AssertionError: Failed to match rows: [0, 1, 2]
=========================== short test summary info ============================
FAILED ../tests/test_outputs.py::test_z_last - AssertionError: Failed to match...
FAILED ../tests/test_outputs.py::test_a_first[case-1] - assert False
========================= 2 failed, 1 passed in 0.96s ==========================
`;

const CURL_MISSING = `Hit:1 http://archive.ubuntu.com/ubuntu noble InRelease
Reading package lists...
E: Could not get lock /var/lib/dpkg/lock. It is held by process 635 (dpkg)
E: Unable to lock the administration directory (/var/lib/dpkg/), is another process using it?
/tests/test.sh: line 8: curl: command not found
/tests/test.sh: line 10: /root/.local/bin/env: No such file or directory
/tests/test.sh: line 19: uvx: command not found
`;

const SEGFAULT = `============================= test session starts ==============================
collected 2 items

../tests/test_outputs.py Fatal Python error: Segmentation fault

Current thread 0x00007b5f1295a740 (most recent call first):
  File "/tests/test_outputs.py", line 25 in test_accuracy
`;

describe("parseVerifierOutput", () => {
  it("reads pytest's summary and failing tests", () => {
    const r = parseVerifierOutput(PYTEST_FAILED);
    expect(r).toMatchObject({ testsRan: true, passed: 1, failed: 2, crash: null, setupFailure: null });
    expect(r.failedTests).toEqual(["test_outputs.py::test_a_first[*]", "test_outputs.py::test_z_last"]);
  });
  it("finds the first missing tool and what broke before it", () => {
    const r = parseVerifierOutput(CURL_MISSING);
    expect(r.testsRan).toBe(false);
    expect(r.setupFailure).toBe("curl: command not found");
    expect(r.setupCause).toBe("apt: dpkg lock held by another process");
  });
  it("reads a crash without a verdict", () => {
    const r = parseVerifierOutput(SEGFAULT);
    expect(r.testsRan).toBe(false);
    expect(r.crash).toBe("Fatal Python error: Segmentation fault");
  });
  it("sees a full disk through uv's line wrapping", () => {
    const r = parseVerifierOutput(
      "  ╰─▶ failed to write to file\n      `/root/.cache/uv/x.so.12`: No\n      space left on device (os error 28)\n",
    );
    expect(r).toMatchObject({ testsRan: false, setupFailure: "no space left on device" });
  });
});

describe("classifyRollout", () => {
  it("returns null for successes, even after an exception", () => {
    expect(classifyRollout({ reward: 1 })).toBeNull();
    expect(classifyRollout({ reward: 1, status: "errored", errorType: "AgentTimeoutError" })).toBeNull();
    expect(classifyRollout({ reward: 0.7, threshold: 0.5 })).toBeNull();
  });
  it("maps Harbor's timeouts", () => {
    expect(
      classifyRollout({
        reward: 0,
        status: "errored",
        errorType: "AgentTimeoutError",
        errorMessage: "Agent execution timed out after 900.0 seconds",
      }),
    ).toBe("agent_timeout");
    expect(classifyRollout({ reward: null, hasVerdict: false, status: "errored", errorType: "AgentTimeoutError" })).toBe("agent_timeout");
    expect(classifyRollout({ reward: 0, status: "errored", errorType: "VerifierTimeoutError" })).toBe("verifier_timeout");
    expect(classifyRollout({ reward: 0, status: "errored", errorType: "AgentSetupTimeoutError" })).toBe("infra_error");
  });
  it("recognises context length and format errors", () => {
    expect(
      classifyRollout({
        reward: 0,
        status: "errored",
        errorType: "BadRequestError",
        errorMessage: "This model's maximum context length is 32768 tokens.",
      }),
    ).toBe("context_length_exceeded");
    expect(classifyRollout({ reward: 0, errorType: "ContextLengthExceededError" })).toBe("context_length_exceeded");
    expect(
      classifyRollout({
        reward: 0,
        verifierOutput: PYTEST_FAILED,
        finalMessage: "Format error: Your last response did not include a valid `bash` tool call.",
      }),
    ).toBe("format_error");
  });
  it("separates infrastructure from policy failures", () => {
    expect(classifyRollout({ reward: 0, verifierOutput: CURL_MISSING })).toBe("infra_error");
    // pytest had collected the tests and crashed inside one, on what the agent built: the policy's failure
    expect(classifyRollout({ reward: 0, verifierOutput: SEGFAULT })).toBe("verifier_failed");
    expect(classifyRollout({ reward: 0, verifierOutput: "INTERNALERROR> Traceback (most recent call last):\n" })).toBe("infra_error");
    expect(classifyRollout({ reward: 0, verifierOutput: "Traceback (most recent call last):\n  File x\nKeyError: 1\n" })).toBe(
      "infra_error",
    );
    expect(classifyRollout({ reward: null })).toBe("infra_error");
    expect(classifyRollout({ reward: 0, hasVerdict: false })).toBe("infra_error");
    expect(classifyRollout({ reward: 0, status: "errored", errorType: "RewardFileNotFoundError" })).toBe("infra_error");
    expect(classifyRollout({ reward: 0, status: "errored", errorType: "DaytonaError" })).toBe("infra_error");
  });
  it("treats a missing tool as policy failure once tests actually ran", () => {
    expect(classifyRollout({ reward: 0, verifierOutput: `/tests/test.sh: line 8: curl: command not found\n${PYTEST_FAILED}` })).toBe(
      "verifier_failed",
    );
  });
  it("falls back to errored_other and verifier_failed", () => {
    expect(classifyRollout({ reward: 0, status: "errored", errorType: "ValueError", errorMessage: "bad" })).toBe("errored_other");
    expect(classifyRollout({ reward: 0, verifierOutput: PYTEST_FAILED })).toBe("verifier_failed");
    expect(classifyRollout({ reward: 0 })).toBe("verifier_failed");
  });
});

describe("classifyRollout: Harbor's typed errors (src/harbor/agents/installed/base.py and the environments)", () => {
  // base.py _classify_exec_error: "Command failed (exit N): <command>\nstdout: ...\nstderr: ..."
  const failed = (stdout: string) =>
    `Command failed (exit 1): claude --verbose --output-format=stream-json --print -- 'Fix the failing test'\nstdout: ${stdout}\nstderr: None`;
  const errored = (errorType: string, errorMessage: string) =>
    classifyRollout({ status: "errored", reward: null, hasVerdict: false, errorType, errorMessage, verifierOutput: null });

  it.each([
    [
      "ApiRateLimitError",
      failed(
        'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}',
      ),
    ],
    ["ApiUsageLimitError", failed("You've hit your usage limit. Upgrade to Pro or try again at 3pm.")],
    ["ApiInternalServerError", failed('API Error: 500 Internal server error {"type":"error","error":{"type":"api_error"}}')],
    ["ApiOverloadedError", failed('API Error: Overloaded {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')],
    ["ApiConnectionClosedError", failed("API Error: Connection closed mid-response")],
    ["ApiResponseStalledError", failed("API Error: Response stalled mid-stream (no data for 300s)")],
    [
      "UnknownApiError",
      failed('API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.3: unexpected tool_use_id"}}'),
    ],
    ["ApiProviderResourceNotFoundError", failed("Provider Error We're having trouble finding the resource you requested")],
    ["AgentAuthenticationError", failed("Not logged in · Please run /login")],
    ["ModelNotFoundError", failed("Cannot use this model. Please run /model to select a model you have access to.")],
    ["NetworkConnectionError", failed("curl: (6) Could not resolve host: api.anthropic.com")],
    // src/harbor/environments/base.py run_healthcheck, before the agent starts
    ["HealthcheckError", "Healthcheck failed after 3 consecutive retries: curl -fsS http://localhost:8080/health"],
    // src/harbor/auth/errors.py
    ["NotAuthenticatedError", "Not authenticated. Please run `harbor auth login` first."],
  ])("files %s as infrastructure, not against the policy", (type, message) => {
    expect(errored(type, message)).toBe("infra_error");
  });

  it("does not let the agent's output in a provider error's message decide (it can mention context windows)", () => {
    expect(errored("ApiRateLimitError", failed("I will keep the context window small. API Error: 429 too many tokens per minute"))).toBe(
      "infra_error",
    );
  });

  it("files Harbor's ContextWindowExceededError as context_length_exceeded", () => {
    expect(
      errored(
        "ContextWindowExceededError",
        failed("API Error: 400 input token count exceeds the maximum number of tokens allowed (1048576)"),
      ),
    ).toBe("context_length_exceeded");
    expect(errored("ContextWindowExceededError", failed("prompt is too long: 210000 tokens > 200000 maximum"))).toBe(
      "context_length_exceeded",
    );
    // the message alone (an untyped harness error) says so too, with or without the count
    expect(
      errored("NonZeroAgentExitCodeError", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."),
    ).toBe("context_length_exceeded");
    expect(
      errored("NonZeroAgentExitCodeError", failed("Error: The input token count exceeds the maximum number of tokens allowed (1048576).")),
    ).toBe("context_length_exceeded");
  });

  it("files an OutputTokenExceededError against the policy's token budget (base.py: the model's response exceeded the output token maximum)", () => {
    expect(errored("OutputTokenExceededError", failed("API Error: Claude's response exceeded the 32000 output token maximum."))).toBe(
      "context_length_exceeded",
    );
  });

  it("files a MemoryLimitExceededError against the policy (singularity.py: the agent's processes passed the task's memory_mb)", () => {
    expect(errored("MemoryLimitExceededError", "Container exceeded memory limit (3891MB > 3891MB)")).toBe("errored_other");
    expect(errored("harbor.environments.singularity.MemoryLimitExceededError", "Container exceeded memory limit (3891MB > 3891MB)")).toBe(
      "errored_other",
    );
  });

  it("keeps a provider's safety refusal and an unexplained agent exit against the policy", () => {
    expect(errored("AgentSafetyRefusalError", failed("This request triggered cyber-related safeguards. Cyber Verification Program"))).toBe(
      "errored_other",
    );
    expect(errored("NonZeroAgentExitCodeError", failed("Segmentation fault (core dumped)"))).toBe("errored_other");
  });
});

describe("normalizeMessage", () => {
  it.each([
    ["Agent execution timed out after 900.0 seconds", "Agent execution timed out after <n> seconds"],
    ["Sandbox 3f2b1c9e-1234-4abc-8def-0123456789ab failed", "Sandbox <uuid> failed"],
    ["cannot open /tmp/run_42/out.txt: denied", "cannot open <path>: denied"],
    ["object at 0x7f3a2b1c failed", "object at <hex> failed"],
    ["commit 69671fbaac6d67a7ef0dfec016cc38a64ef7a77c missing", "commit <hex> missing"],
    ["trial NUp6a7rX9 crashed", "trial <id> crashed"],
    ["see https://example.com/a/b?c=1 now", "see <url> now"],
    ["first line\nsecond line", "first line"],
    ["  spaced   out  ", "spaced out"],
  ])("%s", (input, expected) => {
    expect(normalizeMessage(input)).toBe(expected);
  });
  it("keeps the words of and/or", () => {
    expect(normalizeMessage("read and/or write")).toBe("read and/or write");
  });
});

describe("failureSignature", () => {
  it("uses the exception type with the normalized message", () => {
    expect(
      failureSignature({ reward: 0, errorType: "AgentTimeoutError", errorMessage: "Agent execution timed out after 3600.0 seconds" }),
    ).toBe("AgentTimeoutError: Agent execution timed out after <n> seconds");
  });
  it("lists failing tests sorted", () => {
    expect(failureSignature({ reward: 0, verifierOutput: PYTEST_FAILED })).toBe(
      "test_outputs.py::test_a_first[*], test_outputs.py::test_z_last",
    );
  });
  it("caps long test lists and says how many were left out", () => {
    const names = Array.from({ length: 40 }, (_, i) => `FAILED tests/test_x.py::test_number_${String(i).padStart(2, "0")} - boom`);
    const sig = failureSignature({ reward: 0, verifierOutput: `${names.join("\n")}\n=== 40 failed in 1.00s ===\n` });
    expect(sig.length).toBeLessThanOrEqual(240);
    expect(sig).toMatch(/ \(\+\d+ more\)$/);
    expect(sig.startsWith("test_x.py::test_number_00, ")).toBe(true);
  });
  it("describes infra failures", () => {
    expect(failureSignature({ reward: 0, verifierOutput: CURL_MISSING })).toBe(
      "verifier setup: curl: command not found (apt: dpkg lock held by another process)",
    );
    expect(failureSignature({ reward: 0, verifierOutput: SEGFAULT })).toBe("tests crashed: Fatal Python error: Segmentation fault");
    expect(failureSignature({ reward: null })).toBe("no verifier verdict (verifier did not run)");
  });
  it("describes format errors from the final message", () => {
    expect(
      failureSignature({
        reward: 0,
        finalMessage: "Format error: Your last response did not include a valid `bash` tool call.\n\nPlease...",
      }),
    ).toBe("Format error: Your last response did not include a valid `bash` tool call.");
  });
  it("is empty for successes", () => {
    expect(failureSignature({ reward: 1 })).toBe("");
  });
});

describe("clusterId", () => {
  it("has stable ids", () => {
    expect(clusterId("infra_error", "x")).toBe(clusterId("infra_error", "x"));
    expect(clusterId("infra_error", "x")).not.toBe(clusterId("verifier_failed", "x"));
    expect(clusterId("infra_error", "x")).toMatch(/^[0-9a-f]{16}$/);
  });

  /** FNV-1a 64 in BigInt, as clusterId computed it before issue 19: the ids stored in failure_aggregates must not move. */
  function referenceId(category: string, signature: string): string {
    let h = 0xcbf29ce484222325n;
    for (const b of new TextEncoder().encode(`${category}\u0000${signature}`)) {
      h ^= BigInt(b);
      h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
    }
    return h.toString(16).padStart(16, "0");
  }

  it("gives the ids of the BigInt FNV-1a 64 it replaced, bit for bit", () => {
    // fixed values from the BigInt version (the empty signature, ASCII, non-ASCII and astral characters)
    expect(clusterId("infra_error", "")).toBe(referenceId("infra_error", ""));
    expect(clusterId("agent_timeout", "AgentTimeoutError: Agent exceeded max_steps=<n>")).toBe("ff3d200f93323b67");
    const pieces = ["a", "Z", "0", " ", "\n", "é", "ß", "→", "日本", "😀", "\u0000", "~", "<n>", "FAILED test_x::y"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let i = 0; i < 2000; i++) {
      let signature = "";
      const length = next() % 60;
      for (let j = 0; j < length; j++) signature += pieces[next() % pieces.length];
      const category = (["verifier_failed", "infra_error", "agent_timeout", "format_error"] as const)[i % 4];
      expect(clusterId(category, signature), signature).toBe(referenceId(category, signature));
    }
  });
});

describe("blame: the agent broke its own environment", () => {
  const aptTimedOut = [{ kind: "package_manager_timed_out" as const, step: 5, exitCode: 124, command: "apt-get install -y python3" }];
  it("files a verifier that could not set up after the agent's package manager timed out as the policy's failure", () => {
    expect(classifyRollout({ reward: 0, verifierOutput: CURL_MISSING, environmentDamage: aptTimedOut })).toBe(
      "environment_broken_by_agent",
    );
    expect(classifyRollout({ reward: 0, verifierOutput: CURL_MISSING, environmentDamage: [] })).toBe("infra_error");
    expect(classifyRollout({ reward: 0, status: "errored", errorType: "RewardFileNotFoundError", environmentDamage: aptTimedOut })).toBe(
      "environment_broken_by_agent",
    );
    // the sandbox failing on its own stays infrastructure whatever the agent did
    expect(
      classifyRollout({ reward: 0, status: "errored", errorType: "EnvironmentStartTimeoutError", environmentDamage: aptTimedOut }),
    ).toBe("infra_error");
    expect(classifyRollout({ reward: 0, status: "errored", errorType: "DaytonaError", environmentDamage: aptTimedOut })).toBe(
      "infra_error",
    );
    // tests that ran and failed are judged on the tests
    expect(classifyRollout({ reward: 0, verifierOutput: PYTEST_FAILED, environmentDamage: aptTimedOut })).toBe("verifier_failed");
  });
  it("names the cause and the effect in the signature, without the step (so clusters group across tasks)", () => {
    expect(failureSignature({ reward: 0, verifierOutput: CURL_MISSING, environmentDamage: aptTimedOut })).toBe(
      "agent's package-manager command timed out; verifier setup: curl: command not found (apt: dpkg lock held by another process)",
    );
  });
});

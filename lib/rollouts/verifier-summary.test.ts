import { describe, expect, it } from "vitest";
import { verifierSummary } from "./verifier-summary";

// the end of harbor-tb2 tmax-9b extract-elf__opDBqDJ verifier/test-stdout.txt, after apt-get and a traceback
const PYTEST_TAIL = [
  "Get:1 http://security.ubuntu.com/ubuntu noble-security InRelease [126 kB]",
  "E           json.decoder.JSONDecodeError: Expecting value: line 2 column 1 (char 1)",
  "==================================== PASSES ====================================",
  "=========================== short test summary info ============================",
  "PASSED ../tests/test_outputs.py::test_extract_js_exists",
  "FAILED ../tests/test_outputs.py::test_output_matches_reference - json.decoder...",
  "========================= 1 failed, 1 passed in 0.40s ==========================",
].join("\n");

describe("verifierSummary", () => {
  it("puts pytest's verdict and short summary first, leaving the installs out", () => {
    const s = verifierSummary(PYTEST_TAIL);
    expect(s.headline).toBe("1 failed, 1 passed in 0.40s");
    expect(s.summary.startsWith("=========================== short test summary info")).toBe(true);
    expect(s.summary).toContain("FAILED ../tests/test_outputs.py::test_output_matches_reference");
    expect(s.summary).not.toContain("Get:1");
  });

  it("without a pytest summary: the last non-empty line as headline and the last lines as summary", () => {
    const out = Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n") + "\nreward: 0\n\n";
    const s = verifierSummary(out, 5);
    expect(s.headline).toBe("reward: 0");
    expect(s.summary.split("\n")).toEqual(["line 36", "line 37", "line 38", "line 39", "reward: 0"]);
    expect(verifierSummary("")).toEqual({ headline: null, summary: "" });
  });
});

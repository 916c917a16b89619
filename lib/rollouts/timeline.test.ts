import { describe, expect, it } from "vitest";
import { timelinePhases, timelineSteps } from "./timeline";

describe("timelinePhases", () => {
  it("keeps Harbor's phases in order with their durations, and drops missing or backwards ones", () => {
    const phases = timelinePhases({
      phases: {
        verifier: { startedAt: "2026-06-10T01:53:14.350706Z", finishedAt: "2026-06-10T01:53:22.561960Z" },
        environmentSetup: { startedAt: "2026-06-10T01:23:11.602422Z", finishedAt: "2026-06-10T01:23:13.376813Z" },
        agentSetup: { startedAt: "2026-06-10T01:23:13Z", finishedAt: "2026-06-10T01:23:12Z" },
        agentExecution: { startedAt: "2026-06-10T01:23:13.728422Z" },
      },
    });
    expect(phases.map((p) => p.name)).toEqual(["environmentSetup", "verifier"]);
    expect(phases[0].seconds).toBeCloseTo(1.774, 3);
    expect(phases[1].seconds).toBeCloseTo(8.211, 3);
    expect(timelinePhases(null)).toEqual([]);
    expect(timelinePhases({ phases: "soon" })).toEqual([]);
  });
});

describe("timelineSteps", () => {
  it("gives each timed step the time until the next timed one, and reads its cost and tokens", () => {
    const steps = timelineSteps([
      { index: 1, role: "assistant", at: "2026-01-01T00:00:00Z", usage: { costUsd: 0.002, promptTokens: 900, completionTokens: 40 } },
      { index: 2, role: "tool", at: null, usage: null },
      { index: 3, role: "assistant", at: "2026-01-01T00:00:05Z", usage: { costUsd: 0.001 } },
      { index: 5, role: "assistant", at: "2026-01-01T00:00:12.5Z", usage: null },
    ]);
    expect(steps.map((s) => s.seconds)).toEqual([5, null, 7.5, null]);
    expect(steps[0]).toMatchObject({ costUsd: 0.002, promptTokens: 900, completionTokens: 40 });
    expect(steps[3].costUsd).toBeNull();
  });
  it("never gives a negative duration when clocks go backwards, and ignores unreadable times", () => {
    const steps = timelineSteps([
      { index: 0, role: "assistant", at: "2026-01-01T00:00:10Z", usage: null },
      { index: 1, role: "assistant", at: "2026-01-01T00:00:04Z", usage: null },
      { index: 2, role: "assistant", at: "not a time", usage: { costUsd: "free" } },
    ]);
    expect(steps.map((s) => s.seconds)).toEqual([null, null, null]);
    expect(steps[2]).toMatchObject({ at: null, costUsd: null });
  });
});

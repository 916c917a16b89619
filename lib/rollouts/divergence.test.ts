import { describe, expect, it } from "vitest";
import type { TurnOutline } from "./turn-types";
import { findDivergence, sameTurn } from "./divergence";

const turn = (index: number, role: string, content: string, toolCalls: TurnOutline["toolCalls"] = []): TurnOutline => ({
  index,
  role,
  length: content.length,
  preview: content,
  toolCalls,
  documents: [],
});
const at = (list: TurnOutline[]) => (i: number) => list[i];

describe("findDivergence", () => {
  it("finds the first row whose content differs although every role matches (the issue's #2, not #12)", () => {
    const roles = [
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ];
    const a = roles.map((r, i) => turn(i, r, `${r} ${i}`));
    const b = roles.map((r, i) => turn(i, r, i >= 2 ? `${r} ${i} (other run)` : `${r} ${i}`));
    expect(findDivergence(a.length, b.length, at(a), at(b))).toEqual({ kind: "at", index: 2 });
  });

  it("sees differing tool calls and ignores their ids", () => {
    const call = (name: string, args: string, id: string) => ({ id, name, argumentsPreview: args, argumentsLength: args.length });
    expect(
      sameTurn(
        turn(0, "assistant", "", [call("bash", '{"command":"ls"}', "a")]),
        turn(0, "assistant", "", [call("bash", '{"command":"ls"}', "b")]),
      ),
    ).toBe(true);
    expect(
      sameTurn(
        turn(0, "assistant", "", [call("bash", '{"command":"ls"}', "a")]),
        turn(0, "assistant", "", [call("bash", '{"command":"rm"}', "a")]),
      ),
    ).toBe(false);
  });

  it("reports no divergence for identical trajectories, the end of the shorter one, and unknown while pages load", () => {
    const a = [turn(0, "user", "x"), turn(1, "assistant", "y")];
    expect(findDivergence(2, 2, at(a), at([...a]))).toEqual({ kind: "none" });
    expect(findDivergence(2, 3, at(a), at([...a, turn(2, "user", "z")]))).toEqual({ kind: "at", index: 2 });
    expect(findDivergence(2, 2, at(a), () => undefined)).toEqual({ kind: "unknown", scanned: 0 });
  });
});

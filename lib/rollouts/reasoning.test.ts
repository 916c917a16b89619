import { describe, expect, it } from "vitest";
import { splitReasoning } from "./reasoning";

describe("splitReasoning", () => {
  it("takes the text before a lone </think> as reasoning (Qwen's template opens the block; as in harbor-tb2 tmax-9b extract-elf agent/trajectory.json)", () => {
    const r = splitReasoning("Let me analyze this task.\nFirst, explore.\n</think>\n\n");
    expect(r).toEqual({ content: "", reasoning: "Let me analyze this task.\nFirst, explore." });
  });

  it("pulls every <think> block out of the content and keeps what was said, in order", () => {
    const r = splitReasoning("<think>plan A</think>Running ls.<think>then B</think> Done.");
    expect(r.content).toBe("Running ls. Done.");
    expect(r.reasoning).toBe("plan A\n\nthen B");
  });

  it("treats an unclosed block as reasoning to the end, and joins ATIF's reasoning_content first", () => {
    const r = splitReasoning("Answer.<think>cut off mid-thou", "the ATIF reasoning");
    expect(r.content).toBe("Answer.");
    expect(r.reasoning).toBe("the ATIF reasoning\n\ncut off mid-thou");
  });

  it("leaves content without think tags alone (the word think is not a tag)", () => {
    expect(splitReasoning("I think <b>this</b> works")).toEqual({ content: "I think <b>this</b> works", reasoning: "" });
  });
});

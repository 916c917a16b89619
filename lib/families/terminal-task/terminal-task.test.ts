import { describe, expect, it } from "vitest";
import { createRng } from "../rng";
import { mutateConfig } from "../operators";
import { terminalTaskFamily } from "./index";

describe("terminal-task", () => {
  it("accepts an imported task known only by its name", () => {
    expect(terminalTaskFamily.validate({ task_name: "regex-chess" })).toEqual({ state: "valid", errors: [] });
    const harbor = {
      task_name: "extract-elf",
      source: "terminal-bench",
      git_commit: "69671fbaac6d67a7ef0dfec016cc38a64ef7a77c",
      difficulty: "hard",
      category: "security",
    };
    expect(terminalTaskFamily.validate(harbor).state).toBe("valid");
  });

  it("requires task_name and rejects bad taxonomy values with their path", () => {
    const missing = terminalTaskFamily.validate({ domain: "security" });
    expect(missing.state).toBe("invalid");
    expect(missing.errors[0].path).toBe("task_name");
    const bad = terminalTaskFamily.validate({ task_name: "t", task_complexity: "huge", cpus: 0 });
    expect(bad.errors.map((e) => e.path).sort()).toEqual(["cpus", "task_complexity"]);
  });

  it("validates schema-only: no p_max", () => {
    const result = terminalTaskFamily.validate(terminalTaskFamily.sample(createRng(1)));
    expect(result.state).toBe("valid");
    expect(result.pMax).toBeUndefined();
  });

  it("samples synthetic tasks with every taxonomy field and no Harbor identity", () => {
    const config = terminalTaskFamily.sample(createRng(2));
    expect(config.task_name).toMatch(/^synthetic-/);
    for (const key of [
      "domain",
      "language",
      "task_complexity",
      "command_complexity",
      "verifier_kind",
      "fixture_kind",
      "agent_timeout_sec",
      "allow_internet",
      "cpus",
      "memory_mb",
    ]) {
      expect(config, key).toHaveProperty(key);
    }
    expect(config.source).toBeUndefined();
    expect(config.git_commit).toBeUndefined();
  });

  it("derives difficulty from the taxonomy, or from the task.toml label when that is all there is", () => {
    const easy = terminalTaskFamily.difficulty!({ task_name: "a", difficulty: "easy" });
    const hard = terminalTaskFamily.difficulty!({ task_name: "a", difficulty: "hard" });
    expect(hard.difficulty).toBeGreaterThan(easy.difficulty);
    const short = terminalTaskFamily.difficulty!({ task_name: "a", task_complexity: "short", verifier_kind: "exact_text" });
    const intricate = terminalTaskFamily.difficulty!({ task_name: "a", task_complexity: "intricate", verifier_kind: "multi_protocol" });
    expect(intricate.difficulty).toBeGreaterThan(short.difficulty);
    expect(intricate.pMax).toBe(1);
  });

  it("evolves what Harbor honours, never the task's labels: precision tightens the agent timeout from the task's own value", () => {
    const task = {
      task_name: "hello-world",
      difficulty: "easy" as const,
      category: "programming",
      domain: "file_operations" as const,
      fixture_kind: "text_only" as const,
      verifier_kind: "exact_text" as const,
      agent_timeout_sec: 120,
    };
    const labels = [
      "task_name",
      "difficulty",
      "category",
      "domain",
      "language",
      "task_complexity",
      "command_complexity",
      "verifier_kind",
      "fixture_kind",
    ];
    let tightened = 0;
    for (let seed = 0; seed < 50; seed++) {
      for (const direction of ["precision", "uncertainty", "horizon", undefined] as const) {
        const { config, edits } = mutateConfig(createRng(seed), terminalTaskFamily.fields, task, { direction, edits: 2 });
        for (const label of labels)
          expect((config as Record<string, unknown>)[label], `${label} (${direction})`).toEqual((task as Record<string, unknown>)[label]);
        for (const e of edits) expect(labels).not.toContain(e.path);
        if (direction === "precision" && config.agent_timeout_sec !== undefined && config.agent_timeout_sec < 120) tightened++;
      }
    }
    expect(tightened).toBeGreaterThan(0);
  });
});

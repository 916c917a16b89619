/**
 * terminal-task as a task instance: the instruction (the imported task's own instruction when the
 * config carries it, else one composed from the task's identity and taxonomy). It has no reference
 * answer: only the task's verifier in a sandbox (Harbor) can score it.
 */
import type { TerminalTaskConfig } from "../terminal-task";
import type { TaskInstance } from "./types";

/** The terminal-task task instance of a config; `instruction` is the task's instruction.md when known. */
export function terminalTask(config: TerminalTaskConfig, instruction?: string): TaskInstance {
  const facts = [
    config.domain && `domain: ${config.domain.replace(/_/g, " ")}`,
    config.language && `main language: ${config.language}`,
    config.task_complexity && `expected effort: ${config.task_complexity}`,
    config.command_complexity && `tools: ${config.command_complexity}`,
    config.agent_timeout_sec && `time budget: ${config.agent_timeout_sec} s`,
    config.allow_internet !== undefined && `internet: ${config.allow_internet ? "available" : "none"}`,
  ].filter(Boolean);
  const body =
    instruction?.trim() ||
    `Complete the terminal task "${config.task_name}"${config.source ? ` from ${config.source}` : ""} in the sandbox's ` +
      `shell. Its tests check the final state of the machine.`;
  const content = [body, ...(facts.length > 0 ? ["", ...facts.map((f) => `- ${f}`)] : [])].join("\n");
  return {
    messages: [
      {
        role: "system",
        content: "You are an agent working in a Linux terminal. Run commands to complete the task; the task's tests check the result.",
      },
      { role: "user", content },
    ],
    groundTruth: { family: "terminal-task", answer_format: "sandbox-verifier", task_name: config.task_name, source: config.source ?? null },
  };
}

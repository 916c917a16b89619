/** A task instance rendered from an environment config: what the policy is asked and what a scorer needs. */

export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

export interface TaskInstance {
  /** the chat the policy sees (system instructions, then the task) */
  messages: ChatMessage[];
  /**
   * What envforge_reward.py needs to score an answer: always `family` and `answer_format`; `reference`
   * holds a solution that scores 1.0 where the family can compute one (absent for terminal-task,
   * which only a sandbox verifier can score).
   */
  groundTruth: { family: string; answer_format: string; reference?: string } & Record<string, unknown>;
}

/** The final answer convention shared by every family: the last <answer>...</answer> block of the response. */
export const ANSWER_TAG_NOTE =
  "Think as long as you need, then give your final answer inside <answer></answer> tags; only the last <answer> block is scored.";

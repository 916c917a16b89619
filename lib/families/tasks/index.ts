/** Task instances of the built-in families: the prompt a policy sees and what a scorer needs (see ./types). */
import type { FrozenLakeConfig } from "../frozenlake-mapf";
import type { PersuasionConfig } from "../persuasion-game";
import { getBuiltinFamily } from "../registry";
import type { SearchAgentConfig } from "../search-agent";
import type { TerminalTaskConfig } from "../terminal-task";
import { frozenlakeTask } from "./frozenlake";
import { persuasionTask } from "./persuasion";
import { searchTask } from "./search";
import { terminalTask } from "./terminal";
import type { TaskInstance } from "./types";

export type { ChatMessage, TaskInstance } from "./types";

/**
 * The task instance of a config of a built-in family, or null for a custom family (which has no
 * renderer) or a config its family's schema rejects.
 */
export function renderTaskInstance(family: string, config: Record<string, unknown>): TaskInstance | null {
  const definition = getBuiltinFamily(family);
  if (!definition) return null;
  const parsed = definition.schema.safeParse(config);
  if (!parsed.success) return null;
  switch (family) {
    case "frozenlake-mapf":
      return frozenlakeTask(parsed.data as FrozenLakeConfig);
    case "persuasion-game":
      return persuasionTask(parsed.data as PersuasionConfig);
    case "search-agent":
      return searchTask(parsed.data as SearchAgentConfig);
    case "terminal-task":
      return terminalTask(parsed.data as TerminalTaskConfig);
    default:
      return null;
  }
}

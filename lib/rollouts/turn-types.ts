/**
 * Shapes of the trajectory endpoints (GET /api/v1/rollouts/{id}/turns, .../turns/{index},
 * .../search). Pure types: the viewer imports them without pulling in the database.
 */

/**
 * Turns a viewer loads in one request, and turns the rollout page renders on the server: one stored page of a
 * long trajectory (TRAJECTORY_PAGE_MESSAGES, ADR 0006), so any screen, the first or the last, reads one or two
 * stored pages of about 230 KB of JSON instead of five or more (a unit test keeps the two equal).
 */
export const TURNS_PER_REQUEST = 100;

/** A tool call as the outline shows it: arguments cut to a preview. */
export interface ToolCallOutline {
  id: string;
  name: string;
  argumentsPreview: string;
  /** characters of the full arguments string */
  argumentsLength: number;
}

/** A retrieved document as the outline shows it. */
export interface DocumentOutline {
  id?: string;
  title?: string;
  url?: string;
  relevant?: boolean;
  textPreview: string;
  textLength: number;
}

/** One message of a trajectory, cut for the list: never more than the preview of any string. */
export interface TurnOutline {
  /** 0-based position in the trajectory */
  index: number;
  role: "system" | "user" | "assistant" | "tool" | string;
  /** characters of the full content */
  length: number;
  /** the first characters of the content (the whole content when length <= preview size) */
  preview: string;
  /** the model's reasoning, apart from the content (`<think>` blocks, ATIF reasoning_content): its first characters */
  reasoningPreview?: string;
  /** characters of the full reasoning */
  reasoningLength?: number;
  toolCalls: ToolCallOutline[];
  toolCallId?: string;
  documents: DocumentOutline[];
  tokens?: number;
  /** copied from an earlier trajectory segment for context, not this run's doing */
  copiedContext?: boolean;
  /** a subagent's message merged into the main trajectory (its id when the source named it) */
  sidechain?: { agentId?: string };
}

/** GET /api/v1/rollouts/{id}/turns?from=&limit=&preview= */
export interface TurnPage {
  rolloutId: number;
  /** messages in the whole trajectory */
  total: number;
  from: number;
  turns: TurnOutline[];
}

/** GET /api/v1/rollouts/{id}/turns/{index}?offset=&length=: one message in full, its content sliced. */
export interface TurnSlice {
  index: number;
  role: string;
  /** characters of the full content */
  length: number;
  offset: number;
  /** content.slice(offset, offset + length asked) */
  content: string;
  /** the whole reasoning (cut at 200,000 characters) when the message has any */
  reasoning?: string;
  reasoningLength?: number;
  toolCalls: { id: string; name: string; arguments: string }[];
  toolCallId?: string;
  documents: { id?: string; title?: string; url?: string; relevant?: boolean; text?: string }[];
  tokens?: number;
}

/** GET /api/v1/rollouts/{id}/search?q=&limit=: messages whose content, tool calls or documents contain q (case-insensitive). */
export interface TurnSearchResult {
  query: string;
  /** matching messages in trajectory order (at most `limit`) */
  matches: { index: number; snippet: string }[];
  /** all matching messages */
  total: number;
}

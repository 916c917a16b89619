/**
 * A message's reasoning kept apart from what it said: `<think>…</think>` blocks in the content
 * (Qwen-style models; a lone `</think>` when the chat template opened the block), and ATIF's
 * `reasoning_content` (stored as `reasoning` by the ATIF reader). Pure: the viewer's reads use it.
 */

const OPEN = "<think>";
const CLOSE = "</think>";

/** The content without its reasoning, and the reasoning (blocks and the separate field joined by a blank line). */
export function splitReasoning(content: string, reasoning?: string | null): { content: string; reasoning: string } {
  const thoughts: string[] = [];
  if (typeof reasoning === "string" && reasoning.trim()) thoughts.push(reasoning.trim());
  let rest = content;
  if (rest.includes(CLOSE) || rest.includes(OPEN)) {
    let said = "";
    let at = 0;
    // a close before any open: the template opened the block before the message began
    const firstOpen = rest.indexOf(OPEN);
    const firstClose = rest.indexOf(CLOSE);
    if (firstClose !== -1 && (firstOpen === -1 || firstClose < firstOpen)) {
      thoughts.push(rest.slice(0, firstClose).trim());
      at = firstClose + CLOSE.length;
    }
    for (;;) {
      const open = rest.indexOf(OPEN, at);
      if (open === -1) {
        said += rest.slice(at);
        break;
      }
      said += rest.slice(at, open);
      const close = rest.indexOf(CLOSE, open + OPEN.length);
      // an unclosed block (the model was cut off while thinking) is reasoning to the end
      const end = close === -1 ? rest.length : close;
      thoughts.push(rest.slice(open + OPEN.length, end).trim());
      at = close === -1 ? rest.length : close + CLOSE.length;
    }
    rest = said.trim();
  }
  return { content: rest, reasoning: thoughts.filter(Boolean).join("\n\n") };
}

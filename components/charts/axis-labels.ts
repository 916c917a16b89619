/** Axis labels of the generation charts that must fit their axis (pure, so unit-tested). */

/** Characters of a category axis line; longer snake_case names wrap at an underscore. */
export const CATEGORY_LINE_CHARS = 16;
/** The category axis's width for lines of that many characters at 12 px. */
export const CATEGORY_AXIS_WIDTH = CATEGORY_LINE_CHARS * 7 + 10;

/** A category name in at most two lines of `CATEGORY_LINE_CHARS`, broken after underscores (the rest cut with "…"). */
export function categoryLines(label: string, max = CATEGORY_LINE_CHARS): string[] {
  if (label.length <= max) return [label];
  const parts = label.split(/(?<=_)/);
  const lines: string[] = [];
  let line = "";
  for (const part of parts) {
    if (line && (line + part).length > max) {
      lines.push(line);
      line = part;
    } else line += part;
  }
  lines.push(line);
  const cut = (text: string) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  if (lines.length <= 2) return lines.map(cut);
  return [cut(lines[0]), cut(lines.slice(1).join(""))];
}

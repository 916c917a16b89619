/**
 * What a reader wants first of a verifier's output: the verdict line and the test summary at its
 * end (pytest's "short test summary info" section), not the package installs that open it. Pure.
 */

const SECTION = /^=+ short test summary info =+\s*$/m;
const VERDICT = /^=+ (.*\b(?:passed|failed|error|errors|skipped|no tests ran)\b.*?) =+\s*$/gm;
const MAX_SUMMARY = 4000;

/** The verdict (pytest's last `=== 1 failed, 1 passed in 0.40s ===`, else the last line) and the summary section (else the last lines). */
export function verifierSummary(output: string, tailLines = 15): { headline: string | null; summary: string } {
  const text = output.replace(/\r\n?/g, "\n").trimEnd();
  if (!text) return { headline: null, summary: "" };
  let headline: string | null = null;
  for (const m of text.matchAll(VERDICT)) headline = m[1].trim();
  const lines = text.split("\n");
  if (headline === null) {
    const last = [...lines].reverse().find((l) => l.trim());
    headline = last ? last.trim().slice(0, 160) : null;
  }
  const at = text.search(SECTION);
  const summary = at >= 0 ? text.slice(at) : lines.slice(-tailLines).join("\n");
  return { headline, summary: summary.length > MAX_SUMMARY ? summary.slice(summary.length - MAX_SUMMARY) : summary };
}

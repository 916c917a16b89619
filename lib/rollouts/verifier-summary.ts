/**
 * What a reader wants first of a verifier's output: the verdict line and the test summary at its
 * end (pytest's "short test summary info" section), not the package installs that open it. Pure.
 */

const VERDICT_WORDS = /\b(?:passed|failed|error|errors|skipped|no tests ran)\b/;
const MAX_SUMMARY = 4000;

/** The title of a pytest banner line (`==== title ====`), or null; read by hand so no pattern can backtrack. */
function bannerTitle(line: string): string | null {
  const t = line.trim();
  if (t.length < 3 || t[0] !== "=" || t[t.length - 1] !== "=") return null;
  let a = 0;
  let b = t.length;
  while (a < b && t[a] === "=") a++;
  while (b > a && t[b - 1] === "=") b--;
  const title = t.slice(a, b);
  return title.startsWith(" ") && title.endsWith(" ") && title.trim() ? title.trim() : null;
}

/** The verdict (pytest's last `=== 1 failed, 1 passed in 0.40s ===`, else the last line) and the summary section (else the last lines). */
export function verifierSummary(output: string, tailLines = 15): { headline: string | null; summary: string } {
  const text = output.replace(/\r\n?/g, "\n").trimEnd();
  if (!text) return { headline: null, summary: "" };
  let headline: string | null = null;
  const lines = text.split("\n");
  let section = -1;
  for (let i = 0; i < lines.length; i++) {
    const title = bannerTitle(lines[i]);
    if (title === null) continue;
    if (title === "short test summary info") {
      if (section < 0) section = i;
    } else if (VERDICT_WORDS.test(title)) headline = title;
  }
  if (headline === null) {
    const last = [...lines].reverse().find((l) => l.trim());
    headline = last ? last.trim().slice(0, 160) : null;
  }
  const summary = section >= 0 ? lines.slice(section).join("\n") : lines.slice(-tailLines).join("\n");
  return { headline, summary: summary.length > MAX_SUMMARY ? summary.slice(summary.length - MAX_SUMMARY) : summary };
}

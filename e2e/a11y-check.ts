/** The phone-width and axe-core checks every page passes (shared by the a11y spec and the first-run spec). */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1440, height: 900 };

/** WCAG 2.x A/AA rules; best-practice rules are advice, not failures. */
const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/** Serious and critical axe-core violations on the page as it is, one line each (rule, impact, first targets). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}, ${v.nodes.length}×): ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => `${n.target.join(" ")}${n.any[0]?.message ? ` [${n.any[0].message}]` : ""}`)
          .join(" | ")}`,
    );
}

/**
 * At 390 px the page does not scroll sideways (wide content scrolls in its own box) and axe-core finds
 * nothing serious; then a screenshot at 390 and at 1440 px lands in test-results/screens/a11y/.
 * Soft assertions: one run lists every page's problems.
 */
export async function checkPage(page: Page, name: string, ready: () => Promise<void>) {
  await page.setViewportSize(PHONE);
  await ready();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect.soft(width, `${name}: the page is ${width} px wide at 390 px`).toBeLessThanOrEqual(PHONE.width);
  expect.soft(await seriousViolations(page), `${name}: axe-core serious/critical violations`).toEqual([]);
  // what a phone shows first, and the whole page
  await page.screenshot({ path: `test-results/screens/a11y/${name}-390.png` });
  await page.screenshot({ path: `test-results/screens/a11y/${name}-390-full.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `test-results/screens/a11y/${name}-1440.png`, fullPage: true });
}

/**
 * Layout at a desktop (1440 px) and a phone (390 px) width: no page scrolls sideways (wide tables
 * scroll inside their own box), sortable headers say their order, and a screenshot of each page
 * lands in test-results/screens/ for a person to look at.
 */
import { expect, test, type Page } from "@playwright/test";
import { hydrated, signIn } from "./session";

const DEMO = "/projects/demo-frozenlake";
const PAGES: [string, string][] = [
  ["projects", "/"],
  ["project", DEMO],
  ["generation", `${DEMO}/generations/1`],
  ["failures", `${DEMO}/generations/1/failures`],
  ["audit", `${DEMO}/audit`],
  ["targets", `${DEMO}/targets`],
  ["users", "/settings/users"],
  ["keys", "/settings/keys"],
  ["arena", "/arena"],
];

/** How far the page itself scrolls sideways (0 when everything fits or scrolls in its own box). */
async function pageOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

for (const width of [1440, 390]) {
  test(`pages fit a ${width} px wide window`, async ({ page }) => {
    // ten pages with a full-page screenshot each: the per-test 60 s of playwright.config.ts is for one page's work
    test.setTimeout(180_000);
    await page.setViewportSize({ width, height: 900 });
    await signIn(page);
    for (const [name, url] of PAGES) {
      await page.goto(url);
      await hydrated(page);
      expect(await pageOverflow(page), `${url} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `test-results/screens/${name}-${width}.png`, fullPage: true });
    }
    // the environment page, reached from the generation's table
    await page.goto(`${DEMO}/generations/1`);
    await page.getByTestId("environment-row").first().getByRole("link").first().click();
    await expect(page).toHaveURL(/\/environments\//);
    await hydrated(page);
    expect(await pageOverflow(page), `environment page scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `test-results/screens/environment-${width}.png`, fullPage: true });
  });
}

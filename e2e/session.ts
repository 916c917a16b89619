/** The admin every spec signs in as (created by the first-run spec, or here when a spec runs alone). */
import { expect, test, type Page } from "@playwright/test";

export const ADMIN = { email: "ada@example.org", name: "Ada", password: "correct-horse-battery" };

/** Sign in through the form; on a fresh app the first-run page creates the admin instead. */
export async function signIn(page: Page, who: { email: string; name: string; password: string } = ADMIN) {
  await page.goto("/signin");
  if (/\/setup$/.test(page.url()) && who === ADMIN) {
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Name").fill(ADMIN.name);
    await page.getByLabel(/Password/).fill(ADMIN.password);
    await page.getByRole("button", { name: "Create admin account" }).click();
  } else {
    await page.getByLabel("Email").fill(who.email);
    await page.getByLabel("Password").fill(who.password);
    await page.getByRole("button", { name: "Sign in" }).click();
  }
  await expect(page.getByTestId("current-user")).toContainText(who.name);
}

/** The viewer account the first-run spec adds. */
export const VIEWER = { email: "vic@example.org", name: "Vic", password: "viewer-password-1" };

/** Wait until the page has hydrated (its keyboard shortcuts listen) after a full page load. */
export async function hydrated(page: Page) {
  await page.locator("html[data-hydrated=true]").waitFor({ state: "attached" });
}

/**
 * A screenshot for a person to look at (never an assertion): waits two frames so the layout settles after a
 * viewport change, then takes the full page. Chromium's full-page capture has stalled once in CI after a resize
 * (e2e/explore.spec.ts, a 240 s timeout with every assertion passed); then the visible part is kept instead and
 * the test says so in its annotations, rather than failing on a picture.
 */
export async function screenshot(page: Page, path: string) {
  const twoFrames = page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
  // a renderer that draws no frame would hold the evaluate forever: the capture below has its own bound
  await Promise.race([twoFrames, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  try {
    await page.screenshot({ path, fullPage: true, timeout: 30_000 });
  } catch (err) {
    if (!(err instanceof Error) || !/Timeout/i.test(err.message)) throw err;
    test.info().annotations.push({ type: "screenshot", description: `full-page capture of ${path} stalled; kept the viewport` });
    await page.screenshot({ path, timeout: 30_000 });
  }
}

/** Narrow the window to a phone's width (390 px) and take a screenshot of the page there. */
export async function phoneScreenshot(page: Page, path: string) {
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, path);
}

/** The admin every spec signs in as (created by the first-run spec, or here when a spec runs alone). */
import { expect, type Page } from "@playwright/test";

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

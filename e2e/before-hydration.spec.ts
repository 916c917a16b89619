/**
 * Before React listens (a slow first load, simulated by holding the page's scripts back), a control that works only
 * through React must not act natively: a sign-in form submitted by Enter or by a password manager's auto-submit went as
 * a GET, the password in the address (and so in the history and the server's logs).
 */
import { expect, test } from "@playwright/test";
import { ADMIN, hydrated } from "./session";

test("a sign-in submitted before the page listens never puts the password in the address", async ({ page }) => {
  await page.route("**/_next/static/chunks/**", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await route.continue();
  });
  await page.goto("/signin", { waitUntil: "commit" });
  await expect(page.getByRole("button", { name: "Sign in" })).toBeDisabled();
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByLabel("Password").press("Enter");
  await hydrated(page);
  await page.unroute("**/_next/static/chunks/**");
  expect(page.url()).not.toContain(encodeURIComponent(ADMIN.password));
  expect(page.url()).not.toContain("password=");
  // once the page listens, the same form signs in
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("current-user")).toContainText(ADMIN.name);
});

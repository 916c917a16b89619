/**
 * The simulations on this machine: one more cycle of the demo's closed loop from the project
 * page, and a quick curriculum arena run on a worker, drawn on the Arena page.
 */
import { expect, test } from "@playwright/test";
import { signIn } from "./session";

test.describe.configure({ mode: "serial" });

test("the demo loop runs one more cycle from the project page", async ({ page }) => {
  await signIn(page);
  await page.goto("/projects/demo-frozenlake");
  await expect(page.getByTestId("demo-loop-status")).toContainText("idle");
  const rows = page.getByTestId("generations-table").getByRole("row");
  const before = await rows.count();
  await page.getByTestId("demo-loop-run").click();
  await expect(page.getByTestId("demo-loop-status")).toContainText(/queued|running/);
  await expect(page.getByTestId("demo-loop-status")).toContainText("idle", { timeout: 90_000 });
  await expect(rows).toHaveCount(before + 1);
  await page.screenshot({ path: "test-results/screens/demo-loop.png", fullPage: true });
});

test("a quick arena runs on a worker and its curves and table appear", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page);
  await page.goto("/arena");
  await page.getByTestId("arena-run").click();
  await expect(page.getByTestId("arena-progress")).toContainText(/queued|running/);
  await expect(page.getByTestId("arena-progress")).toContainText("succeeded", { timeout: 200_000 });
  await expect(page.getByTestId("arena-curves-clean").locator("svg").first()).toBeVisible();
  await expect(page.getByTestId("arena-curves-traps").locator("svg").first()).toBeVisible();
  await expect(page.getByTestId("arena-table").first()).toContainText("heuristic");
  await expect(page.getByTestId("arena-goal")).toContainText(/\d+\/24 comparisons won/);
  await expect(page.getByTestId("arena-goal-text")).toContainText("at most 60% of what plain random sampling");
  await expect(page.getByTestId("arena-matrix")).toContainText("search-agent · default");
  await expect(page.getByTestId("arena-matrix-cell").first()).toContainText(/won|lost/);
  // every check says whether the oracle (the bound) meets it too; the legend says what that means
  await expect(page.getByTestId("arena-matrix-legend")).toContainText("the oracle misses too");
  await page.screenshot({ path: "test-results/screens/arena.png", fullPage: true });
});

/**
 * Run comparison and annotations in the browser: the compare page with its pickers, table and pair
 * link; a rollout page's annotation form (new label, label button, note, turn) listing what was saved.
 */
import { expect, test } from "@playwright/test";
import { hydrated, signIn } from "./session";

test.describe.configure({ mode: "serial" });

const DEMO = "/projects/demo-frozenlake";

test("compare two runs task by task and open a pass-versus-fail pair", async ({ page }) => {
  await signIn(page);
  await page.goto(`${DEMO}/compare`);
  await expect(page.getByRole("heading", { name: /Compare runs/ })).toBeVisible();
  const options = await page.getByTestId("side-a").locator("option").allInnerTexts();
  expect(options.length).toBeGreaterThan(1);
  await page.getByTestId("side-b").selectOption({ index: 1 });
  await page.getByRole("button", { name: "Compare" }).click();
  await expect(page).toHaveURL(/b=/);
  const table = page.getByTestId("compare-table");
  await expect(table.locator("tbody tr").first()).toBeVisible();
  await expect(page.getByTestId("compare-csv")).toHaveAttribute("href", /format=csv/);
  await page.screenshot({ path: "test-results/screens/compare-runs.png", fullPage: true });
  const pair = table.getByRole("link", { name: "pass vs fail" }).first();
  if (await pair.count()) {
    await pair.click();
    await expect(page).toHaveURL(/\/compare\?a=\d+&b=\d+/);
  }
});

test("annotate a rollout: add a label, pick it, write a note and see it listed", async ({ page }) => {
  await signIn(page);
  await page.goto(`${DEMO}/compare`);
  await page.getByTestId("compare-table").locator("tbody tr").first().locator("a").first().click();
  // from the environment page to one of its attempts
  await page.locator('a[href*="/rollouts/"]').first().click();
  await expect(page).toHaveURL(/\/rollouts\/\d+/);
  await hydrated(page);
  const panel = page.getByTestId("annotations");
  await expect(panel).toContainText("No annotations yet.");
  await panel.getByLabel("new label").fill("wrong-turn");
  await panel.getByRole("button", { name: "Add label" }).click();
  await panel.getByRole("button", { name: "wrong-turn" }).click();
  await expect(panel.getByRole("button", { name: "wrong-turn" })).toHaveAttribute("aria-pressed", "true");
  await panel.getByLabel("note").fill('went "left", then =SUM(A1)');
  await panel.getByLabel("turn (optional)").fill("1");
  await panel.getByRole("button", { name: "Annotate" }).click();
  const saved = panel.getByTestId("annotation");
  await expect(saved).toHaveCount(1);
  await expect(saved).toContainText("wrong-turn");
  await expect(saved).toContainText('went "left", then =SUM(A1)');
  await expect(saved).toContainText("turn 1");
  await page.screenshot({ path: "test-results/screens/rollout-annotations.png", fullPage: true });
});

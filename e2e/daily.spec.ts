/**
 * Daily management in the browser: create a project and change its settings, the target form that
 * empties itself (secret first) after adding a target, and materializing the approved items only,
 * with a confirmation that names the counts. Screenshots at 1440 and 390 px.
 */
import { expect, test, type APIRequestContext } from "@playwright/test";
import { E2E_TOKEN } from "./global-setup";
import { hydrated, phoneScreenshot, signIn } from "./session";

test.describe.configure({ mode: "serial" });

const SLUG = "daily-lab";
const auth = { authorization: `Bearer ${E2E_TOKEN}` };
const lake = (seed: number) => ({
  size: 6,
  num_agents: 1,
  obstacle_density: 0.1,
  slip_probability: 0,
  max_steps: 60,
  min_goal_distance: 3,
  collision: "block_both",
  seed,
});

async function api<T>(
  request: APIRequestContext,
  method: "GET" | "POST" | "PATCH",
  path: string,
  data?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const res = await request.fetch(path, { method, headers: { ...auth, ...headers }, data });
  expect(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

test("an admin creates a project, changes its settings and archives it", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto("/");
  await page.getByText("New project").click();
  const form = page.getByTestId("new-project");
  await form.getByLabel("Project slug").fill(SLUG);
  await form.getByLabel("Project name").fill("Daily lab");
  await form.getByLabel("Family").selectOption("frozenlake-mapf");
  await form.getByLabel("Success threshold").fill("0.5");
  await form.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${SLUG}$`));
  await expect(page.getByRole("heading", { name: "Daily lab" })).toBeVisible();
  await expect(page.getByText("success threshold 0.5")).toBeVisible();

  // a taken slug is refused with the reason, on the form
  await page.goto("/");
  await page.getByText("New project").click();
  await page.getByTestId("new-project").getByLabel("Project slug").fill(SLUG);
  await page.getByTestId("new-project").getByLabel("Project name").fill("Again");
  await page.getByTestId("new-project").getByRole("button", { name: "Create project" }).click();
  await expect(page.getByTestId("new-project").getByRole("alert")).toContainText("exists already");

  await page.goto(`/projects/${SLUG}`);
  const settings = page.getByTestId("project-settings");
  await settings.getByLabel("Project name").fill("Daily lab (renamed)");
  await settings.getByLabel("Success threshold").fill("0.75");
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(settings.getByRole("status")).toHaveText("Saved.");
  await page.reload();
  await expect(page.getByRole("heading", { name: "Daily lab (renamed)" })).toBeVisible();
  await expect(page.getByText("success threshold 0.75")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/daily-project-1440.png", fullPage: true });

  // archive asks first; the project then sits under Archived on the list
  await settings.getByTestId("archive-project").click();
  await expect(settings.getByTestId("archive-project-confirm")).toContainText("nothing is deleted");
  await settings.getByRole("button", { name: "Archive", exact: true }).click();
  await expect(settings.getByRole("status")).toHaveText("Archived.");
  await page.goto("/");
  await expect(page.getByTestId("projects-table")).not.toContainText("Daily lab (renamed)");
  await expect(page.getByTestId("archived-projects")).toContainText("Daily lab (renamed)");
  await phoneScreenshot(page, "test-results/screens/daily-projects-390.png");
  await page.goto(`/projects/${SLUG}`);
  await page.getByTestId("project-settings").getByRole("button", { name: "Unarchive" }).click();
  await expect(page.getByTestId("project-settings").getByRole("status")).toHaveText("Unarchived.");
});

test("the target form empties itself after adding a target, so the next one never inherits the secret", async ({ page, request }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto(`/projects/${SLUG}/targets`);
  await hydrated(page);
  const form = page.getByTestId("target-form");
  const template = await form.getByLabel("Config").inputValue();
  await form.getByLabel("Target name").fill("hook-a");
  await form.getByLabel("Kind").selectOption("trainer");
  await form.getByLabel("Secret", { exact: true }).fill("first-target-secret-123");
  await form.getByLabel("Config").fill(JSON.stringify({ url: "http://127.0.0.1:9/hook" }));
  await form.getByRole("button", { name: "Add target" }).click();
  await expect(page.getByTestId("target-added")).toContainText("Added hook-a");
  await expect(page.getByTestId("targets-table")).toContainText("hook-a");
  // every field is empty again, the secret first
  await expect(form.getByLabel("Secret", { exact: true })).toHaveValue("");
  await expect(form.getByLabel("Target name")).toHaveValue("");
  await expect(form.getByLabel("Secret environment variable")).toHaveValue("");
  await expect(form.getByLabel("Config")).toHaveValue(template);

  // the next webhook without a secret is refused instead of silently storing hook-a's
  await form.getByLabel("Target name").fill("hook-b");
  await form.getByLabel("Config").fill(JSON.stringify({ url: "http://127.0.0.1:9/other" }));
  await form.getByRole("button", { name: "Add target" }).click();
  await expect(page.getByTestId("target-error")).toContainText("secret");
  const { targets } = await api<{ targets: { name: string; secret: string | null }[] }>(request, "GET", `/api/v1/projects/${SLUG}/targets`);
  expect(targets.map((t) => t.name)).toEqual(["hook-a"]);

  // test connection says what happened, here: nothing listens on port 9
  await page.getByTestId("target-actions-hook-a").getByTestId("target-test").click();
  await expect(page.getByTestId("target-test-result")).toContainText("Could not reach");
  await page.screenshot({ path: "test-results/screens/daily-targets-1440.png", fullPage: true });
});

test("materialize approved only asks first, naming the counts, and rejects the rest", async ({ page, request }) => {
  test.setTimeout(120_000);
  // a measured generation and a proposal from the heuristic engineer, through the API
  await api(request, "POST", `/api/v1/projects/${SLUG}/generations`, {
    environments: Array.from({ length: 8 }, (_, i) => ({ key: `e${i}`, config: lake(300 + i) })),
  });
  const lines = Array.from({ length: 8 }, (_, i) =>
    Array.from({ length: 6 }, (_, a) =>
      JSON.stringify({ externalId: `d${i}-${a}`, environmentKey: `e${i}`, policy: "p", reward: a < i ? 1 : 0 }),
    ),
  ).flat();
  const ingest = await request.fetch(`/api/v1/projects/${SLUG}/rollouts`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/x-ndjson" },
    data: lines.join("\n"),
  });
  expect(ingest.ok()).toBe(true);
  const { proposalId } = await api<{ proposalId: string }>(request, "POST", `/api/v1/projects/${SLUG}/generations/0/proposals`, {
    engineer: "heuristic",
    options: { seed: 4 },
  });
  await expect
    .poll(async () => (await api<{ status: string }>(request, "GET", `/api/v1/proposals/${proposalId}`)).status, { timeout: 60_000 })
    .toBe("ready");

  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto(`/projects/${SLUG}/proposals/${proposalId}`);
  await hydrated(page);
  const items = page.getByTestId("proposal-item");
  const total = await items.count();
  expect(total).toBeGreaterThan(3);

  // bulk approve asks first, naming how many
  await page.getByTestId("approve-pending").click();
  await expect(page.getByTestId("approve-pending-confirm")).toContainText(`Approve ${total} pending items?`);
  await page.getByTestId("approve-pending-confirm").getByRole("button", { name: "Cancel" }).click();
  await expect(page.locator('[data-testid="proposal-item"][data-decision="approved"]')).toHaveCount(0);

  // approve two kept/added items, leave the rest pending
  const keep = page.locator('[data-testid="proposal-item"]:not([data-op="retire"])');
  for (const i of [0, 1]) {
    await keep.nth(i).getByTestId("item-approve").click();
    await expect(keep.nth(i)).toHaveAttribute("data-decision", "approved");
  }
  const pending = total - 2;

  await page.getByTestId("materialize-approved-only").click();
  const confirm = page.getByTestId("materialize-approved-only-confirm");
  await expect(confirm).toContainText(`Materialize 2 approved items and reject ${pending} pending`);
  await page.screenshot({ path: "test-results/screens/daily-materialize-confirm-1440.png", fullPage: true });
  await confirm.getByRole("button", { name: "Materialize and reject the rest" }).click();
  await expect(page.getByTestId("materialized")).toContainText("generation 1");
  await expect(page.locator('[data-testid="proposal-item"][data-decision="rejected"]')).toHaveCount(pending);

  // the project lists the proposal as materialized with a link, and its tiles keep G0's results
  await page.goto(`/projects/${SLUG}`);
  await expect(page.getByTestId("proposals-table")).toContainText("materialized → G1");
  await expect(page.getByTestId("latest-note")).toContainText("Figures from G0");
  await phoneScreenshot(page, "test-results/screens/daily-project-390.png");
});

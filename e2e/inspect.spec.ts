/**
 * From the generation page to a failure cluster, to a trajectory, to the compare view; the
 * environment table's filters and keyboard; a long trajectory stays navigable.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { E2E_TOKEN } from "./global-setup";
import { hydrated, signIn } from "./session";

test.describe.configure({ mode: "serial" });

const DEMO = "/projects/demo-frozenlake";

test("generation dashboard draws its charts and the environment table filters, sorts and moves by keyboard", async ({ page }) => {
  await signIn(page);
  await page.goto(`${DEMO}/generations/3`);
  await expect(page.getByRole("heading", { name: "Generation 3" })).toBeVisible();
  for (const chart of [
    "chart-success-distribution",
    "chart-pass-at-k",
    "chart-tiers",
    "chart-failure-categories",
    "chart-field-breakdown",
    "generation-trend",
  ]) {
    await expect(page.getByTestId(chart).locator("svg").first(), chart).toBeVisible();
  }
  await page.screenshot({ path: "test-results/screens/generation-dashboard.png", fullPage: true });

  const table = page.getByTestId("environment-table");
  const rows = table.getByTestId("environment-row");
  await expect(rows.first()).toBeVisible();
  const all = Number((await page.getByTestId("environment-count").innerText()).match(/\d+/)![0]);

  // filter by tier: the URL keeps it and every row shows the tier
  await table.getByLabel("Tier").selectOption("solved");
  await expect(page).toHaveURL(/env\.tier=solved/);
  const shown = async () => Number((await page.getByTestId("environment-count").innerText()).match(/\d+/)![0]);
  await expect.poll(shown).toBeLessThan(all);
  await expect(page.getByTestId("environment-count")).not.toContainText("loading");
  for (const text of await rows.allInnerTexts()) expect(text).toContain("solved");
  await table.getByLabel("Tier").selectOption("");

  // sort by success, worst first
  await table.getByRole("columnheader", { name: /Success/ }).click();
  await expect(page).toHaveURL(/env\.sort=success/);
  const rates = async () => (await rows.allInnerTexts()).map((t) => Number(t.match(/(\d+\.\d)%/)![1]));
  await expect
    .poll(async () => {
      const r = await rates();
      return r.every((x, i) => i === 0 || r[i - 1] <= x);
    })
    .toBe(true);

  // j/k select rows, Enter opens the environment
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await expect(rows.nth(1)).toHaveAttribute("data-selected", "true");
  const key = (await rows.nth(1).locator("a").first().innerText()).trim();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/environments/${key}$`));
  await expect(page.getByTestId("lineage")).toContainText(key);
  await expect(page.getByTestId("attempt-list")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/environment.png", fullPage: true });
});

test("failure inspector: category, cluster, exemplar trajectory, then the compare view", async ({ page }) => {
  await signIn(page);
  await page.goto(`${DEMO}/generations/3`);
  await page.getByTestId("open-failures").click();
  await expect(page.getByRole("heading", { name: "Failure inspector" })).toBeVisible();
  await expect(page.getByTestId("category-list")).toContainText("verifier_failed");

  // a category narrows the clusters; a cluster shows its exemplars
  await page
    .getByTestId("category-list")
    .getByRole("link", { name: /verifier_failed/ })
    .click();
  await expect(page).toHaveURL(/category=verifier_failed/);
  const clusters = page.getByTestId("cluster-list").getByTestId("cluster-link");
  await expect(clusters.first()).toContainText("verifier_failed");
  await clusters.nth(1).click();
  await expect(page).toHaveURL(/cluster=[0-9a-f]{16}/);
  const detail = page.getByTestId("cluster-detail");
  await expect(detail).toContainText("test_goals.py::");
  await page.screenshot({ path: "test-results/screens/failures.png", fullPage: true });

  // an exemplar opens the rollout with its trajectory
  await detail.getByTestId("exemplar-link").first().click();
  await expect(page.getByTestId("rollout-outcome")).toHaveText("FAIL");
  // the page opens with the test summary; the verifier's full output stays collapsed
  await expect(page.getByTestId("pytest-summary")).toBeVisible();
  await expect(page.getByTestId("pytest-summary")).toContainText("test_goals.py::");
  await expect(page.getByTestId("verifier-details")).not.toHaveAttribute("open", /.*/);
  await expect(page.getByTestId("verifier-output")).toContainText("FAILED test_goals.py::");
  await expect(page.locator('[data-turn-index="0"]')).toBeVisible();
  await expect(page.locator('[data-turn-index="0"]')).toContainText("frozen lake");
  await hydrated(page);

  // "/" searches inside the trajectory; "?" lists the shortcuts
  await page.keyboard.press("/");
  await expect(page.getByTestId("trajectory-search")).toBeFocused();
  await page.keyboard.type("move");
  await expect(page.getByTestId("trajectory-search-status")).toContainText(/1 of \d+/);
  await page.keyboard.press("Escape");
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeHidden();
  await page.screenshot({ path: "test-results/screens/rollout.png", fullPage: true });

  // compare with a passing attempt of the same environment, turns aligned
  await page.getByTestId("compare-link").click();
  await expect(page.getByTestId("compare-view")).toBeVisible();
  await expect(page.getByTestId("compare-view")).toContainText("PASS");
  await expect(page.getByTestId("compare-view")).toContainText("FAIL");
  const first = page.getByTestId("compare-row").first();
  await expect(first.getByTestId("compare-left")).toContainText("frozen lake");
  await expect(first.getByTestId("compare-right")).toContainText("frozen lake");
  await page.screenshot({ path: "test-results/screens/compare.png", fullPage: true });
});

test("a 3,000-message trajectory: jump to the end, deep link to a turn, expand a long output in slices", async ({ page, request }) => {
  const auth = { authorization: `Bearer ${E2E_TOKEN}` };
  const long = "L".repeat(50_000) + "TAIL-MARKER";
  const trajectory = [
    { role: "system", content: "You are a terminal agent." },
    ...Array.from({ length: 2999 }, (_, i) =>
      i % 2 === 0
        ? {
            role: "assistant",
            content: `turn ${i + 1}`,
            toolCalls: [{ id: `c${i}`, name: "bash", arguments: JSON.stringify({ cmd: `make test # ${i}` }) }],
            tokens: 9,
          }
        : { role: "tool", toolCallId: `c${i - 1}`, content: i === 1 ? long : `output of turn ${i + 1}` },
    ),
  ];
  const g3 = await (await request.get(`/api/v1/projects/demo-frozenlake/generations/3/environments?limit=1`, { headers: auth })).json();
  const line = { externalId: "e2e-long-1", environmentKey: g3.items[0].key, generation: 3, policy: "e2e-policy", reward: 0, trajectory };
  const res = await request.post(`/api/v1/projects/demo-frozenlake/rollouts`, {
    headers: { ...auth, "content-type": "application/x-ndjson" },
    data: JSON.stringify(line),
  });
  expect(res.status()).toBe(200);
  const list = await (await request.get(`/api/v1/projects/demo-frozenlake/rollouts?policy=e2e-policy`, { headers: auth })).json();
  const id = list.items[0].id;

  await signIn(page);
  await page.goto(`${DEMO}/rollouts/${id}`);
  await hydrated(page);
  await expect(page.getByTestId("trajectory-total")).toContainText("3,000");
  // the long output arrives cut; "Show all" loads it in slices, the end only on demand
  const turn2 = page.locator('[data-turn-index="2"]');
  await expect(turn2).toBeVisible();
  await expect(turn2).not.toContainText("TAIL-MARKER");
  await turn2.getByRole("button", { name: /Show all/ }).click();
  await expect(turn2.getByTestId("turn-full")).toBeVisible();
  await expect(turn2).not.toContainText("TAIL-MARKER");
  await turn2.getByRole("button", { name: "Show more" }).first().click();
  await turn2.getByRole("button", { name: "Show more" }).first().click();
  await expect(turn2).toContainText("TAIL-MARKER");

  // only a window of the list is in the DOM
  expect(await page.locator("[data-turn-index]").count()).toBeLessThan(200);
  await page.getByTestId("trajectory-last").click();
  await expect(page.locator('[data-turn-index="2999"]')).toBeVisible();
  await expect(page.locator('[data-turn-index="2999"]')).toContainText("turn 2999");

  // a deep link opens at its turn
  await page.goto(`${DEMO}/rollouts/${id}#turn-1500`);
  await hydrated(page);
  await expect(page.locator('[data-turn-index="1500"]')).toBeVisible();
  await expect(page.locator('[data-turn-index="1500"]')).toContainText("output of turn 1500");
  await page.screenshot({ path: "test-results/screens/long-trajectory.png" });
});

test("reading a real Terminal-Bench trial: trial name, verifier summary first, reasoning folded apart, commands as code, j/k keep the turn in view", async ({
  page,
  request,
}) => {
  // harbor-tb2 tmax-9b extract-elf__opDBqDJ: agent/trajectory.json (OpenAI messages), verifier/test-stdout.txt, result.json
  const trial = path.resolve(import.meta.dirname, "../../shared/fixtures/harbor-tb2/tmax-9b/terminal-bench-2-0/extract-elf__opDBqDJ");
  if (!fs.existsSync(trial)) throw new Error(`the shared fixtures are missing at ${trial}; put shared/fixtures beside the clone`);
  type OpenAiMessage = {
    role: string;
    content: string | null;
    tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
  };
  const messages = JSON.parse(fs.readFileSync(path.join(trial, "agent/trajectory.json"), "utf8")) as OpenAiMessage[];
  const result = JSON.parse(fs.readFileSync(path.join(trial, "result.json"), "utf8")) as { trial_name: string };
  const trajectory = messages.map((m) => ({
    role: m.role,
    content: m.content ?? "",
    ...(m.tool_calls?.length
      ? { toolCalls: m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) }
      : {}),
    ...(m.tool_call_id ? { toolCallId: m.tool_call_id } : {}),
  }));
  const auth = { authorization: `Bearer ${E2E_TOKEN}` };
  const g3 = await (await request.get(`/api/v1/projects/demo-frozenlake/generations/3/environments?limit=1`, { headers: auth })).json();
  const line = {
    externalId: "e2e-tb2-extract-elf",
    environmentKey: g3.items[0].key,
    generation: 3,
    policy: "e2e-tb2",
    reward: 0,
    verifierOutput: fs.readFileSync(path.join(trial, "verifier/test-stdout.txt"), "utf8"),
    metadata: { trialName: result.trial_name },
    trajectory,
  };
  const res = await request.post(`/api/v1/projects/demo-frozenlake/rollouts`, {
    headers: { ...auth, "content-type": "application/x-ndjson" },
    data: JSON.stringify(line),
  });
  expect(res.status()).toBe(200);
  const list = await (await request.get(`/api/v1/projects/demo-frozenlake/rollouts?policy=e2e-tb2`, { headers: auth })).json();

  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto(`${DEMO}/rollouts/${list.items[0].id}`);
  await hydrated(page);
  await expect(page.getByTestId("trial-name")).toHaveText("extract-elf__opDBqDJ");

  // the verifier's output opens with its verdict and summary; the apt-get noise stays folded under "Full output"
  const verifier = page.getByTestId("verifier-details");
  await expect(verifier).not.toHaveAttribute("open", /.*/);
  await expect(page.getByTestId("verifier-headline")).toHaveText("1 failed, 1 passed in 0.40s");
  await verifier.locator("summary").first().click();
  await expect(page.getByTestId("verifier-summary")).toBeVisible();
  await expect(page.getByTestId("verifier-summary")).toContainText("FAILED ../tests/test_outputs.py::test_output_matches_reference");
  await expect(page.getByTestId("verifier-summary")).not.toContainText("Get:1");
  await expect(page.getByTestId("verifier-output")).toBeHidden();

  // reasoning (a lone </think> in the content) is apart and folded; the bash command is a code block
  const turn2 = page.locator('[data-turn-index="2"]');
  await expect(turn2).toBeVisible();
  await expect(turn2).not.toContainText("</think>");
  const toggle = turn2.getByTestId("reasoning-toggle");
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(turn2.getByTestId("reasoning-text")).toHaveCount(0);
  await expect(turn2.getByTestId("tool-command").first()).toHaveText("$ ls -la /app/");
  await toggle.click();
  await expect(turn2.getByTestId("reasoning-text")).toContainText("Let me analyze this task");
  // an opened call shows its command as code too, not as escaped JSON
  await turn2.getByTestId("tool-call").first().click();
  await expect(turn2.getByTestId("tool-call-arguments").getByTestId("tool-command")).toHaveText("$ ls -la /app/");
  await page.screenshot({ path: "test-results/screens/rollout-reading.png", fullPage: true });

  // j/k: the selected turn stays in view, in the list and on the page
  await page.locator("h1").click();
  const scroller = page.getByTestId("trajectory-scroll");
  const inView = async () => {
    const row = page.locator("article[data-selected]");
    const [r, s] = [await row.boundingBox(), await scroller.boundingBox()];
    if (!r || !s) return false;
    const viewport = page.viewportSize()!;
    const top = Math.max(r.y, 0);
    return top >= s.y - 1 && top < Math.min(s.y + s.height, viewport.height) && r.y + Math.min(r.height, 40) <= viewport.height;
  };
  for (let i = 0; i < 20; i++) await page.keyboard.press("j");
  await expect(page.locator("article[data-selected]")).toBeVisible();
  await expect.poll(inView).toBe(true);
  for (let i = 0; i < 7; i++) await page.keyboard.press("k");
  await expect.poll(inView).toBe(true);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.keyboard.press("j");
  await expect.poll(inView).toBe(true);
  const trajectoryBox = await scroller.boundingBox();
  expect(trajectoryBox!.x + trajectoryBox!.width).toBeLessThanOrEqual(390);
  await page.screenshot({ path: "test-results/screens/rollout-reading-390.png", fullPage: true });
});

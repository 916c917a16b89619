/**
 * The generation page's charts as a person reads them, at 1440 and 390 px: environments whose two policies' success
 * rates coincide are one mark of the policy scatter, sized and numbered (89 Harbor tasks of 5 attempts fell on 20
 * dots, one of them hiding 40 environments); failure category names fit their axis (environment_broken_by_agent lost
 * its first letters); the success histogram's bin labels do not run into each other on a phone.
 */
import { expect, test, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { E2E_TOKEN } from "./global-setup";
import { hydrated, signIn } from "./session";

const admin = { authorization: `Bearer ${E2E_TOKEN}` };
const SLUG = "chart-fit";

async function api(request: APIRequestContext, url: string, method: string, data: unknown, contentType?: string) {
  const res = await request.fetch(url, { method, headers: { ...admin, ...(contentType ? { "content-type": contentType } : {}) }, data });
  expect(res.ok(), `${method} ${url}: ${res.status()} ${await res.text()}`).toBe(true);
  return res.json();
}

// passes of 5 attempts before and after, per group of environments: five distinct pairs of rates
const GROUPS = [
  { n: 12, before: 0, after: 0 },
  { n: 8, before: 5, after: 5 },
  { n: 3, before: 5, after: 0 },
  { n: 2, before: 1, after: 4 },
  { n: 5, before: 2, after: 2 },
];
const BOTH = GROUPS.reduce((sum, g) => sum + g.n, 0);

/** Horizontal extents of the rendered texts in a locator, left to right. */
async function spans(texts: Locator) {
  const boxes = [];
  for (const t of await texts.all()) {
    const box = await t.boundingBox();
    if (box) boxes.push({ left: box.x, right: box.x + box.width });
  }
  return boxes.sort((a, b) => a.left - b.left);
}

async function expectCategoryNamesInside(page: Page) {
  const chart = page.getByTestId("chart-failure-categories");
  const svg = await chart.locator("svg.recharts-surface").first().boundingBox();
  const ticks = chart.getByTestId("category-tick");
  await expect(ticks.first()).toBeVisible();
  expect(await ticks.locator("title").allTextContents()).toEqual(
    expect.arrayContaining(["environment_broken_by_agent", "context_length_exceeded"]),
  );
  for (const box of await spans(ticks)) expect(box.left).toBeGreaterThanOrEqual(svg!.x - 0.5);
}

test("policy scatter stacks coinciding environments; category names and histogram labels fit, at 1440 and 390 px", async ({
  page,
  request,
}) => {
  await api(request, "/api/v1/projects", "POST", { slug: SLUG, name: "Chart fit", family: "frozenlake-mapf" });
  const keys = Array.from({ length: BOTH + 2 }, (_, i) => `env-${String(i).padStart(3, "0")}`);
  await api(request, `/api/v1/projects/${SLUG}/generations`, "POST", {
    environments: keys.map((key, i) => ({
      key,
      config: {
        size: 4 + (i % 8),
        num_agents: 1,
        obstacle_density: 0.1,
        slip_probability: 0,
        max_steps: 100 + i,
        min_goal_distance: 2,
        collision: "soft",
        seed: i,
      },
    })),
  });
  const lines: unknown[] = [];
  let e = 0;
  for (const g of GROUPS) {
    for (let j = 0; j < g.n; j += 1, e += 1) {
      for (const [policy, passes] of [
        ["before", g.before],
        ["after", g.after],
      ] as const) {
        for (let a = 0; a < 5; a += 1)
          lines.push({ externalId: `${keys[e]}-${policy}-${a}`, environmentKey: keys[e], policy, reward: a < passes ? 1 : 0 });
      }
    }
  }
  // two environments only "after" ran, failing in the two longest category names
  const install = [
    { role: "user", content: "Install python3, then fetch the page with curl." },
    {
      role: "assistant",
      content: "Installing.",
      toolCalls: [{ id: "k1", name: "bash", arguments: JSON.stringify({ cmd: "apt-get install -y python3" }) }],
    },
    { role: "tool", toolCallId: "k1", content: "Reading package lists...\nCommand timed out (exit_code=124)" },
  ];
  lines.push({
    externalId: "broken",
    environmentKey: keys[BOTH],
    policy: "after",
    reward: 0,
    trajectory: install,
    verifierOutput: "/tests/test.sh: line 8: curl: command not found\n",
  });
  lines.push({
    externalId: "long",
    environmentKey: keys[BOTH + 1],
    policy: "after",
    reward: 0,
    status: "errored",
    error: { type: "ContextLengthExceededError", message: "maximum context length exceeded" },
  });
  const posted = await api(
    request,
    `/api/v1/projects/${SLUG}/rollouts`,
    "POST",
    lines.map((l) => JSON.stringify(l)).join("\n"),
    "application/x-ndjson",
  );
  expect(posted.rejected).toEqual([]);

  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto(`/projects/${SLUG}/generations/0`);
  await hydrated(page);
  const scatter = page.getByTestId("chart-policy-scatter");
  const marks = scatter.getByTestId("scatter-mark");
  await expect(marks).toHaveCount(GROUPS.length);
  const ns = (await marks.evaluateAll((gs) => gs.map((g) => Number(g.getAttribute("data-n"))))).sort((x, y) => x - y);
  expect(ns).toEqual(GROUPS.map((g) => g.n).sort((x, y) => x - y));
  await expect(scatter.locator('[data-n="12"] text')).toHaveText("12");
  await expect(scatter).toContainText("2 ran under one policy only");
  // a bigger mark is drawn bigger
  const r = async (n: number) => Number(await scatter.locator(`[data-n="${n}"] circle`).getAttribute("r"));
  expect(await r(12)).toBeGreaterThan(await r(5));
  expect(await r(5)).toBeGreaterThan(await r(2));

  // a mark of several environments lists them; one of them opens
  await scatter.locator('[data-n="12"] circle').click();
  const chosen = page.getByTestId("scatter-chosen");
  await expect(chosen).toContainText(/12 environments at (before|after) 0\.0% → (before|after) 0\.0%/);
  await expect(chosen.getByRole("link")).toHaveCount(12);
  await expect(chosen.getByRole("link", { name: "env-011" })).toBeVisible();
  await expect(chosen.getByRole("link", { name: "env-012" })).toHaveCount(0);
  await expectCategoryNamesInside(page);
  await page.screenshot({ path: "test-results/screens/generation-charts-1440.png", fullPage: true });
  await chosen.getByRole("link", { name: "env-003" }).click();
  await expect(page).toHaveURL(/\/environments\/env-003$/);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/projects/${SLUG}/generations/0`);
  await hydrated(page);
  await expectCategoryNamesInside(page);
  const bins = await spans(
    page.getByTestId("chart-success-distribution").locator(".recharts-cartesian-axis-tick-value").filter({ hasText: "%" }),
  );
  expect(bins.length).toBeGreaterThanOrEqual(2);
  for (let i = 1; i < bins.length; i += 1) expect(bins[i].left, `bin label ${i}`).toBeGreaterThanOrEqual(bins[i - 1].right);
  await page.screenshot({ path: "test-results/screens/generation-charts-390.png", fullPage: true });
});

/**
 * Two runs of a 450-environment generation compared: the page renders 200 rows, regressions first, then 200 more or all
 * on request (two runs of 5,000 environments rendered every row: a 15 MB page that loaded in 6.4-7.3 s, issue 19); the
 * side pickers count each run's rollouts (from the aggregates).
 */
import { expect, test, type APIRequestContext } from "@playwright/test";
import { E2E_TOKEN } from "./global-setup";
import { signIn } from "./session";

test.setTimeout(120_000);
const admin = { authorization: `Bearer ${E2E_TOKEN}` };
const SLUG = "scale-compare";
const ENVIRONMENTS = 450;
const REGRESSED = ["env-007", "env-123", "env-321"];

async function api(request: APIRequestContext, url: string, method: string, data: unknown, contentType?: string) {
  const res = await request.fetch(url, { method, headers: { ...admin, ...(contentType ? { "content-type": contentType } : {}) }, data });
  expect(res.ok(), `${method} ${url}: ${res.status()} ${await res.text()}`).toBe(true);
}

test("a 450-environment comparison shows 200 rows, regressions first, then more or all on request", async ({ page, request }) => {
  await api(request, "/api/v1/projects", "POST", { slug: SLUG, name: "Scale compare", family: "frozenlake-mapf" });
  const keys = Array.from({ length: ENVIRONMENTS }, (_, i) => `env-${String(i).padStart(3, "0")}`);
  await api(request, `/api/v1/projects/${SLUG}/generations`, "POST", {
    environments: keys.map((key, i) => ({
      key,
      config: {
        size: 4 + (i % 12),
        num_agents: 1 + (i % 3),
        obstacle_density: (i % 5) / 20,
        slip_probability: (i % 10) / 40,
        max_steps: 100 + i,
        min_goal_distance: 2,
        collision: "soft",
        seed: i,
      },
    })),
  });
  // each environment once per policy with the same result; three of them five times, passing before and failing after
  const lines = keys.flatMap((key, i) => {
    const n = REGRESSED.includes(key) ? 5 : 1;
    return ["before", "after"].flatMap((policy) =>
      Array.from({ length: n }, (_, a) =>
        JSON.stringify({
          externalId: `${key}-${policy}-${a}`,
          environmentKey: key,
          policy,
          reward: REGRESSED.includes(key) ? (policy === "before" ? 1 : 0) : i % 2,
        }),
      ),
    );
  });
  await api(request, `/api/v1/projects/${SLUG}/rollouts`, "POST", lines.join("\n"), "application/x-ndjson");

  await signIn(page);
  await page.goto(`/projects/${SLUG}/compare?a=0:before&b=0:after`);
  const rows = page.getByTestId("compare-table").locator("tbody tr");
  await expect(rows).toHaveCount(200);
  expect(await page.getByTestId("side-a").locator("option").allInnerTexts()).toEqual([
    "G0 · after (462 rollouts)",
    "G0 · before (462 rollouts)",
  ]);
  // the regressions lead the table, the rest are unchanged
  for (let r = 0; r < 3; r++) await expect(rows.nth(r)).toContainText("regressed");
  await expect(rows.nth(0).locator("td").first()).toHaveText(/^env-(007|123|321)$/);
  await expect(page.getByTestId("compare-more")).toContainText("Showing 200 of 450 environments");

  await page.getByRole("link", { name: "Show 200 more" }).click();
  await expect(rows).toHaveCount(400);
  await expect(page).toHaveURL(/rows=400/);
  await page.getByRole("link", { name: "Show 50 more" }).click();
  await expect(rows).toHaveCount(450);
  await expect(page.getByTestId("compare-more")).toHaveCount(0);
  await page.goto(`/projects/${SLUG}/compare?a=0:before&b=0:after&rows=200`);
  await page.getByRole("link", { name: "Show all" }).click();
  await expect(rows).toHaveCount(450);
});

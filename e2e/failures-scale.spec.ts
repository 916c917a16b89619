/**
 * A generation with 451 failure clusters: the failure inspector lists 200, the largest first, then 200 more or all on
 * request, and a link to a cluster further down opens the list down to it (a 1,000,000-rollout generation has 3,200
 * clusters; listing them all made a 3.1 MB page that took 1.0-1.8 s to load, issue 19). The list's rows carry what they
 * show: a cluster's exemplars stay on the server until it is opened.
 */
import { expect, test, type APIRequestContext } from "@playwright/test";
import { E2E_TOKEN } from "./global-setup";
import { hydrated, signIn } from "./session";

test.setTimeout(120_000);
const admin = { authorization: `Bearer ${E2E_TOKEN}` };
const SLUG = "scale-failures";
const CLUSTERS = 451;

async function api<T>(request: APIRequestContext, url: string, method = "GET", data?: unknown, contentType?: string): Promise<T> {
  const res = await request.fetch(url, { method, headers: { ...admin, ...(contentType ? { "content-type": contentType } : {}) }, data });
  expect(res.ok(), `${method} ${url}: ${res.status()} ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

/** A word per cluster: failure signatures turn digits into <n>, so the messages differ in letters. */
const word = (i: number) => String.fromCharCode(97 + Math.floor(i / 26 / 26), 97 + (Math.floor(i / 26) % 26), 97 + (i % 26));

test("451 clusters: 200 listed, the largest first, then more or all; a deep link opens the list down to its cluster", async ({
  page,
  request,
}) => {
  await api(request, "/api/v1/projects", "POST", { slug: SLUG, name: "Scale failures", family: "frozenlake-mapf" });
  const config = {
    size: 6,
    num_agents: 1,
    obstacle_density: 0.1,
    slip_probability: 0,
    max_steps: 60,
    min_goal_distance: 2,
    collision: "soft",
    seed: 1,
  };
  await api(request, `/api/v1/projects/${SLUG}/generations`, "POST", {
    environments: [0, 1, 2].map((i) => ({ key: `env-${i}`, config: { ...config, seed: i } })),
  });
  // one rollout per cluster; the last cluster three times, so it leads the list
  const lines = Array.from({ length: CLUSTERS }, (_, i) => i).flatMap((i) =>
    Array.from({ length: i === CLUSTERS - 1 ? 3 : 1 }, (_, a) =>
      JSON.stringify({
        externalId: `r-${i}-${a}`,
        environmentKey: `env-${i % 3}`,
        policy: "p",
        reward: 0,
        status: "errored",
        error: { type: "RuntimeError", message: `the simulator stalled in stage ${word(i)}` },
      }),
    ),
  );
  await api(request, `/api/v1/projects/${SLUG}/rollouts`, "POST", lines.join("\n"), "application/x-ndjson");
  const failures = await api<{ clusters: { id: string; signature: string; count: number }[] }>(
    request,
    `/api/v1/projects/${SLUG}/generations/0/failures`,
  );
  expect(failures.clusters).toHaveLength(CLUSTERS);
  expect(failures.clusters[0].count).toBe(3);
  expect(failures.clusters[0].signature).toContain(word(CLUSTERS - 1));

  await signIn(page);
  const url = `/projects/${SLUG}/generations/0/failures`;
  const html = await (await page.request.get(url)).text();
  expect(html).not.toContain("exemplarRolloutIds");
  await page.goto(url);
  await hydrated(page);
  const links = page.getByTestId("cluster-link");
  await expect(links).toHaveCount(200);
  await expect(links.first()).toContainText(word(CLUSTERS - 1));
  await expect(page.getByTestId("clusters-more")).toContainText("Showing 200 of 451 clusters");

  await page.getByRole("link", { name: "Show 200 more" }).click();
  await expect(links).toHaveCount(400);
  await expect(page).toHaveURL(/rows=400/);
  // a cluster picked past the first 200 keeps the list as long, and opens
  const picked = failures.clusters[350];
  await links.nth(350).click();
  await expect(page).toHaveURL(new RegExp(`cluster=${picked.id}.*rows=400`));
  await expect(links).toHaveCount(400);
  await expect(page.getByTestId("cluster-detail")).toContainText(picked.signature);
  // beside the list (wide layout) the pick does not move the page
  const beside = failures.clusters[340];
  await links.nth(340).scrollIntoViewIfNeeded();
  const before = await page.evaluate(() => window.scrollY);
  expect(before).toBeGreaterThan(0);
  await links.nth(340).click();
  await expect(page.getByTestId("cluster-detail")).toContainText(beside.signature);
  expect(await page.evaluate(() => window.scrollY)).toBe(before);

  // on a phone the detail sits under the whole list: a pick brings it into view
  await page.setViewportSize({ width: 390, height: 844 });
  const below = failures.clusters[120];
  await links.nth(120).scrollIntoViewIfNeeded();
  await expect(page.getByTestId("cluster-detail-anchor")).not.toBeInViewport();
  await links.nth(120).click();
  await expect(page.getByTestId("cluster-detail")).toContainText(below.signature);
  await expect(page.getByTestId("cluster-detail-anchor")).toBeInViewport();
  await page.setViewportSize({ width: 1280, height: 720 });

  // a link to the last cluster, without rows: the list opens down to it
  const last = failures.clusters[CLUSTERS - 1];
  await page.goto(`${url}?cluster=${last.id}`);
  await hydrated(page);
  await expect(links).toHaveCount(CLUSTERS);
  await expect(page.getByTestId("cluster-detail")).toContainText(last.signature);
  await expect(page.getByTestId("clusters-more")).toHaveCount(0);

  await page.goto(url);
  await page.getByRole("link", { name: "Show all" }).click();
  await expect(links).toHaveCount(CLUSTERS);
});

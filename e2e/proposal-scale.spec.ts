/**
 * A proposal of hundreds of items renders a page of them at a time: the first ITEMS_PAGE (200) at once, a page more as
 * the reader scrolls near the end, the rest on "Show more"; the keyboard walks past what is rendered. (A 15,000-item
 * proposal, all rendered, took the page 36-41 s to become interactive: issue 19.) The page arrives with the first page
 * in full and the rest as an index, reads the details of each page it renders (`?ids=`), and a key's decision comes back
 * as that one item (`?items=changed`), not the whole proposal (13 MB at 15,000 items, 0.9 s a key).
 */
import { expect, test, type APIRequestContext } from "@playwright/test";
import { E2E_TOKEN } from "./global-setup";
import { hydrated, signIn } from "./session";

test.setTimeout(180_000);
const admin = { authorization: `Bearer ${E2E_TOKEN}` };
const SLUG = "scale-review";
const ENVIRONMENTS = 300;

async function api<T>(request: APIRequestContext, url: string, method = "GET", data?: unknown) {
  const res = await request.fetch(url, { method, headers: admin, data });
  expect(res.ok(), `${method} ${url}: ${res.status()} ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

test("a 300-environment proposal shows 200 items, then more as the reader scrolls or asks", async ({ page, request }) => {
  await api(request, "/api/v1/projects", "POST", { slug: SLUG, name: "Scale review", family: "frozenlake-mapf" });
  const environments = Array.from({ length: ENVIRONMENTS }, (_, i) => ({
    key: `env-${String(i).padStart(3, "0")}`,
    config: {
      size: 4 + (i % 12),
      num_agents: 1 + (i % 3),
      obstacle_density: (i % 5) / 20,
      slip_probability: (i % 10) / 40,
      max_steps: 200,
      min_goal_distance: 2,
      collision: i % 2 ? "soft" : "block_both",
      seed: i,
    },
  }));
  await api(request, `/api/v1/projects/${SLUG}/generations`, "POST", { environments });
  // four attempts each, success spread over the environments (some solved, some never)
  const lines = environments.flatMap((e, i) =>
    Array.from({ length: 4 }, (_, a) =>
      JSON.stringify({ externalId: `${e.key}-${a}`, environmentKey: e.key, policy: "p", reward: a < i % 5 ? 1 : 0 }),
    ),
  );
  const res = await request.fetch(`/api/v1/projects/${SLUG}/rollouts`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/x-ndjson" },
    data: lines.join("\n"),
  });
  expect(res.ok(), await res.text()).toBe(true);
  const { proposalId } = await api<{ proposalId: string }>(request, `/api/v1/projects/${SLUG}/generations/0/proposals`, "POST", {
    engineer: "heuristic",
    options: { seed: 3 },
  });
  let total = 0;
  type Item = { id: string; op: string; environmentKey?: string };
  let all: Item[] = [];
  await expect
    .poll(
      async () => {
        const p = await api<{ status: string; items: Item[] }>(request, `/api/v1/proposals/${proposalId}`);
        total = p.items.length;
        all = p.items;
        return p.status;
      },
      { timeout: 60_000 },
    )
    .toBe("ready");
  expect(total).toBeGreaterThan(400);

  // the list's order (keep, mutate, add, retire); new environments' keys occur nowhere else on the page
  const ordered = ["keep", "mutate", "add", "retire"].flatMap((op) => all.filter((i) => i.op === op));
  const firstNew = ordered.slice(0, 200).find((i) => i.op === "mutate" || i.op === "add");
  const laterNew = ordered.slice(200, 400).find((i) => i.op === "mutate" || i.op === "add");
  expect(firstNew?.environmentKey && laterNew?.environmentKey).toBeTruthy();

  await signIn(page);
  const asked: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes(`/api/v1/proposals/${proposalId}`)) asked.push(new URL(r.url()).search);
  });
  const html = await (await page.request.get(`/projects/${SLUG}/proposals/${proposalId}`)).text();
  expect(html).toContain(firstNew!.environmentKey);
  expect(html).not.toContain(laterNew!.environmentKey); // beyond the first page: an index entry without its key
  await page.goto(`/projects/${SLUG}/proposals/${proposalId}`);
  await hydrated(page);
  const items = page.getByTestId("proposal-item");
  await expect(items).toHaveCount(200);
  await expect(page.locator('[data-testid="proposal-item"][data-detail="false"]')).toHaveCount(0);
  await expect(page.getByTestId("items-more")).toContainText(`Showing 200 of ${total} items`);

  // "Show more" renders the next page (dispatched: clicking would scroll the list's end into view first), whose details
  // are read in chunks of 100 ids
  await page.getByTestId("items-show-more").dispatchEvent("click");
  await expect(items).toHaveCount(400);
  await expect(page.getByTestId("items-more")).toContainText(`Showing 400 of ${total} items`);
  await expect(page.locator('[data-testid="proposal-item"][data-detail="false"]')).toHaveCount(0);
  await expect(page.getByText(laterNew!.environmentKey!, { exact: true })).toHaveCount(1);
  expect(asked.filter((q) => q.startsWith("?ids=")).map((q) => decodeURIComponent(q).split(",").length)).toEqual([100, 100]);
  expect(asked.filter((q) => q === "")).toEqual([]); // never the whole proposal
  // scrolling near the end renders the rest (fewer than a page)
  await page.getByTestId("items-more").scrollIntoViewIfNeeded();
  await expect(items).toHaveCount(total);
  await expect(page.getByTestId("items-more")).toHaveCount(0);

  // a fresh page: the keyboard walks past the rendered items, rendering and scrolling to the one it selects
  await page.evaluate(() => window.scrollTo(0, 0)); // a reload restores the scroll position
  await page.reload();
  await hydrated(page);
  await expect(items).toHaveCount(200);
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  for (let i = 0; i < 205; i++) await page.keyboard.press("j");
  const selected = page.locator('[data-testid="proposal-item"][data-selected="true"]');
  await expect(selected).toBeInViewport();
  expect(await items.count()).toBeGreaterThanOrEqual(206);
  expect(await selected.evaluate((el) => [...el.parentElement!.children].indexOf(el))).toBe(205);

  // a key's decision comes back as that item alone
  const answer = page.waitForResponse((r) => r.url().includes(`/api/v1/proposals/${proposalId}/review?items=changed`));
  const decided = await selected.getAttribute("data-op");
  await page.keyboard.press("a");
  const body = (await (await answer).json()) as { items: Item[]; itemCount: number };
  expect(body.items.map((i) => i.op)).toEqual([decided]);
  expect(body.itemCount).toBe(total);
  await expect(items.nth(205)).toHaveAttribute("data-decision", "approved");
  await expect(items.nth(206)).toHaveAttribute("data-selected", "true");
  await page.screenshot({ path: "test-results/screens/proposal-scale.png" });
});

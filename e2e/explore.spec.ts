/**
 * The explorer, the run comparison and annotations in the browser: search with a highlighted snippet, a
 * filter put in the URL and reloaded, a saved view; the compare page with its pickers, table and pair
 * link; a rollout page's annotation form (new label, label button, note, turn) listing what was saved,
 * the annotation on its turn, edited and deleted; the annotation queue over an explorer filter (label
 * keys, next / previous, the lock seen and respected by a second reviewer over the API, broken by the admin).
 */
import { expect, test, type APIRequestContext } from "@playwright/test";
import { E2E_TOKEN } from "./global-setup";
import { ADMIN, hydrated, phoneScreenshot, signIn } from "./session";

test.describe.configure({ mode: "serial" });
// each test walks several pages on a machine shared with other builds
test.setTimeout(240_000);

const SLUG = "demo-frozenlake";
const DEMO = `/projects/${SLUG}`;
const admin = { authorization: `Bearer ${E2E_TOKEN}` };

async function api<T>(
  request: APIRequestContext,
  url: string,
  init: { method?: string; data?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await request.fetch(url, { method: init.method ?? "GET", headers: init.headers ?? admin, data: init.data });
  expect(res.ok(), `${init.method ?? "GET"} ${url}: ${res.status()} ${await res.text()}`).toBe(true);
  return (res.status() === 204 ? undefined : await res.json()) as T;
}

test("explore rollouts: search with a snippet, a filter in the URL survives a reload, a saved view reopens it", async ({
  page,
  request,
}) => {
  await signIn(page);
  await page.goto(`${DEMO}/rollouts`);
  await hydrated(page);
  const filters = page.getByTestId("explorer-filters");
  await filters.getByLabel("search").fill("slipping");
  await filters.getByLabel("search").press("Enter");
  await expect(page).toHaveURL(/[?&]q=slipping/);
  const snippet = page.getByTestId("snippet").first();
  await expect(snippet.locator("mark").first()).toHaveText(/slipping/i);
  await page.screenshot({ path: "test-results/screens/explorer-search.png", fullPage: true });

  // a filter typed into the URL, then the page reloaded: the form and the rows follow the URL
  const filter = "q=slipping&success=false&minTurns=4&sort=-turns";
  await page.goto(`${DEMO}/rollouts?${filter}`);
  await page.reload();
  await hydrated(page);
  await expect(filters.getByLabel("search")).toHaveValue("slipping");
  await expect(filters.getByLabel("outcome")).toHaveValue("false");
  await expect(filters.getByLabel("turns at least")).toHaveValue("4");
  const expected = await api<{ items: { id: number }[] }>(request, `/api/v1/projects/${SLUG}/rollouts?${filter}&limit=50`);
  expect(expected.items.length).toBeGreaterThan(0);
  const links = page.getByTestId("rollout-link");
  await expect(links).toHaveCount(expected.items.length);
  expect(await links.evaluateAll((as) => as.map((a) => Number(a.getAttribute("href")!.split("/").pop())))).toEqual(
    expected.items.map((r) => r.id),
  );

  // a saved view keeps the filter: open the bare explorer, then the view
  const views = page.getByTestId("saved-views");
  await views.getByLabel("view name").fill("long slipped failures");
  await views.getByRole("button", { name: "Save current filters" }).click();
  const view = page.getByTestId("saved-view").filter({ hasText: "long slipped failures" });
  await expect(view).toBeVisible();
  await page.goto(`${DEMO}/rollouts`);
  await expect(filters.getByLabel("search")).toHaveValue("");
  await page.getByTestId("saved-view").filter({ hasText: "long slipped failures" }).getByRole("link").click();
  await expect(page).toHaveURL(/success=false/);
  await expect(page).toHaveURL(/minTurns=4/);
  await expect(filters.getByLabel("search")).toHaveValue("slipping");
  await expect(page.getByTestId("rollout-link")).toHaveCount(expected.items.length);
  expect(await links.evaluateAll((as) => as.map((a) => Number(a.getAttribute("href")!.split("/").pop())))).toEqual(
    expected.items.map((r) => r.id),
  );
  await page.screenshot({ path: "test-results/screens/explorer-saved-view.png", fullPage: true });
  await phoneScreenshot(page, "test-results/screens/explorer-390.png");
});

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
  // the annotation on turn 1 shows beside that turn in the trajectory
  await expect(page.locator('[data-turn-index="1"]').getByTestId("turn-annotations")).toContainText('went "left", then =SUM(A1)');
  await page.screenshot({ path: "test-results/screens/rollout-annotations.png", fullPage: true });

  // its author edits it in place, then deletes it (after a confirmation)
  await saved.getByRole("button", { name: /Edit annotation/ }).click();
  await saved.getByLabel("note").fill("went left twice");
  await saved.getByRole("button", { name: "Save" }).click();
  await expect(panel.getByTestId("annotation")).toContainText("went left twice");
  await expect(panel.getByTestId("annotation")).not.toContainText("SUM");
  await panel.getByTestId("annotation-delete").click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
  await expect(panel.getByTestId("annotation")).toHaveCount(0);
  await expect(panel).toContainText("No annotations yet.");
});

test("annotation queue: two label keys, next and previous, the lock seen and respected by a second reviewer, broken by an admin", async ({
  page,
  request,
}) => {
  for (const name of ["queue-good", "queue-bad"]) {
    const res = await request.post(`/api/v1/projects/${SLUG}/labels`, { headers: admin, data: { name } });
    expect([200, 201, 409]).toContain(res.status());
  }
  const labels = (await api<{ labels: { name: string }[] }>(request, `/api/v1/projects/${SLUG}/labels`)).labels.map((l) => l.name);
  const keyOf = (name: string) => String(labels.indexOf(name) + 1);
  expect(Number(keyOf("queue-bad"))).toBeLessThanOrEqual(9);
  const bobName = `queue-bob-${test.info().workerIndex}-${test.info().retry}`;
  const made = await api<{ key: string }>(request, "/api/v1/keys", { method: "POST", data: { name: bobName, role: "reviewer" } });
  const bob = { authorization: `Bearer ${made.key}` };
  const me = `user:${ADMIN.email}`;

  await signIn(page);
  const filter = "success=false&sort=oldest";
  await page.goto(`${DEMO}/rollouts?${filter}`);
  await page.getByTestId("explorer-queue").click();
  await expect(page).toHaveURL(/\/rollouts\/queue\?.*at=\d+/);
  await hydrated(page);
  await expect(page.getByTestId("queue-lock")).toBeVisible();
  const first = Number(new URL(page.url()).searchParams.get("at"));
  const queue = await api<{ rolloutIds: number[]; done: number; total: number }>(
    request,
    `/api/v1/projects/${SLUG}/annotation-queue?${filter}`,
  );
  const i = queue.rolloutIds.indexOf(first);
  expect(i, "the shown rollout is one of the queue").toBeGreaterThanOrEqual(0);
  expect(queue.rolloutIds.length, "the queue has room to move on").toBeGreaterThan(i + 2);
  await expect(page.getByTestId("queue-progress")).toContainText(`${queue.done} / ${queue.total}`);

  // the second reviewer sees the lock, and asking for that rollout is given the next free one instead
  const locks = await api<{ locks: { rolloutId: number; owner: string }[] }>(request, `/api/v1/projects/${SLUG}/annotation-queue/locks`, {
    headers: bob,
  });
  expect(locks.locks).toContainEqual(expect.objectContaining({ rolloutId: first, owner: me }));
  const bobs = await api<{ rolloutId: number; skipped: { rolloutId: number; owner: string }[] }>(
    request,
    `/api/v1/projects/${SLUG}/annotation-queue/claim`,
    { method: "POST", headers: bob, data: { candidates: queue.rolloutIds.slice(i) } },
  );
  expect(bobs.rolloutId).toBe(queue.rolloutIds[i + 1]);
  expect(bobs.skipped).toEqual([expect.objectContaining({ rolloutId: first, owner: me })]);

  // two label keys: each applies its label to the rollout shown
  const panel = page.getByTestId("annotations");
  await page.keyboard.press(keyOf("queue-good"));
  await expect(panel.getByTestId("annotation").filter({ hasText: "queue-good" })).toHaveCount(1);
  await page.keyboard.press(keyOf("queue-bad"));
  await expect(panel.getByTestId("annotation").filter({ hasText: "queue-bad" })).toHaveCount(1);
  // keys pause while typing: a "1" in the note is text, not a label
  await page.getByTestId("queue-controls").getByLabel("note").fill("slips at step 1");
  await page.getByTestId("queue-controls").getByLabel("score").fill("0.5");
  await page.getByTestId("queue-controls").getByLabel("note").press("Enter");
  await expect(panel.getByTestId("annotation").filter({ hasText: "slips at step 1" })).toContainText("score 0.5");
  await expect(panel.getByTestId("annotation")).toHaveCount(3);
  await expect(page.getByTestId("queue-progress")).toContainText(`${queue.done + 1} / ${queue.total}`);
  await page.screenshot({ path: "test-results/screens/annotation-queue.png", fullPage: true });

  // n: the next rollout is the second reviewer's, so the queue skips it; the lock moves along
  // (Escape first: the note field still has the focus, and keys typed there are text)
  await page.keyboard.press("Escape");
  await page.keyboard.press("n");
  await expect(page).toHaveURL(new RegExp(`at=${queue.rolloutIds[i + 2]}(&|$)`));
  await expect(page.getByTestId("queue-notice")).toContainText(`rollout ${queue.rolloutIds[i + 1]}`);
  await expect(page.getByTestId("queue-lock")).toBeVisible();
  await expect
    .poll(async () =>
      (await api<{ locks: { rolloutId: number; owner: string }[] }>(request, `/api/v1/projects/${SLUG}/annotation-queue/locks`)).locks
        .filter((l) => l.owner === me)
        .map((l) => l.rolloutId),
    )
    .toEqual([queue.rolloutIds[i + 2]]);
  await expect(panel.getByTestId("annotation")).toHaveCount(0);
  await page.screenshot({ path: "test-results/screens/annotation-queue-next.png", fullPage: true });

  // p: back past the second reviewer's rollout to the first, with its annotations
  await page.keyboard.press("p");
  await expect(page).toHaveURL(new RegExp(`at=${first}(&|$)`));
  await expect(panel.getByTestId("annotation")).toHaveCount(3);
  await phoneScreenshot(page, "test-results/screens/annotation-queue-390.png");

  // the second reviewer's lock is listed with its holder; an admin breaks it after a confirmation naming them
  await page.setViewportSize({ width: 1280, height: 800 });
  const held = page
    .getByTestId("queue-locks")
    .getByTestId("queue-lock-row")
    .filter({ hasText: new RegExp(`rollout ${bobs.rolloutId}(?!\\d)`) });
  await expect(held).toContainText(bobName);
  await held.getByTestId("queue-break-lock").click();
  const confirm = page.getByTestId("queue-break-lock-confirm");
  await expect(confirm).toContainText(`Break key:${bobName}'s lock on rollout ${bobs.rolloutId}?`);
  await page.screenshot({ path: "test-results/screens/annotation-queue-break-lock.png", fullPage: true });
  await confirm.getByRole("button", { name: "Break the lock" }).click();
  await expect(page.getByTestId("queue-locks").getByRole("status")).toContainText(`rollout ${bobs.rolloutId} is free`);
  await expect(held).toHaveCount(0);
  const afterBreak = await api<{ locks: { rolloutId: number; owner: string }[] }>(
    request,
    `/api/v1/projects/${SLUG}/annotation-queue/locks`,
  );
  expect(afterBreak.locks.map((l) => l.rolloutId)).not.toContain(bobs.rolloutId);
  const audit = await api<{ events: { actor: string; entityId: string; before: { owner: string } }[] }>(
    request,
    `/api/v1/projects/${SLUG}/audit?action=annotation_lock.break`,
  );
  expect(audit.events[0]).toMatchObject({ actor: me, entityId: String(bobs.rolloutId), before: { owner: `key:${bobName}` } });

  // leaving the queue lets go of the lock
  await page.getByRole("link", { name: "Rollouts" }).first().click();
  await expect(page).toHaveURL(/\/rollouts\?/);
  await expect
    .poll(async () =>
      (await api<{ locks: { owner: string }[] }>(request, `/api/v1/projects/${SLUG}/annotation-queue/locks`)).locks.filter(
        (l) => l.owner === me,
      ),
    )
    .toEqual([]);
  await api(request, `/api/v1/projects/${SLUG}/annotation-queue/locks/${bobs.rolloutId}`, { method: "DELETE", headers: bob });
});

/**
 * Every page of the app (app/**\/page.tsx), on the demo project and on a Harbor project made from real
 * Terminal-Bench trials: at 390 px nothing scrolls sideways and axe-core reports no serious or critical
 * violation; screenshots at 390 and 1440 px land in test-results/screens/a11y/. (/setup exists only
 * before the first account: the first-run spec checks it.)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import * as tar from "tar";
import { checkPage } from "./a11y-check";
import { E2E_TOKEN } from "./global-setup";
import { hydrated, signIn } from "./session";

const admin = { authorization: `Bearer ${E2E_TOKEN}` };
const fixtures = process.env.ENVFORGE_FIXTURES ?? path.resolve(import.meta.dirname, "../../shared/fixtures");
const DEMO = "demo-frozenlake";
const HARBOR = "a11y-harbor";

async function api<T>(request: APIRequestContext, url: string, init: { method?: string; data?: unknown } = {}): Promise<T> {
  const res = await request.fetch(url, { method: init.method ?? "GET", headers: admin, data: init.data });
  expect(res.ok(), `${init.method ?? "GET"} ${url}: ${res.status()} ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

/** A Harbor project from the trials of two Terminal-Bench tasks (one generation, real trajectories). */
async function seedHarborProject(request: APIRequestContext) {
  const job = path.join(fixtures, "harbor-tb2", "tmax-9b", "terminal-bench-2-0");
  expect(fs.existsSync(job), `fixtures missing at ${job}`).toBe(true);
  await api(request, "/api/v1/projects", { method: "POST", data: { slug: HARBOR, name: "Harbor a11y", family: "terminal-task" } });
  const tasks = new Set<string>();
  const trials = fs
    .readdirSync(job)
    .sort()
    .filter((d) => {
      if (!fs.existsSync(path.join(job, d, "result.json"))) return false;
      tasks.add(d.split("__")[0]);
      return tasks.size <= 2;
    });
  const archive = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "e2e-a11y-")), "job.tar.gz");
  await tar.c({ gzip: true, file: archive, cwd: job, portable: true }, trials);
  const res = await request.post(`/api/v1/projects/${HARBOR}/imports?kind=harbor&filename=job.tar.gz&generation=0`, {
    headers: { ...admin, "content-type": "application/gzip" },
    data: fs.readFileSync(archive),
  });
  expect(res.status(), await res.text()).toBe(202);
  const id = (await res.json()).id;
  await expect
    .poll(async () => (await api<{ status: string }>(request, `/api/v1/imports/${id}`)).status, { timeout: 120_000 })
    .toBe("succeeded");
}

interface Urls {
  pages: [name: string, url: string][];
}

async function pagesToVisit(request: APIRequestContext): Promise<Urls> {
  const gens = await api<{ generations: { index: number; status: string }[] }>(request, `/api/v1/projects/${DEMO}/generations`);
  const materialized = gens.generations.find((g) => g.status === "materialized" || g.status === "approved");
  expect(materialized, "the demo has a materialized generation").toBeTruthy();
  // a dispatch to an export target, so the dispatch pages have one to show
  await api(request, `/api/v1/projects/${DEMO}/targets`, {
    method: "POST",
    data: { name: "a11y-export", kind: "trainer", adapter: "export", config: { directory: "a11y" } },
  });
  const { dispatchId } = await api<{ dispatchId: string }>(
    request,
    `/api/v1/projects/${DEMO}/generations/${materialized!.index}/dispatch`,
    {
      method: "POST",
      data: { target: "a11y-export" },
    },
  );
  const proposals = await api<{ proposals: { id: string }[] }>(request, `/api/v1/projects/${DEMO}/proposals`);
  expect(proposals.proposals.length, "the demo has a proposal").toBeGreaterThan(0);
  const demoEnv = (await api<{ items: { key: string }[] }>(request, `/api/v1/projects/${DEMO}/generations/1/environments?limit=1`)).items[0]
    .key;
  const demoRollout = (await api<{ items: { id: string }[] }>(request, `/api/v1/projects/${DEMO}/rollouts?limit=1`)).items[0].id;
  const harborEnv = (await api<{ items: { key: string }[] }>(request, `/api/v1/projects/${HARBOR}/generations/0/environments?limit=1`))
    .items[0].key;
  const harborRollout = (await api<{ items: { id: string }[] }>(request, `/api/v1/projects/${HARBOR}/rollouts?limit=1`)).items[0].id;
  const d = `/projects/${DEMO}`;
  const h = `/projects/${HARBOR}`;
  return {
    pages: [
      ["projects", "/"],
      ["families", "/families"],
      ["family", "/families/frozenlake-mapf"],
      ["family-terminal", "/families/terminal-task"],
      ["family-register", "/families/new"],
      ["arena", "/arena"],
      ["forbidden", "/forbidden"],
      ["keys", "/settings/keys"],
      ["users", "/settings/users"],
      ["demo-project", d],
      ["demo-generation", `${d}/generations/1`],
      ["demo-failures", `${d}/generations/1/failures`],
      ["demo-environment", `${d}/environments/${encodeURIComponent(demoEnv)}`],
      ["demo-environment-compare", `${d}/environments/${encodeURIComponent(demoEnv)}/compare`],
      ["demo-explorer", `${d}/rollouts?success=false`],
      ["demo-rollout", `${d}/rollouts/${demoRollout}`],
      ["demo-queue", `${d}/rollouts/queue?success=false`],
      ["demo-compare", `${d}/compare`],
      ["demo-proposal", `${d}/proposals/${proposals.proposals[0].id}`],
      ["demo-dispatches", `${d}/dispatches`],
      ["demo-dispatch", `${d}/dispatches/${dispatchId}`],
      ["demo-targets", `${d}/targets`],
      ["demo-audit", `${d}/audit`],
      ["harbor-project", h],
      ["harbor-generation", `${h}/generations/0`],
      ["harbor-failures", `${h}/generations/0/failures`],
      ["harbor-environment", `${h}/environments/${encodeURIComponent(harborEnv)}`],
      ["harbor-environment-compare", `${h}/environments/${encodeURIComponent(harborEnv)}/compare`],
      ["harbor-explorer", `${h}/rollouts?q=pytest`],
      ["harbor-rollout", `${h}/rollouts/${harborRollout}`],
      ["harbor-queue", `${h}/rollouts/queue?q=pytest`],
      ["harbor-audit", `${h}/audit`],
    ],
  };
}

/** After a full load: hydrated, and the client queries have settled. */
async function settle(page: Page) {
  await hydrated(page);
  await page.waitForLoadState("networkidle", { timeout: 15_000 }).catch(() => undefined);
}

test("every page fits a 390 px phone and passes axe-core", async ({
  browser,
  request,
}: {
  browser: Browser;
  request: APIRequestContext;
}) => {
  test.setTimeout(600_000);
  await seedHarborProject(request);
  const urls = await pagesToVisit(request);
  // axe-core's Playwright runner needs pages from a context made with browser.newContext()
  const anonymous = await (await browser.newContext()).newPage();
  await checkPage(anonymous, "signin", async () => {
    await anonymous.goto("/signin");
    await hydrated(anonymous);
  });
  await anonymous.context().close();

  const page = await (await browser.newContext()).newPage();
  await signIn(page);
  for (const [name, url] of urls.pages) {
    await checkPage(page, name, async () => {
      const res = await page.goto(url);
      expect(res?.status(), `${url} answers`).toBeLessThan(400);
      await settle(page);
    });
  }
  await page.context().close();
});

/**
 * Review of an evolved Harbor task in the browser (issue 14, point 4): the per-file diff with added
 * and removed lines highlighted and the task.toml changes, an inline CodeMirror edit that the server
 * refuses when task.toml breaks Harbor's rules, a valid edit that becomes the item's files, and undo.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import * as tar from "tar";
import { hydrated, signIn } from "./session";

const admin = { Authorization: "Bearer e2e-bootstrap-token-0123456789" };
const fixtures = process.env.ENVFORGE_FIXTURES ?? path.resolve(import.meta.dirname, "../../shared/fixtures");

test("diff review of an evolved task and an inline edit of task.toml, validated and undone", async ({ page, request }) => {
  const tasks = path.join(fixtures, "harbor-tasks", "tasks");
  expect(fs.existsSync(tasks), `fixtures missing at ${tasks}`).toBe(true);
  expect(
    (
      await request.post("/api/v1/projects", { headers: admin, data: { slug: "evolve-e2e", name: "Evolve", family: "terminal-task" } })
    ).status(),
  ).toBe(201);
  const archive = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "e2e-evolve-")), "tasks.tar.gz");
  await tar.c({ gzip: true, file: archive, cwd: path.dirname(tasks), portable: true }, ["tasks"]);
  const created = await request.post("/api/v1/projects/evolve-e2e/imports?kind=harbor-tasks&filename=tasks.tar.gz&generation=0", {
    headers: { ...admin, "content-type": "application/gzip" },
    data: fs.readFileSync(archive),
  });
  expect(created.status()).toBe(202);
  const id = (await created.json()).id;
  await expect
    .poll(async () => (await (await request.get(`/api/v1/imports/${id}`, { headers: admin })).json()).status, { timeout: 60_000 })
    .toBe("succeeded");
  const proposed = await request.post("/api/v1/projects/evolve-e2e/generations/0/proposals", {
    headers: admin,
    data: { engineer: "heuristic", options: { seed: 2 } },
  });
  expect(proposed.status()).toBe(202);
  const proposalId = (await proposed.json()).proposalId;
  await expect
    .poll(async () => (await (await request.get(`/api/v1/proposals/${proposalId}`, { headers: admin })).json()).status, { timeout: 60_000 })
    .toBe("ready");

  await signIn(page);
  await page.goto(`/projects/evolve-e2e/proposals/${proposalId}`);
  await hydrated(page);
  const item = page.locator('[data-testid="proposal-item"][data-op="mutate"]').first();
  await item.click();
  const review = item.getByTestId("task-files-review");
  await expect(review).toBeVisible();
  await expect(review.getByTestId("task-toml-changes")).toBeVisible();
  const diff = review.locator('[data-testid="file-diff"][data-path="task.toml"]');
  await expect(diff.getByTestId("diff-line-add").first()).toBeVisible();
  await expect(diff.getByTestId("diff-line-del").first()).toBeVisible();
  await page.screenshot({ path: "test-results/screens/evolve-diff.png", fullPage: true });

  // an inline edit that breaks Harbor's task config is refused with the field named
  await review.getByTestId("task-file-edit").first().click();
  const editor = review.getByTestId("task-file-editor");
  await expect(editor.locator(".cm-content")).toContainText("[agent]");
  await editor.locator(".cm-content").click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.insertText('[task]\nname = "harbor/evolved"\n\n[agent]\ntimeout_sec = -5\n');
  await review.getByTestId("task-file-save").click();
  await expect(review.getByTestId("task-file-error")).toContainText("agent.timeout_sec");
  await page.screenshot({ path: "test-results/screens/evolve-edit-refused.png", fullPage: true });

  // a valid edit becomes the item's files
  await editor.locator(".cm-content").click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.insertText('[task]\nname = "harbor/evolved"\n\n[agent]\ntimeout_sec = 45.0\n\n[verifier]\ntimeout_sec = 120.0\n');
  await review.getByTestId("task-file-save").click();
  await expect(review).toHaveAttribute("data-source", "reviewer");
  await expect(review.getByTestId("task-toml-changes")).toContainText("harbor/evolved");
  await page.screenshot({ path: "test-results/screens/evolve-edited.png", fullPage: true });

  // undo brings back the engineer's version
  await review.getByTestId("task-files-undo").click();
  await expect(review).toHaveAttribute("data-source", "config");
  await expect(review.getByTestId("task-toml-changes")).not.toContainText("harbor/evolved");
});
